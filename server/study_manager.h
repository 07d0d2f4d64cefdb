#ifndef BBO_SERVER_STUDY_MANAGER_H_
#define BBO_SERVER_STUDY_MANAGER_H_

// StudyManager: the study state machine of the open-loop suggest/observe protocol.
//
//   Open -> (SubmitBatch | ReportSuggestFailure)* -> completed | cut_off | failed | abandoned
//
// The coordinator's clock runs while the optimizer holds the turn: from the moment a study is
// opened or a batch's values are returned until the next batch (or failure report) arrives.
// A turn longer than the per-suggest budget, or a study total over the study budget, cuts the
// study off (DeadlineExceeded); its best value so far stands (Turner et al. (2021) §3.4).
//
// Who evaluates. A study opened for a job with the signature of the problem its worker built
// (OpenForJob's `problem_signature`) is evaluated by that worker: SubmitBatch and
// ReportSuggestFailure answer the points to evaluate (BatchOutcome::to_evaluate) and the
// study waits, its optimizer clock stopped, until ReportValues brings their values; the batch is
// then recorded as a coordinator-evaluated one is. Such a study's turn is charged what its
// (trusted) worker measured of the optimizer's own suggest and observe, capped by the
// coordinator's clock: network, queueing, evaluation and store time are never charged. Every
// other study is evaluated here, between the turn's end and the answer (not charged either). Invalid
// points are replaced one by one by random-search points and the errors are recorded on the study
// (the study goes on); a suggest failure gets a whole random-search batch; a dead optimizer ends
// the study as failed with its best so far. Every batch (points, values, timings, errors) is
// written to the Store in one transaction before the values are returned.
//
// Ending a study is decided in memory first: from then on it accepts no more batches
// (DeadlineExceeded once cut off, FailedPrecondition otherwise). The end is then written to the
// store (the error that ended it, then StudyStore::EndStudy). When the store refuses the write,
// the study stays in memory as "ending" and every Sweep() retries the write until it succeeds;
// the call that ended it returns the store error. Retried rather than rolled back: the cause
// (a budget that ran out, a dead optimizer, a host that gave up) is a fact that a store outage
// does not undo, and a rolled-back study would accept batches its budget no longer allows.
//
// Thread-safe. Batches of different studies run concurrently; a study handles one call at a
// time (a concurrent call on the same study gets Aborted).

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/batch_figures.h"
#include "common/clock.h"
#include "common/opened_study.h"
#include "common/optimizer_limits.h"
#include "common/search_space.h"
#include "common/study_budget.h"
#include "problems/evaluator.h"
#include "server/access.h"
#include "server/anonymize.h"
#include "server/metrics.h"
#include "server/problem_set.h"
#include "server/store/job_store.h"
#include "server/store/study_store.h"

