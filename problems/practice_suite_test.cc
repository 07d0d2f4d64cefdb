#include "problems/practice_suite.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PracticeSuiteTest, NamesAreStableUniqueAndMatchTheSuite) {
  // Names are stored with results; this list may only ever grow.
  EXPECT_THAT(PracticeProblemNames(),
              ElementsAre("branin", "hartmann3", "hartmann6", "ackley5", "rosenbrock4",
                          "rastrigin4", "levy4", "styblinski_tang4", "six_hump_camel",
                          "goldstein_price", "mixed_sphere", "discrete_quadratic", "warped_mix"));
  const std::vector<std::unique_ptr<Problem>> suite = MakePracticeSuite();
  ASSERT_GE(suite.size(), 12u);
  std::set<std::string> unique;
  for (size_t i = 0; i < suite.size(); ++i) {
    EXPECT_EQ(suite[i]->name(), PracticeProblemNames()[i]);
    unique.insert(suite[i]->name());
    EXPECT_FALSE(suite[i]->description().empty()) << suite[i]->name();
    EXPECT_EQ(suite[i]->description().find('\n'), std::string::npos) << suite[i]->name();
  }
  EXPECT_EQ(unique.size(), suite.size());
}

TEST(PracticeSuiteTest, ApiConfigsRoundTripAndHaveDocumentedDims) {
  const std::map<std::string, int> dims = {
      {"branin", 2},         {"hartmann3", 3},       {"hartmann6", 6},    {"ackley5", 5},
      {"rosenbrock4", 4},    {"rastrigin4", 4},      {"levy4", 4},        {"styblinski_tang4", 4},
      {"six_hump_camel", 2}, {"goldstein_price", 2}, {"mixed_sphere", 5}, {"discrete_quadratic", 3},
      {"warped_mix", 4}};
  for (const auto& problem : MakePracticeSuite()) {
    SCOPED_TRACE(problem->name());
    ASSERT_EQ(dims.count(problem->name()), 1u);
    EXPECT_EQ(problem->space().dims(), dims.at(problem->name()));
    // The config the optimizer receives parses on its own to the same space.
    absl::StatusOr<SearchSpace> reparsed = SearchSpace::Parse(problem->space().api_config().dump());
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(reparsed->dims(), problem->space().dims());
    EXPECT_EQ(reparsed->api_config(), problem->space().api_config());
  }
}

TEST(PracticeSuiteTest, SuiteCoversEveryParameterTypeAndWarp) {
  std::set<ParamType> types;
  std::set<WarpKind> warps;
  bool has_values = false;
  for (const auto& problem : MakePracticeSuite()) {
    for (const ParamSpec& spec : problem->space().params()) {
      types.insert(spec.type);
      if (spec.type == ParamType::kReal || spec.type == ParamType::kInt) warps.insert(spec.space);
      has_values |= !spec.numeric_values.empty();
    }
  }
  EXPECT_EQ(types, (std::set<ParamType>{ParamType::kReal, ParamType::kInt, ParamType::kBool,
                                        ParamType::kCat}));
  EXPECT_EQ(warps, (std::set<WarpKind>{WarpKind::kLinear, WarpKind::kLog, WarpKind::kLogit,
                                       WarpKind::kBilog}));
  EXPECT_TRUE(has_values);
}

TEST(PracticeSuiteTest, KnownOptimumLowerBoundsRandomSearch) {
  std::mt19937_64 rng(20200917);
  for (const auto& problem : MakePracticeSuite()) {
    SCOPED_TRACE(problem->name());
    ASSERT_TRUE(problem->known_optimum().has_value());
    const double f_star = *problem->known_optimum();
    const double slack = 1e-9 * std::max(1.0, std::fabs(f_star));
    double best = INFINITY;
    for (const Point& sample : problem->space().SampleRandom(2000, rng)) {
      absl::StatusOr<Point> canonical = problem->space().Canonicalize(sample);
      ASSERT_TRUE(canonical.ok()) << canonical.status();
      const double f = problem->Evaluate(*canonical);
      ASSERT_TRUE(std::isfinite(f)) << PointToJson(*canonical).dump();
      ASSERT_GE(f, f_star - slack) << PointToJson(*canonical).dump();
      best = std::min(best, f);
    }
    // Random search does not find the optimum itself (the problems are not degenerate).
    EXPECT_GT(best, f_star);
  }
}

TEST(PracticeSuiteTest, EvaluateIsDeterministicAcrossCallsAndInstances) {
  std::mt19937_64 rng(7);
  auto first = MakePracticeSuite();
  auto second = MakePracticeSuite();
  for (size_t i = 0; i < first.size(); ++i) {
    SCOPED_TRACE(first[i]->name());
    for (const Point& sample : first[i]->space().SampleRandom(20, rng)) {
      absl::StatusOr<Point> canonical = first[i]->space().Canonicalize(sample);
      ASSERT_TRUE(canonical.ok());
      const double f = first[i]->Evaluate(*canonical);
      EXPECT_EQ(first[i]->Evaluate(*canonical), f);
      EXPECT_EQ(second[i]->Evaluate(*canonical), f);
    }
  }
}

TEST(PracticeSuiteTest, ConcurrentEvaluationMatchesSerial) {
  const auto suite = MakePracticeSuite();
  std::mt19937_64 rng(11);
  std::vector<std::pair<const Problem*, Point>> work;
  for (const auto& problem : suite) {
    for (const Point& sample : problem->space().SampleRandom(50, rng)) {
      absl::StatusOr<Point> canonical = problem->space().Canonicalize(sample);
      ASSERT_TRUE(canonical.ok());
      work.emplace_back(problem.get(), *canonical);
    }
  }
  std::vector<double> serial;
  for (const auto& [problem, point] : work) serial.push_back(problem->Evaluate(point));
  constexpr int kThreads = 4;
  std::vector<std::vector<double>> parallel(kThreads, std::vector<double>(work.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < work.size(); ++i) {
        parallel[t][i] = work[i].first->Evaluate(work[i].second);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(parallel[t], serial) << "thread " << t;
}

TEST(PracticeSuiteTest, EveryProblemIsTaggedWithAttributes) {
  for (const auto& p : MakePracticeSuite()) {
    EXPECT_FALSE(p->attributes().empty()) << p->name();
  }
  auto mixed = MakeProblem("mixed_sphere");
  ASSERT_TRUE(mixed.ok());
  EXPECT_THAT((*mixed)->attributes(), ::testing::Contains("mixed integer"));
}

TEST(MakeProblemTest, ReturnsTheNamedProblem) {
  for (const std::string& name : PracticeProblemNames()) {
    absl::StatusOr<std::unique_ptr<Problem>> problem = MakeProblem(name);
    ASSERT_TRUE(problem.ok()) << name << ": " << problem.status();
    EXPECT_EQ((*problem)->name(), name);
  }
}

TEST(MakeProblemTest, UnknownNameIsNotFoundAndNamesIt) {
  absl::StatusOr<std::unique_ptr<Problem>> problem = MakeProblem("nope");
  EXPECT_EQ(problem.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(problem.status().message(), HasSubstr("\"nope\""));
  // Lookup is exact: no case folding, no prefix match.
  EXPECT_EQ(MakeProblem("Branin").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(MakeProblem("hartmann").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(MakeProblem("").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace bbo
