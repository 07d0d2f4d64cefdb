#ifndef BBO_SERVER_PUBLICATION_H_
#define BBO_SERVER_PUBLICATION_H_

// Publication of a phase's board that is hidden until published: the one rule, applied by the
// coordinator's Phase (and so by the gRPC and web handlers, which call it) and by `bbo admin
// publish` on a database (ArenaDatabase). Publishing and withdrawing a publication are phase
// events in the store (PhaseStore::RecordPhaseEvent): the latest one decides. Thread-safe as the
// store is.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/access.h"
#include "server/store/phase_store.h"

namespace bbo {

// Whether a phase's board is published, and since when (the latest publish or withdrawal).
struct PublicationState {
  bool published = false;
  double at = 0;
  std::string who;
  std::string detail;
};

// The board a publication is about.
struct BoardPublication {
  // The phase's name (messages) and store key (its events).
  std::string phase;
  std::string phase_key;
  // False: the board is public from the start (always published, nothing to publish).
  bool hidden_until_published = false;
};

// The board's publication now. Errors: the store's.
absl::StatusOr<PublicationState> ReadPublication(PhaseStore& store, const BoardPublication& board);

// Publishes the board, or with `undo` withdraws its publication. Organizers only
// (PermissionDenied); InvalidArgument: `undo` without a reason (it is recorded and shown);
// FailedPrecondition: the board is public from the start, or already in the asked state.
// Recorded as a phase event at `now` (Unix seconds) with `actor` (who, as the audit names them)
// and the reason.
absl::Status Publish(PhaseStore& store, const BoardPublication& board, const Identity& who,
                     const std::string& actor, bool undo, const std::string& reason, double now);

}  // namespace bbo

#endif  // BBO_SERVER_PUBLICATION_H_
