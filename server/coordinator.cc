#include "server/coordinator.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "problems/practice_suite.h"
#include "server/notifications.h"
#include "server/store/sqlite_store.h"
#include "spdlog/spdlog.h"

namespace bbo {

namespace {

// A phase's study and competition options: the coordinator's, with the phase's own settings.
void ApplyPhase(const CompetitionSpec& spec, const PhaseSpec& p, const CoordinatorOptions& base,
                StudyOptions* study, PhaseOptions* comp) {
  *study = base.study;
  study->budget = p.budget;
  study->startup_budget_s = p.startup_budget_s;
  study->optimizer_limits = p.limits;
  study->anonymize = p.anonymize;
  study->anonymize_seed = static_cast<uint64_t>(spec.seed);
  study->hidden_phase = p.hidden;
  study->evaluate_on_coordinator = p.evaluate_on_coordinator;
  *comp = base.competition;
  comp->phase = p.name;
  comp->phase_key = p.key();
  comp->seed = spec.seed;
  comp->default_trials = p.default_trials;
  comp->max_trials = p.max_trials;
  comp->baseline_trials = p.baseline_trials;
  comp->use_known_optimum = p.use_known_optimum;
  comp->max_submissions_per_team = p.max_submissions_per_team;
  comp->max_submissions_per_team_per_day = p.max_submissions_per_team_per_day;
  comp->evaluate_once = p.evaluate_once;
  comp->warm_start_board = p.warm_start_board;
  comp->hidden_phase = p.hidden;
  comp->accepts_submissions = p.accepts_submissions;
  comp->window_start = p.start;
  comp->window_end = p.end;
  comp->board_hidden_until_published = p.board_hidden_until_published;
  comp->leaderboard_rows = p.leaderboard_rows;
  comp->racing = p.racing.enabled;
  comp->racing_spec = p.racing;
}

}  // namespace

CompetitionSpec Coordinator::FlagsCompetition(const CoordinatorOptions& o) {
  const StudyOptions& s = o.study;
  const PhaseOptions& c = o.competition;
  PhaseSpec p;
  p.name = c.phase;
  p.store_key = "";
  p.start = c.window_start;
  p.end = c.window_end;
  p.budget = s.budget;
  p.startup_budget_s = s.startup_budget_s;
  p.limits = s.optimizer_limits;
  p.default_trials = c.default_trials;
  p.max_trials = c.max_trials;
  p.baseline_trials = c.baseline_trials;
  p.use_known_optimum = c.use_known_optimum;
  p.hidden = o.hidden_phase;
  p.anonymize = s.anonymize;
  p.warm_start_board = c.warm_start_board;
  p.evaluate_once = c.evaluate_once;
  p.evaluate_on_coordinator = s.evaluate_on_coordinator;
  p.max_submissions_per_team = c.max_submissions_per_team;
  p.max_submissions_per_team_per_day = c.max_submissions_per_team_per_day;
  p.accepts_submissions = c.accepts_submissions;
  p.board_hidden_until_published = c.board_hidden_until_published;
  p.fixed_once_started = false;
  CompetitionSpec spec;
  spec.seed = c.seed;
  spec.phases.push_back(std::move(p));
  return spec;
}

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Create(
    CoordinatorOptions options, std::vector<std::unique_ptr<Problem>> problems,
    std::unique_ptr<Clock> clock, std::unique_ptr<Store> store) {
  if (problems.empty()) problems = MakePracticeSuite();
  std::vector<std::vector<std::unique_ptr<Problem>>> phases;
  phases.push_back(std::move(problems));
  CompetitionSpec spec = FlagsCompetition(options);
  return Build(std::move(options), std::move(spec), std::move(phases), std::move(clock), nullptr,
               std::move(store));
}

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::CreateCompetition(
    CoordinatorOptions options, CompetitionSpec spec,
    std::vector<std::vector<std::unique_ptr<Problem>>> problems, std::unique_ptr<Clock> clock,
    std::unique_ptr<Clock> calendar, std::unique_ptr<Store> store) {
  if (spec.phases.empty() || problems.size() != spec.phases.size()) {
    return absl::InvalidArgumentError("a competition needs its phases and one problem list each");
  }
  for (size_t i = 0; i < problems.size(); ++i) {
    if (problems[i].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("phase \"", spec.phases[i].name, "\" has no problems"));
    }
  }
  return Build(std::move(options), std::move(spec), std::move(problems), std::move(clock),
               std::move(calendar), std::move(store));
}

