// Phase: organizers' moderation of a phase's entries (hiding submissions, disqualifying teams),
// each with who, when and why recorded as a phase event.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/competition_file.h"
#include "server/phase.h"
#include "spdlog/spdlog.h"

namespace bbo {
namespace {

constexpr char kDisqualified[] = "team disqualified by ";

// The latest event of `kinds` about `team` (or, with submission_id != 0, that submission).
const PhaseEvent* Latest(const std::vector<PhaseEvent>& events, const std::string& on,
                         const std::string& off, const std::string& team, int64_t submission_id) {
  const PhaseEvent* out = nullptr;
  for (const PhaseEvent& e : events) {
    if ((e.kind == on || e.kind == off) && e.team == team &&
        (submission_id == 0 || e.submission_id == submission_id)) {
      out = &e;
    }
  }
  return out;
}

}  // namespace

std::string ActorName(const Identity& who) {
  if (who.is_organizer() && !who.name.empty()) return absl::StrCat("organizer ", who.name);
  return who.Describe();
}

absl::Status CheckModerationReason(const std::string& reason) {
  if (reason.find_first_not_of(" \t") == std::string::npos) {
    return absl::InvalidArgumentError(
        "reason: give one (--reason \"...\"): it is recorded with your name and shown to the "
        "teams concerned");
  }
  if (reason.size() > 500) {
    return absl::InvalidArgumentError(
        absl::StrCat("reason: ", reason.size(), " bytes; at most 500"));
  }
  for (unsigned char c : reason) {
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError("reason: one line of text, without control characters");
    }
  }
  return absl::OkStatus();
}

absl::Status Phase::Hide(const Identity& who, int64_t submission_id, const std::string& reason,
                         bool undo) {
  RETURN_IF_ERROR(access_.RequireOrganizer(who, "hiding submissions"));
  RETURN_IF_ERROR(CheckModerationReason(reason));
  absl::StatusOr<SubmissionRecord> sub = store_->GetSubmission(submission_id);
  if (!sub.ok() || sub->is_baseline || sub->phase != options_.phase_key) {
    return absl::NotFoundError(absl::StrCat("no submission ", submission_id, " in phase \"",
                                            options_.phase, "\""));
  }
  if (undo == sub->hidden.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "submission ", submission_id, undo ? " is not hidden" : " is already off the board: ",
        undo ? "" : sub->hidden));
  }
  if (undo && absl::StartsWith(sub->hidden, kDisqualified)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "submission ", submission_id, " is off the board because ", sub->hidden,
        "; requalify the team to put it back"));
  }
  const std::string actor = ActorName(who);
  ASSIGN_OR_RETURN(bool changed,
                   store_->SetHidden(submission_id,
                                     undo ? "" : absl::StrCat("hidden by ", actor, ": ", reason)));
  if (!changed) {  // another organizer did the same meanwhile
    return absl::FailedPreconditionError(absl::StrCat("submission ", submission_id, " is ",
                                                      undo ? "not hidden" : "already hidden"));
  }
  PhaseEvent e{0, options_.phase_key, undo ? "unhidden" : "hidden", calendar_->NowSeconds(),
               actor, reason, sub->team, submission_id};
  RETURN_IF_ERROR(store_->RecordPhaseEvent(e).status());
  spdlog::info("event=submission_{} phase={} submission={} team={} by=\"{}\" reason=\"{}\"",
               e.kind, options_.phase, submission_id, sub->team, actor, reason);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Phase::Disqualification(const std::string& team) {
  if (team.empty()) return std::string();
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events, store_->PhaseEvents(options_.phase_key));
  const PhaseEvent* e = Latest(events, "disqualified", "requalified", team, 0);
  if (e == nullptr || e->kind != "disqualified") return std::string();
  return absl::StrCat("team \"", team, "\" was disqualified from phase \"", options_.phase,
                      "\" by the organizers on ", FormatUtc(absl::FromUnixSeconds(
                                                      static_cast<int64_t>(e->at))),
                      ": ", e->detail);
}

absl::Status Phase::Disqualify(const Identity& who, const std::string& team,
                               const std::string& reason, bool undo) {
  RETURN_IF_ERROR(access_.RequireOrganizer(who, "disqualifying teams"));
  RETURN_IF_ERROR(CheckModerationReason(reason));
  if (!ValidName(team)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "team: \"", team, "\" is not a valid team name (1-64 letters, digits, '-', '_', '.')"));
  }
  ASSIGN_OR_RETURN(std::string now, Disqualification(team));
  if (now.empty() == undo) {
    return absl::FailedPreconditionError(absl::StrCat(
        "team \"", team, "\" is ", undo ? "not disqualified" : "already disqualified",
        " in phase \"", options_.phase, "\""));
  }
  const std::string actor = ActorName(who);
  ASSIGN_OR_RETURN(std::vector<SubmissionRecord> subs, store_->ListSubmissions());
  for (const SubmissionRecord& s : subs) {
    if (s.is_baseline || s.phase != options_.phase_key || s.team != team) continue;
    if (undo && !absl::StartsWith(s.hidden, kDisqualified)) continue;  // hidden for itself
    if (!undo && !s.hidden.empty()) continue;
    RETURN_IF_ERROR(
        store_->SetHidden(s.id, undo ? "" : absl::StrCat(kDisqualified, actor, ": ", reason))
            .status());
  }
  PhaseEvent e{0, options_.phase_key, undo ? "requalified" : "disqualified",
               calendar_->NowSeconds(), actor, reason, team, 0};
  RETURN_IF_ERROR(store_->RecordPhaseEvent(e).status());
  spdlog::info("event=team_{} phase={} team={} by=\"{}\" reason=\"{}\"", e.kind, options_.phase,
               team, actor, reason);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PhaseEvent>> Phase::ModerationLog(const Identity& who) {
  RETURN_IF_ERROR(access_.RequireOrganizer(who, "the moderation log"));
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events, store_->PhaseEvents(options_.phase_key));
  std::vector<PhaseEvent> out;
  for (PhaseEvent& e : events) {
    if (e.kind != "migrated") out.push_back(std::move(e));
  }
  return out;
}

}  // namespace bbo
