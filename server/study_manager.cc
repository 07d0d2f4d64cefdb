#include "server/study_manager.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "problems/signature.h"
#include "server/internal/worker_text.h"

namespace bbo {

using study_manager_internal::Bounded;
using study_manager_internal::kInf;

StudyManager::StudyManager(StudyStore* studies, JobStore* jobs, std::vector<StudyPhase> phases,
                           Evaluator* evaluator, Clock* clock)
    : studies_(studies),
      jobs_(jobs),
      evaluator_(evaluator),
      clock_(clock),
      phases_(phases.begin(), phases.end()) {}

absl::StatusOr<OpenedStudy> StudyManager::OpenForJob(const Identity& who, int64_t job_id,
                                                     const std::string& worker_id,
                                                     const std::string& problem_signature) {
  if (!who.is_coordinator()) {
    RETURN_IF_ERROR(
        AccessPolicy(options().hidden_phase, options().allow_anonymous).RequireWorker(who));
    if (!worker_check_ || !worker_check_(who, worker_id)) {
      return absl::FailedPreconditionError(
          absl::StrCat("job ", job_id, " is not leased by worker ", worker_id.substr(0, 64)));
    }
  }
  return OpenJobStudy(job_id, worker_id, problem_signature);
}

absl::Status StudyManager::Authorize(const Identity& who, int64_t study_id) {
  if (who.is_organizer() || who.is_coordinator()) return absl::OkStatus();
  // The study's owner: the worker of its job or whoever opened it, whether it runs or ended.
  Owner owner;
  bool known = false;
  {
    absl::MutexLock l(&mu_);
    if (auto it = live_.find(study_id); it != live_.end()) {
      owner = {it->second->owner_worker, it->second->owner};
      known = true;
    } else if (auto e = ended_owners_.find(study_id); e != ended_owners_.end()) {
      owner = e->second;
      known = true;
    }
  }
  if (!known) {
    // Ended before this coordinator started (or long ago): its job's worker may still ask.
    absl::StatusOr<StudyRecord> rec = studies_->GetStudy(study_id);
    if (rec.ok() && rec->job_id) {
      absl::StatusOr<JobRecord> job = jobs_->GetJob(*rec->job_id);
      if (job.ok()) owner.worker = job->worker_id;
    }
  }
  const bool allowed = !owner.worker.empty()
                           ? worker_check_ && worker_check_(who, owner.worker)
                           : !owner.opener.empty() && owner.opener == who.Describe();
  if (allowed) return absl::OkStatus();
  // What anyone else is told of any id, unknown, running or ended, so that ids and states
  // cannot be listed by trying them.
  return absl::NotFoundError(absl::StrCat("unknown study ", study_id));
}

void StudyManager::Forget(const Live& live) {
  live_.erase(live.record.id);
  ended_owners_[live.record.id] = {live.owner_worker, live.owner};
  ended_order_.push_back(live.record.id);
  while (ended_order_.size() > kEndedOwners) {
    ended_owners_.erase(ended_order_.front());
    ended_order_.pop_front();
  }
}

absl::StatusOr<BatchOutcome> StudyManager::SubmitBatch(
    const Identity& who, int64_t study_id, int batch, const std::vector<IncomingPoint>& suggestions,
    const TurnReport& turn, const std::string& request_id) {
  RETURN_IF_ERROR(Authorize(who, study_id));
  if (std::optional<BatchOutcome> again = Answered(who, study_id, batch, request_id)) {
    return *again;
  }
  // Extra points are ignored (see Submit), but a request with more than any
  // batch can hold is a broken client: refused, and the batch stays open for a correct one.
  if (suggestions.size() > static_cast<size_t>(kMaxBatchSize)) {
    return absl::InvalidArgumentError(absl::StrCat("suggestions: ", suggestions.size(),
                                                   " points in one request is over the "
                                                   "limit of ",
                                                   kMaxBatchSize));
  }
  absl::StatusOr<BatchOutcome> out = Submit(study_id, batch, suggestions, turn);
  Remember(who, study_id, batch, request_id, out);
  return out;
}

std::optional<BatchOutcome> StudyManager::Answered(const Identity& who, int64_t study_id, int batch,
                                                   const std::string& request_id) {
  if (request_id.empty()) return std::nullopt;
  absl::MutexLock l(&answers_mu_);
  auto it = answers_.find(study_id);
  if (it == answers_.end() || it->second.batch != batch || it->second.request_id != request_id ||
      it->second.who != who.Describe()) {
    return std::nullopt;
  }
  return it->second.outcome;
}

void StudyManager::Remember(const Identity& who, int64_t study_id, int batch,
                            const std::string& request_id,
                            const absl::StatusOr<BatchOutcome>& outcome) {
  if (request_id.empty() || !outcome.ok()) return;
  absl::MutexLock l(&answers_mu_);
  auto [it, added] = answers_.try_emplace(study_id);
  it->second = Answer{who.Describe(), batch, request_id, *outcome};
  if (added) answer_order_.push_back(study_id);
  while (answer_order_.size() > kRememberedAnswers) {
    answers_.erase(answer_order_.front());
    answer_order_.pop_front();
  }
}

absl::StatusOr<BatchOutcome> StudyManager::ReportSuggestFailure(const Identity& who,
                                                                int64_t study_id, int batch,
                                                                const std::string& message,
                                                                bool optimizer_dead,
                                                                const std::string& request_id) {
  RETURN_IF_ERROR(Authorize(who, study_id));
  if (std::optional<BatchOutcome> again = Answered(who, study_id, batch, request_id)) {
    return *again;
  }
  absl::StatusOr<BatchOutcome> out = FillAfterFailure(study_id, batch, message, optimizer_dead);
  Remember(who, study_id, batch, request_id, out);
  return out;
}

absl::Status StudyManager::OptimizerReady(const Identity& who, int64_t study_id) {
  RETURN_IF_ERROR(Authorize(who, study_id));
  return Ready(study_id);
}

absl::StatusOr<StudyState> StudyManager::EndStudy(const Identity& who, int64_t study_id,
                                                  const std::string& reason, bool host_error) {
  RETURN_IF_ERROR(Authorize(who, study_id));
  return End(study_id, reason, host_error);
}

std::optional<ProblemDefinition> StudyManager::DefinitionForWorker(const JobRecord& job) const {
  absl::StatusOr<const StudyPhase*> phase = Phase(PhaseKeyOfBoard(job.board));
  if (!phase.ok() || (*phase)->options.evaluate_on_coordinator) return std::nullopt;
  return (*phase)->problems->Definition(job.problem);
}

absl::StatusOr<OpenedStudy> StudyManager::OpenJobStudy(int64_t job_id, const std::string& worker_id,
                                                       const std::string& problem_signature) {
  ASSIGN_OR_RETURN(JobRecord job, jobs_->GetJob(job_id));
  if (job.state != JobState::kLeased || job.worker_id != worker_id) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is not leased by worker ", worker_id));
  }
  ASSIGN_OR_RETURN(const StudyPhase* phase, Phase(PhaseKeyOfBoard(job.board)));
  ASSIGN_OR_RETURN(const Problem* problem, phase->problems->Get(job.problem));
  // A worker that evaluates must have built the very problem the coordinator records.
  const bool worker_evaluates =
      !problem_signature.empty() && !phase->options.evaluate_on_coordinator;
  if (worker_evaluates) {
    const std::string expected = SignatureOf(problem);
    if (problem_signature != expected) {
      if (on_signature_mismatch_) on_signature_mismatch_(job_id, worker_id);
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", job_id, ": the problem this worker built has signature \"",
          TruncateUtf8(problem_signature, 256), "\", the coordinator's has \"", expected,
          "\" (a different problem library, data or code on this host); the job goes to "
          "another worker"));
    }
  }
  // A worker that restarts a job abandons the previous attempt's study. A study busy with a
  // call is ended in memory here and written by Sweep once the call is over.
  std::vector<std::shared_ptr<Live>> reopened;
  {
    absl::MutexLock l(&mu_);
    for (auto& [id, live] : live_) {
      if (live->record.job_id == job_id && live->record.state == StudyState::kRunning) {
        live->record.state = StudyState::kAbandoned;
        live->pending_end = PendingEnd{StudyState::kAbandoned, "job reopened",
                                       clock_->NowSeconds(), std::nullopt, false};
        if (!live->busy) {
          live->busy = true;
          reopened.push_back(live);
        }
      }
    }
  }
  absl::Status ended;
  for (const auto& live : reopened) {
    ended.Update(PersistEnd(*live));  // on failure the end stays pending for Sweep
    Release(live);
  }
  RETURN_IF_ERROR(ended);
  StudyRecord rec;
  rec.job_id = job_id;
  rec.submission_id = job.submission_id;
  rec.problem = job.problem;
  rec.trial = job.trial;
  rec.board = job.board;
  ASSIGN_OR_RETURN(OpenedStudy opened, Open(*phase, rec, problem, static_cast<uint64_t>(job.seed),
                                            worker_id, "", job.max_batches));
  if (worker_evaluates) {
    absl::MutexLock l(&mu_);
    auto it = live_.find(opened.study_id);
    if (it != live_.end()) it->second->worker_evaluates = true;
  }
  return opened;
}

