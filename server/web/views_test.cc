// WebViews on a three-phase Coordinator over an in-memory store, its calendar a FakeClock the
// test moves: what each identity gets from each view, and the codes of the refusals (the
// end-to-end test over HTTP is tests/web/web_api_test.cc).

#include "server/web/views.h"

#include <filesystem>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/test_problems.h"
#include "server/coordinator.h"
#include "server/store/memory_store.h"
#include "server/web/actions.h"

namespace bbo::web {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kFile[] = R"json(
{
  "name": "views-2026",
  "seed": 7,
  "phases": [
    {"name": "practice", "title": "Practice", "rules": "Anything <goes>.",
     "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "baseline_trials": 1},
    {"name": "feedback", "start": "2026-02-01T00:00:00Z", "end": "2026-03-01T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "hidden": true,
     "baseline_trials": 1},
    {"name": "final", "migrate_from": "feedback", "board": "hidden_until_published",
     "start": "2026-03-01T00:00:00Z", "end": "2026-03-15T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "hidden": true,
     "anonymize": true, "warm_start_board": true, "baseline_trials": 1}
  ]
})json";

absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return t;
}

class WebViewsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = ParseCompetitionFile(kFile);
    ASSERT_TRUE(spec.ok()) << spec.status();
    std::vector<std::vector<std::unique_ptr<Problem>>> problems(spec->phases.size());
    for (auto& p : problems) p.push_back(MakeTrivialProblem(2));
    auto calendar = std::make_unique<FakeClock>(At("2026-01-10T00:00:00Z"));
    calendar_ = calendar.get();
    CoordinatorOptions o;
    o.run_baseline = false;
    auto c = Coordinator::CreateCompetition(o, *std::move(spec), std::move(problems), nullptr,
                                            std::move(calendar), std::make_unique<InMemoryStore>());
    ASSERT_TRUE(c.ok()) << c.status();
    coordinator_ = *std::move(c);
    views_ = std::make_unique<WebViews>(coordinator_.get());
  }
  int64_t Submit(const std::string& team, const std::string& name) {
    const std::string dir = std::filesystem::temp_directory_path() / "web_views_test_sub";
    std::filesystem::create_directories(dir);
    FILE* f = std::fopen((dir + "/optimizer.py").c_str(), "w");
    std::fputs("# never run in these tests\n", f);
    std::fclose(f);
    auto phase = coordinator_->competition().ForSubmission("");
    EXPECT_TRUE(phase.ok()) << phase.status();
    auto r = (*phase)->Register(Identity::Team(team), name, *TarDirectory(dir), 0, "");
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->submission_id : 0;
  }
  void MoveTo(const char* when) { calendar_->Advance(At(when) - calendar_->Now()); }
  // Runs the baselines, then plays every queued job: submission `id` suggests (x, x) with
  // x = offsets[id] in every batch (0 is test_sphere's optimum).
  void PlayJobs(const std::map<int64_t, double>& offsets) {
    ASSERT_TRUE(coordinator_->baseline().RunPending().ok());
    (void)coordinator_->store().RegisterWorker("w", "h", 1, 0);  // AlreadyExists the 2nd time
    while (true) {
      auto job = coordinator_->store().LeaseJob("w", 1e12);
      ASSERT_TRUE(job.ok()) << job.status();
      if (!job->has_value()) return;
      const double x = offsets.at((*job)->submission_id);
      auto study = coordinator_->studies().OpenForJob(Identity::Coordinator(), (*job)->id, "w");
      ASSERT_TRUE(study.ok()) << study.status();
      for (int b = 0; b < 2; ++b) {
        std::vector<IncomingPoint> points(2, {Point{{"x0", x}, {"x1", x}}, ""});
        ASSERT_TRUE(coordinator_->studies()
                        .SubmitBatch(Identity::Coordinator(), study->study_id, b, points)
                        .ok());
      }
      ASSERT_TRUE(coordinator_->store().FinishJob((*job)->id, "w", "", 2).ok());
    }
  }

  const Identity red_ = Identity::Team("red");
  const Identity blue_ = Identity::Team("blue");
  const Identity organizer_ = Identity::Organizer();
  FakeClock* calendar_ = nullptr;
  std::unique_ptr<Coordinator> coordinator_;
  std::unique_ptr<WebViews> views_;
};

TEST_F(WebViewsTest, MeNamesTheRoleAndTheCompetition) {
  EXPECT_EQ(views_->Me(red_), json({{"role", "team"}, {"name", "red"},
                                    {"competition", "views-2026"}}));
  EXPECT_EQ(views_->Me(organizer_)["role"], "organizer");
  EXPECT_EQ(views_->Me(Identity::Worker("w"))["role"], "worker");
  EXPECT_EQ(views_->Me(Identity::Anonymous())["role"], "anonymous");
}

