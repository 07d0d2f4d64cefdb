#ifndef BBO_SERVER_REPLAY_H_
#define BBO_SERVER_REPLAY_H_

// Replaying a study: every point recorded in SQLite is evaluated again on the problem as it is
// now, and the values are compared with the recorded ones bit for bit (a crash or NaN was
// recorded as +inf and must give +inf again). Together with the problem signature this shows
// that a study's numbers can be reproduced from the database alone.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "problems/problem.h"
#include "server/store/study_store.h"

namespace bbo {

struct ReplayResult {
  int64_t study_id = 0;
  std::string problem;
  int evaluations = 0;
  int reproduced = 0;
  // "batch b, point i: recorded X, now Y" for each difference (at most 20 listed).
  std::vector<std::string> differences;
  // The signature recorded with the study and the problem's signature now ("" if not recorded).
  std::string recorded_signature, signature_now;
  bool ok() const { return reproduced == evaluations; }
};

// NotFound: no such study. InvalidArgument: `problem` is not the study's problem, or a recorded
// point is not valid in the problem's space.
absl::StatusOr<ReplayResult> ReplayStudy(StudyStore* store, const Problem& problem, int64_t study_id);

}  // namespace bbo

#endif  // BBO_SERVER_REPLAY_H_