absl::StatusOr<OpenedStudy> StudyManager::OpenPractice(
    const Identity& who, const std::string& problem_name,
    const std::optional<std::string>& phase_key) {
  ASSIGN_OR_RETURN(const StudyPhase* phase, Phase(phase_key.value_or(phases_.front().key)));
  const AccessPolicy access(phase->options.hidden_phase, phase->options.allow_anonymous);
  RETURN_IF_ERROR(access.RequireParticipant(who, "practice studies"));
  RETURN_IF_ERROR(access.RequireOrganizerIfHidden(who, "practice studies"));
  ASSIGN_OR_RETURN(const Problem* problem, phase->problems->Get(problem_name));
  StudyRecord rec;
  rec.problem = problem_name;
  rec.board = MainBoardKey(phase->key);
  std::random_device rd;
  return Open(*phase, rec, problem, (static_cast<uint64_t>(rd()) << 32) ^ rd(), "", who.Describe());
}

absl::StatusOr<OpenedStudy> StudyManager::Open(const StudyPhase& phase, StudyRecord rec,
                                               const Problem* problem, uint64_t seed,
                                               std::string owner_worker, std::string owner,
                                               int max_batches) {
  const StudyOptions& opts = phase.options;
  rec.budget = opts.budget;
  // A racing phase stops a method at its tau_A: the study ends after max_batches batches, its
  // time budget shrunk in proportion (server/race.h).
  if (max_batches > 0 && max_batches < rec.budget.n_batches) {
    rec.budget.study_budget_s =
        rec.budget.study_budget_s * max_batches / static_cast<double>(rec.budget.n_batches);
    rec.budget.n_batches = max_batches;
  }
  rec.started_at = clock_->NowSeconds();
  rec.state = StudyState::kRunning;
  rec.problem_signature = SignatureOf(problem);
  std::shared_ptr<const Anonymization> anonymization;
  // The warm-start board reruns the phase's jobs with the real names (Turner et al. (2021) §4.7).
  if (opts.anonymize && !IsWarmStartBoard(rec.board)) {
    ASSIGN_OR_RETURN(Anonymization a,
                     Anonymize(problem->space(), problem->name(), opts.anonymize_seed));
    anonymization = std::make_shared<const Anonymization>(std::move(a));
  }
  ASSIGN_OR_RETURN(rec.id, studies_->CreateStudy(rec));
  auto live = std::make_shared<Live>();
  live->record = rec;
  live->phase = &phase;
  live->problem = problem;
  live->anonymization = anonymization;
  live->owner_worker = std::move(owner_worker);
  live->owner = std::move(owner);
  // The random-search fill of a study is reproducible from its job's seed.
  live->rng.seed(seed ^ 0x9e3779b97f4a7c15ULL);
  live->best = kInf;
  live->turn_started = clock_->Now();
  {
    absl::MutexLock l(&mu_);
    live_[rec.id] = live;
  }
  OpenedStudy out;
  out.study_id = rec.id;
  out.api_config = anonymization ? anonymization->space->api_config()
                                 : problem->space().api_config();
  out.budget = rec.budget;
  out.remaining_s = rec.budget.study_budget_s;
  out.limits = opts.optimizer_limits;
  return out;
}

