// The optimizer-seconds view of the Plackett-Luce ranking: hand-made timings where the batch view
// and the seconds view must disagree, and its refusals.

#include "scoring/plackett_luce/seconds.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/plackett_luce/summary.h"

namespace bbo::scoring::pl {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kBatches = 16;

// `n_batches` batch minima 10 - b (every batch improves) ending every `turn_s` optimizer seconds,
// padded with +inf to kBatches as a coordinator's snapshot pads a study that stopped early.
TrialCurve Curve(int trial, int n_batches, double turn_s) {
  TrialCurve c;
  c.trial = trial;
  c.batch_end_seconds.emplace();
  for (int b = 0; b < n_batches; ++b) {
    c.batch_min.push_back(10.0 - b);
    c.batch_end_seconds->push_back(turn_s * (b + 1));
  }
  c.batch_min.resize(kBatches, kInf);
  return c;
}

ScoringInput Input() {
  ScoringInput in;
  in.batch_size = 1;
  in.n_batches = kBatches;
  return in;
}

// "fast" and "slow" find identical values batch by batch on 3 problems x 4 trials; "fast" needs
// 0.1 s of optimizer time per batch, "slow" 1 s.
ScoringInput FastAndSlow() {
  ScoringInput in = Input();
  for (int p = 0; p < 3; ++p) {
    in.problems[absl::StrCat("p", p)];
    for (int n = 0; n < 4; ++n) {
      in.methods["fast"][absl::StrCat("p", p)].trials.push_back(Curve(n, kBatches, 0.1));
      in.methods["slow"][absl::StrCat("p", p)].trials.push_back(Curve(n, kBatches, 1.0));
    }
  }
  return in;
}

double At(const json& pl, const std::string& what, const std::string& method, size_t t) {
  return pl["anytime"][what][method][t].get<double>();
}

// Every curve of `in`.
template <typename F>
void ForEachCurve(ScoringInput& in, F f) {
  for (auto& [method, per_problem] : in.methods) {
    for (auto& [problem, data] : per_problem) {
      for (TrialCurve& c : data.trials) f(c);
    }
  }
}

TEST(PlackettLuceSecondsTest, AMethodFasterInSecondsRanksHigherThanInBatches) {
  const ScoringInput data = FastAndSlow();
  auto seconds = PlackettLuceSeconds(data);
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  const json s = PlackettLuceSecondsJson(seconds);
  EXPECT_EQ(s["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_EQ(s["anytime"]["unit"], "seconds");
  EXPECT_EQ(s["grid"]["spacing"], "log");
  EXPECT_EQ(s["model"]["runs"], 12);
  // T = 16 log-spaced points from the 5% quantile of the first batch ends (0.1 s) to the longest
  // study (16 s).
  const json& time = s["anytime"]["time"];
  ASSERT_EQ(time.size(), 16u);
  EXPECT_NEAR(time[0].get<double>(), 0.1, 1e-12);
  EXPECT_NEAR(time[15].get<double>(), 16.0, 1e-9);
  EXPECT_NEAR(time[1].get<double>() / time[0].get<double>(),
              time[15].get<double>() / time[14].get<double>(), 1e-9);
  // Until "slow" has run 16 s, "fast" is ahead on every run: after t seconds it has done 10 t
  // batches, "slow" t. 12 wins of 12: theta ~ Beta(13, 1), mean 13/14.
  for (size_t t = 0; t < 15; ++t) {
    EXPECT_GT(At(s, "mean", "fast", t), 0.85) << "t = " << time[t];
    EXPECT_GT(At(s, "lower", "fast", t), 0.6) << "t = " << time[t];
  }
  // At 16 s both have their final values: tied on every run.
  EXPECT_NEAR(At(s, "mean", "fast", 15), 0.5, 0.1);
  EXPECT_EQ(s["selection"]["uniform"]["best"], "fast");
  EXPECT_GT(s["selection"]["uniform"]["expected"]["fast"].get<double>(), 0.8);

  // The batch view of the same studies: tied at every batch, nobody ahead or eliminated.
  auto batches = SummarizePlackettLuce(data);
  ASSERT_TRUE(batches.ok()) << batches.status();
  const json b = PlackettLuceJson(*batches);
  EXPECT_EQ(b["anytime"]["unit"], "batches");
  for (size_t t = 0; t < 16; ++t) EXPECT_NEAR(At(b, "mean", "fast", t), 0.5, 0.1) << t;
  EXPECT_TRUE(b["decisions"]["eliminated_by"].empty()) << b["decisions"].dump();
  EXPECT_EQ(b["pareto_set"].size(), 2u);
}

TEST(PlackettLuceSecondsTest, OneMethodOrNoTimingsIsAnErrorInTheJson) {
  ScoringInput one = Input();
  one.methods["alone"]["p"].trials.push_back(Curve(0, 4, 1.0));
  one.methods["alone"]["q"].trials.push_back(Curve(0, 4, 1.0));
  auto alone = PlackettLuceSeconds(one);
  EXPECT_EQ(alone.status().code(), absl::StatusCode::kFailedPrecondition);
  const json j = PlackettLuceSecondsJson(alone);
  EXPECT_EQ(j["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("at least two methods"));
  EXPECT_FALSE(j.contains("grid"));
  EXPECT_FALSE(j.contains("final"));

  // Two methods, but no curve carries timings (a store that does not fill them).
  ScoringInput untimed = FastAndSlow();
  ForEachCurve(untimed, [](TrialCurve& c) { c.batch_end_seconds.reset(); });
  EXPECT_FALSE(HasTimings(untimed));
  auto none = PlackettLuceSeconds(untimed);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  // Timed, but every turn took no time (a fake clock that never moved).
  ScoringInput zero = FastAndSlow();
  ForEachCurve(zero, [](TrialCurve& c) { c.batch_end_seconds->assign(kBatches, 0.0); });
  auto still = PlackettLuceSeconds(zero);
  EXPECT_EQ(still.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(PlackettLuceSecondsJson(still)["error"].get<std::string>(),
              HasSubstr("no optimizer time was recorded"));
}

TEST(PlackettLuceSecondsTest, AStudyWithoutBatchesIsRankedLastAndBadInputIsNamed) {
  ScoringInput d = FastAndSlow();
  d.methods["crashed"]["p0"].trials.push_back(Curve(0, 0, 1.0));  // trial 0, no batch at all
  auto traces = SecondsTraces(d);
  ASSERT_TRUE(traces.ok()) << traces.status();
  EXPECT_TRUE(traces->at("crashed").at({"p0", 0}).time.empty());
  EXPECT_EQ(traces->at("fast").at({"p1", 3}).time.size(), 16u);
  auto s = PlackettLuceSeconds(d);
  ASSERT_TRUE(s.ok()) << s.status();
  const json j = PlackettLuceSecondsJson(s);
  EXPECT_LT(j["final"]["posterior_mean"]["crashed"].get<double>(),
            j["final"]["posterior_mean"]["slow"].get<double>());

  (*d.methods["fast"]["p2"].trials[1].batch_end_seconds)[5] = 0.01;  // time going backwards
  auto bad = PlackettLuceSeconds(d);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("method \"fast\", problem \"p2\", trial 1"));
  SecondsOptions o;
  o.timepoints = 1;
  EXPECT_EQ(PlackettLuceSeconds(FastAndSlow(), o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = {};
  o.min_first_s = 0;
  EXPECT_THAT(PlackettLuceSeconds(FastAndSlow(), o).status().message(), HasSubstr("min_first_s"));
}

TEST(PlackettLuceSecondsTest, MoreTimesThanBatchMinimaAreRefusedAndPositionsAreTrials) {
  ScoringInput d = FastAndSlow();
  d.methods["slow"]["p1"].trials[2].batch_end_seconds->push_back(99);
  auto bad = SecondsTraces(d);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("17 batch end times for 16 batch minima"));
  ScoringInput unnumbered = FastAndSlow();
  ForEachCurve(unnumbered, [](TrialCurve& c) { c.trial = -1; });
  auto traces = SecondsTraces(unnumbered);
  ASSERT_TRUE(traces.ok()) << traces.status();
  EXPECT_EQ(traces->at("fast").size(), 12u);
  EXPECT_TRUE(traces->at("slow").count({"p2", 3}));
}

}  // namespace
}  // namespace bbo::scoring::pl
