#ifndef BBO_SERVER_SUBMISSION_LOG_H_
#define BBO_SERVER_SUBMISSION_LOG_H_

// A submission's log, as its team (and organizers) read it: how each of its studies ended and
// why, every error recorded on them counted by kind, and the first ones in full (the optimizer's
// own messages and the tail of its stderr are in them). In a hidden phase a team sees its
// problems as "problem-1", "problem-2", ... (in the phase's order); organizers see the names.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/submission_verdict.h"
#include "server/problem_set.h"
#include "server/store/store.h"

namespace bbo {

struct SubmissionLogError {
  std::string problem;
  int64_t study_id = 0;
  int batch = 0;
  std::string kind;
  std::string message;
};

struct SubmissionLog {
  SubmissionRecord submission;
  JobCounts jobs;
  std::vector<StudySummary> studies;
  // Every error of every study, by kind ("batch": invalid suggestions replaced, "suggest": a
  // failed suggest filled by random search, "optimizer_died", "budget", "ended_early",
  // "host_error"), and in all.
  std::map<std::string, int> errors_by_kind;
  int total_errors = 0;
  int studies_with_errors = 0;
  // The first `limit` errors, oldest first.
  std::vector<SubmissionLogError> errors;
  // Studies by final state ("completed", "cut_off", "failed", "abandoned", "running").
  std::map<std::string, int> studies_by_state;
};

// Reads the log of `submission` from `store`. `hide_problems`: replace problem names with
// "problem-K" (K = 1 + the problem's index in `problems`, "problem-?" for one not in it).
absl::StatusOr<SubmissionLog> ReadSubmissionLog(Store& store, const SubmissionRecord& submission,
                                                const ProblemSet& problems, bool hide_problems,
                                                int limit);

// The verdict on `log`'s studies in `bbo check`'s words (common/submission_verdict.h): failed =
// its studies that ended but did not complete; studies = its jobs.
SubmissionVerdict JudgeSubmission(const SubmissionLog& log);

}  // namespace bbo

#endif  // BBO_SERVER_SUBMISSION_LOG_H_
