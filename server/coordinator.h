#ifndef BBO_SERVER_COORDINATOR_H_
#define BBO_SERVER_COORDINATOR_H_

// Coordinator: owns and wires the domain objects of bbo-server (store, problems, evaluator,
// study manager, job queue, competition, baseline runner) and runs the background work (lease
// expiry, overdue practice studies, baseline studies, migrations between phases). A coordinator
// serves one competition (a CompetitionSpec: a competition file's phases, or the one phase its
// flags describe, FlagsCompetition) over one store. The gRPC layer (server/rpc) only translates to and from these objects.
// Thread-safe.

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "problems/definition.h"
#include "server/baseline_runner.h"
#include "server/phase.h"
#include "server/competition_file.h"
#include "problems/evaluator.h"
#include "server/identity.h"
#include "server/registration.h"
#include "server/job_queue.h"
#include "server/metrics.h"
#include "server/notify/notifier.h"
#include "server/competition.h"
#include "server/problem_set.h"
#include "server/race.h"
#include "server/store/store.h"
#include "server/study_manager.h"

namespace bbo {

struct CoordinatorOptions {
  // SQLite file holding everything; created if missing.
  std::string db_path = "bbo-arena.sqlite";
  StudyOptions study;
  JobQueueOptions queue;
  PhaseOptions competition;
  // Objectives evaluated at once here (the studies no worker evaluates: remote practice
  // studies, the random-search baseline, phases that keep evaluation on the coordinator).
  int eval_threads = 2;
  // Per phase (in order; missing = none): how a worker builds each problem
  // (problems/definition.h). A job on a problem with a definition is evaluated by its worker,
  // unless its phase says evaluate_on_coordinator.
  std::vector<std::map<std::string, ProblemDefinition>> problem_definitions;
  // Period of the background sweep (lease expiry, overdue studies), seconds.
  double sweep_interval_s = 1.0;
  // Run the baseline studies in the background (tests may drive them by hand).
  bool run_baseline = true;
  // Log event=no_workers (once a minute) while jobs wait and no worker is connected. Off for
  // `bbo local` and `bbo check`, whose workers are in the same process.
  bool warn_without_workers = true;
  // Start even when a problem's signature differs from the one recorded with its earlier
  // studies (its results would then mix two different problems).
  bool allow_changed_problems = false;
  // A hidden phase (feedback, final): problems, per-problem results and the full report are
  // served to organizers only (server/access.h), whom the transport
  // (server/rpc/authenticate.h) recognizes by their tokens (`bbo admin organizer add`).
  bool hidden_phase = false;
  // No identities (server/access.h): anyone who reaches the port may submit, host jobs and
  // open practice studies. For loopback trials only; bbo-server refuses it on other addresses.
  bool allow_anonymous = false;
  // The bounds on refused tokens and on the audit log (server/identity.h).
  CredentialsOptions credentials;
  // The token secret (server/identity.h); "" = "<db_path>.secret". A coordinator on a given
  // store without a file (tests) uses a random secret of its own.
  std::string token_secret_file;
  // Tell teams by e-mail and/or webhook when their submissions end and when phases open or
  // close (server/notifications.h); unset = no notifications. E-mail needs notify->smtp.
  // Teams' contacts are kept either way (`bbo contact`).
  std::optional<notify::NotifierOptions> notify;
  // With `notify`: also by webhook, to the teams that registered one (otherwise e-mail only).
  bool notify_webhooks = false;
  // Webhook URLs may use http:// and reach private addresses (loopback, RFC 1918, ...): for
  // tests and closed networks. Both when a team registers one and when it is sent to.
  bool notify_allow_private_webhooks = false;
};

class Notifications;

class Coordinator {
 public:
  // A coordinator started from flags: the one-phase competition FlagsCompetition(options).
  // `problems` empty -> the practice suite. `clock` null -> the real clock.
  static absl::StatusOr<std::unique_ptr<Coordinator>> Create(
      CoordinatorOptions options, std::vector<std::unique_ptr<Problem>> problems = {},
      std::unique_ptr<Clock> clock = nullptr, std::unique_ptr<Store> store = nullptr);
  // A competition of several phases (server/competition_file.h) in one coordinator and one
  // store: `problems[i]` are the problems of spec.phases[i]. Each phase's own settings replace
  // the options' study, competition and hidden_phase fields; the store, queue, identities,
  // evaluator and allow_anonymous are shared. `calendar` (null = `clock`) decides the phases'
  // windows and migrations: a seam that lets tests move dates without moving study clocks.
  // FailedPrecondition when a phase that has started would change its problems or budgets.
  static absl::StatusOr<std::unique_ptr<Coordinator>> CreateCompetition(
      CoordinatorOptions options, CompetitionSpec spec,
      std::vector<std::vector<std::unique_ptr<Problem>>> problems,
      std::unique_ptr<Clock> clock = nullptr, std::unique_ptr<Clock> calendar = nullptr,
      std::unique_ptr<Store> store = nullptr);
  ~Coordinator();

