// bbo local and bbo check: what they refuse before starting anything, and the pieces of their
// report (the participant's own traceback lines, the table).

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "client/commands/commands.h"
#include "client/commands/local_run.h"
#include "client/testing/cli_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace bbo::client {
namespace {

namespace fs = std::filesystem;
using cli_testing::BboRun;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A folder with an optimizer.py, which RunLocal accepts as a submission.
std::string PythonSubmission() {
  const std::string dir = cli_testing::MakeTempDir() + "/sub";
  fs::create_directories(dir);
  cli_testing::WriteFile(dir + "/optimizer.py", "# never run by these tests\n");
  return dir;
}

TEST(LocalTest, CheckRefusesASubmissionThatIsNotThere) {
  CheckArgs a;
  a.run.submission_dir = cli_testing::MakeTempDir() + "/none";
  const BboRun run = cli_testing::Capture([&] { return RunCheck(a); });
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "bbo check: SUBMISSION: " + a.run.submission_dir +
                         " is neither a folder nor an archive (.tar, .tar.gz, .zip)\n");
  EXPECT_EQ(run.out, "");
}

TEST(LocalTest, LocalRefusesASubmissionThatIsNotThere) {
  cli_testing::CleanEnvironment env;
  const std::string missing = cli_testing::MakeTempDir() + "/none";
  const BboRun run = cli_testing::RunBbo({"local", missing, "--trials", "1"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "bbo local: SUBMISSION: " + missing +
                         " is neither a folder nor an archive (.tar, .tar.gz, .zip)\n");
}

TEST(LocalTest, RunLocalRefusesABadBudget) {
  LocalRunOptions o;
  o.submission_dir = PythonSubmission();
  o.insecure_no_sandbox = true;
  o.budget.batch_size = 0;
  const absl::StatusOr<nlohmann::json> report = RunLocal(o);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("batch_size"));
}

TEST(LocalTest, RunLocalRefusesAnUnknownProblem) {
  LocalRunOptions o;
  o.submission_dir = PythonSubmission();
  o.insecure_no_sandbox = true;
  o.problems = {"branin", "no_such_problem"};
  const absl::StatusOr<nlohmann::json> report = RunLocal(o);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("no_such_problem"));
}

TEST(LocalTest, RunLocalPointsASourceFolderToItsBuild) {
  // A relative path with no optimizer, whose build tree (build/<path>) holds one.
  const std::string root = cli_testing::MakeTempDir();
  fs::create_directories(root + "/examples/opt");
  fs::create_directories(root + "/build/examples/opt");
  cli_testing::WriteFile(root + "/build/examples/opt/optimizer", "#!/bin/sh\n");
  const fs::path cwd = fs::current_path();
  fs::current_path(root);
  LocalRunOptions o;
  o.submission_dir = "examples/opt";
  o.insecure_no_sandbox = true;
  const absl::StatusOr<nlohmann::json> report = RunLocal(o);
  fs::current_path(cwd);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("Its built optimizer is in build/examples/opt: bbo local "
                        "build/examples/opt"));
}

TEST(LocalTest, OwnTracebackLinesReadTheQuotedStderrBlock) {
  // The worker quotes the optimizer's stderr tail as indented lines (StderrBlock).
  const std::string message =
      "optimizer died; its stderr ended with:\n  | Traceback (most recent call last):\n"
      "  |   File \"/opt/bbo/python/bayesmark/run.py\", line 9, in main\n"
      "  |     opt.suggest(3)\n"
      "  |   File \"/sub/optimizer.py\", line 12, in suggest\n"
      "  |     return 1 / 0\n"
      "  | ZeroDivisionError: division by zero";
  EXPECT_THAT(OwnTracebackLines(message, "/somewhere/sub"),
              ElementsAre("File \"/sub/optimizer.py\", line 12, in suggest", "  return 1 / 0",
                          "ZeroDivisionError: division by zero"));
}

TEST(LocalTest, OwnTracebackLinesKeepOnlyTheSubmissionsFrames) {
  // Databases from before StderrBlock: the optimizer's stderr tail C-escaped.
  const std::string message =
      "optimizer died; stderr: \"Traceback (most recent call last):\\n"
      "  File \\\"/opt/bbo/python/bayesmark/run.py\\\", line 9, in main\\n"
      "    opt.suggest(3)\\n"
      "  File \\\"/sub/optimizer.py\\\", line 12, in suggest\\n"
      "    return 1 / 0\\n"
      "ZeroDivisionError: division by zero\\n\"";
  EXPECT_THAT(OwnTracebackLines(message, "/somewhere/sub"),
              ElementsAre("File \"/sub/optimizer.py\", line 12, in suggest", "  return 1 / 0",
                          "ZeroDivisionError: division by zero"));
  EXPECT_TRUE(OwnTracebackLines("optimizer died; no stderr", "/somewhere/sub").empty());
}

TEST(LocalTest, ReportTableShowsScoresAndTheFirstError) {
  const nlohmann::json report = {
      {"submission", "mine"},
      {"leaderboard_score", 75.0},
      {"median_score", 60.0},
      {"problems", {{"branin", 80.0}}},
      {"random_search",
       {{"leaderboard_score", 1.5}, {"median_score", 0.0}, {"problems", {{"branin", 2.0}}}}},
      {"errors_total", 2},
      {"errors_by_kind", {{"timeout", 2}}},
      {"errors", {{{"problem", "branin"}, {"batch", 3}, {"kind", "timeout"}, {"message", "slow"}}}},
      {"failed_studies", {"branin trial 0: cut off"}}};
  const std::string table = FormatLocalReport(report);
  EXPECT_THAT(table, HasSubstr("  branin                        80.00           2.00\n"));
  EXPECT_THAT(table, HasSubstr("Leaderboard score: 75.000   (median score 60.000)\n"));
  EXPECT_THAT(table, HasSubstr("Random search:     1.500\n"));
  EXPECT_THAT(table, HasSubstr("2 error(s) recorded during the studies (timeout 2); the first:\n"
                               "  branin batch 3 [timeout]: slow\n"));
  EXPECT_THAT(table, HasSubstr("  did not complete: branin trial 0: cut off\n"));
}

}  // namespace
}  // namespace bbo::client