std::string StudyManager::SignatureOf(const Problem* problem) {
  {
    absl::MutexLock l(&signatures_mu_);
    auto it = signatures_.find(problem);
    if (it != signatures_.end()) return it->second;
  }
  // Evaluated outside the lock: a slow problem does not hold up other problems' studies.
  std::string s = ProblemSignature(*problem);
  absl::MutexLock l(&signatures_mu_);
  signatures_.emplace(problem, s);
  return s;
}

absl::StatusOr<std::shared_ptr<StudyManager::Live>> StudyManager::Claim(int64_t study_id,
                                                                        int batch, bool values) {
  absl::MutexLock l(&mu_);
  auto it = live_.find(study_id);
  if (it == live_.end()) {
    // Not in memory: either unknown, or final (or from before a coordinator restart).
    absl::StatusOr<StudyRecord> rec = studies_->GetStudy(study_id);
    if (!rec.ok()) return rec.status();
    if (rec->state == StudyState::kCutOff) {
      // Cut off while the host was still waiting for its optimizer: the budget ran out.
      return absl::DeadlineExceededError(absl::StrCat(
          "study ", study_id, " was cut off by its time budget; its best value so far stands"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("study ", study_id, " is not running (state ",
                     StudyStateName(rec->state), ")"));
  }
  std::shared_ptr<Live> live = it->second;
  if (live->busy) {
    return absl::AbortedError(absl::StrCat("study ", study_id, " is busy with another call"));
  }
  if (live->record.state == StudyState::kCutOff) {
    return absl::DeadlineExceededError(absl::StrCat(
        "study ", study_id, " was cut off by its time budget; its best value so far stands"));
  }
  if (live->record.state != StudyState::kRunning) {
    return absl::FailedPreconditionError(absl::StrCat(
        "study ", study_id, " is not running (state ", StudyStateName(live->record.state), ")"));
  }
  if (batch != live->next_batch) {
    return absl::FailedPreconditionError(absl::StrCat("study ", study_id, " expects batch ",
                                                      live->next_batch, ", got batch ", batch));
  }
  if (values != live->awaiting.has_value()) {
    return absl::FailedPreconditionError(
        values ? absl::StrCat("study ", study_id, " has no batch ", batch, " awaiting values")
               : absl::StrCat("study ", study_id, " awaits the values of batch ", batch,
                              " (ReportValues)"));
  }
  live->busy = true;
  return live;
}

void StudyManager::Release(const std::shared_ptr<Live>& live) {
  absl::MutexLock l(&mu_);
  live->busy = false;
  if (live->record.state != StudyState::kRunning && !live->pending_end) Forget(*live);
}

absl::Status StudyManager::Finish(Live& live, StudyState state, const std::string& reason,
                                  std::optional<StudyErrorRecord> error) {
  live.record.state = state;
  if (metrics_ != nullptr) metrics_->CountStudyEnd(StudyStateName(state), reason);
  live.pending_end = PendingEnd{state, reason, clock_->NowSeconds(), std::move(error), false};
  return PersistEnd(live);
}

absl::Status StudyManager::PersistEnd(Live& live) {
  if (!live.pending_end) return absl::OkStatus();
  PendingEnd& end = *live.pending_end;
  absl::Status first;
  if (end.error) {
    first = studies_->RecordStudyError(*end.error);
    if (first.ok()) end.error.reset();
  }
  // The end is written even when its error record was refused: the end matters more.
  if (!end.ended) {
    absl::Status s =
        studies_->EndStudy(live.record.id, end.state, end.reason, end.ended_at, live.used_s)
            .status();
    if (s.ok()) end.ended = true;
    if (first.ok()) first = s;
  }
  if (end.ended && !end.error) live.pending_end.reset();
  return first;
}

std::optional<std::string> StudyManager::OverBudget(const Live& live, double turn_s) const {
  if (turn_s > live.record.budget.suggest_budget_s) {
    return absl::StrFormat("batch %d: the optimizer took %.3f s, over the %.3g s per-suggest budget",
                          live.next_batch, turn_s, live.record.budget.suggest_budget_s);
  }
  if (live.used_s + turn_s > live.record.budget.study_budget_s) {
    return absl::StrFormat("batch %d: the optimizer used %.3f s in total, over the %.3g s study "
                           "budget",
                           live.next_batch, live.used_s + turn_s,
                           live.record.budget.study_budget_s);
  }
  return std::nullopt;
}

absl::Status StudyManager::CutOff(Live& live, double turn_s, const std::string& why) {
  live.used_s += turn_s;
  return Finish(live, StudyState::kCutOff, why,
                StudyErrorRecord{live.record.id, live.next_batch, "budget", why});
}

absl::Status StudyManager::CheckBudget(Live& live, double turn_s) {
  std::optional<std::string> why = OverBudget(live, turn_s);
  if (!why) return absl::OkStatus();
  RETURN_IF_ERROR(CutOff(live, turn_s, *why));
  return absl::DeadlineExceededError(
      absl::StrCat(*why, "; the study is cut off and its best value so far stands"));
}

absl::StatusOr<StudyState> StudyManager::End(int64_t study_id, const std::string& raw_reason,
                                             bool host_error) {
  const std::string reason = Bounded(raw_reason);
  std::shared_ptr<Live> live;
  {
    absl::MutexLock l(&mu_);
    auto it = live_.find(study_id);
    if (it != live_.end()) {
      live = it->second;
      if (live->busy) {
        return absl::AbortedError(absl::StrCat("study ", study_id, " is busy with another call"));
      }
      live->busy = true;
    }
  }
  if (live == nullptr) {
    ASSIGN_OR_RETURN(StudyRecord rec, studies_->GetStudy(study_id));
    if (rec.state != StudyState::kRunning) return rec.state;
    // Running in the store but not in memory: from before a restart.
    return studies_->EndStudy(study_id, StudyState::kAbandoned, "coordinator restarted",
                            clock_->NowSeconds(), 0);
  }
  StudyState state = live->record.state;
  absl::Status s;
  if (state == StudyState::kRunning) {
    // A job's host that gives up for its own reasons (a platform failure) leaves the study
    // unscored: the job runs again. Otherwise an unfinished study is the optimizer's failure.
    const bool platform = host_error && live->record.job_id.has_value();
    state = platform ? StudyState::kAbandoned : StudyState::kFailed;
    std::string why = Bounded(absl::StrCat("ended by host after ", live->next_batch, " of ",
                                           live->record.budget.n_batches, " batches: ", reason,
                                           platform ? " (a platform failure: the job runs again)"
                                                    : ""));
    s = Finish(*live, state, why,
               StudyErrorRecord{study_id, live->next_batch, platform ? "host_error" : "ended_early",
                                reason});
  } else {
    // Already ended in memory; if its end is still pending, this is another chance to write it.
    s = PersistEnd(*live);
  }
  Release(live);
  if (!s.ok()) return s;
  return state;
}

absl::Status StudyManager::Sweep() {
  std::vector<std::shared_ptr<Live>> overdue, ending;
  absl::Time now = clock_->Now();
  {
    absl::MutexLock l(&mu_);
    for (auto it = live_.begin(); it != live_.end();) {
      std::shared_ptr<Live> live = it->second;
      ++it;
      if (live->busy) continue;
      if (live->pending_end) {
        live->busy = true;
        ending.push_back(live);
        continue;
      }
      if (live->record.state != StudyState::kRunning) {
        Forget(*live);
        continue;
      }
      // Its worker is evaluating a batch: no optimizer clock runs (a worker that vanished
      // loses its lease, and the job's next attempt abandons this study).
      if (live->awaiting) continue;
      double turn_s = absl::ToDoubleSeconds(now - live->turn_started);
      // A hosted optimizer still starting has its start-up budget, not its turn budget.
      const bool starting =
          live->record.job_id.has_value() && live->next_batch == 0 && !live->ready;
      const StudyOptions& opts = live->phase->options;
      bool over = starting ? turn_s > std::max(opts.startup_budget_s,
                                               live->record.budget.suggest_budget_s) +
                                          opts.sweep_grace_s
                           : turn_s > live->record.budget.suggest_budget_s + opts.sweep_grace_s ||
                                 live->used_s + turn_s >
                                     live->record.budget.study_budget_s + opts.sweep_grace_s;
      // Normally the worker reports an overdue optimizer first (its kill grace is shorter than
      // ours); this catches remote clients and workers that vanished.
      if (over) {
        live->busy = true;
        overdue.push_back(live);
      }
    }
  }
  absl::Status first;
  for (auto& live : overdue) {
    double turn_s = absl::ToDoubleSeconds(now - live->turn_started);
    const StudyOptions& opts = live->phase->options;
    if (live->record.job_id.has_value() && live->next_batch == 0 && !live->ready &&
        turn_s > opts.startup_budget_s) {
      // Start-up is not charged: the study ends with no optimizer time used.
      first.Update(CutOff(*live, 0,
                          absl::StrFormat("the optimizer did not start within its start-up "
                                          "budget of %.0f s",
                                          opts.startup_budget_s)));
      Release(live);
      continue;
    }
    // Over budget + grace is over budget.
    std::optional<std::string> why = OverBudget(*live, turn_s);
    if (why) first.Update(CutOff(*live, turn_s, *why));
    Release(live);
  }
  for (auto& live : ending) {
    first.Update(PersistEnd(*live));
    Release(live);
  }
  return first;
}

absl::Status StudyManager::Ready(int64_t study_id) {
  ASSIGN_OR_RETURN(std::shared_ptr<Live> live, Claim(study_id, 0));
  absl::Status out;
  if (!live->record.job_id.has_value()) {
    out = absl::FailedPreconditionError(
        absl::StrCat("study ", study_id, " is a practice study: its clock started when it opened"));
  } else if (!live->ready) {
    const double startup_s = absl::ToDoubleSeconds(clock_->Now() - live->turn_started);
    const StudyOptions& opts = live->phase->options;
    if (startup_s > opts.startup_budget_s) {
      const std::string why = absl::StrFormat(
          "the optimizer took %.1f s to start, over its start-up budget of %.0f s", startup_s,
          opts.startup_budget_s);
      out = CutOff(*live, 0, why);
      if (out.ok()) out = absl::DeadlineExceededError(why);
    } else {
      live->ready = true;
      live->turn_started = clock_->Now();
    }
  }
  Release(live);
  return out;
}

int StudyManager::LiveStudies() {
  absl::MutexLock l(&mu_);
  return static_cast<int>(live_.size());
}

int StudyManager::PendingEnds() {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (const auto& [id, live] : live_) n += live->pending_end ? 1 : 0;
  return n;
}

}  // namespace bbo
