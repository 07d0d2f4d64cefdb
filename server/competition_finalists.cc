// Competition: which submission of each team goes on to the next phase. The team chooses
// (`bbo choose`), an organizer may set or replace it (with a reason), and without either it is
// the team's best healthy submission. Everything here is recorded as phase events, so the
// migration's record, the team's view and the audit say the same.

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "server/competition.h"
#include "server/submission_state.h"
#include "spdlog/spdlog.h"

namespace bbo {
namespace {

// Every job done, no study with an error (a crash, a random-filled batch, a cut-off), and on
// the board (not withdrawn or hidden).
bool Healthy(const SubmissionStatus& s) {
  return s.jobs.total > 0 && StateOf(s) == SubmissionState::kFinished && s.submission.on_board();
  // (StateOf is kWithdrawn for a withdrawn one.)
}

}  // namespace

const Competition::Entry* Competition::Successor(const Entry& source) const {
  for (const Entry& e : phases_) {
    if (e.spec->migrate_from == source.phase->options().phase) return &e;
  }
  return nullptr;
}

absl::Status Competition::NoSuccessor(const Entry& source) const {
  const std::string& name = source.phase->options().phase;
  std::vector<std::string> fed;
  for (const Entry& e : phases_) {
    if (!e.spec->migrate_from.empty()) {
      fed.push_back(absl::StrCat("\"", e.spec->migrate_from, "\" (into \"",
                                 e.phase->options().phase, "\")"));
    }
  }
  if (fed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no phase of this competition takes submissions from another, so there is nothing to "
        "choose (phase \"", name, "\")"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "submissions of phase \"", name, "\" do not go on to another phase; the submission that "
      "goes on is chosen in phase ", absl::StrJoin(fed, ", "),
      ": submit there and choose one of those"));
}

absl::StatusOr<bool> Competition::Migrated(const Entry& target) {
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events,
                   store_->PhaseEvents(target.phase->options().phase_key));
  for (const PhaseEvent& e : events) {
    if (e.kind == "migrated") return true;
  }
  return false;
}

std::map<std::string, std::pair<int64_t, std::string>> Competition::DefaultFinalists(
    Phase& phase, const std::vector<SubmissionStatus>& subs) {
  // The phase's main board, when it can be read (the baseline may still run) and the teams may
  // see it: name -> score. While the board is hidden until published, the default is the latest
  // healthy submission: a pick by the hidden scores would tell the team which of its
  // submissions ranks higher, and its description the score.
  std::map<std::string, double> score;
  absl::StatusOr<bool> shown = phase.ShowsScores(Identity::Team(""));
  const bool hidden = !shown.ok() || !*shown;
  absl::StatusOr<LeaderboardReport> board =
      hidden ? absl::StatusOr<LeaderboardReport>(absl::PermissionDeniedError("hidden"))
             : phase.Leaderboard();
  if (board.ok()) {
    for (const scoring::MethodResult& r : board->board.rows) {
      if (!r.is_baseline && std::isfinite(r.score)) score[r.method] = r.score;
    }
  }
  std::map<std::string, std::pair<int64_t, std::string>> out;  // team -> (id, why)
  std::map<std::string, double> best;
  for (const SubmissionStatus& s : subs) {  // in registration order: the latest wins ties
    if (s.submission.is_baseline || s.submission.team.empty() || !Healthy(s)) continue;
    auto it = score.find(s.submission.name);
    const double value = it == score.end() ? -HUGE_VAL : it->second;
    auto seen = best.find(s.submission.team);
    if (seen != best.end() && value < seen->second) continue;
    best[s.submission.team] = value;
    std::string why =
        hidden ? "latest complete submission without errors (the board is hidden until "
                 "published)"
        : it == score.end()
            ? "latest complete submission without errors; no score yet"
            : absl::StrCat("best complete submission without errors, score ",
                           absl::StrFormat("%.3f", value));
    out[s.submission.team] = {s.submission.id, std::move(why)};
  }
  return out;
}

