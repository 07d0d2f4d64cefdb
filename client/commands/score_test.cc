// bbo score on small results tables written here, with scores computed by hand.

#include <string>

#include "client/commands/commands.h"
#include "client/testing/cli_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace bbo::client {
namespace {

using cli_testing::BboRun;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// One problem, batches of 1, two batches, two trials per method.
//   random search: trial 0 sees 4 then 3, trial 1 sees 2 then 5. Pooled single evaluations
//     {2, 3, 4, 5}: clip = their median as an order statistic, X_(ceil(4 * 0.5)) = 3.
//   opt = the best value anyone found, 1 (less Bayesmark's pad of 10000 ulps).
//   Per trial the best so far at the last batch S, clipped at 3, normalized (S - 1) / (3 - 1):
//     good          S = 1, 2  -> 0, 0.5    -> mean 0.25 -> score 100 (1 - 0.25) = 75
//     mid           S = 2, 2  -> 0.5, 0.5  -> mean 0.5  -> score 50
//     random-search S = 3, 2  -> 1, 0.5    -> mean 0.75 -> score 25
constexpr char kResults[] =
    "problem,method,trial,batch,suggestion,value\n"
    "toy,random-search,0,0,0,4\n"
    "toy,random-search,0,1,0,3\n"
    "toy,random-search,1,0,0,2\n"
    "toy,random-search,1,1,0,5\n"
    "toy,good,0,0,0,2\n"
    "toy,good,0,1,0,1\n"
    "toy,good,1,0,0,3\n"
    "toy,good,1,1,0,2\n"
    "toy,mid,0,0,0,3\n"
    "toy,mid,0,1,0,2\n"
    "toy,mid,1,0,0,4\n"
    "toy,mid,1,1,0,2\n";

class ScoreTest : public ::testing::Test {
 protected:
  ScoreArgs Args(const std::string& csv) {
    ScoreArgs a;
    a.path = cli_testing::WriteFile(cli_testing::MakeTempDir() + "/results.csv", csv);
    a.bootstrap.replicates = 200;
    return a;
  }
  cli_testing::CleanEnvironment env_;
};

TEST_F(ScoreTest, JsonHasTheHandComputedScores) {
  ScoreArgs a = Args(kResults);
  a.json = true;
  const BboRun run = cli_testing::Capture([&] { return RunScore(a); });
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["batch_size"], 1);
  EXPECT_EQ(report["n_batches"], 2);
  EXPECT_NEAR(report["baselines"]["toy"]["clip"].get<double>(), 3.0, 1e-12);
  EXPECT_NEAR(report["baselines"]["toy"]["opt"].get<double>(), 1.0, 1e-9);
  EXPECT_LT(report["baselines"]["toy"]["opt"].get<double>(), 1.0);
  const nlohmann::json& methods = report["methods"];
  ASSERT_EQ(methods.size(), 3u);
  // Best first.
  EXPECT_EQ(methods[0]["method"], "good");
  EXPECT_NEAR(methods[0]["leaderboard_score"].get<double>(), 75.0, 1e-6);
  EXPECT_EQ(methods[1]["method"], "mid");
  EXPECT_NEAR(methods[1]["leaderboard_score"].get<double>(), 50.0, 1e-6);
  EXPECT_EQ(methods[2]["method"], "random-search");
  EXPECT_NEAR(methods[2]["leaderboard_score"].get<double>(), 25.0, 1e-6);
}

TEST_F(ScoreTest, TableRanksTheMethodsBestFirst) {
  const ScoreArgs a = Args(kResults);
  const BboRun run = cli_testing::Capture([&] { return RunScore(a); });
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("2 batches of 1, 1 problems;"));
  const size_t good = run.out.find("\n1    good ");
  const size_t mid = run.out.find("\n2    mid ");
  const size_t rs = run.out.find("\n3    random-search ");
  ASSERT_NE(good, std::string::npos) << run.out;
  ASSERT_NE(mid, std::string::npos) << run.out;
  ASSERT_NE(rs, std::string::npos) << run.out;
  EXPECT_THAT(run.out.substr(good, 60), HasSubstr("75.000"));
  EXPECT_THAT(run.out.substr(mid, 60), HasSubstr("50.000"));
  EXPECT_THAT(run.out.substr(rs, 60), HasSubstr("25.000"));
  EXPECT_THAT(run.out, HasSubstr("vs 2 used"));
  EXPECT_THAT(run.out, HasSubstr("Bootstrap ranks (B = 200,"));
  EXPECT_THAT(run.out, HasSubstr("anytime Pareto set:"));
}

TEST_F(ScoreTest, ThroughTheCommandLine) {
  const ScoreArgs a = Args(kResults);
  const BboRun run =
      cli_testing::RunBbo({"score", a.path, "--json", "--bootstrap", "100", "--top_k", "2"});
  ASSERT_EQ(run.code, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["methods"][0]["method"], "good");
  EXPECT_EQ(report["bootstrap"]["replicates"], 100);
}

TEST_F(ScoreTest, MissingFileExitsOne) {
  ScoreArgs a;
  a.path = cli_testing::MakeTempDir() + "/none.csv";
  const BboRun run = cli_testing::Capture([&] { return RunScore(a); });
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "bbo score: cannot read " + a.path + "\n");
  EXPECT_EQ(run.out, "");
}

TEST_F(ScoreTest, BadValueNamesTheFileAndLine) {
  const ScoreArgs a = Args("problem,method,trial,batch,suggestion,value\n"
                           "toy,random-search,0,0,0,4\n"
                           "toy,random-search,0,1,0,nan\n");
  const BboRun run = cli_testing::Capture([&] { return RunScore(a); });
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo score: " + a.path + ": "));
  EXPECT_THAT(run.err, HasSubstr("3"));
}

TEST_F(ScoreTest, TableWithoutRandomSearchExitsOne) {
  ScoreArgs a = Args(kResults);
  a.random_search = "no-such-method";
  const BboRun run = cli_testing::Capture([&] { return RunScore(a); });
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo score: "));
  EXPECT_THAT(run.err, HasSubstr("no-such-method"));
}

}  // namespace
}  // namespace bbo::client