absl::Status Coordinator::OpenStore(const CoordinatorOptions& options,
                                     std::unique_ptr<Store> store) {
  const bool given_store = store != nullptr;
  if (store) {
    store_ = std::move(store);
  } else {
    if (options.db_path != ":memory:") {
      const std::string lock = options.db_path + ".lock";
      db_lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (db_lock_fd_ < 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot open ", lock, ": ", strerror(errno)));
      }
      if (flock(db_lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("another bbo-server is using ", options.db_path, " (it holds ", lock,
                         "); stop it first, or give this one its own --db"));
      }
    }
    ASSIGN_OR_RETURN(store_, SqliteStore::Open(options.db_path));
  }
  std::string secret;
  if (given_store && options.token_secret_file.empty()) {
    secret = Credentials::RandomSecret();
  } else {
    ASSIGN_OR_RETURN(secret, Credentials::LoadOrCreateSecret(
                                 options.token_secret_file.empty()
                                     ? Credentials::SecretPathFor(options.db_path)
                                     : options.token_secret_file));
  }
  credentials_ = std::make_unique<Credentials>(store_.get(), std::move(secret), clock_.get(),
                                               options.credentials);
  return absl::OkStatus();
}

// A restart: the previous coordinator's running studies and leases are void (re-run, not
// resumed: an optimizer's state lives in the worker's process and the turn clocks lived in the
// old coordinator's memory, so neither can be picked up soundly).
absl::Status Coordinator::Recover() {
  const double now = clock_->NowSeconds();
  ASSIGN_OR_RETURN(options_.queue.epoch, store_->BeginEpoch(now));
  ASSIGN_OR_RETURN(RecoveryCounts recovered, store_->RecoverAfterRestart(now));
  for (int i = 0; i < recovered.studies_abandoned; ++i) {
    metrics_.CountStudyEnd("abandoned", "coordinator restarted");
  }
  if (recovered.studies_abandoned + recovered.jobs_requeued + recovered.jobs_done > 0) {
    spdlog::info("event=recovered epoch={} studies_abandoned={} jobs_requeued={} jobs_done={}",
                 options_.queue.epoch, recovered.studies_abandoned, recovered.jobs_requeued,
                 recovered.jobs_done);
  }
  return absl::OkStatus();
}

std::vector<PhaseOptions> Coordinator::TakeProblems(
    const CoordinatorOptions& options, std::vector<std::vector<std::unique_ptr<Problem>>> problems,
    std::vector<StudyPhase>* study_phases) {
  std::vector<PhaseOptions> phase_options;
  for (size_t i = 0; i < problems.size(); ++i) {
    problems_.push_back(std::make_unique<ProblemSet>(
        std::move(problems[i]), i < options.problem_definitions.size()
                                    ? options.problem_definitions[i]
                                    : std::map<std::string, ProblemDefinition>()));
    StudyPhase sp;
    sp.problems = problems_.back().get();
    PhaseOptions co;
    ApplyPhase(spec_, spec_.phases[i], options, &sp.options, &co);
    sp.options.allow_anonymous = options.allow_anonymous;
    co.allow_anonymous = options.allow_anonymous;
    sp.key = co.phase_key;
    study_phases->push_back(std::move(sp));
    phase_options.push_back(std::move(co));
  }
  return phase_options;
}

