#include "server/coordinator.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "problems/practice_suite.h"
#include "server/store/sqlite_store.h"
#include "spdlog/spdlog.h"

namespace bbo {

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Create(
    CoordinatorOptions options, std::vector<std::unique_ptr<Problem>> problems,
    std::unique_ptr<Clock> clock, std::unique_ptr<Store> store) {
  auto c = std::unique_ptr<Coordinator>(new Coordinator());
  // The phase's access rules live in the domain objects that apply them (server/access.h).
  options.study.hidden_phase = options.hidden_phase;
  options.competition.hidden_phase = options.hidden_phase;
  options.study.allow_anonymous = options.allow_anonymous;
  options.competition.allow_anonymous = options.allow_anonymous;
  options.queue.allow_anonymous = options.allow_anonymous;
  c->options_ = options;
  c->clock_ = clock ? std::move(clock) : std::make_unique<RealClock>();
  const bool given_store = store != nullptr;
  if (store) {
    c->store_ = std::move(store);
  } else {
    if (options.db_path != ":memory:") {
      const std::string lock = options.db_path + ".lock";
      c->db_lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (c->db_lock_fd_ < 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot open ", lock, ": ", strerror(errno)));
      }
      if (flock(c->db_lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("another bbo-server is using ", options.db_path, " (it holds ", lock,
                         "); stop it first, or give this one its own --db"));
      }
    }
    ASSIGN_OR_RETURN(c->store_, SqliteStore::Open(options.db_path));
  }
  {
    std::string secret;
    if (given_store && options.token_secret_file.empty()) {
      secret = Credentials::RandomSecret();
    } else {
      ASSIGN_OR_RETURN(secret, Credentials::LoadOrCreateSecret(
                                   options.token_secret_file.empty()
                                       ? Credentials::SecretPathFor(options.db_path)
                                       : options.token_secret_file));
    }
    c->credentials_ =
        std::make_unique<Credentials>(c->store_.get(), std::move(secret), c->clock_.get());
  }
  // A restart: the previous coordinator's running studies and leases are void (re-run, not
  // resumed: an optimizer's state lives in the worker's process and the turn clocks lived in
  // the old coordinator's memory, so neither can be picked up soundly).
  {
    const double now = c->clock_->NowSeconds();
    ASSIGN_OR_RETURN(c->options_.queue.epoch, c->store_->BeginEpoch(now));
    ASSIGN_OR_RETURN(RecoveryCounts recovered, c->store_->RecoverAfterRestart(now));
    for (int i = 0; i < recovered.studies_abandoned; ++i) {
      c->metrics_.CountStudyEnd("abandoned", "coordinator restarted");
    }
    if (recovered.studies_abandoned + recovered.jobs_requeued + recovered.jobs_done > 0) {
      spdlog::info("event=recovered epoch={} studies_abandoned={} jobs_requeued={} jobs_done={}",
                   c->options_.queue.epoch, recovered.studies_abandoned, recovered.jobs_requeued,
                   recovered.jobs_done);
    }
  }
  if (problems.empty()) problems = MakePracticeSuite();
  c->problems_ = std::make_unique<ProblemSet>(std::move(problems));
  c->evaluator_ = std::make_unique<Evaluator>(options.eval_threads);
  c->studies_ = std::make_unique<StudyManager>(c->store_.get(), c->problems_.get(),
                                               c->evaluator_.get(), c->clock_.get(),
                                               options.study);
  c->queue_ = std::make_unique<JobQueue>(c->store_.get(), c->clock_.get(), c->options_.queue);
  JobQueue* queue = c->queue_.get();
  c->studies_->set_worker_check(
      [queue](const Identity& who, const std::string& worker_id) {
        return queue->Owns(who, worker_id);
      });
  c->competition_ = std::make_unique<Competition>(c->store_.get(), c->problems_.get(),
                                                  c->clock_.get(), options.study.budget.batch_size,
                                                  options.study.budget.n_batches, options.competition);
  c->competition_->set_on_jobs_changed([queue] { queue->NotifyChanged(); });
  c->competition_->set_metrics(&c->metrics_);
  c->studies_->set_metrics(&c->metrics_);
  c->queue_->set_metrics(&c->metrics_);
  c->baseline_ = std::make_unique<BaselineRunner>(c->store_.get(), c->problems_.get(),
                                                  c->studies_.get(), c->clock_.get());
  RETURN_IF_ERROR(c->CheckProblemSignatures());
  RETURN_IF_ERROR(c->competition_->EnsureBaseline());
  return c;
}

absl::Status Coordinator::CheckProblemSignatures() {
  ASSIGN_OR_RETURN(auto stored, store_->ProblemSignatures());
  std::vector<std::string> changed;
  for (const auto& [name, signature] : stored) {
    absl::StatusOr<const Problem*> problem = problems_->Get(name);
    if (!problem.ok()) continue;  // not in this phase
    const std::string now = studies_->SignatureOf(*problem);
    if (now != signature) {
      changed.push_back(absl::StrCat(name, " (recorded ", signature, ", now ", now, ")"));
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
      g.jobs_failed += c->failed;
    }
  }
  g.running_studies = studies_->LiveStudies();
  g.workers = queue_->RegisteredWorkers();
  g.epoch = queue_->epoch();
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
    // Failed writes of study ends stay pending and are retried by the next sweep.
    if (absl::Status swept = studies_->Sweep(); !swept.ok()) {
      spdlog::warn("study sweep failed (retried next sweep): {}", swept.ToString());
    }
    // Sleep in small steps so Stop() is prompt.
    absl::Time until = absl::Now() + absl::Seconds(options_.sweep_interval_s);
    while (!stop_ && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
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
