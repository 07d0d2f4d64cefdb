// A competition of three phases in one Coordinator over one store, with a calendar seam (a
// FakeClock the test moves): windows, migration exactly once, the choice of the submission that
// goes on, the final board hidden until published, and refusing a change to a started phase.

#include "server/competition.h"

#include <filesystem>

#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/test_problems.h"
#include "server/coordinator.h"
#include "server/testing/competition_fixtures.h"
#include "server/submission_state.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kFile[] = R"json(
// Three phases: practice (open), feedback (hidden problems, 2 a day), final (migrated).
{
  "name": "unit-2026",
  "seed": 7,
  "phases": [
    {"name": "practice", "title": "Practice", "rules": "Anything goes.",
     "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "baseline_trials": 1},
    {"name": "feedback", "start": "2026-02-01T00:00:00Z", "end": "2026-03-01T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 3, "hidden": true,
     "max_submissions_per_team_per_day": 2, "baseline_trials": 1},
    {"name": "final", "migrate_from": "feedback", "board": "hidden_until_published",
     "start": "2026-03-01T00:00:00Z", "end": "2026-03-15T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "default_trials": 2,
     "hidden": true, "anonymize": true, "warm_start_board": true, "baseline_trials": 1}
  ]
})json";

using bbo::testing::At;

std::string Archive() { return bbo::testing::PlaceholderArchive("phases"); }

class PhasesTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(std::make_unique<InMemoryStore>()); }
  void Start(std::unique_ptr<Store> store, const std::string& text = kFile) {
    auto spec = ParseCompetitionFile(text);
    ASSERT_TRUE(spec.ok()) << spec.status();
    std::vector<std::vector<std::unique_ptr<Problem>>> problems;
    for (size_t i = 0; i < spec->phases.size(); ++i) {
      problems.emplace_back();
      problems.back().push_back(MakeTrivialProblem(2));
    }
    auto calendar = std::make_unique<FakeClock>(At("2025-12-15T00:00:00Z"));
    calendar_ = calendar.get();
    CoordinatorOptions o;
    o.run_baseline = false;
    auto c = Coordinator::CreateCompetition(o, *std::move(spec), std::move(problems), nullptr,
                                            std::move(calendar), std::move(store));
    status_ = c.status();
    if (c.ok()) coordinator_ = *std::move(c);
  }
  void MoveTo(const char* when) {
    calendar_->Advance(At(when) - calendar_->Now());
  }
  absl::StatusOr<RegisteredSubmission> Submit(const std::string& team, const std::string& name,
                                              const std::string& phase = "") {
    absl::StatusOr<Phase*> c = coordinator_->competition().ForSubmission(phase);
    if (!c.ok()) return c.status();
    return (*c)->Register(Identity::Team(team), name, Archive(), 0, "");
  }
  // Leases and plays every queued job of the phase with `value` on every point (a worker).
  void PlayAll() {
    StudyManager& studies = coordinator_->studies();
    for (int guard = 0; guard < 100; ++guard) {
      auto job = coordinator_->store().LeaseJob("w", 1e12);
      ASSERT_TRUE(job.ok());
      if (!*job) break;
      auto study = studies.OpenForJob(Identity::Coordinator(), (*job)->id, "w");
      ASSERT_TRUE(study.ok()) << study.status();
      // A submission named "crash..." dies at its first suggest; "good..." suggests points
      // near the sphere's optimum.
      const std::string name =
          coordinator_->store().GetSubmission((*job)->submission_id)->name;
      for (int b = 0; b < study->budget.n_batches; ++b) {
        if (name.rfind("crash", 0) == 0) {
          ASSERT_TRUE(studies
                          .ReportSuggestFailure(Identity::Coordinator(), study->study_id, b,
                                                "SyntaxError: invalid syntax", true)
                          .ok());
          break;
        }
        auto space = SearchSpace::FromJson(study->api_config);
        std::mt19937_64 rng(1);
        std::vector<IncomingPoint> points;
        for (Point& p : space->SampleRandom(study->budget.batch_size, rng)) {
          if (name.rfind("good", 0) == 0) {
            for (auto& [k, v] : p) v = std::get<double>(v) * 0.05;
          }
          points.push_back({std::move(p), ""});
        }
        ASSERT_TRUE(studies.SubmitBatch(Identity::Coordinator(), study->study_id, b, points).ok());
      }
      ASSERT_TRUE(coordinator_->store().FinishJob((*job)->id, "w", "", 3).ok());
    }
    ASSERT_TRUE(coordinator_->baseline().RunPending().ok());
  }
  Phase& PhaseNamed(const std::string& name) { return **coordinator_->competition().Get(name); }

  FakeClock* calendar_ = nullptr;
  absl::Status status_;
  std::unique_ptr<Coordinator> coordinator_;
};

