#include "report/results_csv.h"

#include <cmath>
#include <sstream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/report_json.h"

namespace bbo::scoring {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<ResultsTable> Parse(const std::string& csv) {
  std::istringstream in(csv);
  return ParseResultsCsv(in);
}

const MethodResult* Find(const Leaderboard& b, const std::string& name) {
  for (const auto& r : b.rows) {
    if (r.method == name) return &r;
  }
  return nullptr;
}

// Random search: batch 0 {4, 1}, batch 1 {3, 2}. Method A: trial 0 {3, 5} {1, 4}; trial 1
// {1.5, 9} {2, 8}.
constexpr char kSmall[] =
    "problem,method,trial,batch,suggestion,value\n"
    "p,random-search,0,0,0,4\np,random-search,0,0,1,1\n"
    "p,random-search,0,1,0,3\np,random-search,0,1,1,2\n"
    "p,A,0,0,0,3\np,A,0,0,1,5\np,A,0,1,0,1\np,A,0,1,1,4\n"
    "p,A,1,0,0,1.5\np,A,1,0,1,9\np,A,1,1,0,2\np,A,1,1,1,8\n";

TEST(ResultsCsvTest, ScoresASmallTableByHand) {
  auto table = Parse(kSmall);
  ASSERT_TRUE(table.ok()) << table.status();
  auto built = BuildScoringInput(*table, "random-search", false);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->input.batch_size, 2);
  EXPECT_EQ(built->input.n_batches, 2);
  auto board = ComputeLeaderboard(built->input, "");
  ASSERT_TRUE(board.ok()) << board.status();
  // clip = 2nd smallest of {4,1,3,2} = 2; opt = best of all evaluations = 1 (minus 10000 ulp).
  EXPECT_EQ(board->baselines.at("p").clip, 2);
  // A: S = {3, 1} -> {1 (clamped), 0}; S = {1.5, 1.5} -> {.5, .5}; mean {.75, .25}: 75.
  const MethodResult* a = Find(*board, "A");
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->problems[0].norm_mean_perf[0], 0.75, 1e-9);
  EXPECT_NEAR(a->score, 75.0, 1e-9);
  // rand-med after 4 draws = 1 = A's median S -> normalized median 1 -> median score 0.
  EXPECT_NEAR(a->median_score, 0.0, 1e-9);
  // Random search is scored as a method from its own trial: S = {1, 1} = the optimum: 100.
  EXPECT_NEAR(Find(*board, "random-search")->score, 100.0, 1e-6);
  EXPECT_TRUE(built->warnings.size() == 1);  // 2 trials for A, 1 for random search
  EXPECT_THAT(built->warnings[0], HasSubstr("ragged"));

  nlohmann::json j = LeaderboardJson(*board, built->input);
  ASSERT_TRUE(j["methods"].is_array());
  const auto& m = j["methods"][0];
  for (const char* key : {"method", "leaderboard_score", "median_score", "problems"}) {
    EXPECT_TRUE(m.contains(key)) << key;
  }
  EXPECT_EQ(m["problems"][0]["normalized_mean"].size(), 2u);
  EXPECT_EQ(m["problems"][0]["normalized_median"].size(), 2u);
}

TEST(ResultsCsvTest, GeneralizationIsScoredAtTheVisibleArgmin) {
  const std::string csv =
      "problem,method,trial,batch,suggestion,value,generalization\n"
      "p,random-search,0,0,0,3,3\np,random-search,0,0,1,4,4\n"
      "p,random-search,0,1,0,1,1\np,random-search,0,1,1,2,2\n"
      "p,M,0,0,0,1,5\np,M,0,0,1,2,0.5\np,M,0,1,0,3,0.7\np,M,0,1,1,4,9\n";
  auto table = Parse(csv);
  ASSERT_TRUE(table.ok()) << table.status();
  // Visible loss: M's S = {1, 1} = the best visible value anywhere: 100.
  auto visible = ComputeLeaderboard(BuildScoringInput(*table, "random-search", false)->input, "");
  EXPECT_NEAR(Find(*visible, "M")->score, 100.0, 1e-6);
  // Held-out loss at the visible argmin: 5 at both batches; (5 - .5) / (2 - .5) clamps to 1: 0.
  auto held_out = ComputeLeaderboard(BuildScoringInput(*table, "random-search", true)->input, "");
  ASSERT_TRUE(held_out.ok()) << held_out.status();
  EXPECT_NEAR(Find(*held_out, "M")->score, 0.0, 1e-6);
}