namespace bbo {

struct StudyOptions {
  // Shape and time budget of every study.
  StudyBudget budget;
  // What a hosted optimizer may use on its worker (sent with every study).
  OptimizerLimits optimizer_limits;
  // Practice studies (remote clients) whose turn has run this much past the budget are cut off
  // by Sweep(), seconds.
  double sweep_grace_s = 5;
  // Time a hosted optimizer may take to start (from OpenForJob until the worker reports it
  // ready with OptimizerReady), seconds. Start-up is not charged to any budget.
  double startup_budget_s = 60;
  // Hidden phases: optimizers see opaque parameter names (server/anonymize.h), shuffled with
  // this seed. Points are stored and evaluated under the real names.
  bool anonymize = false;
  uint64_t anonymize_seed = 0;
  // A hidden phase: the problems and practice studies on them are for organizers only
  // (server/access.h).
  bool hidden_phase = false;
  // No identities: anonymous callers may host and open studies (AccessPolicy).
  bool allow_anonymous = false;
  // Keep evaluating the phase's objectives here even when workers could (the lease then carries
  // no problem definition): for organizers who will not place problems on worker hosts
  // (docs/security.md, "Where objectives run").
  bool evaluate_on_coordinator = false;
};

struct BatchOutcome {
  std::vector<Point> evaluated;   // the points evaluated, in order (as the optimizer sees them)
  std::vector<double> values;     // one per point; +inf for a crashed evaluation
  // A study its worker evaluates: the points to evaluate under the problem's real names;
  // `values` is then empty until ReportValues.
  std::vector<Point> to_evaluate;
  std::vector<std::string> errors;
  bool study_done = false;
  double remaining_s = 0;
};

// A problem as a remote client sees it.
struct ProblemInfo {
  std::string name;
  std::string description;
  std::string api_config_json;
};

// A suggestion as received: a point, or why it could not even be decoded.
struct IncomingPoint {
  Point point;
  std::string decode_error;  // non-empty: the point is invalid for this reason
};

// The problems and study options of one phase (a coordinator serves one or more).
struct StudyPhase {
  std::string key;  // the phase's store key (PhaseSpec::key)
  const ProblemSet* problems = nullptr;
  StudyOptions options;
};

class StudyManager {
 public:
  // The studies of a competition's phases: a job's study runs under the phase of its board; the
  // first phase is the default of practice studies and ListProblems. `phases` must not be
  // empty. Dependencies (the phases' problem sets included) are not owned and must outlive the
  // manager. `jobs` is read only (GetJob).
  StudyManager(StudyStore* studies, JobStore* jobs, std::vector<StudyPhase> phases,
               Evaluator* evaluator, Clock* clock);

  // Every call takes its caller's identity once. A remote caller acts on its own studies only:
  // the worker identity that opened it for its job (set_worker_check), or the team or
  // organizer that opened a practice study; organizers may act on any, and so may the
  // coordinator's own work (Identity::Coordinator(): its baseline runner). Another caller's
  // running study is answered NotFound, as an unknown one is.

  // Opens a study for job `job_id`, leased by `worker_id`, which `who` must have registered (a
  // worker token; Identity::Coordinator() for the coordinator's own runner). NotFound (unknown
  // job), FailedPrecondition (the job is not leased by this worker). A job that already has a
  // running study abandons it (the worker restarted the job). A store error writing that end is
  // returned (the end stays pending; Sweep retries it) and no study is opened.
  // `problem_signature` non-empty: the worker built the job's problem from its definition and
  // evaluates the study itself (see the class comment). A signature other than the problem's
  // is refused (FailedPrecondition) and reported to set_signature_mismatch, which hands the job
  // to another worker.
  absl::StatusOr<OpenedStudy> OpenForJob(const Identity& who, int64_t job_id,
                                         const std::string& worker_id,
                                         const std::string& problem_signature = "");
  // Opens a practice study on a named problem of phase `phase_key` (nullopt: the first phase),
  // for teams and organizers (AccessPolicy::RequireParticipant; in a hidden phase organizers
  // only). It belongs to its opener. NotFound for an unknown problem or phase.
  absl::StatusOr<OpenedStudy> OpenPractice(const Identity& who, const std::string& problem,
                                           const std::optional<std::string>& phase_key = {});