void Coordinator::WireStudiesAndQueue(const CoordinatorOptions& options,
                                      std::vector<StudyPhase> study_phases) {
  evaluator_ = std::make_unique<Evaluator>(options.eval_threads);
  studies_ = std::make_unique<StudyManager>(store_.get(), store_.get(), std::move(study_phases),
                                            evaluator_.get(), clock_.get());
  queue_ = std::make_unique<JobQueue>(store_.get(), clock_.get(), options_.queue);
  JobQueue* queue = queue_.get();
  studies_->set_worker_check([queue](const Identity& who, const std::string& worker_id) {
    return queue->Owns(who, worker_id);
  });
  // Workers evaluate the jobs whose problems they can build; one that built another problem
  // gives the job back to the queue for another worker.
  StudyManager* studies = studies_.get();
  queue->set_problem_for_lease(
      [studies](const JobRecord& job) { return studies->DefinitionForWorker(job); });
  studies_->set_signature_mismatch(
      [queue](int64_t job_id, const std::string& worker_id) { queue->Refuse(job_id, worker_id); });
  studies_->set_metrics(&metrics_);
  queue_->set_metrics(&metrics_);
}

void Coordinator::BuildCompetition(const CoordinatorOptions& options,
                                   const std::vector<PhaseOptions>& phase_options) {
  Clock* calendar_clock = calendar_ ? calendar_.get() : clock_.get();
  JobQueue* queue = queue_.get();
  competition_ = std::make_unique<Competition>(store_.get(), calendar_clock, spec_.seed);
  competition_->set_on_jobs_changed([queue] { queue->NotifyChanged(); });
  competition_->set_name(spec_.name);
  competition_->set_about(spec_.title, spec_.description, spec_.terms);
  registrations_ = std::make_unique<Registrations>(
      RegistrationModeFromName(spec_.registration).value_or(RegistrationMode::kClosed),
      spec_.max_teams, store_.get(), credentials_.get(), competition_.get(), clock_.get());
  competition_->set_queue(queue);
  competition_->set_gauges([this] { return Gauges(); });
  for (size_t i = 0; i < problems_.size(); ++i) {
    const StudyBudget& budget = spec_.phases[i].budget;
    auto phase = std::make_unique<Phase>(store_.get(), problems_[i].get(), clock_.get(),
                                         budget.batch_size, budget.n_batches, phase_options[i]);
    phase->set_calendar(calendar_clock);
    phase->set_on_jobs_changed([queue] { queue->NotifyChanged(); });
    phase->set_metrics(&metrics_);
    competition_->Add(phase.get(), spec_.phases[i]);
    phases_.push_back(std::move(phase));
  }
}

// Racing phases: their jobs are queued round by round by a race (server/race.h).
void Coordinator::BuildRaces(const std::vector<PhaseOptions>& phase_options) {
  for (size_t i = 0; i < spec_.phases.size(); ++i) {
    const PhaseSpec& p = spec_.phases[i];
    if (!p.racing.enabled) continue;
    RaceDriverOptions ro;
    ro.phase_key = phase_options[i].phase_key;
    ro.problems = problems_[i]->names();
    ro.trials = p.default_trials;
    ro.budget = p.budget;
    ro.boards = {MainBoardKey(ro.phase_key)};
    if (p.warm_start_board) ro.boards.push_back(WarmStartBoardKey(ro.phase_key));
    ro.seed = spec_.seed;
    ro.racing = p.racing;
    ro.entries_close = p.end;
    ro.calendar = calendar_ != nullptr ? calendar_.get() : clock_.get();
    absl::StatusOr<Scoreboard*> board = phases_[i]->Board(kMainBoard);
    races_[p.name] = std::make_unique<RaceDriver>(store_.get(), clock_.get(), std::move(ro),
                                                  board.ok() ? *board : nullptr);
    RaceDriver* race = races_[p.name].get();
    phases_[i]->set_race_view([race]() -> absl::StatusOr<nlohmann::json> {
      ASSIGN_OR_RETURN(RaceView v, race->View());
      return v.ToJson();
    });
    phases_[i]->set_race_entries([race] { return race->AcceptsEntries(); });
  }
}