TEST_F(PhasesTest, WindowsRefuseEarlyAndLateSubmissionsNamingTheWindow) {
  ASSERT_TRUE(status_.ok()) << status_;
  absl::StatusOr<RegisteredSubmission> early = Submit("red", "a");
  EXPECT_EQ(early.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(early.status().message(), HasSubstr("no phase takes submissions now"));
  EXPECT_THAT(early.status().message(), HasSubstr("2026-01-01 00:00 UTC"));
  // Naming the phase gives its own window.
  early = Submit("red", "a", "practice");
  EXPECT_THAT(early.status().message(), HasSubstr("opens at 2026-01-01T00:00:00Z"));
  MoveTo("2026-01-10T00:00:00Z");
  EXPECT_EQ(coordinator_->competition().Current()->options().phase, "practice");
  ASSERT_TRUE(Submit("red", "a").ok());
  EXPECT_EQ((*coordinator_->store().FindSubmission("a", "practice"))->team, "red");
  // The feedback phase is not open yet, even when named.
  EXPECT_THAT(Submit("red", "b", "feedback").status().message(),
              HasSubstr("opens at 2026-02-01T00:00:00Z"));
  MoveTo("2026-02-01T00:00:00Z");  // the end is exclusive, the start inclusive
  EXPECT_EQ(coordinator_->competition().Current()->options().phase, "feedback");
  absl::StatusOr<RegisteredSubmission> late = Submit("red", "b", "practice");
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.status().message(), HasSubstr("closed at 2026-02-01T00:00:00Z"));
  ASSERT_TRUE(Submit("red", "b").ok());
  EXPECT_TRUE((*coordinator_->store().FindSubmission("b", "feedback")).has_value());
  // The final phase takes no submissions of its own.
  MoveTo("2026-03-02T00:00:00Z");
  absl::StatusOr<RegisteredSubmission> direct = Submit("red", "c", "final");
  EXPECT_THAT(direct.status().message(), HasSubstr("takes no submissions"));
}

TEST_F(PhasesTest, QuotasAndNamesArePerPhase) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-01-10T00:00:00Z");
  ASSERT_TRUE(Submit("red", "a").ok());
  ASSERT_TRUE(Submit("red", "b").ok());
  ASSERT_TRUE(Submit("red", "c").ok());  // practice has no quota
  MoveTo("2026-02-10T00:00:00Z");
  ASSERT_TRUE(Submit("red", "a").ok());  // a name of practice is free in feedback
  ASSERT_TRUE(Submit("red", "b").ok());
  absl::StatusOr<RegisteredSubmission> third = Submit("red", "c");
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("phase \"feedback\""));
  EXPECT_EQ(PhaseNamed("practice").List()->size(), 4u);  // 3 and the baseline
  EXPECT_EQ(PhaseNamed("feedback").List()->size(), 3u);
}