  // Evaluates one batch, suggested in a turn the host reports as `turn`. NotFound (unknown
  // study, or another caller's), FailedPrecondition (study not running, or `batch` is not the
  // next batch), DeadlineExceeded (over budget: the study is now cut off), Aborted (another
  // call on this study is in progress), InvalidArgument (more points than any batch holds:
  // refused, the batch stays open), store errors as they come. Missing or invalid points are
  // replaced by random search and reported in the outcome's errors; extra points are ignored.
  // `request_id` ("" = none) makes SubmitBatch and ReportSuggestFailure idempotent: repeating
  // an answered call with the same id and batch (a client retrying after a lost answer) returns
  // the first answer again and evaluates nothing (the last answer of each of the most recent
  // kRememberedAnswers studies is kept).
  absl::StatusOr<BatchOutcome> SubmitBatch(const Identity& who, int64_t study_id, int batch,
                                           const std::vector<IncomingPoint>& suggestions,
                                           const TurnReport& turn = {},
                                           const std::string& request_id = "");
  // The optimizer failed to suggest batch `batch`. Records the error; when `optimizer_dead` the
  // study ends as failed (best so far stands), otherwise a random-search batch is evaluated in
  // its place. Same errors as SubmitBatch.
  absl::StatusOr<BatchOutcome> ReportSuggestFailure(const Identity& who, int64_t study_id,
                                                    int batch, const std::string& message,
                                                    bool optimizer_dead,
                                                    const std::string& request_id = "");
  static constexpr size_t kRememberedAnswers = 4096;
  // The values of batch `batch` of a study its worker evaluates, one per point of the answer's
  // to_evaluate, in order; `eval_s` the worker's wall time for the batch. Records the batch
  // (exactly once: a retry with the same request id answers the same) and restarts the
  // optimizer's clock. FailedPrecondition when no batch of that index awaits values;
  // InvalidArgument for a wrong number of values.
  absl::StatusOr<BatchOutcome> ReportValues(const Identity& who, int64_t study_id, int batch,
                                            std::vector<EvaluatedPoint> results, double eval_s,
                                            const std::string& request_id = "");
  // The hosted optimizer of a study opened for a job has started: batch 0's turn clock restarts
  // now, so start-up is not charged to the optimizer's budgets. Once per study, before batch 0
  // (a repeated call is OK and changes nothing). DeadlineExceeded when start-up took longer than
  // startup_budget_s (the study is then cut off with no result); FailedPrecondition for a
  // practice study or one past batch 0; NotFound for an unknown study.
  absl::Status OptimizerReady(const Identity& who, int64_t study_id);
  // Ends a study. A study that has not run all its batches ends as failed (the host gave up);
  // an already-final study is left alone. Returns the final state. Store errors as they come:
  // the end then stays pending (Sweep retries it; so does EndStudy).
  // `host_error`: the host gives up for a reason of its own (a platform failure, not the
  // optimizer's): a job's unfinished study is then abandoned instead, and its job runs again.
  absl::StatusOr<StudyState> EndStudy(const Identity& who, int64_t study_id,
                                      const std::string& reason, bool host_error = false);

  // How OpenForJob and the study calls tell whether `who` registered `worker_id` (the
  // coordinator wires JobQueue::Owns). Unset: only the coordinator's own work can open job
  // studies.
  void set_worker_check(std::function<bool(const Identity&, const std::string&)> check) {
    worker_check_ = std::move(check);
  }
  // Told (job id, worker id) when a worker opened a job's study with another problem signature
  // (the coordinator wires JobQueue::Refuse: the job goes to another worker). Set before use.
  void set_signature_mismatch(std::function<void(int64_t, const std::string&)> on_mismatch) {
    on_signature_mismatch_ = std::move(on_mismatch);
  }
  // How the worker leasing `job` builds its problem, when the job's phase lets workers evaluate
  // and the problem has a definition (ProblemSet::Definition); nullopt: the coordinator
  // evaluates.
  std::optional<ProblemDefinition> DefinitionForWorker(const JobRecord& job) const;

  // Cuts off practice studies whose turn ran past budget + grace (their client vanished),
  // retries the store writes of study ends that failed, and forgets finished studies. Call
  // periodically. Returns the first store error (the rest of the sweep still runs; what failed
  // is retried by the next Sweep).
  absl::Status Sweep();

  // The problems OpenPractice accepts on phase `phase_key` (nullopt: the first phase), in the
  // order of the problem set; PermissionDenied when `who` may not see them.
  absl::StatusOr<std::vector<ProblemInfo>> ListProblems(
      const Identity& who, const std::optional<std::string>& phase_key = {}) const;

