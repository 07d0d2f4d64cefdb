#ifndef BBO_SERVER_STORE_STORE_H_
#define BBO_SERVER_STORE_STORE_H_

// Store: the coordinator's durable state (submissions, job queue, workers, studies, every
// suggestion with its value and timing, errors). The SQLite implementation is SqliteStore; the
// interface is the seam for fault injection (a full disk, a lost connection).
//
// Every method is one transaction: it either fully happens or returns an error and changes
// nothing. Implementations are thread-safe. Times are seconds since the Unix epoch (double).

#include <cstdint>
#include <map>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/study_budget.h"

namespace bbo {

// How a submission runs. Values match bbo.v1.SubmissionKind; kBuiltin is the coordinator's own
// random-search baseline.
enum class SubmissionKind { kUnspecified = 0, kPython = 1, kExecutable = 2, kBuiltin = 100 };

struct SubmissionRecord {
  int64_t id = 0;
  std::string name;
  SubmissionKind kind = SubmissionKind::kUnspecified;
  std::string digest;  // sha-like hex digest of the archive
  int trials = 0;      // trials per problem
  bool is_baseline = false;
  double created_at = 0;
  // The team that submitted it ("" = not given); per-team submission limits count these.
  std::string team;
};

// The boards of a phase. Every job belongs to one: the phase's own board (kMainBoard) or, in a
// final phase that also produces one, the warm-start board (kWarmStartBoard), on which the same
// submissions run the same problems and seeds with the real parameter names (seed 001 §4.7).
inline constexpr char kMainBoard[] = "";
inline constexpr char kWarmStartBoard[] = "warm-start";

enum class JobState { kQueued, kLeased, kDone, kFailed };

struct JobRecord {
  int64_t id = 0;
  int64_t submission_id = 0;
  std::string problem;
  int trial = 0;
  int64_t seed = 0;
  std::string board;  // kMainBoard or kWarmStartBoard
  JobState state = JobState::kQueued;
  std::string worker_id;
  double lease_expires_at = 0;
  int attempts = 0;
};

struct JobCounts {
  int total = 0, queued = 0, leased = 0, done = 0, failed = 0;
};

// Study states, persisted as text.
enum class StudyState { kRunning, kCompleted, kCutOff, kFailed, kAbandoned };
const char* StudyStateName(StudyState s);

struct StudyRecord {
  int64_t id = 0;
  std::optional<int64_t> job_id;  // unset for practice studies opened by remote clients
  int64_t submission_id = 0;      // 0 for practice studies
  std::string problem;
  int trial = 0;
  StudyState state = StudyState::kRunning;
  StudyBudget budget;
  double started_at = 0;
  // ProblemSignature() of the problem when the study was opened ("" = not recorded).
  std::string problem_signature;
  // The board the study counts for (its job's board; kMainBoard for practice studies).
  std::string board;
};

// Where the points of a batch came from.
enum class BatchSource { kOptimizer, kRandomFill, kBaseline };

struct EvaluationRecord {
  std::string params_json;  // the evaluated point, JSON object
  double value = 0;         // objective; +inf for a crashed evaluation
  bool replaced = false;    // true when random search replaced an invalid suggestion
  double eval_time_s = 0;
  // What the optimizer suggested for this slot when it was replaced (JSON, or an explanation
  // when it could not be decoded); empty otherwise.
  std::string suggested_json;
  // The problem's held-out ("generalization") loss at the point, for problems that have one
  // (ML and scikit-learn problems, external problems that report it); unset otherwise.
  std::optional<double> generalization;
};

struct BatchRecord {
  int64_t study_id = 0;
  int batch = 0;
  BatchSource source = BatchSource::kOptimizer;
  // Optimizer time for this batch on the coordinator's clock (values of the previous batch
  // returned -> these suggestions received), seconds.
  double turn_time_s = 0;
  // Suggest / observe time measured by the host (worker), seconds; informational.
  double host_suggest_time_s = 0;
  double host_observe_time_s = 0;
  // Wall time the coordinator spent evaluating the batch, seconds.
  double eval_time_s = 0;
  std::vector<EvaluationRecord> evaluations;
  // Errors found in this batch (invalid suggestions, suggest failure), recorded with it.
  std::vector<std::string> errors;
  // Study totals after this batch.
  double optimizer_time_s = 0;
  double best_value = 0;
};

// One finished study's batch minima, for scoring.
struct StudyCurve {
  int64_t study_id = 0;
  int trial = 0;
  std::vector<double> batch_min;  // size = batches recorded (may be fewer than n_batches)
};

struct ScoringData {
  // submission name -> problem -> curves of finished (completed / cut off / failed) studies of
  // non-baseline submissions; the latest finished study per job.
  std::map<std::string, std::map<std::string, std::vector<StudyCurve>>> methods;
  // problem -> every evaluation of the baseline's finished studies.
  std::map<std::string, std::vector<double>> baseline_evals;
};

struct ScoringChanges {
  int64_t seq = 0;
  std::vector<std::string> problems;
};

struct StudyErrorRecord {
  int64_t study_id = 0;
  int batch = 0;
  std::string kind;
  std::string message;
};

class Store {
 public:
  virtual ~Store() = default;