TEST_F(PhasesTest, MigrationQueuesEachTeamsChoiceOnceWhenTheFeedbackPhaseEnds) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  int64_t red1 = Submit("red", "r1")->submission_id;
  int64_t red2 = Submit("red", "r2")->submission_id;
  int64_t blue1 = Submit("blue", "b1")->submission_id;
  Submit("green", "g1");
  PlayAll();
  // Red chooses its first; blue is then told about another team's submission as unknown.
  EXPECT_EQ(*coordinator_->competition().Choose(Identity::Team("red"), red2), "final");
  EXPECT_EQ(*coordinator_->competition().Choose(Identity::Team("red"), red1), "final");
  EXPECT_EQ(coordinator_->competition().Choose(Identity::Team("blue"), red1).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(coordinator_->competition().Choose(Identity::Organizer(), red1).status().code(),
            absl::StatusCode::kPermissionDenied);
  // Not before the end.
  EXPECT_EQ(*coordinator_->competition().MigrateDue(), 0);
  MoveTo("2026-03-01T00:00:00Z");
  EXPECT_EQ(coordinator_->competition().Choose(Identity::Team("red"), red2).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(*coordinator_->competition().MigrateDue(), 3);
  EXPECT_EQ(*coordinator_->competition().MigrateDue(), 0);  // exactly once
  std::vector<SubmissionStatus> finals = *PhaseNamed("final").List();
  std::map<std::string, int64_t> from;
  for (const SubmissionStatus& s : finals) {
    if (!s.submission.is_baseline) from[s.submission.team] = s.submission.migrated_from;
  }
  EXPECT_EQ(from.size(), 3u);
  EXPECT_EQ(from["red"], red1);    // its choice, not its latest
  EXPECT_EQ(from["blue"], blue1);  // its latest successful one
  for (const SubmissionStatus& s : finals) {
    if (!s.submission.is_baseline) {
      // The final phase's 2 trials x 1 problem, on its main and warm-start boards.
      EXPECT_EQ(s.jobs.total, 4);
    }
  }
  std::vector<PhaseView> views = coordinator_->competition().Describe();
  EXPECT_GT(views[2].migrated_at, 0);
  EXPECT_TRUE(views[2].current);
}

// Without a choice, a team's finalist is its best healthy submission: never one with a crashed
// or random-filled study (it went to the final before, over the team's working ones), and not
// merely its latest. A team with only broken submissions is not entered, and the record says so.
TEST_F(PhasesTest, TheDefaultFinalistIsTheTeamsBestHealthySubmission) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  const int64_t beta_good = Submit("beta", "good-b1")->submission_id;
  ASSERT_TRUE(Submit("beta", "crash-b2").ok());  // its latest: a syntax error
  MoveTo("2026-02-11T00:00:00Z");
  const int64_t delta_best = Submit("delta", "good-d1")->submission_id;
  ASSERT_TRUE(Submit("delta", "d2").ok());  // latest, complete, healthy, but worse
  ASSERT_TRUE(Submit("gamma", "crash-g1").ok());
  PlayAll();
  const std::vector<SubmissionStatus> feedback = *PhaseNamed("feedback").List();
  for (const SubmissionStatus& s : feedback) {
    if (s.submission.name.rfind("crash", 0) == 0) {
      EXPECT_GT(s.studies_with_errors, 0) << s.submission.name;
    }
  }
  MoveTo("2026-03-01T00:00:00Z");
  EXPECT_EQ(*coordinator_->competition().MigrateDue(), 2);
  std::map<std::string, int64_t> from;
  const std::vector<SubmissionStatus> finals = *PhaseNamed("final").List();
  for (const SubmissionStatus& s : finals) {
    if (!s.submission.is_baseline) from[s.submission.team] = s.submission.migrated_from;
  }
  EXPECT_EQ(from.size(), 2u);
  EXPECT_EQ(from["beta"], beta_good);
  EXPECT_EQ(from["delta"], delta_best);
  EXPECT_EQ(from.count("gamma"), 0u);
  auto events = coordinator_->store().PhaseEvents("final");
  ASSERT_TRUE(events.ok());
  std::string detail;
  for (const PhaseEvent& e : *events) {
    if (e.kind == "migrated") detail = e.detail;
  }
  EXPECT_THAT(detail, HasSubstr("gamma: not entered"));
  EXPECT_THAT(detail, HasSubstr("best complete submission without errors, score"));
}