TEST(ResultsCsvTest, MalformedRowsNameTheLine) {
  struct Case {
    std::string csv;
    std::string expect;
  } cases[] = {
      {"problem,method,trial,batch,value\n", "no \"suggestion\" column"},
      {"problem,method,trial,batch,suggestion,value\np,m,0,0,0\n", "line 2: has 5 fields"},
      {"problem,method,trial,batch,suggestion,value\np,m,x,0,0,1\n", "line 2: trial \"x\""},
      {"problem,method,trial,batch,suggestion,value\np,m,0,-1,0,1\n", "line 2: batch"},
      {"problem,method,trial,batch,suggestion,value\np,m,0,0,0,1\np,m,0,0,0,abc\n",
       "line 3: value \"abc\""},
      {"problem,method,trial,batch,suggestion,value\np,m,0,0,0,nan\n", "use inf"},
      {"problem,method,trial,batch,suggestion,value\np,m,0,0,0,1\np,m,0,0,0,2\n",
       "line 3: repeats"},
      {"", "empty"},
  };
  for (const auto& c : cases) {
    auto t = Parse(c.csv);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << c.csv;
    EXPECT_THAT(t.status().message(), HasSubstr(c.expect)) << c.csv;
  }
  // inf is a valid (crashed) value.
  EXPECT_TRUE(Parse("problem,method,trial,batch,suggestion,value\np,m,0,0,0,inf\n").ok());
}

TEST(ResultsCsvTest, MissingRandomSearchIsAClearError) {
  auto table = Parse("problem,method,trial,batch,suggestion,value\np,m,0,0,0,1\n");
  auto built = BuildScoringInput(*table, "random-search", false);
  EXPECT_THAT(built.status().message(), HasSubstr("--random-search"));
}

// The ScoringInput fields BuildScoringInput fills, compared exactly (bit for bit).
void ExpectSameInput(const ScoringInput& a, const ScoringInput& b) {
  EXPECT_EQ(a.n_batches, b.n_batches);
  EXPECT_EQ(a.batch_size, b.batch_size);
  ASSERT_EQ(a.problems.size(), b.problems.size());
  for (const auto& [name, pa] : a.problems) {
    const ProblemBaselineInput& pb = b.problems.at(name);
    EXPECT_EQ(pa.random_evals, pb.random_evals) << name;
    EXPECT_EQ(pa.all_evals_min, pb.all_evals_min) << name;
  }
  ASSERT_EQ(a.methods.size(), b.methods.size());
  for (const auto& [method, per_problem] : a.methods) {
    ASSERT_EQ(per_problem.size(), b.methods.at(method).size()) << method;
    for (const auto& [problem, data] : per_problem) {
      const MethodProblemData& other = b.methods.at(method).at(problem);
      ASSERT_EQ(data.trials.size(), other.trials.size());
      for (size_t t = 0; t < data.trials.size(); ++t) {
        EXPECT_EQ(data.trials[t].batch_min, other.trials[t].batch_min) << method << problem;
        EXPECT_EQ(data.trials[t].visible_min, other.trials[t].visible_min) << method << problem;
      }
    }
  }
}