  // --- submissions and the job queue
  // Inserts a submission with its archive and queues one job per board x problem x trial
  // (seeds derived from `seed_base`; the same seed on every board, so boards are paired). The
  // jobs of the first board come first in the queue. AlreadyExists when the name is taken.
  virtual absl::StatusOr<int64_t> AddSubmission(const SubmissionRecord& s,
                                                const std::string& archive,
                                                const std::vector<std::string>& problems,
                                                int64_t seed_base,
                                                const std::vector<std::string>& boards) = 0;
  absl::StatusOr<int64_t> AddSubmission(const SubmissionRecord& s, const std::string& archive,
                                        const std::vector<std::string>& problems,
                                        int64_t seed_base) {
    return AddSubmission(s, archive, problems, seed_base, {kMainBoard});
  }
  virtual absl::StatusOr<SubmissionRecord> GetSubmission(int64_t id) = 0;
  virtual absl::StatusOr<std::optional<SubmissionRecord>> FindSubmission(
      const std::string& name) = 0;
  virtual absl::StatusOr<std::string> GetSubmissionArchive(int64_t id) = 0;
  virtual absl::StatusOr<std::vector<SubmissionRecord>> ListSubmissions() = 0;
  // The non-baseline submissions whose archive has this digest.
  virtual absl::StatusOr<std::vector<SubmissionRecord>> FindSubmissionsByDigest(
      const std::string& digest) = 0;
  // How many submissions `team` has registered.
  virtual absl::StatusOr<int> CountTeamSubmissions(const std::string& team) = 0;
  virtual absl::StatusOr<JobCounts> CountJobs(int64_t submission_id) = 0;
  virtual absl::StatusOr<int> CountStudiesWithErrors(int64_t submission_id) = 0;

  // Leases the oldest queued job of a non-builtin submission to `worker_id` until
  // `lease_expires_at`. nullopt when none is queued.
  virtual absl::StatusOr<std::optional<JobRecord>> LeaseJob(const std::string& worker_id,
                                                            double lease_expires_at) = 0;
  // Leases the oldest queued job of builtin submissions (run by the coordinator itself).
  virtual absl::StatusOr<std::optional<JobRecord>> LeaseBuiltinJob(const std::string& owner,
                                                                   double lease_expires_at) = 0;
  virtual absl::StatusOr<JobRecord> GetJob(int64_t job_id) = 0;
  // Extends every lease held by `worker_id`.
  virtual absl::Status RenewLeases(const std::string& worker_id, double lease_expires_at) = 0;
  // Returns leased jobs whose lease expired before `now` to the queue (or to kFailed after
  // `max_attempts`) and marks their running studies abandoned. Returns the requeued job ids.
  virtual absl::StatusOr<std::vector<int64_t>> ExpireLeases(double now, int max_attempts) = 0;
  // Ends a leased job held by `worker_id`: kDone, or back to the queue when `error` is set and
  // attempts remain (kFailed otherwise). FailedPrecondition when the lease is not held.
  virtual absl::Status FinishJob(int64_t job_id, const std::string& worker_id,
                                 const std::string& error, int max_attempts) = 0;