void Coordinator::BuildNotifications(const CoordinatorOptions& options) {
  competition_->set_allow_private_webhooks(options.notify_allow_private_webhooks);
  if (!options.notify) return;
  NotificationsOptions no;
  no.notifier = *options.notify;
  no.notifier.allow_private_webhooks = options.notify_allow_private_webhooks;
  if (no.notifier.competition.empty()) {
    no.notifier.competition = spec_.name.empty() ? spec_.phases.front().name : spec_.name;
  }
  no.webhooks = options.notify_webhooks;
  std::vector<NoticePhase> phases;
  for (const PhaseSpec& p : spec_.phases) {
    phases.push_back({p.name, p.key(), p.title, p.start, p.end});
  }
  Clock* calendar = calendar_ ? calendar_.get() : clock_.get();
  notifications_ =
      std::make_unique<Notifications>(std::move(no), store_.get(), calendar, std::move(phases));
  Notifications* notifications = notifications_.get();
  queue_->set_on_submission_ended([notifications](int64_t id, const std::string& state) {
    if (absl::Status s = notifications->SubmissionEnded(id, state); !s.ok()) {
      spdlog::warn("event=notify_failed submission={} state={}: {}", id, state, s.ToString());
    }
  });
}

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Build(
    CoordinatorOptions options, CompetitionSpec spec,
    std::vector<std::vector<std::unique_ptr<Problem>>> problems, std::unique_ptr<Clock> clock,
    std::unique_ptr<Clock> calendar, std::unique_ptr<Store> store) {
  auto c = std::unique_ptr<Coordinator>(new Coordinator());
  // The phase's access rules live in the domain objects that apply them (server/access.h).
  options.study.hidden_phase = options.hidden_phase;
  options.competition.hidden_phase = options.hidden_phase;
  options.study.allow_anonymous = options.allow_anonymous;
  options.competition.allow_anonymous = options.allow_anonymous;
  options.queue.allow_anonymous = options.allow_anonymous;
  c->options_ = options;
  c->clock_ = clock ? std::move(clock) : std::make_unique<RealClock>();
  RETURN_IF_ERROR(c->OpenStore(options, std::move(store)));
  RETURN_IF_ERROR(c->Recover());
  c->spec_ = std::move(spec);
  c->calendar_ = std::move(calendar);
  std::vector<StudyPhase> study_phases;
  const std::vector<PhaseOptions> phase_options =
      c->TakeProblems(options, std::move(problems), &study_phases);
  c->WireStudiesAndQueue(options, std::move(study_phases));
  c->BuildCompetition(options, phase_options);
  c->BuildRaces(phase_options);
  c->BuildNotifications(options);
  c->baseline_ = std::make_unique<BaselineRunner>(c->store_.get(), c->problems_.front().get(),
                                                  c->studies_.get(), c->clock_.get());
  RETURN_IF_ERROR(c->CheckProblemSignatures());
  RETURN_IF_ERROR(c->CheckPhaseFingerprints());
  RETURN_IF_ERROR(c->RecordPhaseRules());
  for (auto& comp : c->phases_) RETURN_IF_ERROR(comp->EnsureBaseline());
  return c;
}

