// bbo problems list: the practice suite built on this machine, as a table, as JSON, as counts.

#include <sstream>
#include <string>
#include <vector>

#include "client/commands/commands.h"
#include "client/testing/cli_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "problems/practice_suite.h"

namespace bbo::client {
namespace {

using cli_testing::BboRun;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ProblemsListTest, TableHasEveryPracticeProblemAndTheCount) {
  const std::vector<std::string> names = PracticeProblemNames();
  ProblemsListArgs a;
  const BboRun run = cli_testing::Capture([&] { return RunProblemsList(a); });
  ASSERT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  // The header, a row per problem, the counts.
  ASSERT_EQ(lines.size(), names.size() + 2) << run.out;
  EXPECT_THAT(lines[0], StartsWith("name "));
  EXPECT_THAT(lines[0], Not(HasSubstr("[optimum]")));
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_THAT(lines[i + 1], StartsWith(names[i] + " ")) << i;
  }
  EXPECT_THAT(lines.back(), StartsWith(std::to_string(names.size()) + " problems;"));
}

TEST(ProblemsListTest, JsonRowsAndCountsAgree) {
  ProblemsListArgs a;
  a.json = true;
  const BboRun run = cli_testing::Capture([&] { return RunProblemsList(a); });
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json listing = nlohmann::json::parse(run.out);
  EXPECT_EQ(listing["suite"], "practice");
  EXPECT_EQ(listing["seed"], 0);
  const nlohmann::json& rows = listing["problems"];
  ASSERT_EQ(rows.size(), PracticeProblemNames().size());
  int counted = 0;
  for (const auto& [family, n] : listing["per_family"].items()) counted += n.get<int>();
  EXPECT_EQ(counted, static_cast<int>(rows.size()));
  // Branin: two real parameters (Branin (1972); x1 in [-5, 10], x2 in [0, 15]).
  EXPECT_EQ(rows[0]["name"], "branin");
  EXPECT_EQ(rows[0]["dimension"], 2);
  EXPECT_EQ(rows[0]["parameter_types"], "real x2");
  EXPECT_FALSE(rows[0].contains("optimum"));
}

TEST(ProblemsListTest, ShowOptimumGivesBraninsKnownMinimum) {
  ProblemsListArgs a;
  a.show_optimum = true;
  const BboRun run = cli_testing::Capture([&] { return RunProblemsList(a); });
  ASSERT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  EXPECT_THAT(lines[0], HasSubstr("[optimum]"));
  // Branin's global minimum is 5 / (4 pi) = 0.397887357729...
  EXPECT_THAT(lines[1], HasSubstr("[0.3978873577"));
}

TEST(ProblemsListTest, CountsOnlyPrintsOneLine) {
  ProblemsListArgs a;
  a.counts_only = true;
  const BboRun run = cli_testing::Capture([&] { return RunProblemsList(a); });
  ASSERT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 1u) << run.out;
  EXPECT_THAT(lines[0], StartsWith(std::to_string(PracticeProblemNames().size()) + " problems;"));
}

TEST(ProblemsListTest, UnknownSuiteExitsOne) {
  ProblemsListArgs a;
  a.suite = "no-such-suite";
  const BboRun run = cli_testing::Capture([&] { return RunProblemsList(a); });
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo problems list: "));
  EXPECT_THAT(run.err, HasSubstr("no-such-suite"));
  EXPECT_EQ(run.out, "");
}

TEST(ProblemsListTest, SuiteFileWithAnUnknownProblemExitsOne) {
  ProblemsListArgs a;
  a.suite_file = cli_testing::WriteFile(
      cli_testing::MakeTempDir() + "/suite.json",
      R"({"name": "s", "problems": [{"suite": "practice", "problem": "no_such_problem"}]})");
  const BboRun run = cli_testing::Capture([&] { return RunProblemsList(a); });
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo problems list: "));
  EXPECT_THAT(run.err, HasSubstr("no_such_problem"));
}

TEST(ProblemsListTest, ThroughTheCommandLine) {
  cli_testing::CleanEnvironment env;
  const BboRun run = cli_testing::RunBbo({"problems", "list", "--json", "--seed", "3"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["seed"], 3);
}

}  // namespace
}  // namespace bbo::client
