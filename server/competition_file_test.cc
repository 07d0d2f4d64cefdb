#include "server/competition_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

absl::StatusOr<CompetitionSpec> Parse(const std::string& phases) {
  return ParseCompetitionFile(R"({"name": "c", "phases": [)" + phases + "]}", "/base");
}

std::string Error(const std::string& phases) {
  absl::StatusOr<CompetitionSpec> c = Parse(phases);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(c.status().message());
}

TEST(CompetitionFileTest, ReadsEveryKeyOfAPhase) {
  absl::StatusOr<CompetitionSpec> c = ParseCompetitionFile(R"json(
    // comments are allowed
    {"name": "bbo-2026", "seed": 42, "phases": [
      {"name": "feedback", "title": "Feedback", "rules": "Be kind.",
       "start": "2026-07-01T00:00:00Z", "end": "2026-10-01T12:30:00+02:00",
       "suite_file": "suites/feedback.json", "suite_seed": 3, "problems": ["a", "b"],
       "batch_size": 4, "n_batches": 10, "suggest_budget_s": 20, "study_budget_s": 200,
       "startup_budget_s": 30, "optimizer_memory_mb": 1024, "optimizer_max_tasks": 64,
       "optimizer_cpus": 0.5, "optimizer_tmp_mb": 128, "default_trials": 5, "max_trials": 9,
       "baseline_trials": 12, "use_known_optimum": true, "hidden": true,
       "max_submissions_per_team": 20, "max_submissions_per_team_per_day": 3},
      {"name": "final", "migrate_from": "feedback", "anonymize": true,
       "warm_start_board": true, "evaluate_once": true, "board": "hidden_until_published"}
    ]})json",
                                                           "/comp");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name, "bbo-2026");
  EXPECT_EQ(c->seed, 42);
  ASSERT_EQ(c->phases.size(), 2u);
  const PhaseSpec& f = c->phases[0];
  EXPECT_EQ(f.title, "Feedback");
  EXPECT_EQ(f.rules, "Be kind.");
  EXPECT_EQ(FormatUtc(*f.start), "2026-07-01T00:00:00Z");
  EXPECT_EQ(FormatUtc(*f.end), "2026-10-01T10:30:00Z");  // converted to UTC
  EXPECT_EQ(f.problems.suite_file, "/comp/suites/feedback.json");
  EXPECT_EQ(f.problems.suite_seed, 3u);
  EXPECT_THAT(f.problems.problems, ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(f.budget.batch_size, 4);
  EXPECT_EQ(f.budget.n_batches, 10);
  EXPECT_EQ(f.budget.suggest_budget_s, 20);
  EXPECT_EQ(f.budget.study_budget_s, 200);
  EXPECT_EQ(f.startup_budget_s, 30);
  EXPECT_EQ(f.limits.memory_mb, 1024u);
  EXPECT_EQ(f.limits.max_tasks, 64u);
  EXPECT_EQ(f.limits.cpus, 0.5);
  EXPECT_EQ(f.limits.tmp_mb, 128u);
  EXPECT_EQ(f.default_trials, 5);
  EXPECT_EQ(f.max_trials, 9);
  EXPECT_EQ(f.baseline_trials, 12);
  EXPECT_TRUE(f.use_known_optimum);
  EXPECT_TRUE(f.hidden);
  EXPECT_EQ(f.max_submissions_per_team, 20);
  EXPECT_EQ(f.max_submissions_per_team_per_day, 3);
  EXPECT_TRUE(f.accepts_submissions);
  EXPECT_FALSE(f.board_hidden_until_published);
  const PhaseSpec& fin = c->phases[1];
  EXPECT_EQ(fin.migrate_from, "feedback");
  EXPECT_FALSE(fin.accepts_submissions);  // fed by migration
  EXPECT_TRUE(fin.board_hidden_until_published);
  EXPECT_TRUE(fin.warm_start_board);
  EXPECT_TRUE(fin.evaluate_once);
  EXPECT_EQ(fin.problems.problem_set, "practice");  // the default problems
  EXPECT_FALSE(fin.start.has_value());
  EXPECT_EQ(fin.budget, StudyBudget{});  // the NeurIPS 2020 defaults
}