absl::Status Coordinator::CheckPhaseFingerprints() {
  const absl::Time now = competition_->calendar()->Now();
  for (const PhaseSpec& p : spec_.phases) {
    if (!p.fixed_once_started) continue;
    ASSIGN_OR_RETURN(std::optional<PhaseRecord> stored, store_->GetPhase(p.key()));
    const std::string fingerprint = p.Fingerprint();
    if (stored && stored->fingerprint == fingerprint) continue;
    if (stored) {
      bool started = !p.start || now >= *p.start;
      ASSIGN_OR_RETURN(std::vector<SubmissionRecord> subs, store_->ListSubmissions());
      for (const SubmissionRecord& s : subs) {
        started = started || (s.phase == p.key() && !s.is_baseline);
      }
      if (started) {
        return absl::FailedPreconditionError(absl::StrCat(
            "phase \"", p.name, "\" has started (", p.WindowText(),
            ") and its problems or budgets differ from those it started with; a running "
            "phase cannot change them. Recorded: ", stored->fingerprint, " Now: ", fingerprint,
            ". Restore the competition file's phase, or add a new phase instead"));
      }
      spdlog::info("event=phase_changed phase={} (not started yet)", p.name);
    }
    PhaseRecord rec;
    rec.name = p.key();
    rec.fingerprint = fingerprint;
    rec.spec = fingerprint;
    rec.recorded_at = clock_->NowSeconds();
    RETURN_IF_ERROR(store_->PutPhase(rec));
  }
  return absl::OkStatus();
}

absl::Status Coordinator::RecordPhaseRules() {
  for (const auto& phase : phases_) {
    const std::string spec = phase->Rules().ToJson().dump();
    const std::string& key = phase->options().phase_key;
    ASSIGN_OR_RETURN(std::optional<PhaseRecord> stored, store_->GetPhase(key));
    if (stored && stored->spec == spec) continue;
    PhaseRecord rec = stored.value_or(PhaseRecord{});
    rec.name = key;
    rec.spec = spec;
    if (!stored) rec.recorded_at = clock_->NowSeconds();
    RETURN_IF_ERROR(store_->PutPhase(rec));
  }
  return absl::OkStatus();
}

absl::Status Coordinator::CheckProblemSignatures() {
  ASSIGN_OR_RETURN(auto stored, store_->ProblemSignatures());
  // A name may be served by several phases (with other instance seeds): a recorded signature
  // is fine when any phase's problem of that name has it.
  std::map<std::string, std::set<std::string>> current;
  for (const auto& set : problems_) {
    for (const std::string& name : set->names()) {
      current[name].insert(studies_->SignatureOf(*set->Get(name)));
    }
  }
  std::vector<std::string> changed;
  for (const auto& [name, signature] : stored) {
    auto it = current.find(name);
    if (it == current.end()) continue;  // not in these phases
    if (!it->second.count(signature)) {
      changed.push_back(absl::StrCat(name, " (recorded ", signature, ", now ",
                                     absl::StrJoin(it->second, " or "), ")"));
    }
  }
  if (changed.empty()) return absl::OkStatus();
  const std::string what = absl::StrCat(
      "problem definitions changed since their studies in ", options_.db_path,
      " were recorded: ", absl::StrJoin(changed, "; "));
  if (options_.allow_changed_problems) {
    spdlog::warn("event=problems_changed {}", what);
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      what, ". Their old and new results are not comparable: use a new database, or start with "
            "--allow_changed_problems to mix them anyway."));
}

MetricsGauges Coordinator::Gauges() {
  MetricsGauges g;
  if (absl::StatusOr<std::vector<SubmissionRecord>> subs = store_->ListSubmissions(); subs.ok()) {
    for (const SubmissionRecord& s : *subs) {
      absl::StatusOr<JobCounts> c = store_->CountJobs(s.id);
      if (!c.ok()) continue;
      g.jobs_queued += c->queued;
      g.jobs_leased += c->leased;
      g.jobs_done += c->done;
      g.jobs_failed += c->lost();
      g.jobs_withdrawn += c->withdrawn;
    }
  }
  g.running_studies = studies_->LiveStudies();
  g.workers = queue_->RegisteredWorkers();
  g.epoch = queue_->epoch();
  if (notifications_) {
    const notify::NotifierCounters n = notifications_->Counters();
    g.notifications["email"] = {n.email.sent, n.email.failed};
    g.notifications["webhook"] = {n.webhook.sent, n.webhook.failed};
  }
  return g;
}