TEST_F(PhasesTest, TheFinalBoardStaysHiddenFromEveryTeamUntilPublished) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  Submit("red", "r1");
  Submit("blue", "b1");
  PlayAll();
  MoveTo("2026-03-01T00:00:00Z");
  ASSERT_EQ(*coordinator_->competition().MigrateDue(), 2);
  PlayAll();
  Phase& final = PhaseNamed("final");
  for (const Identity& who : {Identity::Team("red"), Identity::Team("blue"),
                              Identity::Team("nobody"), Identity::Anonymous()}) {
    absl::StatusOr<LeaderboardReport> board = final.Leaderboard(who, "");
    EXPECT_EQ(board.status().code(), absl::StatusCode::kPermissionDenied) << who.Describe();
    EXPECT_THAT(board.status().message(), HasSubstr("hidden until the organizers publish"));
    EXPECT_FALSE(final.ReportFiles(who, ReportRequest{}, "json").ok()) << who.Describe();
  }
  // A team sees its own submission's state, never another's.
  std::vector<SubmissionStatus> mine = *final.List(Identity::Team("red"));
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].submission.team, "red");
  EXPECT_TRUE(mine[0].finished());
  // Organizers see the live board at any time.
  absl::StatusOr<LeaderboardReport> live = final.Leaderboard(Identity::Organizer(), "");
  ASSERT_TRUE(live.ok()) << live.status();
  EXPECT_EQ(live->board.rows.size(), 3u);
  // The warm-start board of the final phase: the same entries with real names, hidden alike.
  absl::StatusOr<LeaderboardReport> warm = final.Leaderboard(Identity::Organizer(), "warm-start");
  ASSERT_TRUE(warm.ok()) << warm.status();
  EXPECT_EQ(warm->board.rows.size(), 3u);
  EXPECT_EQ(final.Leaderboard(Identity::Team("red"), "warm-start").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(PhaseNamed("feedback").Leaderboard(Identity::Organizer(), "warm-start").status().code(),
            absl::StatusCode::kNotFound);
  // Only organizers publish; then teams see it.
  EXPECT_EQ(final.Publish(Identity::Team("red"), false, "").code(),
            absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(final.Publish(Identity::Organizer(), false, "").ok());
  EXPECT_EQ(final.Publish(Identity::Organizer(), false, "").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(final.Leaderboard(Identity::Team("blue"), "").ok());
  // Withdrawing needs a reason, and is on the record.
  EXPECT_EQ(final.Publish(Identity::Organizer(), true, "").code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(final.Publish(Identity::Organizer(), true, "wrong baseline").ok());
  EXPECT_FALSE(final.Leaderboard(Identity::Team("blue"), "").ok());
  std::vector<PhaseEvent> events = *coordinator_->store().PhaseEvents("final");
  ASSERT_EQ(events.size(), 3u);  // migrated, published, unpublished
  EXPECT_EQ(events[2].detail, "wrong baseline");
  // Other phases' boards are public.
  EXPECT_TRUE(PhaseNamed("feedback").Leaderboard(Identity::Team("red"), "").ok());
}

TEST(PhasesFileTest, AStartedPhaseCannotChangeItsProblemsOrBudgets) {
  const std::string db = std::filesystem::temp_directory_path() /
                         ("phases_test_" + std::to_string(::getpid()) + ".sqlite");
  std::filesystem::remove(db);
  auto run = [&](const std::string& text, const char* now) -> absl::Status {
    auto spec = ParseCompetitionFile(text);
    if (!spec.ok()) return spec.status();
    std::vector<std::vector<std::unique_ptr<Problem>>> problems(spec->phases.size());
    for (auto& p : problems) p.push_back(MakeTrivialProblem(2));
    absl::Time t;
    std::string err;
    absl::ParseTime(absl::RFC3339_full, now, &t, &err);
    CoordinatorOptions o;
    o.db_path = db;
    o.run_baseline = false;
    return Coordinator::CreateCompetition(o, *std::move(spec), std::move(problems), nullptr,
                                          std::make_unique<FakeClock>(t))
        .status();
  };
  ASSERT_TRUE(run(kFile, "2026-01-05T00:00:00Z").ok());
  std::string changed = kFile;
  // The final phase has not started: its budget may still change.
  changed.replace(changed.find("\"n_batches\": 2, \"default_trials\""), 14, "\"n_batches\": 4");
  ASSERT_TRUE(run(changed, "2026-01-06T00:00:00Z").ok());
  // Practice has started: changing its budget is refused, saying why.
  std::string practice = changed;
  practice.replace(practice.find("\"n_batches\": 2"), 14, "\"n_batches\": 5");
  absl::Status refused = run(practice, "2026-01-07T00:00:00Z");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("phase \"practice\" has started"));
  EXPECT_TRUE(run(changed, "2026-01-07T00:00:00Z").ok());
  for (const char* ext : {"", ".secret", ".lock", "-wal", "-shm"}) {
    std::filesystem::remove(db + ext);
  }
}


// --- Issue 23: what a team is shown, and what organizers can do, each with who and why.

const Identity kOps{Identity::Role::kOrganizer, "ops"};

// Daily quotas count days on the competition's calendar (a rehearsal moves it), as windows do;
// the real clock is a year away in this fixture.
TEST_F(PhasesTest, DailyQuotasCountDaysOnTheCompetitionsCalendar) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T22:00:00Z");
  ASSERT_TRUE(Submit("red", "r1").ok());
  ASSERT_TRUE(Submit("red", "r2").ok());
  absl::StatusOr<RegisteredSubmission> third = Submit("red", "r3");
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("in 2 h 0 min"));
  EXPECT_EQ(PhaseNamed("feedback").List()->back().submission.created_at,
            absl::ToUnixSeconds(At("2026-02-10T22:00:00Z")));
  MoveTo("2026-02-11T00:30:00Z");  // the next day on the calendar
  EXPECT_TRUE(Submit("red", "r3").ok());
}