TEST(ResultsCsvTest, WrittenTablesReadBackToTheSameScoringInput) {
  ResultsTable table;
  table.has_generalization = true;
  // Values that only survive a round trip written with full precision, inf, -inf, a missing
  // batch (opt, trial 1, batch 1) and a crashed trial.
  table.rows = {
      {"p", "opt", 0, 0, 0, 0.1, 0.30000000000000004},
      {"p", "opt", 0, 0, 1, 1.0 / 3.0, 2.0 / 3.0},
      {"p", "opt", 0, 1, 0, -HUGE_VAL, 1e-300},
      {"p", "opt", 0, 1, 1, 123456789.123456789, 5e300},
      {"p", "opt", 1, 0, 0, HUGE_VAL, HUGE_VAL},
      {"p", "rs", 0, 0, 0, 2.5, 2.75},
      {"p", "rs", 0, 0, 1, 0.7071067811865476, 1.4142135623730951},
      {"p", "rs", 0, 1, 0, 3, 4},
      {"p", "rs", 0, 1, 1, HUGE_VAL, HUGE_VAL},
      {"q", "rs", 0, 0, 0, -0.0, 0},
      {"q", "opt", 0, 0, 0, 1e-17, 2e-17},
  };
  std::stringstream csv;
  ASSERT_TRUE(WriteResultsCsv(csv, table).ok());
  EXPECT_THAT(csv.str(), ::testing::StartsWith(
                             "problem,method,trial,batch,suggestion,value,generalization\n"
                             "p,opt,0,0,0,0.10000000000000001,0.30000000000000004\n"));
  EXPECT_THAT(csv.str(), HasSubstr("p,opt,0,1,0,-inf,"));
  auto parsed = Parse(csv.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->has_generalization);
  ASSERT_EQ(parsed->rows.size(), table.rows.size());
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const ResultsRow &a = table.rows[i], &b = parsed->rows[i];
    EXPECT_EQ(std::tie(a.problem, a.method, a.trial, a.batch, a.suggestion),
              std::tie(b.problem, b.method, b.trial, b.batch, b.suggestion));
    EXPECT_EQ(a.value, b.value) << "row " << i;
    EXPECT_EQ(a.generalization, b.generalization) << "row " << i;
  }
  for (bool generalization : {false, true}) {
    auto want = BuildScoringInput(table, "rs", generalization);
    auto got = BuildScoringInput(*parsed, "rs", generalization);
    ASSERT_TRUE(want.ok() && got.ok());
    ExpectSameInput(want->input, got->input);
    EXPECT_EQ(want->warnings, got->warnings);
  }
}

TEST(ResultsCsvTest, WritesNoGeneralizationColumnUnlessTheTableHasOne) {
  ResultsTable table;
  table.rows = {{"p", "rs", 0, 0, 0, 1.5, 99}};
  std::stringstream csv;
  ASSERT_TRUE(WriteResultsCsv(csv, table).ok());
  EXPECT_EQ(csv.str(), "problem,method,trial,batch,suggestion,value\np,rs,0,0,0,1.5\n");
  auto parsed = Parse(csv.str());
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->has_generalization);
}

TEST(ResultsCsvTest, PerBatchFiguresTravelAsColumnsAndIntoTheTrialCurves) {
  ResultsTable table;
  // Trial 0 ran two batches with their CPU time known, trial 1 one batch without it.
  ResultsRow a{"p", "A", 0, 0, 0, 3.0, 0};
  a.figures.optimizer_cpu_s = 0.25;
  ResultsRow b = a;
  b.suggestion = 1;
  b.value = 5.0;
  ResultsRow c{"p", "A", 0, 1, 0, 1.0, 0};
  c.figures.optimizer_cpu_s = 1.5;
  ResultsRow d{"p", "A", 1, 0, 0, 2.0, 0};
  ResultsRow rs{"p", "random-search", 0, 0, 0, 4.0, 0};
  table.rows = {a, b, c, d, rs};
  std::stringstream csv;
  ASSERT_TRUE(WriteResultsCsv(csv, table).ok());
  EXPECT_EQ(csv.str(),
            "problem,method,trial,batch,suggestion,value,optimizer_cpu_s\n"
            "p,A,0,0,0,3,0.25\np,A,0,0,1,5,0.25\np,A,0,1,0,1,1.5\np,A,1,0,0,2,\n"
            "p,random-search,0,0,0,4,\n");
  auto parsed = Parse(csv.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->rows.size(), 5u);
  EXPECT_EQ(parsed->rows[2].figures.optimizer_cpu_s, 1.5);
  EXPECT_FALSE(parsed->rows[3].figures.optimizer_cpu_s.has_value());
  auto built = BuildScoringInput(*parsed, "random-search", false);
  ASSERT_TRUE(built.ok()) << built.status();
  const auto& trials = built->input.methods.at("A").at("p").trials;
  ASSERT_EQ(trials.size(), 2u);
  ASSERT_EQ(trials[0].batch_figures.size(), 2u);
  EXPECT_EQ(trials[0].batch_figures[0].optimizer_cpu_s, 0.25);
  EXPECT_EQ(trials[0].batch_figures[1].optimizer_cpu_s, 1.5);
  EXPECT_TRUE(trials[1].batch_figures.empty());  // nothing measured: no figures at all
}

