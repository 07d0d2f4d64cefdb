#include "server/publication.h"

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"

namespace bbo {

absl::StatusOr<PublicationState> ReadPublication(PhaseStore& store,
                                                 const BoardPublication& board) {
  PublicationState out;
  if (!board.hidden_until_published) {
    out.published = true;
    return out;
  }
  ASSIGN_OR_RETURN(std::vector<PhaseEvent> events, store.PhaseEvents(board.phase_key));
  for (const PhaseEvent& e : events) {
    if (e.kind != "published" && e.kind != "unpublished") continue;
    out.published = e.kind == "published";
    out.at = e.at;
    out.who = e.who;
    out.detail = e.detail;
  }
  return out;
}

absl::Status Publish(PhaseStore& store, const BoardPublication& board, const Identity& who,
                     const std::string& actor, bool undo, const std::string& reason, double now) {
  if (!who.is_organizer()) {
    return absl::PermissionDeniedError("publishing a board needs an organizer token");
  }
  if (!board.hidden_until_published) {
    return absl::FailedPreconditionError(absl::StrCat(
        "phase \"", board.phase, "\" has a public board; there is nothing to publish"));
  }
  if (undo && reason.empty()) {
    return absl::InvalidArgumentError(
        "reason: withdrawing a published board needs a reason (`bbo admin unpublish` needs "
        "--reason); it is recorded and shown");
  }
  ASSIGN_OR_RETURN(PublicationState state, ReadPublication(store, board));
  if (state.published != undo) {
    return absl::FailedPreconditionError(absl::StrCat("the board of phase \"", board.phase,
                                                      "\" is already ",
                                                      state.published ? "published" : "hidden"));
  }
  PhaseEvent e;
  e.phase = board.phase_key;
  e.kind = undo ? "unpublished" : "published";
  e.at = now;
  e.who = actor;
  e.detail = reason;
  RETURN_IF_ERROR(store.RecordPhaseEvent(e).status());
  spdlog::info("event=board_{} phase={} by={} reason=\"{}\"", e.kind, board.phase, e.who,
               absl::CHexEscape(reason));
  return absl::OkStatus();
}

}  // namespace bbo
