#include "problems/evaluator.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

// f(x) = x, after sleeping `delay`; throws for x < 0 and returns NaN for x > 100. Records the
// threads it ran on.
class ProbeProblem : public BuiltinProblem {
 public:
  explicit ProbeProblem(absl::Duration delay)
      : BuiltinProblem("probe", "x after a delay",
                       nlohmann::json::parse(
                           R"({"x": {"type": "real", "space": "linear", "range": [-1000, 1000]}})"),
                       std::nullopt),
        delay_(delay) {}
  double Evaluate(const Point& p) const override {
    {
      std::lock_guard<std::mutex> l(mu_);
      threads_.insert(std::this_thread::get_id());
    }
    if (delay_ > absl::ZeroDuration()) absl::SleepFor(delay_);
    double x = std::get<double>(p.at("x"));
    if (x < 0) throw std::runtime_error("negative");
    if (x > 100) return std::nan("");
    return x;
  }
  std::set<std::thread::id> threads() const {
    std::lock_guard<std::mutex> l(mu_);
    return threads_;
  }

 private:
  absl::Duration delay_;
  mutable std::mutex mu_;
  mutable std::set<std::thread::id> threads_;
};

std::vector<Point> Points(int n) {
  std::vector<Point> out;
  for (int i = 0; i < n; ++i) out.push_back(Point{{"x", static_cast<double>(i)}});
  return out;
}

TEST(EvaluatorTest, CheapObjectiveRunsOnTheCallingThread) {
  Evaluator evaluator(4);
  ProbeProblem problem(absl::ZeroDuration());
  std::vector<EvaluatedPoint> out = evaluator.EvaluateBatch(problem, Points(8));
  ASSERT_EQ(out.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i].value, i);
  EXPECT_EQ(problem.threads(), std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(EvaluatorTest, ExpensiveObjectiveRunsTheRestOfTheBatchInParallel) {
  Evaluator evaluator(4, absl::Milliseconds(1));
  ProbeProblem problem(absl::Milliseconds(40));
  auto start = std::chrono::steady_clock::now();
  std::vector<EvaluatedPoint> out = evaluator.EvaluateBatch(problem, Points(9));
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.size(), 9u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(out[i].value, i);
    EXPECT_GE(out[i].eval_time_s, 0.04);
  }
  // The first point alone, then 8 on the caller and 3 pool threads: 3 rounds of 40 ms, not 9.
  EXPECT_LT(wall_s, 9 * 0.04 * 0.7);
  EXPECT_GE(problem.threads().size(), 3u);
  EXPECT_TRUE(problem.threads().count(std::this_thread::get_id()));
}

TEST(EvaluatorTest, AProblemSeenToBeExpensiveRunsItsNextBatchInParallelFromTheFirstPoint) {
  Evaluator evaluator(4, absl::Milliseconds(1));
  ProbeProblem problem(absl::Milliseconds(60));
  (void)evaluator.EvaluateBatch(problem, Points(2));  // learns that it is expensive
  auto start = std::chrono::steady_clock::now();
  std::vector<EvaluatedPoint> out = evaluator.EvaluateBatch(problem, Points(4));
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i].value, i);
  // One round of 60 ms on 4 slots; evaluating the first point alone first would take two.
  EXPECT_LT(wall_s, 2 * 0.06 * 0.9);
  // A cheap problem is not taken for the expensive one.
  ProbeProblem cheap(absl::ZeroDuration());
  (void)evaluator.EvaluateBatch(cheap, Points(8));
  EXPECT_EQ(cheap.threads(), std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(EvaluatorTest, ManyCallersShareThePoolAndEachGetsItsOwnResults) {
  Evaluator evaluator(2, absl::Milliseconds(1));
  ProbeProblem problem(absl::Milliseconds(2));
  std::vector<std::thread> callers;
  std::vector<std::vector<EvaluatedPoint>> results(6);
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&, c] {
      std::vector<Point> points;
      for (int i = 0; i < 8; ++i) points.push_back(Point{{"x", c * 10.0 + i}});
      results[c] = evaluator.EvaluateBatch(problem, points);
    });
  }
  for (auto& t : callers) t.join();
  for (int c = 0; c < 6; ++c) {
    ASSERT_EQ(results[c].size(), 8u);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(results[c][i].value, c * 10.0 + i);
  }
}

TEST(EvaluatorTest, CrashesAndNanAreInfinityOnBothPaths) {
  for (absl::Duration delay : {absl::ZeroDuration(), absl::Milliseconds(2)}) {
    Evaluator evaluator(2, absl::Milliseconds(1));
    ProbeProblem problem(delay);
    std::vector<Point> points = {Point{{"x", 1.0}}, Point{{"x", -1.0}}, Point{{"x", 200.0}},
                                 Point{{"x", 3.0}}};
    std::vector<EvaluatedPoint> out = evaluator.EvaluateBatch(problem, points);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].value, 1.0);
    EXPECT_TRUE(std::isinf(out[1].value));
    EXPECT_EQ(out[1].error, "negative");
    EXPECT_TRUE(std::isinf(out[2].value));
    EXPECT_EQ(out[2].error, "objective returned NaN");
    EXPECT_EQ(out[3].value, 3.0);
  }
}

TEST(EvaluatorTest, OneThreadEvaluatesEverythingInline) {
  Evaluator evaluator(1, absl::Milliseconds(1));
  ProbeProblem problem(absl::Milliseconds(2));
  std::vector<EvaluatedPoint> out = evaluator.EvaluateBatch(problem, Points(3));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(problem.threads(), std::set<std::thread::id>{std::this_thread::get_id()});
  EXPECT_TRUE(evaluator.EvaluateBatch(problem, {}).empty());
}

}  // namespace
}  // namespace bbo