absl::Status Coordinator::Health() { return store_->ListBoards().status(); }

Coordinator::~Coordinator() {
  Stop();
  if (db_lock_fd_ >= 0) close(db_lock_fd_);  // releases the lock
}

void Coordinator::Start() {
  if (started_.exchange(true)) return;
  stop_ = false;
  sweeper_ = std::thread([this] { SweepLoop(); });
  if (options_.run_baseline) baseline_thread_ = std::thread([this] { BaselineLoop(); });
}

void Coordinator::Stop() {
  stop_ = true;
  if (sweeper_.joinable()) sweeper_.join();
  if (baseline_thread_.joinable()) baseline_thread_.join();
  started_ = false;
}

void Coordinator::SweepLoop() {
  while (!stop_) {
    absl::StatusOr<int> requeued = queue_->Sweep();
    if (!requeued.ok()) {
      spdlog::warn("lease sweep failed: {}", requeued.status().ToString());
    } else if (*requeued > 0) {
      spdlog::info("event=leases_expired requeued={}", *requeued);
    }
    // Jobs waiting and nobody to run them: say so, once a minute.
    // (The queue is counted only when no worker is connected, which is cheap to know.)
    if (options_.warn_without_workers && absl::Now() - last_worker_warning_ > absl::Minutes(1) &&
        queue_->ConnectedWorkers().workers == 0) {
      const QueueView q = competition_->Queue(Identity::Anonymous());
      if (q.jobs_queued > 0 && q.workers_connected == 0) {
        spdlog::warn("event=no_workers jobs_queued={}: no worker is connected, so no submission "
                     "runs; start bbo-worker (docs/organizers.md)",
                     q.jobs_queued);
        last_worker_warning_ = absl::Now();
      }
    }
    // Submissions move on to the next phase when their phase ends.
    if (absl::StatusOr<int> moved = competition_->MigrateDue(); !moved.ok()) {
      spdlog::warn("migration between phases failed (retried next sweep): {}",
                   moved.status().ToString());
    }
    // Racing phases plan their next round once the last one has finished.
    AdvanceRaces();
    // Phases that opened or closed are announced to the teams (once; cheap otherwise).
    if (notifications_) {
      if (absl::Status s = notifications_->CheckCalendar(); !s.ok()) {
        spdlog::warn("event=notify_failed what=phase_notices: {}", s.ToString());
      }
    }
    // Failed writes of study ends stay pending and are retried by the next sweep.
    if (absl::Status swept = studies_->Sweep(); !swept.ok()) {
      spdlog::warn("study sweep failed (retried next sweep): {}", swept.ToString());
    }
    // Sleep in small steps so Stop() is prompt.
    absl::Time until = absl::Now() + absl::Seconds(options_.sweep_interval_s);
    while (!stop_ && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
  }
}

RaceDriver* Coordinator::race(const std::string& phase) {
  auto it = races_.find(phase);
  return it == races_.end() ? nullptr : it->second.get();
}

void Coordinator::AdvanceRaces() {
  for (auto& [phase, race] : races_) {
    absl::StatusOr<bool> queued = race->Advance();
    if (!queued.ok()) {
      spdlog::warn("race of phase {} could not plan its next round (retried next sweep): {}",
                   phase, queued.status().ToString());
    } else if (*queued) {
      queue_->NotifyChanged();
    }
  }
}

void Coordinator::BaselineLoop() {
  absl::StatusOr<int> ran = baseline_->RunPending(&stop_);
  if (!ran.ok()) {
    spdlog::error("baseline studies failed: {}", ran.status().ToString());
  } else if (*ran > 0) {
    spdlog::info("event=baseline_done studies={}", *ran);
  }
  baseline_done_ = true;
}

bool Coordinator::WaitForBaseline(absl::Duration timeout) {
  absl::Time until = absl::Now() + timeout;
  while (!baseline_done_ && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
  return baseline_done_;
}

}  // namespace bbo
