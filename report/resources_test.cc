#include "report/resources.h"

#include <cmath>
#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/report.h"
#include "report/report_html.h"

namespace bbo::scoring {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TrialCurve WithCpu(std::vector<std::optional<double>> cpu) {
  TrialCurve t;
  t.batch_min.assign(3, 1.0);  // the input's n_batches; figures for the batches that ran
  for (const auto& c : cpu) {
    BatchFigures f;
    f.optimizer_cpu_s = c;
    t.batch_figures.push_back(f);
  }
  return t;
}

ScoringInput Input() {
  ScoringInput in;
  in.n_batches = 3;
  in.batch_size = 1;
  for (const char* p : {"p1", "p2"}) {
    ProblemBaselineInput b;
    for (int v = 1; v <= 16; ++v) b.random_evals.push_back(v);
    in.problems[p] = b;
  }
  // "a": CPU seconds 1, 3, (unknown) on p1 and 2, 4, 0.5 on p2 -> 5 batches measured:
  // sorted 0.5 1 2 3 4 -> median 2, max 4.
  in.methods["a"]["p1"].trials = {WithCpu({1.0, 3.0, std::nullopt})};
  in.methods["a"]["p2"].trials = {WithCpu({2.0, 4.0, 0.5})};
  // "b": four batches 1, 2, 3, 10 -> median (2 + 3) / 2 = 2.5; max 10.
  in.methods["b"]["p1"].trials = {WithCpu({1.0, 10.0}), WithCpu({3.0, 2.0})};
  TrialCurve bare;
  bare.batch_min = {1, 1, 1};
  in.methods["b"]["p2"].trials = {bare};
  // "c": nothing measured: not listed.
  in.methods["c"]["p1"].trials = {bare};
  return in;
}

TEST(ResourcesTest, MediansAndMaximaOverEveryMeasuredBatchByHand) {
  const std::vector<MethodResources> r = ComputeResources(Input());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method, "a");
  const FigureUse& a = r[0].figures[0];
  EXPECT_EQ(a.batches, 5);
  EXPECT_DOUBLE_EQ(a.median, 2.0);
  EXPECT_DOUBLE_EQ(a.max, 4.0);
  EXPECT_EQ(r[1].method, "b");
  EXPECT_EQ(r[1].figures[0].batches, 4);
  EXPECT_DOUBLE_EQ(r[1].figures[0].median, 2.5);
  EXPECT_DOUBLE_EQ(r[1].figures[0].max, 10.0);
}

TEST(ResourcesTest, OneBatchIsItsOwnMedianAndNothingMeasuredIsNoRow) {
  ScoringInput in = Input();
  in.methods.erase("a");
  in.methods["b"]["p1"].trials = {WithCpu({std::nullopt, 0.25})};
  std::vector<MethodResources> r = ComputeResources(in);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].figures[0].batches, 1);
  EXPECT_EQ(r[0].figures[0].median, 0.25);
  EXPECT_EQ(r[0].figures[0].max, 0.25);
  in.methods["b"]["p1"].trials = {WithCpu({std::nullopt})};
  EXPECT_TRUE(ComputeResources(in).empty());
}

TEST(ResourcesTest, TheReportShowsThemInItsJsonCsvAndHtmlOnlyWhenMeasured) {
  ReportOptions options;
  options.bootstrap.replicates = 10;
  options.plackett_luce = false;
  auto report = ComputeReport(Input(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  const nlohmann::json j = ReportJson(*report, Input());
  const nlohmann::json& methods = j["resources"]["methods"];
  ASSERT_EQ(methods.size(), 2u);
  EXPECT_EQ(methods[0]["optimizer_cpu_s"]["median"], 2.0);
  EXPECT_EQ(j["resources"]["figures"][0]["name"], "optimizer_cpu_s");
  const std::string csv = ReportCsv(j).at("resources.csv");
  EXPECT_THAT(csv, HasSubstr("method,figure,batches,median,max\n"));
  EXPECT_THAT(csv, HasSubstr("a,optimizer_cpu_s,5,2,4\n"));
  EXPECT_THAT(csv, HasSubstr("b,optimizer_cpu_s,4,2.5,10\n"));
  EXPECT_THAT(RenderReportHtml(j), HasSubstr("<h2>Optimizer resources</h2>"));

  ScoringInput unmeasured = Input();
  for (auto& [method, problems] : unmeasured.methods) {
    for (auto& [problem, data] : problems) {
      for (TrialCurve& t : data.trials) t.batch_figures.clear();
    }
  }
  auto plain = ComputeReport(unmeasured, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const nlohmann::json pj = ReportJson(*plain, unmeasured);
  EXPECT_TRUE(pj["resources"]["methods"].empty());
  EXPECT_THAT(RenderReportHtml(pj), Not(HasSubstr("Optimizer resources")));
}

}  // namespace
}  // namespace bbo::scoring