TEST(CompetitionFileTest, EveryMistakeNamesThePhaseAndTheKey) {
  EXPECT_THAT(Error(R"({"name": "p", "n_batchs": 3})"),
              HasSubstr("phase \"p\": unknown key \"n_batchs\" (did you mean \"n_batches\"?)"));
  EXPECT_THAT(Error(R"({"name": "p", "banana": 3})"), HasSubstr("unknown key \"banana\""));
  EXPECT_THAT(Error(R"({"name": "p", "start": "July 1st"})"),
              HasSubstr("\"start\" must be an RFC 3339 time"));
  EXPECT_THAT(Error(R"({"name": "p", "start": "2026-02-01T00:00:00Z",
                        "end": "2026-01-01T00:00:00Z"})"),
              HasSubstr("\"end\" 2026-01-01T00:00:00Z is not after \"start\""));
  EXPECT_THAT(Error(R"({"name": "Final!"})"), HasSubstr("is not a phase name"));
  EXPECT_THAT(Error(R"({"name": "main"})"), HasSubstr("is not a phase name"));
  EXPECT_THAT(Error(R"({"name": "p"}, {"name": "p"})"), HasSubstr("phase \"p\" appears twice"));
  EXPECT_THAT(Error(R"({"name": "p", "migrate_from": "q"}, {"name": "q"})"),
              HasSubstr("\"migrate_from\" \"q\" is not a phase listed before it"));
  EXPECT_THAT(Error(R"({"name": "q"}, {"name": "p", "migrate_from": "q"})"),
              HasSubstr("migrates from \"q\", which has no \"end\""));
  EXPECT_THAT(Error(R"({"name": "p", "batch_size": 0})"), HasSubstr("phase \"p\": batch_size"));
  EXPECT_THAT(Error(R"({"name": "p", "batch_size": "8"})"),
              HasSubstr("\"batch_size\" has the wrong type (string)"));
  EXPECT_THAT(Error(R"({"name": "p", "optimizer_memory_mb": -1})"),
              HasSubstr("\"optimizer_memory_mb\" has the wrong type"));
  EXPECT_THAT(Error(R"({"name": "p", "suite": "bbob", "problem_set": "test"})"),
              HasSubstr("give one of"));
  EXPECT_THAT(Error(R"({"name": "p", "board": "secret"})"),
              HasSubstr("\"board\" must be \"public\" or \"hidden_until_published\""));
  EXPECT_THAT(Error(R"({"name": "p", "warm_start_board": true})"), HasSubstr("needs \"anonymize\""));
  EXPECT_THAT(Error(R"({"name": "p", "default_trials": 5, "max_trials": 4})"),
              HasSubstr("trials"));
}

TEST(CompetitionFileTest, TheFileItselfMustBeSound) {
  EXPECT_THAT(ParseCompetitionFile("{").status().message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(ParseCompetitionFile("[]").status().message(), HasSubstr("JSON object"));
  EXPECT_THAT(ParseCompetitionFile(R"({"phases": []})").status().message(),
              HasSubstr("non-empty list"));
  EXPECT_THAT(ParseCompetitionFile(R"({"phase": []})").status().message(),
              HasSubstr("unknown key \"phase\" (did you mean \"phases\"?)"));
  EXPECT_EQ(LoadCompetitionFile("/nonexistent/c.json").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(CompetitionFileTest, WindowsAreHalfOpenAndTheFingerprintSeesProblemsAndBudgets) {
  absl::StatusOr<CompetitionSpec> c = Parse(R"({"name": "p", "start": "2026-01-01T00:00:00Z",
                                                 "end": "2026-01-02T00:00:00Z"})");
  ASSERT_TRUE(c.ok()) << c.status();
  PhaseSpec p = c->phases[0];
  EXPECT_FALSE(p.OpenAt(*p.start - absl::Seconds(1)));
  EXPECT_TRUE(p.OpenAt(*p.start));
  EXPECT_TRUE(p.OpenAt(*p.end - absl::Seconds(1)));
  EXPECT_FALSE(p.OpenAt(*p.end));
  EXPECT_EQ(p.WindowText(), "from 2026-01-01 00:00 UTC until 2026-01-02 00:00 UTC");
  const std::string before = p.Fingerprint();
  PhaseSpec other = p;
  other.title = "A new title";
  other.rules = "New rules";
  other.end = *p.end + absl::Hours(24);  // extending the deadline is allowed
  other.max_submissions_per_team_per_day = 9;
  EXPECT_EQ(other.Fingerprint(), before);
  other.budget.n_batches = 17;
  EXPECT_NE(other.Fingerprint(), before);
  other = p;
  other.problems.suite_seed = 1;
  EXPECT_NE(other.Fingerprint(), before);
  other = p;
  other.default_trials = 4;
  EXPECT_NE(other.Fingerprint(), before);
}

TEST(CompetitionFileTest, TimeLeftReadsNaturally) {
  EXPECT_EQ(FormatTimeLeft(absl::Seconds(45)), "45 s");
  EXPECT_EQ(FormatTimeLeft(absl::Seconds(125)), "2 min 5 s");
  EXPECT_EQ(FormatTimeLeft(absl::Hours(2) + absl::Minutes(5)), "2 h 5 min");
  EXPECT_EQ(FormatTimeLeft(absl::Hours(76)), "3 d 4 h");
  EXPECT_EQ(FormatTimeLeft(-absl::Seconds(3)), "0 s");
}

TEST(CompetitionFileTest, APhaseMayRunGeneratedTasks) {
  absl::StatusOr<CompetitionSpec> c = Parse(R"({"name": "gen", "suite": "generated",
      "generated_family": "bbob-d5", "generated_tasks": 3, "suite_seed": 5})");
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<std::vector<std::unique_ptr<Problem>>> problems =
      MakePhaseProblems(c->phases[0].problems);
  ASSERT_TRUE(problems.ok()) << problems.status();
  EXPECT_EQ(problems->size(), 3u);
}

TEST(CompetitionFileTest, TheShippedExampleIsValidAndItsProblemsBuild) {
  absl::StatusOr<CompetitionSpec> c =
      LoadCompetitionFile(std::string(BBO_SOURCE_DIR) + "/deploy/competition.json");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->phases.size(), 3u);
  EXPECT_EQ(c->phases[2].migrate_from, "feedback");
  EXPECT_TRUE(c->phases[2].board_hidden_until_published);
  for (const PhaseSpec& p : c->phases) {
    EXPECT_EQ(p.budget, StudyBudget{}) << p.name;  // 16 x 8, 40 s, 640 s
    absl::StatusOr<std::vector<std::unique_ptr<Problem>>> problems =
        MakePhaseProblems(p.problems);
    ASSERT_TRUE(problems.ok()) << p.name << ": " << problems.status();
    EXPECT_FALSE(problems->empty()) << p.name;
  }
}

}  // namespace
}  // namespace bbo

