#ifndef BBO_SERVER_STORE_PHASE_STORE_H_
#define BBO_SERVER_STORE_PHASE_STORE_H_

// PhaseStore: what a competition of several phases keeps beyond submissions and jobs: each
// phase's problems and budgets as first served (so a running phase cannot be changed
// silently), the phase events (the migration into a phase, publishing and withdrawing its
// board), and each team's choice of the submission that goes on to the next phase. Part of the
// Store contract (server/store/store.h): every method is one transaction; thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/records.h"

namespace bbo {

struct PhaseRecord {
  std::string name;
  // PhaseSpec::Fingerprint() and the phase as JSON, when recorded.
  std::string fingerprint;
  std::string spec;
  double recorded_at = 0;
};

struct PhaseEvent {
  int64_t id = 0;
  std::string phase;
  // "migrated", "published", "unpublished"; organizers' moderation: "hidden", "unhidden",
  // "disqualified", "requalified"; the submission that goes on: "chosen" (by its team),
  // "finalist_set" (by an organizer, before the migration), "finalist_replaced" (by an organizer,
  // after it: the event is the target phase's).
  std::string kind;
  double at = 0;
  std::string who;
  std::string detail;  // the reason, for moderation
  // The team and submission the event is about ("" and 0 when none).
  std::string team;
  int64_t submission_id = 0;
};
// Whether RecordPhaseEvent takes events of this kind (all but "migrated").
bool IsRecordablePhaseEvent(const std::string& kind);

// One submission moving on to the next phase.
struct Migration {
  int64_t source_submission_id = 0;
  int trials = 0;
};

class PhaseStore {
 public:
  virtual ~PhaseStore() = default;
  // nullopt when the phase was never recorded.
  virtual absl::StatusOr<std::optional<PhaseRecord>> GetPhase(const std::string& name) = 0;
  // Inserts or replaces the phase's record.
  virtual absl::Status PutPhase(const PhaseRecord& phase) = 0;
  // The team's choice in `phase` (replacing an earlier one). NotFound for an unknown
  // submission; InvalidArgument when the submission is not of that phase and team.
  virtual absl::Status SetChoice(const std::string& phase, const std::string& team,
                                 int64_t submission_id, double at) = 0;
  // Team -> chosen submission id in `phase`.
  virtual absl::StatusOr<std::map<std::string, int64_t>> Choices(const std::string& phase) = 0;
  // Appends an event ("migrated" is refused here: MigrateInto records it). Returns its id.
  virtual absl::StatusOr<int64_t> RecordPhaseEvent(const PhaseEvent& event) = 0;
  // The events of `phase`, oldest first.
  virtual absl::StatusOr<std::vector<PhaseEvent>> PhaseEvents(const std::string& phase) = 0;
  // Exactly once per phase, in one transaction: copies every source submission (name, team,
  // kind, archive) into `phase` with `migrated_from` set, queues its jobs on `boards` (as
  // AddSubmission does, seeds from `seed_base`) and records the "migrated" event with `detail`.
  // AlreadyExists when `phase` was migrated into before (nothing changes). Returns the new
  // submission ids in the order of `sources`.
  virtual absl::StatusOr<std::vector<int64_t>> MigrateInto(
      const std::string& phase, const std::vector<Migration>& sources,
      const std::vector<std::string>& problems, int64_t seed_base,
      const std::vector<std::string>& boards, double at, const std::string& detail) = 0;
  // One more submission moving into `phase` after its migration (an organizer replacing a
  // team's finalist), in one transaction with `event` (recorded as RecordPhaseEvent does, its
  // submission_id the new copy's): the copy and its jobs as MigrateInto makes them. Returns the
  // copy's id. NotFound for an unknown source; AlreadyExists for a name taken in `phase`.
  virtual absl::StatusOr<int64_t> MigrateOne(const std::string& phase, const Migration& source,
                                             const std::vector<std::string>& problems,
                                             int64_t seed_base,
                                             const std::vector<std::string>& boards,
                                             const PhaseEvent& event) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_PHASE_STORE_H_
