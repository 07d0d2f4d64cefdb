#ifndef BBO_SERVER_STORE_RECORDS_H_
#define BBO_SERVER_STORE_RECORDS_H_

// The records the coordinator's store keeps (server/store/store.h): plain values, no behaviour.
// Times are seconds since the Unix epoch (double); durations are seconds.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/batch_figures.h"
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
  // The phase it was submitted to or migrated into: its key ("" = the one phase of a
  // coordinator started from flags; a competition file's phase name otherwise). Submission
  // names are unique within a phase.
  std::string phase;
  // The submission of an earlier phase it was migrated from (0 = submitted directly).
  int64_t migrated_from = 0;
  // Why its team took it back ("withdrawn by ..."; JobStore::CancelQueuedJobs), "" while entered.
  std::string withdrawn;
  // Why it is off its board ("hidden by ...: reason", "team disqualified by ...: reason";
  // SubmissionStore::SetHidden), "" while shown. A hidden submission is not scored at all: its
  // studies are left out of the scoring data. (A withdrawn one stays on its board, scored on
  // what it ran, as a race ranks it.)
  std::string hidden;
  bool on_board() const { return hidden.empty(); }
};

// The boards of a phase. Every job belongs to one: the phase's own board (kMainBoard) or, in a
// final phase that also produces one, the warm-start board (kWarmStartBoard), on which the same
// submissions run the same problems and seeds with the real parameter names (Turner et al. (2021)
// §4.7).
inline constexpr char kMainBoard[] = "";
inline constexpr char kWarmStartBoard[] = "warm-start";
// The board keys of a phase: a coordinator started from flags runs one phase whose key is ""
// and whose boards are kMainBoard and kWarmStartBoard; phase P of a competition file has the
// boards "P" and "P/warm-start". Jobs and studies carry these keys.
std::string MainBoardKey(const std::string& phase_key);
std::string WarmStartBoardKey(const std::string& phase_key);
bool IsWarmStartBoard(const std::string& board);
// The phase key of a board key ("" for kMainBoard and kWarmStartBoard).
std::string PhaseKeyOfBoard(const std::string& board);

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
  // Batches this job's study runs (0 = the phase's n_batches): a racing phase stops a method at
  // its tau_A (server/race.h) by queuing shorter jobs.
  int max_batches = 0;
};

// What RecoverAfterRestart did.
struct RecoveryCounts {
  int studies_abandoned = 0;  // running studies of the previous coordinator
  int jobs_requeued = 0;      // leased jobs without a final study, back in the queue
  int jobs_done = 0;          // leased jobs whose final study had ended
};

// A job that ended without a final study, for organizers (JobStore::ListFailedJobs).
struct FailedJob {
  JobRecord job;
  std::string submission;  // its name
  std::string last_error;  // why its last attempt ended ("withdrawn by ...", "lease expired")
};

struct JobCounts {
  // `failed` counts every job that ended without a final study; `withdrawn` those of them its
  // team (or an organizer) cancelled, so failed - withdrawn were lost to the platform.
  int total = 0, queued = 0, leased = 0, done = 0, failed = 0, withdrawn = 0;
  int lost() const { return failed - withdrawn; }
};

// Study states, persisted as text.
enum class StudyState { kRunning, kCompleted, kCutOff, kFailed, kAbandoned };
const char* StudyStateName(StudyState s);
// Completed, cut off and failed studies are scored; running and abandoned ones are not.
bool IsScoredState(StudyState s);
// How every Store keeps an objective value: NaN becomes +inf (a crashed evaluation; SQLite
// would turn NaN into NULL).
double StoredValue(double v);

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
  // The host's per-batch figures of the turn (common/batch_figures.h), each unset when unknown
  // (and for built-in batches): a column of `batches` each.
  BatchFigures figures;
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
  // The optimizer's time at the end of each batch, seconds: the running sum of the batches'
  // turn_time_s (BatchRecord), the time the study budget counts (evaluating the objective is not
  // in it). Same size as batch_min; a batch missing from the record adds nothing.
  std::vector<double> batch_end_seconds;
  // The host's figures of each batch (BatchRecord::figures). Same size as batch_min.
  std::vector<BatchFigures> batch_figures;
  // The batches the study was planned to run (its budget's n_batches): fewer than the phase's
  // when a race stopped it at its tau_A (RaceJob::max_batches), which is not the optimizer's
  // doing (a study cut off early was planned in full).
  int planned_batches = 0;
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

// A study of a submission as its log lists it (StudyStore::ListSubmissionStudies).
struct StudySummary {
  int64_t study_id = 0;
  int64_t job_id = 0;  // 0 = a practice study
  std::string problem;
  int trial = 0;
  std::string board;
  StudyState state = StudyState::kRunning;
  int batches_done = 0;
  int n_batches = 0;
  // Why it ended ("" while running).
  std::string end_reason;
  // Batches whose points all came from random search instead of the optimizer (its suggest
  // failed, or every point it suggested was invalid), and points replaced one by one.
  int random_batches = 0;
  int replaced_points = 0;
};

// One evaluation of a scored study, as the results CSV lists it (ScoringStore::
// ScoredEvaluations). A scored study without any evaluation is one row with `has_evaluation`
// false (and batch, suggestion, value, generalization unset) so that its trial still counts.
struct ScoredEvaluationRecord {
  std::string problem;
  std::string method;  // the submission's name
  int trial = 0;
  bool has_evaluation = true;
  int batch = 0;
  int suggestion = 0;  // index within the batch
  double value = 0;    // +inf for a crashed evaluation
  std::optional<double> generalization;  // the held-out loss, when the problem has one
  BatchFigures figures;                  // the host's figures of its batch
  int planned_batches = 0;               // its study's (StudyCurve::planned_batches)
};

// One round of a racing phase (RaceStore): the planner's state after the round's decisions
// (scoring/plackett_luce/racing.h, serialized by server/race.cc), whether the race stopped, and
// how many jobs the round queued.
struct RaceRoundRecord {
  std::string phase;
  int round = 0;
  std::string state_json;
  bool stop = false;
  // Why it stopped or what the round decided, for organizers.
  std::string note;
  int jobs = 0;
  double created_at = 0;
};

// A job a race round queues: submission x problem x trial, run for max_batches batches.
struct RaceJob {
  int64_t submission_id = 0;
  std::string problem;
  int trial = 0;
  int64_t seed = 0;
  int max_batches = 0;
};

// A job of a racing phase and what it produced (RaceStore::RaceResults).
struct RaceResultRecord {
  int64_t job_id = 0;
  int64_t submission_id = 0;
  std::string problem;
  int trial = 0;
  int max_batches = 0;
  JobState state = JobState::kQueued;
  // Per batch, the lowest value of the batch (+inf: no finite value) of the job's final scored
  // study (completed, cut off, failed); empty when the job has none (yet).
  std::vector<double> batch_min;
  bool has_final_study = false;
  // Evaluations recorded for the job, over all of its studies (what it ran, attempts included).
  int64_t evaluations = 0;
  // Why its last attempt ended ("" when none failed; "withdrawn by ..." when cancelled).
  std::string last_error;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_RECORDS_H_
