#ifndef BBO_CLIENT_COMMANDS_LOCAL_RUN_H_
#define BBO_CLIENT_COMMANDS_LOCAL_RUN_H_

// `bbo local`: scores one submission on the practice suite on this machine, with an embedded
// coordinator (server/embed.h LocalServer: gRPC on 127.0.0.1, a SQLite file) and embedded
// sandboxed workers — the starter-kit experience in one command.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/study_budget.h"
#include "nlohmann/json.hpp"

#include "common/submission_verdict.h"

namespace bbo::client {

struct LocalRunOptions {
  std::string submission_dir;
  // Trials per problem.
  int trials = 3;
  // Random-search baseline trials per problem.
  int baseline_trials = 10;
  // Concurrent sandboxed optimizers.
  int workers = 1;
  // Objective evaluations run at once, shared by the studies (0 = one per core). A batch's
  // points are evaluated in parallel up to this many.
  int eval_slots = 0;
  StudyBudget budget;
  // Only these problems of the suite (empty = all).
  std::vector<std::string> problems;
  // The suite (registry.h): "practice" by default; a visible suite for local scoring, e.g.
  // "sklearn" with --problems DT_iris_nll.
  std::string suite = "practice";
  uint64_t suite_seed = 0;
  // --suite generated: the task family and, optionally, its design file (bbo tasks design).
  std::string generated_family = "bbob-d5";
  std::string design_file;
  // SQLite file to keep (empty = a temporary file, removed afterwards).
  std::string db_path;
  bool insecure_no_sandbox = false;
  // Progress lines on stderr.
  bool progress = true;
  // Show the optimizer's stderr.
  bool verbose = false;
};

// Runs everything and returns the report: {"submission", "leaderboard_score", "median_score",
// "problems": {name: score}, "random_search": {"leaderboard_score", ...}, "errors": [...]}.
absl::StatusOr<nlohmann::json> RunLocal(const LocalRunOptions& options);

// Human-readable table of a RunLocal report.
std::string FormatLocalReport(const nlohmann::json& report);

// common/submission_verdict.h: the lines of an error message in the submission's own files.
using ::bbo::OwnTracebackLines;

}  // namespace bbo::client

#endif  // BBO_CLIENT_COMMANDS_LOCAL_RUN_H_