absl::StatusOr<FinalistMap> Competition::PlannedFinalists(
    const Entry& source) {
  const PhaseOptions& from = source.phase->options();
  ASSIGN_OR_RETURN(std::vector<SubmissionStatus> subs, source.phase->List());
  FinalistMap out;
  for (auto& [team, pick] : DefaultFinalists(*source.phase, subs)) {
    out[team] = {pick.first, "default", pick.second};
  }
  ASSIGN_OR_RETURN(auto choices, store_->Choices(from.phase_key));
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events, store_->PhaseEvents(from.phase_key));
  for (const auto& [team, id] : choices) {
    Finalist f{id, "chosen", "chosen by the team"};
    for (const PhaseEvent& e : events) {  // the latest event naming this choice says who made it
      if (e.team != team || e.submission_id != id) continue;
      if (e.kind == "chosen") f = {id, "chosen", "chosen by the team"};
      if (e.kind == "finalist_set") f = {id, "organizer", absl::StrCat("set by ", e.who, ": ",
                                                                       e.detail)};
    }
    out[team] = f;
  }
  return out;
}

absl::StatusOr<FinalistMap> Competition::MigratedFinalists(
    const Entry& target) {
  ASSIGN_OR_RETURN(std::vector<SubmissionStatus> subs, target.phase->List());
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events,
                   store_->PhaseEvents(target.phase->options().phase_key));
  FinalistMap out;
  for (const SubmissionStatus& s : subs) {
    const SubmissionRecord& r = s.submission;
    if (r.is_baseline || r.migrated_from == 0 || !r.withdrawn.empty()) continue;
    Finalist f{r.migrated_from, "migrated", "went on at the end of the phase"};
    for (const PhaseEvent& e : events) {
      if (e.kind == "finalist_replaced" && e.submission_id == r.id) {
        f = {r.migrated_from, "organizer", absl::StrCat("set by ", e.who, ": ", e.detail)};
      }
    }
    out[r.team] = f;
  }
  return out;
}

absl::StatusOr<FinalistMap> Competition::Finalists(const Identity& who,
                                                                       const std::string& name) {
  RETURN_IF_ERROR(AccessPolicy().RequireParticipant(who, "finalists"));
  const Entry* source = Find(name);
  if (source == nullptr) return Get(name).status();
  const Entry* target = Successor(*source);
  if (target == nullptr) return FinalistMap();
  ASSIGN_OR_RETURN(bool migrated, Migrated(*target));
  ASSIGN_OR_RETURN(FinalistMap all,
                   migrated ? MigratedFinalists(*target) : PlannedFinalists(*source));
  if (who.is_organizer()) return all;
  FinalistMap out;
  if (auto it = all.find(who.name); who.is_team() && it != all.end()) out.insert(*it);
  return out;
}

absl::StatusOr<Phase*> Competition::PhaseOfSubmission(int64_t submission_id) {
  absl::StatusOr<SubmissionRecord> sub = store_->GetSubmission(submission_id);
  if (sub.ok() && !sub->is_baseline) {
    for (const Entry& e : phases_) {
      if (e.phase->options().phase_key == sub->phase) return e.phase;
    }
  }
  return absl::NotFoundError(absl::StrCat("no submission ", submission_id));
}

absl::StatusOr<std::string> Competition::Choose(const Identity& who, int64_t submission_id) {
  RETURN_IF_ERROR(AccessPolicy().RequireParticipant(who, "choices of submissions"));
  if (!who.is_team()) {
    return absl::PermissionDeniedError(
        "choosing the submission that goes on to the next phase needs your team's token; "
        "organizers set a team's finalist with `bbo admin finalist`");
  }
  absl::StatusOr<SubmissionRecord> sub = store_->GetSubmission(submission_id);
  if (!sub.ok() || sub->is_baseline || sub->team != who.name) {
    return absl::NotFoundError(absl::StrCat("no submission ", submission_id, " of yours"));
  }
  const Entry* source = nullptr;
  for (const Entry& e : phases_) {
    if (e.phase->options().phase_key == sub->phase) source = &e;
  }
  if (source == nullptr) return absl::NotFoundError("the submission's phase is not served here");
  const std::string& name = source->phase->options().phase;
  const Entry* target = Successor(*source);
  if (target == nullptr) return NoSuccessor(*source);
  const std::optional<absl::Time>& end = source->phase->options().window_end;
  if (end && calendar_->Now() >= *end) {
    return absl::FailedPreconditionError(absl::StrCat(
        "phase \"", name, "\" ended at ", FormatUtc(*end),
        "; the choice of the submission that goes on can no longer change"));
  }
  if (!sub->on_board() || !sub->withdrawn.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "submission ", submission_id, " cannot go on: ",
        sub->withdrawn.empty() ? sub->hidden : sub->withdrawn));
  }
  RETURN_IF_ERROR(store_->SetChoice(sub->phase, who.name, submission_id,
                                    calendar_->NowSeconds()));
  RETURN_IF_ERROR(store_->RecordPhaseEvent({0, sub->phase, "chosen", calendar_->NowSeconds(),
                                            who.Describe(), "", who.name, submission_id})
                      .status());
  spdlog::info("event=submission_chosen phase={} team={} submission={} next_phase={}", name,
               who.name, submission_id, target->phase->options().phase);
  return target->phase->options().phase;
}