TEST_F(WebViewsTest, PhasesGiveTheCalendarAndWhatTheCallerSeesInEach) {
  auto team = views_->Competition(red_);
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_EQ((*team)["now_s"], absl::ToDoubleSeconds(At("2026-01-10T00:00:00Z") - absl::UnixEpoch()));
  const json& practice = (*team)["phases"][0];
  EXPECT_EQ(practice["rules"], "Anything <goes>.");
  EXPECT_TRUE(practice["current"].get<bool>());
  EXPECT_TRUE(practice["open"].get<bool>());
  EXPECT_EQ(practice["end_s"], absl::ToDoubleSeconds(At("2026-02-01T00:00:00Z") - absl::UnixEpoch()));
  EXPECT_FALSE((*team)["phases"][1]["per_problem"].get<bool>());
  const json& final_phase = (*team)["phases"][2];
  EXPECT_FALSE(final_phase["shows_scores"].get<bool>());
  EXPECT_EQ(final_phase["migrate_from"], "feedback");
  EXPECT_THAT(final_phase["boards"], ElementsAre("main", "warm-start"));
  auto organizer = views_->Competition(organizer_);
  EXPECT_TRUE((*organizer)["phases"][2]["shows_scores"].get<bool>());
  EXPECT_TRUE((*organizer)["phases"][1]["per_problem"].get<bool>());
}