TEST_F(PhasesTest, ATeamSeesWhichSubmissionGoesOnBeforeTheDeadline) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  const int64_t good = Submit("beta", "good-b1")->submission_id;
  const int64_t crash = Submit("beta", "crash-b2")->submission_id;
  Submit("red", "r1");
  PlayAll();
  auto finalist_of = [&](int64_t id) {
    const std::vector<PhaseSubmission> list =
        *coordinator_->competition().List(Identity::Team("beta"), "feedback");
    for (const PhaseSubmission& s : list) {
      if (s.status.submission.id == id) return s.finalist + " -> " + s.next_phase;
    }
    return std::string("not listed");
  };
  EXPECT_THAT(finalist_of(good),
              HasSubstr("by default: best complete submission without errors, score"));
  EXPECT_THAT(finalist_of(good), HasSubstr("-> final"));
  EXPECT_EQ(finalist_of(crash), " -> ");
  auto mine = *coordinator_->competition().Finalists(Identity::Team("beta"), "feedback");
  ASSERT_EQ(mine.size(), 1u);  // its own, not red's
  EXPECT_EQ(mine["beta"].submission_id, good);
  EXPECT_EQ(mine["beta"].how, "default");
  // Its state says why the other one is not it.
  const std::vector<SubmissionStatus> betas = *PhaseNamed("feedback").List(Identity::Team("beta"));
  for (const SubmissionStatus& s : betas) {
    EXPECT_EQ(SubmissionStateName(StateOf(s)), s.submission.id == crash ? "failed" : "finished");
  }
  ASSERT_TRUE(coordinator_->competition().Choose(Identity::Team("beta"), crash).ok());
  EXPECT_EQ(finalist_of(crash), "chosen by the team -> final");
  EXPECT_EQ(finalist_of(good), " -> ");
  // A practice submission: choices are made in feedback, and the message says so.
  MoveTo("2026-01-10T00:00:00Z");
  const int64_t practice = Submit("beta", "p1")->submission_id;
  absl::StatusOr<std::string> no = coordinator_->competition().Choose(Identity::Team("beta"),
                                                                      practice);
  EXPECT_EQ(no.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no.status().message(), HasSubstr("chosen in phase \"feedback\" (into \"final\")"));
  EXPECT_THAT(no.status().message(), Not(HasSubstr("no phase follows")));
}