  // Number of studies held in memory (running, or ending: their end not yet in the store).
  int LiveStudies();
  // Where study ends are counted (not owned; null = nowhere). Set before use.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }
  // Number of studies whose end is not yet in the store.
  int PendingEnds();

  // The default phase's options.
  const StudyOptions& options() const { return phases_.front().options; }

  // ProblemSignature() of a problem of the set, computed once and remembered; recorded with
  // every study.
  std::string SignatureOf(const Problem* problem);

 private:
  // The end of a study not yet (fully) written to the store.
  struct PendingEnd {
    StudyState state = StudyState::kFailed;
    std::string reason;
    double ended_at = 0;
    std::optional<StudyErrorRecord> error;  // the error that ended it, until recorded
    bool ended = false;                     // EndStudy succeeded
  };
  // A batch whose values its worker is evaluating.
  struct PendingBatch {
    std::vector<Point> points;  // real names
    std::vector<bool> replaced;
    std::vector<std::string> suggested;
    std::vector<std::string> errors;
    BatchSource source = BatchSource::kOptimizer;
    double turn_s = 0;  // charged
    TurnReport host;    // as the host reported it
  };
  struct Live {
    StudyRecord record;
    // Its worker evaluates it (opened with the problem's signature).
    bool worker_evaluates = false;
    // Set while its worker evaluates batch next_batch: no optimizer clock runs.
    std::optional<PendingBatch> awaiting;
    const StudyPhase* phase = nullptr;
    const Problem* problem = nullptr;
    std::mt19937_64 rng;
    int next_batch = 0;
    absl::Time turn_started;
    // OptimizerReady was called (hosted studies: start-up is over).
    bool ready = false;
    double used_s = 0;  // optimizer time of completed turns
    double best = 0;
    bool busy = false;
    // Set while the study's end is not in the store (see the class comment).
    std::optional<PendingEnd> pending_end;
    // Set when the study is anonymized: what the optimizer sees.
    std::shared_ptr<const Anonymization> anonymization;
    // Who may act on it: the worker id that opened it for its job, or the Identity::Describe()
    // of a practice study's opener.
    std::string owner_worker;
    std::string owner;
  };
  // OK when `who` may act on study `study_id` (see the remote study calls): organizers, the
  // coordinator, and its owner (while it runs and after it ended). NotFound "unknown study N"
  // for everyone else, the same answer whether N exists, runs or ended.
  absl::Status Authorize(const Identity& who, int64_t study_id);
  // Who may act on a study: the worker id of its job, or its opener's Identity::Describe().
  struct Owner {
    std::string worker;
    std::string opener;
  };
  // Drops an ended study from live_, keeping its owner (the latest kEndedOwners).
  void Forget(const Live& live) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static constexpr size_t kEndedOwners = 1 << 16;
  std::function<bool(const Identity&, const std::string&)> worker_check_;
  std::function<void(int64_t, const std::string&)> on_signature_mismatch_;
  absl::Mutex signatures_mu_;
  std::map<const Problem*, std::string> signatures_ ABSL_GUARDED_BY(signatures_mu_);