  // The competition of a coordinator started from flags: one phase, named options.competition.
  // phase, with the flags' budgets, limits, trials and rules, under the store key "" (its
  // databases' key from before competition files), restartable with other flags.
  static CompetitionSpec FlagsCompetition(const CoordinatorOptions& options);

  // Starts the background threads. Idempotent.
  void Start();
  // Stops them (blocks until they exit).
  void Stop();
  // Waits until every queued baseline study has run (or the timeout passes).
  bool WaitForBaseline(absl::Duration timeout);

  StudyManager& studies() { return *studies_; }
  JobQueue& queue() { return *queue_; }
  // The first phase (the only one of a coordinator started from flags).
  Phase& first_phase() { return *phases_.front(); }
  // Every phase, on the calendar.
  Competition& competition() { return *competition_; }
  Metrics& metrics() { return metrics_; }
  // The gauges of /metrics, read now; and whether the store answers (for /healthz).
  MetricsGauges Gauges();
  absl::Status Health();
  Credentials& credentials() { return *credentials_; }
  // Teams registering themselves (the competition file's "registration").
  Registrations& registrations() { return *registrations_; }
  Store& store() { return *store_; }
  Clock& clock() { return *clock_; }
  const ProblemSet& problems() const { return *problems_.front(); }
  BaselineRunner& baseline() { return *baseline_; }
  const CoordinatorOptions& options() const { return options_; }
  // The race of a racing phase (server/race.h), by phase name; null for other phases.
  RaceDriver* race(const std::string& phase);
  // Advances every racing phase's race by at most one round (the sweep calls it; tests may).
  void AdvanceRaces();
  // The notifications (server/notifications.h); null when CoordinatorOptions::notify is unset.
  Notifications* notifications() { return notifications_.get(); }

 private:
  Coordinator() = default;
  // Opens the store, recovers, and builds everything for `phases` (the phases' problems are
  // moved into problems_ first).
  static absl::StatusOr<std::unique_ptr<Coordinator>> Build(
      CoordinatorOptions options, CompetitionSpec spec,
      std::vector<std::vector<std::unique_ptr<Problem>>> problems, std::unique_ptr<Clock> clock,
      std::unique_ptr<Clock> calendar, std::unique_ptr<Store> store);
  // Build's steps: the store (its lock file) and the credentials; the recovery after a restart;
  // the phases' problem sets and options; the studies and the queue; the competition and its
  // phases; the races of racing phases.
  absl::Status OpenStore(const CoordinatorOptions& options, std::unique_ptr<Store> store);
  absl::Status Recover();
  std::vector<PhaseOptions> TakeProblems(
      const CoordinatorOptions& options, std::vector<std::vector<std::unique_ptr<Problem>>> problems,
      std::vector<StudyPhase>* study_phases);
  void WireStudiesAndQueue(const CoordinatorOptions& options, std::vector<StudyPhase> study_phases);
  void BuildCompetition(const CoordinatorOptions& options,
                        const std::vector<PhaseOptions>& phase_options);
  void BuildRaces(const std::vector<PhaseOptions>& phase_options);
  // The notifications of options.notify (none when unset), told when submissions end.
  void BuildNotifications(const CoordinatorOptions& options);
  // Records each phase's problems and budgets; refuses a change to a phase that has started.
  absl::Status CheckPhaseFingerprints();
  // Records each phase's rules (PhaseRecord::spec: Phase::Rules), so its database opened
  // offline scores and publishes its boards as this coordinator does.
  absl::Status RecordPhaseRules();
  // FailedPrecondition when a problem's signature differs from its recorded studies'.
  absl::Status CheckProblemSignatures();
  void SweepLoop();
  void BaselineLoop();

  CoordinatorOptions options_;
  std::unique_ptr<Clock> clock_;
  // An exclusive lock on "<db_path>.lock" while this coordinator runs (-1 = none): a second
  // coordinator on the same database would take its running studies for a crashed one's.
  int db_lock_fd_ = -1;
  Metrics metrics_;
  std::unique_ptr<Store> store_;
  CompetitionSpec spec_;
  std::unique_ptr<Clock> calendar_;  // null: clock_
  // One per phase, in the competition's order.
  std::vector<std::unique_ptr<ProblemSet>> problems_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<JobQueue> queue_;
  std::vector<std::unique_ptr<Phase>> phases_;
  std::unique_ptr<Competition> competition_;
  std::unique_ptr<Credentials> credentials_;
  std::unique_ptr<Registrations> registrations_;
  std::unique_ptr<BaselineRunner> baseline_;
  std::map<std::string, std::unique_ptr<RaceDriver>> races_;
  std::unique_ptr<Notifications> notifications_;  // null: off

  std::atomic<bool> stop_{false};
  // When SweepLoop last warned that jobs wait without a worker.
  absl::Time last_worker_warning_ = absl::InfinitePast();
  std::atomic<bool> started_{false};
  std::atomic<bool> baseline_done_{false};
  std::thread sweeper_;
  std::thread baseline_thread_;
};

}  // namespace bbo

#endif  // BBO_SERVER_COORDINATOR_H_