namespace bbo {
namespace {

TEST(CompetitionFileRacingTest, RacingIsOffByDefaultTrueTakesDefaultsAndAnObjectIsRead) {
  absl::StatusOr<CompetitionSpec> c = Parse(R"({"name": "a"}, {"name": "b", "racing": true},
      {"name": "c", "racing": {"alpha": 0.95, "epsilon": 0.1, "elimination": "joint",
       "resolution": "crossing", "initial_batch": 4, "b_min": 2, "b_max": 16,
       "shrink_fraction": 0.5}}, {"name": "d", "racing": false})");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->phases[0].racing.enabled);
  EXPECT_TRUE(c->phases[1].racing.enabled);
  EXPECT_EQ(c->phases[1].racing, (RacingSpec{true}));
  const RacingSpec& r = c->phases[2].racing;
  EXPECT_TRUE(r.enabled);
  EXPECT_EQ(r.alpha, 0.95);
  EXPECT_EQ(r.epsilon, 0.1);
  EXPECT_EQ(r.elimination, "joint");
  EXPECT_EQ(r.resolution, "crossing");
  EXPECT_EQ(r.initial_batch, 4);
  EXPECT_EQ(r.b_min, 2);
  EXPECT_EQ(r.b_max, 16);
  EXPECT_EQ(r.shrink_fraction, 0.5);
  EXPECT_FALSE(c->phases[3].racing.enabled);
  // Racing changes what a phase runs: it is in the fingerprint, but only when on, so the
  // fingerprints of phases recorded before racing existed stay the same.
  EXPECT_EQ(c->phases[0].Fingerprint(), c->phases[3].Fingerprint());
  EXPECT_NE(c->phases[0].Fingerprint(), c->phases[1].Fingerprint());
  EXPECT_NE(c->phases[1].Fingerprint(), c->phases[2].Fingerprint());
  EXPECT_THAT(c->phases[0].Fingerprint(), Not(HasSubstr("racing")));
}

TEST(CompetitionFileRacingTest, BadRacingSettingsNameThePhaseAndTheKey) {
  EXPECT_THAT(Error(R"({"name": "f", "racing": 1})"),
              HasSubstr("phase \"f\": \"racing\": must be true, false or an object"));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"alpha": 0.4}})"),
              HasSubstr("phase \"f\": \"racing\": \"alpha\" must be in (0.5, 1]"));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"epsilon": 0.5}})"),
              HasSubstr("\"epsilon\" must be in [0, 0.5)"));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"elimination": "all"}})"),
              HasSubstr("\"elimination\" must be \"pointwise\" or \"joint\""));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"b_min": 8, "b_max": 4}})"),
              HasSubstr("b_min"));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"initial_batch": 100}})"),
              HasSubstr("initial_batch"));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"shrink_fraction": 0}})"),
              HasSubstr("\"shrink_fraction\" must be in (0, 1]"));
  EXPECT_THAT(Error(R"({"name": "f", "racing": {"alpah": 0.9}})"),
              HasSubstr("unknown key \"alpah\""));
}

}  // namespace
}  // namespace bbo