absl::StatusOr<std::string> Competition::SetFinalist(const Identity& who, int64_t submission_id,
                                                     const std::string& reason) {
  RETURN_IF_ERROR(AccessPolicy().RequireOrganizer(who, "setting a team's finalist"));
  RETURN_IF_ERROR(CheckModerationReason(reason));
  absl::StatusOr<SubmissionRecord> sub = store_->GetSubmission(submission_id);
  const Entry* source = nullptr;
  for (const Entry& e : phases_) {
    if (sub.ok() && e.phase->options().phase_key == sub->phase) source = &e;
  }
  if (!sub.ok() || sub->is_baseline || source == nullptr || sub->team.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no submission ", submission_id, " of a team in a phase served here"));
  }
  const Entry* target = Successor(*source);
  if (target == nullptr) return NoSuccessor(*source);
  const std::string next = target->phase->options().phase;
  ASSIGN_OR_RETURN(bool migrated, Migrated(*target));
  if (migrated) {
    RETURN_IF_ERROR(ReplaceFinalist(who, *target, *sub, reason));
  } else {
    RETURN_IF_ERROR(store_->SetChoice(sub->phase, sub->team, submission_id,
                                      calendar_->NowSeconds()));
  }
  RETURN_IF_ERROR(store_->RecordPhaseEvent({0, sub->phase, "finalist_set",
                                            calendar_->NowSeconds(), ActorName(who), reason,
                                            sub->team, submission_id})
                      .status());
  spdlog::info("event=finalist_set phase={} team={} submission={} next_phase={} by=\"{}\" "
               "reason=\"{}\"", source->phase->options().phase, sub->team, submission_id, next,
               ActorName(who), reason);
  return next;
}

absl::Status Competition::ReplaceFinalist(const Identity& who, const Entry& target,
                                          const SubmissionRecord& sub,
                                          const std::string& reason) {
  const PhaseOptions& to = target.phase->options();
  ASSIGN_OR_RETURN(std::vector<SubmissionRecord> all, store_->ListSubmissions());
  std::vector<int64_t> current;
  for (const SubmissionRecord& s : all) {
    if (s.phase != to.phase_key || s.team != sub.team || s.migrated_from == 0) continue;
    if (!s.withdrawn.empty()) continue;
    if (s.migrated_from == sub.id) {
      return absl::FailedPreconditionError(absl::StrCat(
          "submission ", sub.id, " already is team \"", sub.team, "\"'s entry in phase \"",
          to.phase, "\" (submission ", s.id, ")"));
    }
    current.push_back(s.id);
  }
  RETURN_IF_ERROR(target.phase->CheckRaceEntries());
  const std::string actor = ActorName(who);
  std::vector<std::string> boards = {MainBoardKey(to.phase_key)};
  if (to.warm_start_board) boards.push_back(WarmStartBoardKey(to.phase_key));
  PhaseEvent e{0, to.phase_key, "finalist_replaced", calendar_->NowSeconds(), actor, reason,
               sub.team, 0};
  ASSIGN_OR_RETURN(int64_t id,
                   store_->MigrateOne(to.phase_key, {sub.id, to.default_trials},
                                      to.racing ? std::vector<std::string>{}
                                                : target.phase->problems().names(),
                                      seed_, boards, e));
  for (int64_t old : current) {
    RETURN_IF_ERROR(store_->CancelQueuedJobs(
        old, absl::StrCat("withdrawn by ", actor, ": replaced by submission ", id, ", ",
                          reason)).status());
  }
  if (on_jobs_changed_) on_jobs_changed_();
  return absl::OkStatus();
}

}  // namespace bbo