TEST(ResultsCsvTest, AStudyARacePlannedShorterTravelsAsPlannedBatchesAndIsNotCarriedForward) {
  // Trial 1 of A was planned for one batch of two (a race's tau_A); the others for two.
  ResultsTable table;
  for (auto [trial, batch, value, planned] :
       {std::tuple{0, 0, 3.0, 2}, std::tuple{0, 1, 1.0, 2}, std::tuple{1, 0, 2.0, 1}}) {
    ResultsRow r{"p", "A", trial, batch, 0, value, 0};
    r.planned_batches = planned;
    table.rows.push_back(r);
  }
  ResultsRow rs{"p", "random-search", 0, 0, 0, 4.0, 0};
  ResultsRow rs2{"p", "random-search", 0, 1, 0, 5.0, 0};
  table.rows.push_back(rs);
  table.rows.push_back(rs2);
  std::stringstream csv;
  ASSERT_TRUE(WriteResultsCsv(csv, table).ok());
  EXPECT_EQ(csv.str(),
            "problem,method,trial,batch,suggestion,value,planned_batches\n"
            "p,A,0,0,0,3,2\np,A,0,1,0,1,2\np,A,1,0,0,2,1\n"
            "p,random-search,0,0,0,4,\np,random-search,0,1,0,5,\n");
  auto parsed = Parse(csv.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  auto built = BuildScoringInput(*parsed, "random-search", false);
  ASSERT_TRUE(built.ok()) << built.status();
  const auto& trials = built->input.methods.at("A").at("p").trials;
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].horizon, -1);
  EXPECT_EQ(trials[1].horizon, 1);
  EXPECT_EQ(trials[1].trial, 1);
  // The batch it was not planned to run is not a missing batch.
  for (const std::string& w : built->warnings) EXPECT_THAT(w, ::testing::Not(HasSubstr("missing")));
  // Scored at batch 2 on trial 0 alone (clip = o[ceil(2 * 0.5)] of {4, 5} = 4, opt = 1):
  // trial 0 reaches 1 -> 0; carried forward, trial 1 (2 -> 1/3) would make it 1/6.
  auto board = ComputeLeaderboard(built->input, "");
  ASSERT_TRUE(board.ok()) << board.status();
  const MethodResult* a = Find(*board, "A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->problems[0].trials_run, (std::vector<int>{2, 1}));
  EXPECT_NEAR(a->mean_perf[1], 0.0, 1e-9);  // opt sits 1e-12 of the range below the best
  EXPECT_NEAR(a->mean_perf[0], (2.0 / 3 + 1.0 / 3) / 2, 1e-9);
  // Equal plans write no column; a planned count below 1 names its line.
  table.rows[2].planned_batches = 2;
  std::stringstream plain;
  ASSERT_TRUE(WriteResultsCsv(plain, table).ok());
  EXPECT_THAT(plain.str(), ::testing::StartsWith("problem,method,trial,batch,suggestion,value\n"));
  auto bad = Parse("problem,method,trial,batch,suggestion,value,planned_batches\np,A,0,0,0,1,0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("line 2"));
}

TEST(ResultsCsvTest, AFigureThatIsNotANonNegativeNumberNamesItsLine) {
  for (const char* bad : {"-1", "nan", "inf", "x"}) {
    auto parsed = Parse(absl::StrCat("problem,method,trial,batch,suggestion,value,optimizer_cpu_s\n",
                                     "p,A,0,0,0,1,0.5\np,A,0,1,0,1,", bad, "\n"));
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr("line 3: optimizer_cpu_s"));
  }
}

TEST(ResultsCsvTest, WriteFailureIsUnavailable) {
  ResultsTable table;
  table.rows = {{"p", "rs", 0, 0, 0, 1.5, 0}};
  std::stringstream csv;
  csv.setstate(std::ios::badbit);
  EXPECT_EQ(WriteResultsCsv(csv, table).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace bbo::scoring