  // The calls once `who` is known to be allowed (see the public ones).
  absl::StatusOr<OpenedStudy> OpenJobStudy(int64_t job_id, const std::string& worker_id,
                                           const std::string& problem_signature);
  absl::StatusOr<BatchOutcome> Submit(int64_t study_id, int batch,
                                      const std::vector<IncomingPoint>& suggestions,
                                      const TurnReport& turn);
  absl::StatusOr<BatchOutcome> FillAfterFailure(int64_t study_id, int batch,
                                                const std::string& message, bool optimizer_dead);
  absl::StatusOr<BatchOutcome> RecordValues(int64_t study_id, int batch,
                                            std::vector<EvaluatedPoint> results, double eval_s);
  absl::Status Ready(int64_t study_id);
  absl::StatusOr<StudyState> End(int64_t study_id, const std::string& reason, bool host_error);
  // `max_batches` > 0 shortens the study to that many batches (a racing phase's job).
  absl::StatusOr<OpenedStudy> Open(const StudyPhase& phase, StudyRecord record,
                                   const Problem* problem, uint64_t seed,
                                   std::string owner_worker = "", std::string owner = "",
                                   int max_batches = 0);
  // The phase of `key`; NotFound naming the phases otherwise.
  absl::StatusOr<const StudyPhase*> Phase(const std::string& key) const;
  // Claims a study for one call; checks state and batch index. Marks it busy.
  // `values`: for ReportValues (the batch must await values); otherwise it must not.
  absl::StatusOr<std::shared_ptr<Live>> Claim(int64_t study_id, int batch, bool values = false);
  // The optimizer time charged for a turn of `turn_s` on the coordinator's clock (see the
  // class comment).
  static double Charged(const Live& live, double turn_s, const TurnReport& host);
  void Release(const std::shared_ptr<Live>& live);
  // Why a turn of `turn_s` puts the study over budget; nullopt when within budget.
  std::optional<std::string> OverBudget(const Live& live, double turn_s) const;
  // Cuts off the study for `why` (counting the turn). Store errors only.
  absl::Status CutOff(Live& live, double turn_s, const std::string& why);
  // Budget check at the end of a turn; cuts off the study (DeadlineExceeded) when over budget.
  absl::Status CheckBudget(Live& live, double turn_s);
  // Evaluates the batch here, or hands it to the study's worker (live.awaiting).
  absl::StatusOr<BatchOutcome> Evaluate(Live& live, PendingBatch batch);
  // Records an evaluated batch and ends the turn.
  absl::StatusOr<BatchOutcome> Record(Live& live, PendingBatch batch,
                                      const std::vector<EvaluatedPoint>& results, double eval_s);
  // Ends the study in memory and writes the end (and `error`, recorded first) to the store.
  absl::Status Finish(Live& live, StudyState state, const std::string& reason,
                      std::optional<StudyErrorRecord> error = std::nullopt);
  // Writes what remains of live.pending_end; clears it once all of it is stored. The caller
  // holds the study (busy).
  absl::Status PersistEnd(Live& live);

  StudyStore* studies_;
  JobStore* jobs_;
  Evaluator* evaluator_;
  Clock* clock_;
  // Fixed after construction (a deque: Live::phase points into it).
  std::deque<StudyPhase> phases_;

  Metrics* metrics_ = nullptr;
  absl::Mutex mu_;
  std::map<int64_t, std::shared_ptr<Live>> live_ ABSL_GUARDED_BY(mu_);
  // The owners of ended studies (Forget), oldest first in ended_order_.
  std::map<int64_t, Owner> ended_owners_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> ended_order_ ABSL_GUARDED_BY(mu_);

  // The last answered request of a study, for idempotent retries.
  struct Answer {
    std::string who;  // Identity::Describe() of the caller: only it gets the answer again
    int batch = 0;
    std::string request_id;
    BatchOutcome outcome;
  };
  // A remembered answer to (study, batch, request id), or nullopt.
  std::optional<BatchOutcome> Answered(const Identity& who, int64_t study_id, int batch,
                                       const std::string& request_id);
  void Remember(const Identity& who, int64_t study_id, int batch, const std::string& request_id,
                const absl::StatusOr<BatchOutcome>& outcome);
  absl::Mutex answers_mu_;
  std::map<int64_t, Answer> answers_ ABSL_GUARDED_BY(answers_mu_);
  std::deque<int64_t> answer_order_ ABSL_GUARDED_BY(answers_mu_);  // oldest first
};

}  // namespace bbo

#endif  // BBO_SERVER_STUDY_MANAGER_H_
