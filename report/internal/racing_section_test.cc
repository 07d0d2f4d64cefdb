#include "report/internal/racing_section.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RacingSectionTest, NoRaceNoSection) {
  EXPECT_EQ(RenderRacing(nlohmann::json::object()), "");
  EXPECT_EQ(RenderRacing(nlohmann::json{{"racing", nullptr}}), "");
}

TEST(RacingSectionTest, StatesTheEvaluationsSavedAndWhoEliminatedWhom) {
  nlohmann::json report = {{"racing",
                            {{"rounds", 3},
                             {"stopped", true},
                             {"note", "weak <b> eliminated"},
                             {"batch_size", 8},
                             {"instances_sampled", 24},
                             {"instances_total", 40},
                             {"candidates", {"strong", "medium"}},
                             {"eliminated_by", {{"weak", "strong"}}},
                             {"eliminated_round", {{"weak", 2}}},
                             {"evaluations_queued", 1984},
                             {"evaluations_full", 5120},
                             {"evaluations_saved", 3136}}}};
  const std::string html = RenderRacing(report);
  EXPECT_THAT(html, HasSubstr("1,984 run of 5,120"));
  EXPECT_THAT(html, HasSubstr("saved 3,136 (61.3%)"));
  EXPECT_THAT(html, HasSubstr("The race has stopped after 3 round(s)"));
  EXPECT_THAT(html, HasSubstr("24 of 40 instances"));
  EXPECT_THAT(html, HasSubstr("eliminated by strong"));
  EXPECT_THAT(html, HasSubstr("in the Pareto set"));
  EXPECT_THAT(html, HasSubstr("Pareto-Optimal Anytime Algorithms via Bayesian Racing"));
  // The note is text, escaped.
  EXPECT_THAT(html, HasSubstr("weak &lt;b&gt; eliminated"));
  EXPECT_THAT(html, Not(HasSubstr("<b> eliminated")));
}

}  // namespace
}  // namespace bbo::scoring::internal
