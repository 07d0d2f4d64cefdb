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
                             {"withdrawn", {"copy"}},
                             {"history",
                              {{{"round", 0}, {"created_at", 1.7e9}, {"batch_size", 8},
                                {"jobs", 16}, {"stop", false}, {"note", "started <with> 2"}},
                               {{"round", 1}, {"created_at", 1.7e9 + 3600}, {"batch_size", 8},
                                {"jobs", 0}, {"stop", true}, {"note", "stopped"}}}},
                             {"evaluations_planned", 1984},
                             {"evaluations_run", 1920},
                             {"evaluations_full", 5120},
                             {"evaluations_saved", 3136}}},
                           {"plackett_luce", {{"pareto_set", {"strong"}}}}};
  const std::string html = RenderRacing(report);
  EXPECT_THAT(html, HasSubstr("1,920 run, 1,984 planned, of 5,120"));
  EXPECT_THAT(html, HasSubstr("saved 3,136 (61.3%)"));
  EXPECT_THAT(html, HasSubstr("The race has stopped after 3 round(s)"));
  EXPECT_THAT(html, HasSubstr("24 of 40 instances"));
  EXPECT_THAT(html, HasSubstr("eliminated by strong"));
  EXPECT_THAT(html, HasSubstr("in the Pareto set"));
  // medium still races, but the report's one posterior (the Plackett-Luce section) no longer
  // has it in the Pareto set: the section says so rather than name two Pareto sets.
  EXPECT_THAT(html, HasSubstr("racing; dominated in the latest fit"));
  EXPECT_THAT(html, HasSubstr("withdrawn by its team"));
  // Every round, with its time, b, jobs and note (escaped).
  EXPECT_THAT(html, HasSubstr("2023-11-14 22:13"));
  EXPECT_THAT(html, HasSubstr("started &lt;with&gt; 2"));
  EXPECT_THAT(html, HasSubstr("Pareto-Optimal Anytime Algorithms via Bayesian Racing"));
  // The note is text, escaped.
  EXPECT_THAT(html, HasSubstr("weak &lt;b&gt; eliminated"));
  EXPECT_THAT(html, Not(HasSubstr("<b> eliminated")));
}

}  // namespace
}  // namespace bbo::scoring::internal