TEST_F(WebViewsTest, SubmissionsAreTheTeamsOwnNewestFirstAndEveryonesForOrganizers) {
  const int64_t first = Submit("red", "r1");
  const int64_t second = Submit("red", "r2");
  Submit("blue", "b1");
  auto red = views_->Submissions(red_, "");
  ASSERT_TRUE(red.ok()) << red.status();
  ASSERT_EQ((*red)["submissions"].size(), 2u);
  EXPECT_EQ((*red)["submissions"][0]["id"], second);
  EXPECT_EQ((*red)["submissions"][1]["id"], first);
  EXPECT_EQ((*red)["submissions"][0]["state"], "queued");
  EXPECT_EQ((*red)["submissions"][0]["phase"], "practice");
  EXPECT_TRUE((*red)["submissions"][0]["score"].is_null());  // the baseline has not run
  EXPECT_FALSE((*red)["truncated"].get<bool>());
  auto all = views_->Submissions(organizer_, "practice");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)["submissions"].size(), 3u);  // the baseline is not listed
  EXPECT_EQ(views_->Submissions(Identity::Anonymous(), "").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(views_->Submissions(red_, "nosuch").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(WebViewsTest, ALogIsItsTeamsAndOrganizersOnly) {
  const int64_t id = Submit("red", "r1");
  auto mine = views_->Log(red_, id);
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ((*mine)["name"], "r1");
  EXPECT_EQ((*mine)["total_errors"], 0);
  EXPECT_TRUE(views_->Log(organizer_, id).ok());
  EXPECT_EQ(views_->Log(blue_, id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(views_->Log(red_, id + 1000).status().code(), absl::StatusCode::kNotFound);
}

// The queue view is the organizers' (docs/web.md); the summary that gRPC GetCompetition gives
// everyone is Competition::Queue's, without details.
TEST_F(WebViewsTest, TheQueueViewIsForOrganizersOnly) {
  Submit("red", "r1");
  auto queue = views_->Queue(organizer_);
  ASSERT_TRUE(queue.ok()) << queue.status();
  EXPECT_GE((*queue)["jobs_queued"].get<int>(), 1);
  EXPECT_EQ((*queue)["workers"], 0);
  EXPECT_TRUE(queue->contains("jobs_failed"));
  for (const Identity& who : {red_, Identity::Anonymous(), Identity::Worker("w")}) {
    auto refused = views_->Queue(who);
    EXPECT_EQ(refused.status().code(), who.role == Identity::Role::kAnonymous
                                           ? absl::StatusCode::kUnauthenticated
                                           : absl::StatusCode::kPermissionDenied)
        << who.Describe();
    const QueueView direct = coordinator_->competition().Queue(who);
    EXPECT_FALSE(direct.details.has_value()) << who.Describe();
  }
  EXPECT_TRUE(coordinator_->competition().Queue(organizer_).details.has_value());
}

TEST_F(WebViewsTest, AFinalBoardHiddenUntilPublishedIsRefusedToTeamsOnly) {
  MoveTo("2026-03-02T00:00:00Z");
  auto team = views_->Leaderboard(red_, "final", "");
  EXPECT_EQ(team.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(team.status().message()), HasSubstr("hidden until the organizers"));
  EXPECT_EQ(views_->Report(red_, "final", "").status().code(),
            absl::StatusCode::kPermissionDenied);
  // Organizers get past the rule (here to the baseline that has not run).
  auto organizer = views_->Leaderboard(organizer_, "final", "");
  EXPECT_NE(organizer.status().code(), absl::StatusCode::kPermissionDenied) << organizer.status();
  ASSERT_TRUE(coordinator_->competition().Get("final").ok());
  ASSERT_TRUE((*coordinator_->competition().Get("final"))->Publish(organizer_, false, "").ok());
  EXPECT_NE(views_->Leaderboard(red_, "final", "").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(views_->Leaderboard(red_, "nosuch", "").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(WebViewsTest, TheLeaderboardCarriesThePlackettLuceRankingOfItsSubmissions) {
  const int64_t best = Submit("red", "r1");
  const int64_t worse = Submit("blue", "b1");
  PlayJobs({{best, 0.0}, {worse, 3.0}});
  auto board = views_->Leaderboard(blue_, "practice", "");
  ASSERT_TRUE(board.ok()) << board.status();
  const json& pl = (*board)["plackett_luce"];
  ASSERT_FALSE(pl.contains("error")) << pl.dump();
  ASSERT_EQ(pl["methods"].size(), 2u) << pl.dump();
  // Highest posterior mean first; r1 found the optimum on every run.
  EXPECT_EQ(pl["methods"][0]["name"], "r1");
  EXPECT_EQ(pl["methods"][1]["name"], "b1");
  double sum = 0;
  for (const json& m : pl["methods"]) {
    ASSERT_TRUE(m["posterior_mean"].is_number()) << pl.dump();
    EXPECT_LT(m["lower"].get<double>(), m["posterior_mean"].get<double>());
    EXPECT_GT(m["upper"].get<double>(), m["posterior_mean"].get<double>());
    sum += m["posterior_mean"].get<double>();
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_TRUE(pl["methods"][0]["pareto"].get<bool>());
  EXPECT_THAT(pl["pareto_set"], ::testing::Contains("r1"));
  EXPECT_EQ(pl["band"], 0.95);
  EXPECT_EQ(pl["time"], 2);  // after the last of 2 batches
  // The random-search baseline is a row of the board, not a member of the ranking.
  EXPECT_EQ((*board)["rows"].size(), 3u);
  // Cached until a study ends; then computed again, with the new submission.
  EXPECT_EQ(views_->plackett_luce_computations(), 1);
  auto again = views_->Leaderboard(red_, "practice", "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)["plackett_luce"], pl);
  EXPECT_EQ(views_->plackett_luce_computations(), 1);
  const int64_t third = Submit("blue", "b2");
  PlayJobs({{third, 1.0}});
  auto three = views_->Leaderboard(organizer_, "practice", "");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ((*three)["plackett_luce"]["methods"].size(), 3u);
  EXPECT_EQ(views_->plackett_luce_computations(), 2);
}

TEST_F(WebViewsTest, OneSubmissionGetsTheReasonInsteadOfARanking) {
  const int64_t only = Submit("red", "r1");
  PlayJobs({{only, 0.5}});
  auto board = views_->Leaderboard(red_, "practice", "");
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_THAT((*board)["plackett_luce"]["error"].get<std::string>(),
              HasSubstr("at least two methods"));
  EXPECT_FALSE((*board)["plackett_luce"].contains("methods"));
}

// Item 9 of issue 34: a withdrawal over the web is audited, done or refused, and its answer is
// the same NotFound for an unknown id as for another team's (the anonymous caller is refused
// before any id is looked up).
TEST_F(WebViewsTest, AWithdrawalOverTheWebIsAuditedAndTellsNothingOfOthersIds) {
  const int64_t id = Submit("red", "r1");
  WebActions actions(coordinator_.get());
  auto body = [](int64_t n) { return nlohmann::json{{"submission_id", n}}; };
  auto theirs = actions.Withdraw(Identity::Team("blue"), body(id));
  auto unknown = actions.Withdraw(Identity::Team("blue"), body(id + 1000));
  EXPECT_EQ(theirs.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(theirs.status().message(), absl::StrCat("no submission ", id, " of yours"));
  EXPECT_EQ(unknown.status().message(), absl::StrCat("no submission ", id + 1000, " of yours"));
  EXPECT_EQ(actions.Withdraw(Identity::Anonymous(), body(id + 1000)).status().code(),
            absl::StatusCode::kUnauthenticated);
  auto done = actions.Withdraw(red_, body(id));
  ASSERT_TRUE(done.ok()) << done.status();
  int allowed = 0, refused = 0;
  for (const AuditRecord& a : *coordinator_->store().ListAudit(1000)) {
    if (a.action != "web:withdraw") continue;
    if (a.allowed && a.who == "team:red") ++allowed;
    if (!a.allowed && a.who == "team:blue") ++refused;
  }
  EXPECT_EQ(allowed, 1);
  EXPECT_EQ(refused, 2);
}

}  // namespace
}  // namespace bbo::web
