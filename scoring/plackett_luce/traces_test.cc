#include "scoring/plackett_luce/traces.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring::pl {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
constexpr double kInf = std::numeric_limits<double>::infinity();

TrialCurve Curve(std::vector<double> batch_min) {
  TrialCurve c;
  c.batch_min = std::move(batch_min);
  return c;
}

TEST(TimeGridTest, UniformLogAndBatchGrids) {
  auto u = UniformGrid(0, 10, 3, "seconds");
  ASSERT_TRUE(u.ok());
  EXPECT_THAT(u->points, ElementsAre(0, 5, 10));
  EXPECT_EQ(u->spacing, GridSpacing::kUniform);
  auto l = LogGrid(1, 100, 3, "evaluations");
  ASSERT_TRUE(l.ok());
  EXPECT_THAT(l->points, ElementsAre(1, DoubleNear(10, 1e-12), 100));
  auto b = BatchGrid(3);
  ASSERT_TRUE(b.ok());
  EXPECT_THAT(b->points, ElementsAre(1, 2, 3));
  EXPECT_EQ(b->unit, "batches");
  EXPECT_THAT(UniformGrid(1, 1, 1, "")->points, ElementsAre(1));
}

TEST(TimeGridTest, RejectsBadGridsWithInvalidArgument) {
  EXPECT_EQ(UniformGrid(0, 1, 0, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(UniformGrid(1, 1, 2, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(UniformGrid(0, kInf, 2, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LogGrid(0, 1, 2, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BatchGrid(0).status().code(), absl::StatusCode::kInvalidArgument);
  TimeGrid g;
  EXPECT_EQ(ValidateGrid(g).code(), absl::StatusCode::kInvalidArgument);
  g.points = {1, 1};
  EXPECT_EQ(ValidateGrid(g).code(), absl::StatusCode::kInvalidArgument);
  g.points = {-1, 2};
  EXPECT_TRUE(ValidateGrid(g).ok());
  g.spacing = GridSpacing::kLog;
  EXPECT_EQ(ValidateGrid(g).code(), absl::StatusCode::kInvalidArgument);
}

TEST(StepTraceTest, ValueAtIsRightContinuousAndInfiniteBeforeTheFirstStep) {
  StepTrace tr{{1, 2, 2, 5}, {10, 8, 7, 3}};
  EXPECT_EQ(ValueAt(tr, 0.5), kInf);
  EXPECT_EQ(ValueAt(tr, 1), 10);
  EXPECT_EQ(ValueAt(tr, 1.9), 10);
  EXPECT_EQ(ValueAt(tr, 2), 7);  // the last of equal times counts
  EXPECT_EQ(ValueAt(tr, 4.99), 7);
  EXPECT_EQ(ValueAt(tr, 100), 3);
  EXPECT_EQ(ValueAt(StepTrace{{1}, {NAN}}, 2), kInf);
  EXPECT_EQ(ValueAt(StepTrace{}, 2), kInf);
}

TEST(StepTraceTest, FromEvaluationsKeepsImprovementsAndReadsNanAsCrash) {
  auto tr = StepTraceFromEvaluations({0.5, 1, 2, 3, 4}, {NAN, 5, 6, 2, NAN});
  ASSERT_TRUE(tr.ok());
  EXPECT_THAT(tr->time, ElementsAre(0.5, 1, 3));
  EXPECT_THAT(tr->best, ElementsAre(kInf, 5, 2));
  EXPECT_EQ(StepTraceFromEvaluations({2, 1}, {1, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StepTraceFromEvaluations({1}, {1, 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BatchTracesTest, BestSoFarOverBatchesWithCrashes) {
  ScoringInput in;
  in.n_batches = 3;
  in.methods["A"]["p"].trials = {Curve({5, NAN, 3}), Curve({kInf, kInf, kInf})};
  auto traces = BatchTraces(in);
  ASSERT_TRUE(traces.ok()) << traces.status();
  const StepTrace& t0 = traces->at("A").at(RunKey{"p", 0});
  EXPECT_THAT(t0.time, ElementsAre(1, 2, 3));
  EXPECT_THAT(t0.best, ElementsAre(5, 5, 3));
  EXPECT_THAT(traces->at("A").at(RunKey{"p", 1}).best, ElementsAre(kInf, kInf, kInf));
  in.methods["A"]["p"].trials.push_back(Curve({1, 2}));
  EXPECT_EQ(BatchTraces(in).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo::scoring::pl
