#ifndef BBO_SERVER_STORE_RACE_STORE_H_
#define BBO_SERVER_STORE_RACE_STORE_H_

// RaceStore: the rounds of racing phases (server/race.h) and the results a race decides on. Part
// of the Store contract (server/store/store.h): every method is one transaction; implementations
// are thread-safe.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/records.h"

namespace bbo {

class RaceStore {
 public:
  virtual ~RaceStore() = default;
  // The rounds of `phase`, by round number.
  virtual absl::StatusOr<std::vector<RaceRoundRecord>> ListRaceRounds(
      const std::string& phase) = 0;
  // Exactly once per (phase, round), in one transaction: records the round and queues `jobs`
  // on each of `boards` (a job per board; the same seed on every board). AlreadyExists when the
  // round was recorded before (nothing changes); InvalidArgument when `boards` is empty and jobs
  // are given, or a job names a submission of another phase; AlreadyExists when a job repeats
  // (submission, problem, trial, board).
  virtual absl::Status AddRaceRound(const RaceRoundRecord& round, const std::vector<RaceJob>& jobs,
                                    const std::vector<std::string>& boards) = 0;
  // Every job of `phase`'s submissions on `board` with its final scored study's per-batch minima,
  // by job id.
  virtual absl::StatusOr<std::vector<RaceResultRecord>> RaceResults(const std::string& phase,
                                                                    const std::string& board) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_RACE_STORE_H_