  // --- workers
  virtual absl::Status RegisterWorker(const std::string& worker_id, const std::string& hostname,
                                      int slots, double now) = 0;
  // NotFound when the worker is unknown.
  virtual absl::Status TouchWorker(const std::string& worker_id, double now) = 0;

  // --- studies
  virtual absl::StatusOr<int64_t> CreateStudy(const StudyRecord& s) = 0;
  virtual absl::StatusOr<StudyRecord> GetStudy(int64_t study_id) = 0;
  // Appends a batch (its evaluations, errors and timings) and updates the study's totals.
  virtual absl::Status RecordBatch(const BatchRecord& b) = 0;
  virtual absl::Status RecordStudyError(const StudyErrorRecord& e) = 0;
  // Moves a running study to a final state. A study already final is left unchanged (returns
  // its state).
  virtual absl::StatusOr<StudyState> EndStudy(int64_t study_id, StudyState state,
                                              const std::string& reason, double ended_at,
                                              double optimizer_time_s) = 0;
  virtual absl::StatusOr<std::vector<StudyErrorRecord>> ListStudyErrors(int64_t study_id) = 0;
  // The first `limit` errors of a submission's studies, oldest first, with problem names.
  virtual absl::StatusOr<std::vector<std::pair<std::string, StudyErrorRecord>>>
  ListSubmissionErrors(int64_t submission_id, int limit) = 0;
  // The values of one study, batch by batch.
  virtual absl::StatusOr<std::vector<std::vector<double>>> StudyValues(int64_t study_id) = 0;

  // Distinct (problem, signature) pairs of the recorded studies (signature recorded).
  virtual absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
  ProblemSignatures() = 0;
  // Ids of every study, ascending.
  virtual absl::StatusOr<std::vector<int64_t>> ListStudyIds() = 0;
  // Every evaluation of a study, in batch and index order.
  virtual absl::StatusOr<std::vector<std::pair<int, EvaluationRecord>>> StudyEvaluations(
      int64_t study_id) = 0;

  // --- scoring
  // The scored data of `problems` (every problem when empty) on `board`: the methods' studies
  // of that board; the baseline's studies whatever their board (random search does not read
  // parameter names).
  virtual absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems,
                                                      const std::string& board) = 0;
  absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems) {
    return LoadScoringData(problems, kMainBoard);
  }
  absl::StatusOr<ScoringData> LoadScoringData() { return LoadScoringData({}, kMainBoard); }
  // Studies reach a scored final state (completed, cut off, failed) in a sequence 1, 2, ...
  // Returns the latest sequence number and the problems of the studies finalized after
  // `after_seq` (sorted, distinct). Only these problems' scoring data can have changed.
  virtual absl::StatusOr<ScoringChanges> ScoringChangesSince(int64_t after_seq) = 0;
  // Writes the evaluations that LoadScoringData(board) scores (plus the baseline's) as a results
  // CSV, problem,method,trial,batch,suggestion,value,generalization (the format of `bbo
  // score`); generalization is the held-out loss, or the value itself for problems without one.
  // A finished study without any evaluation is written as one `inf` row so that its trial
  // still counts.
  virtual absl::Status ExportResultsCsv(std::ostream& out, const std::string& board) = 0;
  absl::Status ExportResultsCsv(std::ostream& out) { return ExportResultsCsv(out, kMainBoard); }
  // The boards that have jobs, kMainBoard first.
  virtual absl::StatusOr<std::vector<std::string>> ListBoards() = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_STORE_H_