TEST_F(PhasesTest, AnOrganizerSetsAndThenReplacesATeamsFinalistWithAReason) {
  ASSERT_TRUE(status_.ok()) << status_;
  Competition& c = coordinator_->competition();
  MoveTo("2026-02-10T00:00:00Z");
  const int64_t good = Submit("beta", "good-b1")->submission_id;
  const int64_t crash = Submit("beta", "crash-b2")->submission_id;
  MoveTo("2026-02-11T00:00:00Z");  // two a day
  const int64_t other = Submit("beta", "good-b3")->submission_id;
  PlayAll();
  ASSERT_TRUE(c.Choose(Identity::Team("beta"), crash).ok());  // the team's mistake
  EXPECT_EQ(c.SetFinalist(Identity::Team("beta"), good, "x").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(c.SetFinalist(Identity::Anonymous(), good, "x").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(c.SetFinalist(kOps, good, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.SetFinalist(kOps, 999, "x").status().code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(*c.SetFinalist(kOps, good, "their choice crashes; asked by mail"), "final");
  MoveTo("2026-03-01T00:00:00Z");
  ASSERT_EQ(*c.MigrateDue(), 1);
  std::string detail;
  const std::vector<PhaseEvent> final_events = *coordinator_->store().PhaseEvents("final");
  for (const PhaseEvent& e : final_events) {
    if (e.kind == "migrated") detail = e.detail;
  }
  EXPECT_THAT(detail, HasSubstr(absl::StrCat("beta: submission ", good, " (set by organizer ops: "
                                             "their choice crashes; asked by mail)")));
  // After the migration: the entry is replaced, the old one withdrawn with the reason.
  ASSERT_EQ(*c.SetFinalist(kOps, other, "re-entered after review"), "final");
  std::map<int64_t, SubmissionStatus> by_source;
  const std::vector<SubmissionStatus> finals = *PhaseNamed("final").List();
  for (const SubmissionStatus& s : finals) {
    if (!s.submission.is_baseline) by_source[s.submission.migrated_from] = s;
  }
  ASSERT_EQ(by_source.size(), 2u);
  EXPECT_THAT(by_source[good].submission.withdrawn,
              HasSubstr("replaced by submission " + std::to_string(by_source[other].submission.id)));
  EXPECT_EQ(SubmissionStateName(StateOf(by_source[good])), "withdrawn");
  EXPECT_TRUE(by_source[other].submission.withdrawn.empty());
  EXPECT_EQ(by_source[other].jobs.queued, 4);
  auto finalists = *c.Finalists(kOps, "feedback");
  EXPECT_EQ(finalists["beta"].submission_id, other);
  EXPECT_EQ(finalists["beta"].why, "set by organizer ops: re-entered after review");
  EXPECT_EQ(c.SetFinalist(kOps, other, "again").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(PhasesTest, HiddenSubmissionsAndDisqualifiedTeamsLeaveTheBoardWithTheirReasons) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  const int64_t red = Submit("red", "good-r1")->submission_id;
  const int64_t blue = Submit("blue", "b1")->submission_id;
  Submit("green", "g1");
  PlayAll();
  Phase& feedback = PhaseNamed("feedback");
  auto scores = [&]() {
    std::map<std::string, double> out;
    const LeaderboardReport board = *feedback.Leaderboard(kOps, "");
    for (const auto& r : board.board.rows) out[r.method] = r.score;
    for (const auto& [problem, b] : board.board.baselines) out["opt " + problem] = b.opt;
    return out;
  };
  const std::map<std::string, double> before = scores();
  ASSERT_EQ(before.size(), 5u);  // three, the baseline and the problem's opt
  EXPECT_EQ(feedback.Hide(Identity::Team("blue"), red, "x", false).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(feedback.Hide(kOps, red, "  ", false).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(feedback.Hide(kOps, red, "two\nlines", false).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(feedback.Hide(kOps, red, "copied code", false).ok());
  EXPECT_EQ(feedback.Hide(kOps, red, "again", false).code(), absl::StatusCode::kFailedPrecondition);
  // Why, and who hid it, is for the team concerned and the organizers (issue 34, item 9).
  LeaderboardReport board = *feedback.Leaderboard(Identity::Team("red"), "");
  ASSERT_EQ(board.removed.size(), 1u);
  EXPECT_EQ(board.removed[0].name, "good-r1");
  EXPECT_EQ(board.removed[0].why, "hidden by organizer ops: copied code");
  board = *feedback.Leaderboard(Identity::Team("green"), "");
  ASSERT_EQ(board.removed.size(), 1u);
  EXPECT_EQ(board.removed[0].why, "removed by the organizers");
  const std::map<std::string, double> after = scores();
  EXPECT_EQ(after.count("good-r1"), 0u);
  // Not scored at all: the best value found on the problem (what every score is normalized
  // by) is no longer its.
  const std::string opt = "opt " + PhaseNamed("feedback").problems().names()[0];
  EXPECT_GT(after.at(opt), before.at(opt));
  // A disqualified team leaves the board and may not submit; requalifying brings it back.
  ASSERT_TRUE(feedback.Disqualify(kOps, "blue", "two accounts", false).ok());
  EXPECT_EQ(scores().count("b1"), 0u);
  absl::StatusOr<RegisteredSubmission> refused = Submit("blue", "b2");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.status().message(), HasSubstr("disqualified from phase \"feedback\""));
  EXPECT_THAT(refused.status().message(), HasSubstr("two accounts"));
  EXPECT_EQ(feedback.Hide(kOps, blue, "x", true).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(feedback.Disqualify(kOps, "blue", "appeal granted", true).ok());
  ASSERT_TRUE(feedback.Hide(kOps, red, "mistake", true).ok());
  EXPECT_EQ(scores(), before);
  EXPECT_TRUE(Submit("blue", "b2").ok());
  std::vector<std::string> kinds;
  const std::vector<PhaseEvent> log = *feedback.ModerationLog(kOps);
  for (const PhaseEvent& e : log) {
    kinds.push_back(absl::StrCat(e.kind, " ", e.who, " ", e.detail));
  }
  EXPECT_THAT(kinds, ::testing::ElementsAre("hidden organizer ops copied code",
                                            "disqualified organizer ops two accounts",
                                            "requalified organizer ops appeal granted",
                                            "unhidden organizer ops mistake"));
  EXPECT_EQ(feedback.ModerationLog(Identity::Team("blue")).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST_F(PhasesTest, BoardRowsSayTheStateAndTheTeam) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  Submit("red", "good-r1");
  Submit("blue", "crash-b1");
  const int64_t gone = Submit("green", "g1")->submission_id;
  PlayAll();
  ASSERT_TRUE(PhaseNamed("feedback").Withdraw(Identity::Team("green"), gone).ok());
  LeaderboardReport board = *PhaseNamed("feedback").Leaderboard(kOps, "");
  EXPECT_EQ(board.entries.at("good-r1").state, "finished");
  EXPECT_EQ(board.entries.at("good-r1").team, "red");
  EXPECT_EQ(board.entries.at("crash-b1").state, "failed");
  // Withdrawn after it ran: scored on what it ran, and says so.
  EXPECT_EQ(board.entries.at("g1").state, "withdrawn");
  EXPECT_TRUE(board.removed.empty());
  EXPECT_TRUE(board.pending.empty());
}

TEST_F(PhasesTest, OneRowPerTeamShowsEachTeamsBestLatestOrChosenSubmission) {
  std::string text = kFile;
  text.replace(text.find("\"max_submissions_per_team_per_day\": 2"), 37,
               "\"max_submissions_per_team_per_day\": 9, \"leaderboard_rows\": \"team_best\"");
  Start(std::make_unique<InMemoryStore>(), text);
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  Submit("red", "good-r1");
  Submit("red", "r2");
  Submit("blue", "b1");
  PlayAll();
  LeaderboardReport board = *PhaseNamed("feedback").Leaderboard(Identity::Team("blue"), "");
  std::vector<std::string> rows;
  for (const auto& r : board.board.rows) rows.push_back(r.method);
  EXPECT_EQ(board.rows, "team_best");
  EXPECT_EQ(board.rows_not_shown, 1);
  EXPECT_THAT(rows, ::testing::Contains("good-r1"));
  EXPECT_THAT(rows, Not(::testing::Contains("r2")));
  EXPECT_EQ(rows.size(), 3u);  // red, blue and the baseline
  EXPECT_FALSE(IsLeaderboardRowRule("per_team"));
  EXPECT_FALSE(ParseCompetitionFile(std::string(kFile).replace(
                   std::string(kFile).find("\"hidden\": true,"), 15,
                   "\"leaderboard_rows\": \"teams\",")).ok());
}

TEST_F(PhasesTest, AWithdrawnPublicationTellsTeamsWhenAndWhy) {
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-03-02T00:00:00Z");
  Phase& final = PhaseNamed("final");
  ASSERT_TRUE(final.Publish(kOps, false, "").ok());
  MoveTo("2026-03-03T00:00:00Z");
  ASSERT_TRUE(final.Publish(kOps, true, "a scoring bug; fixed by Friday").ok());
  absl::Status refused = final.Leaderboard(Identity::Team("red"), "").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.message(), HasSubstr("withdrawn by the organizers on 2026-03-03"));
  EXPECT_THAT(refused.message(), HasSubstr("a scoring bug; fixed by Friday"));
}

// A feedback board hidden until published: the default finalist is the latest healthy
// submission, described without a score, so neither the pick nor its words tell the team which
// of its submissions ranks higher; once published, the best, with its score.
TEST_F(PhasesTest, AHiddenBoardsDefaultFinalistRevealsNoScoreOrRank) {
  std::string text = kFile;
  const std::string hidden_feedback = "\"hidden\": true,\n     \"max_submissions_per_team_per_day\"";
  ASSERT_NE(text.find(hidden_feedback), std::string::npos);
  text.replace(text.find(hidden_feedback), hidden_feedback.size(),
               "\"hidden\": true, \"board\": \"hidden_until_published\",\n"
               "     \"max_submissions_per_team_per_day\"");
  const std::string db = ::testing::TempDir() + "hidden_finalist_" +
                         std::to_string(::getpid()) + ".sqlite";
  std::filesystem::remove(db);
  auto sqlite = SqliteStore::Open(db);
  ASSERT_TRUE(sqlite.ok()) << sqlite.status();
  Start(*std::move(sqlite), text);
  ASSERT_TRUE(status_.ok()) << status_;
  MoveTo("2026-02-10T00:00:00Z");
  const int64_t best = Submit("delta", "good-d1")->submission_id;
  const int64_t latest = Submit("delta", "d2")->submission_id;  // worse, but the latest
  PlayAll();
  auto seen = coordinator_->competition().Finalists(Identity::Team("delta"), "feedback");
  ASSERT_TRUE(seen.ok()) << seen.status();
  ASSERT_EQ(seen->count("delta"), 1u);
  EXPECT_EQ(seen->at("delta").how, "default");
  EXPECT_EQ(seen->at("delta").submission_id, latest);
  EXPECT_THAT(seen->at("delta").why, Not(HasSubstr("score")));
  EXPECT_THAT(seen->at("delta").why, HasSubstr("hidden until published"));
  ASSERT_TRUE(PhaseNamed("feedback").Publish(Identity::Organizer(), false, "").ok());
  seen = coordinator_->competition().Finalists(Identity::Team("delta"), "feedback");
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(seen->at("delta").submission_id, best);
  EXPECT_THAT(seen->at("delta").why, HasSubstr("best complete submission without errors, score"));
  coordinator_.reset();
  std::filesystem::remove(db);
}

}  // namespace
}  // namespace bbo
