// Racing phases (server/race.h) in a real Coordinator over a real store: submissions of known
// strength (how close to the sphere's optimum their points are) race on a phase's instances; the
// test plays the worker. Checked: dominated submissions are eliminated by the dominant one and run
// nothing after, the race stops with fewer evaluations than running everything, a late
// submission joins without any earlier job being queued again, a crashing submission is ranked
// last and eliminated, rounds are queued exactly once across coordinator restarts, and a racing
// final phase fed by migration races the migrated submissions.

#include "server/race.h"

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/test_problems.h"
#include "server/coordinator.h"
#include "server/testing/competition_fixtures.h"
#include "server/embed.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"
#include "server/web/views.h"

namespace bbo {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// One racing phase: 1 problem x 40 trials = 40 instances, 4 to 8 per round, 4 batches of 2.
constexpr char kRacing[] = R"json({
  "name": "race-2026", "seed": 11,
  "phases": [
    {"name": "final", "problem_set": "test", "batch_size": 2, "n_batches": 4,
     "default_trials": 40, "max_trials": 40, "baseline_trials": 1,
     "racing": {"initial_batch": 4, "b_min": 4, "b_max": 8, "alpha": 0.95}}
  ]
})json";

// Racing with anonymized names and the warm-start board (the same rounds on both boards).
constexpr char kWarmStart[] = R"json({
  "name": "race-2026", "seed": 11,
  "phases": [
    {"name": "final", "problem_set": "test", "batch_size": 2, "n_batches": 4,
     "default_trials": 40, "max_trials": 40, "baseline_trials": 1, "anonymize": true,
     "warm_start_board": true,
     "racing": {"initial_batch": 4, "b_min": 4, "b_max": 8, "alpha": 0.95}}
  ]
})json";

// Feedback (not racing) migrating into a racing final phase.
constexpr char kMigrating[] = R"json({
  "name": "race-2026", "seed": 11,
  "phases": [
    {"name": "feedback", "start": "2026-02-01T00:00:00Z", "end": "2026-03-01T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 2, "baseline_trials": 1,
     "default_trials": 1},
    {"name": "final", "migrate_from": "feedback", "board": "hidden_until_published",
     "start": "2026-03-01T00:00:00Z", "end": "2026-03-15T00:00:00Z",
     "problem_set": "test", "batch_size": 2, "n_batches": 4, "default_trials": 40,
     "max_trials": 40, "baseline_trials": 1, "hidden": true,
     "racing": {"initial_batch": 4, "b_min": 4, "b_max": 8, "alpha": 0.95}}
  ]
})json";

using bbo::testing::At;

std::string Archive(const std::string& tag) {
  std::string dir = std::filesystem::temp_directory_path() / ("race_test_sub_" + tag);
  std::filesystem::create_directories(dir);
  FILE* f = std::fopen((dir + "/optimizer.py").c_str(), "w");
  std::fprintf(f, "# %s: never run in these tests\n", tag.c_str());
  std::fclose(f);
  return *TarDirectory(dir);
}

class RaceTest : public ::testing::Test {
 protected:
  void Start(std::unique_ptr<Store> store, const std::string& text = kRacing,
             const char* now = "2026-03-02T00:00:00Z") {
    coordinator_.reset();
    auto spec = ParseCompetitionFile(text);
    ASSERT_TRUE(spec.ok()) << spec.status();
    std::vector<std::vector<std::unique_ptr<Problem>>> problems;
    for (size_t i = 0; i < spec->phases.size(); ++i) {
      problems.emplace_back();
      problems.back().push_back(MakeTrivialProblem(2));
    }
    auto calendar = std::make_unique<FakeClock>(At(now));
    calendar_ = calendar.get();
    CoordinatorOptions o;
    o.run_baseline = false;
    auto c = Coordinator::CreateCompetition(o, *std::move(spec), std::move(problems), nullptr,
                                            std::move(calendar), std::move(store));
    ASSERT_TRUE(c.ok()) << c.status();
    coordinator_ = *std::move(c);
  }
  absl::StatusOr<RegisteredSubmission> Submit(const std::string& name,
                                              const std::string& phase = "final") {
    absl::StatusOr<Phase*> c = coordinator_->competition().Get(phase);
    if (!c.ok()) return c.status();
    return (*c)->Register(Identity::Team("team-" + name), name, Archive(name), 0, "");
  }
  // How far from the optimum a submission's points are (the sphere's minimum is at 0): its name
  // says. "crash" never suggests anything (its optimizer dies).
  // "cma..." searches like random search in its first batch, then converges (0.02 after): the
  // race decides its pairs at the later batches only and shortens its studies.
  static double Spread(const std::string& name, int batch) {
    if (name.rfind("strong", 0) == 0) return 0.02;
    if (name.rfind("medium", 0) == 0) return 0.3;
    if (name.rfind("cma", 0) == 0) return batch == 0 ? 1.0 : 0.02;
    return 1.0;
  }
  // Plays every queued job as a worker would; returns how many.
  int PlayQueued() {
    StudyManager& studies = coordinator_->studies();
    int played = 0;
    for (int guard = 0; guard < 10000; ++guard) {
      auto job = coordinator_->store().LeaseJob("w", 1e12);
      EXPECT_TRUE(job.ok());
      if (!job.ok() || !*job) break;
      const std::string name = coordinator_->store().GetSubmission((*job)->submission_id)->name;
      auto study = studies.OpenForJob(Identity::Coordinator(), (*job)->id, "w");
      EXPECT_TRUE(study.ok()) << study.status();
      if (!study.ok()) break;
      batches_run_[name] += study->budget.n_batches;
      std::mt19937_64 rng(static_cast<uint64_t>((*job)->seed));
      auto space = SearchSpace::FromJson(study->api_config);
      for (int b = 0; b < study->budget.n_batches; ++b) {
        if (name.rfind("crash", 0) == 0) {
          EXPECT_TRUE(studies
                          .ReportSuggestFailure(Identity::Coordinator(), study->study_id, b,
                                                "segfault", true)
                          .ok());
          break;
        }
        std::vector<IncomingPoint> points;
        for (Point& p : space->SampleRandom(study->budget.batch_size, rng)) {
          for (auto& [k, v] : p) v = std::get<double>(v) * Spread(name, b);
          points.push_back({std::move(p), ""});
        }
        EXPECT_TRUE(studies.SubmitBatch(Identity::Coordinator(), study->study_id, b, points).ok());
      }
      EXPECT_TRUE(coordinator_->store().FinishJob((*job)->id, "w", "", 3).ok());
      ++played;
    }
    return played;
  }
  RaceDriver& Race() { return *coordinator_->race("final"); }
  // Plays and advances until the race stops (or `max_rounds`).
  void RunRace(int max_rounds = 30) {
    for (int r = 0; r < max_rounds; ++r) {
      PlayQueued();
      absl::StatusOr<bool> advanced = Race().Advance();
      ASSERT_TRUE(advanced.ok()) << advanced.status();
      if (!*advanced) break;
    }
  }
  int JobsOf(const std::string& name, const std::string& phase = "final") {
    auto sub = coordinator_->store().FindSubmission(name, phase);
    return (*sub) ? coordinator_->store().CountJobs((*sub)->id)->total : -1;
  }

  FakeClock* calendar_ = nullptr;
  std::unique_ptr<Coordinator> coordinator_;
  std::map<std::string, int> batches_run_;
};

TEST_F(RaceTest, DominatedSubmissionsAreEliminatedAndTheRaceSavesEvaluations) {
  Start(std::make_unique<InMemoryStore>());
  for (const char* name : {"strong", "medium", "weak", "weak-twin"}) {
    auto r = Submit(name);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->jobs, 0) << "a racing phase queues no jobs at registration";
  }
  EXPECT_EQ(JobsOf("strong"), 0);
  ASSERT_TRUE(*Race().Advance());  // round 0: everybody on 4 instances
  EXPECT_EQ(JobsOf("strong"), 4);
  EXPECT_EQ(JobsOf("weak"), 4);
  EXPECT_FALSE(*Race().Advance()) << "no round is planned while the last one runs";
  RunRace();

  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, ElementsAre("strong"));
  EXPECT_EQ(v->eliminated_by.at("weak"), "strong");
  EXPECT_EQ(v->eliminated_by.at("weak-twin"), "strong");
  EXPECT_EQ(v->eliminated_by.at("medium"), "strong");
  EXPECT_EQ(v->instances_total, 40);
  EXPECT_EQ(v->evaluations_full, 4 * 40 * 4 * 2);
  EXPECT_LT(v->evaluations_planned, v->evaluations_full / 2) << v->ToJson().dump();
  EXPECT_GT(v->saved_fraction(), 0.5);
  EXPECT_EQ(v->ToJson()["evaluations_saved"].get<int64_t>(),
            v->evaluations_full - v->evaluations_planned);
  // An eliminated submission runs nothing after its round: it has no more jobs than instances
  // drawn up to its elimination.
  EXPECT_LT(JobsOf("weak"), 40);
  EXPECT_LE(JobsOf("weak"), JobsOf("strong"));
  // What was run equals what the view counts (every job's batches), planned and run.
  int64_t played = 0;
  for (const auto& [name, batches] : batches_run_) played += batches * 2;
  EXPECT_EQ(played, v->evaluations_planned);
  EXPECT_EQ(played, v->evaluations_run);
  // Only rounds that queued jobs count; every recorded round is listed.
  EXPECT_GE(v->history.size(), static_cast<size_t>(v->rounds));
  for (const RaceRoundView& r : v->history) EXPECT_FALSE(r.note.empty());
  // The race is over: nothing more is planned.
  EXPECT_FALSE(*Race().Advance());
  // The phase's leaderboard still scores what ran (strong first).
  ASSERT_TRUE(coordinator_->baseline().RunPending().ok());
  absl::StatusOr<LeaderboardReport> board =
      coordinator_->competition().Get("final").value()->Leaderboard(Identity::Organizer(), "final");
  ASSERT_TRUE(board.ok()) << board.status();
  ASSERT_FALSE(board->board.rows.empty());
  EXPECT_EQ(board->board.rows.front().method, "strong");
  // The phase's report states the race and the evaluations it saved; its HTML says so.
  ReportRequest request;
  request.bootstrap_replicates = 50;
  Phase* final_phase = *coordinator_->competition().Get("final");
  auto report = final_phase->Report(request);
  ASSERT_TRUE(report.ok()) << report.status();
  const nlohmann::json& racing = (**report)["racing"];
  EXPECT_EQ(racing["evaluations_full"].get<int64_t>(), v->evaluations_full);
  EXPECT_EQ(racing["evaluations_saved"].get<int64_t>(),
            v->evaluations_full - v->evaluations_planned);
  EXPECT_EQ(racing["eliminated_by"]["weak"], "strong");
  auto files = final_phase->ReportFiles(Identity::Organizer(), request, "html");
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_FALSE(files->empty());
  EXPECT_THAT(files->front().content, HasSubstr("Pareto-Optimal Anytime Algorithms"));
  EXPECT_THAT(files->front().content, HasSubstr("eliminated by strong"));
}

TEST_F(RaceTest, ALateSubmissionJoinsWithoutRestartingTheRace) {
  Start(std::make_unique<InMemoryStore>());
  ASSERT_TRUE(Submit("strong").ok());
  ASSERT_TRUE(Submit("weak").ok());
  ASSERT_TRUE(*Race().Advance());
  PlayQueued();
  ASSERT_TRUE(*Race().Advance());  // round 1
  PlayQueued();
  const int strong_before = JobsOf("strong");
  const int weak_before = JobsOf("weak");
  auto rounds_before = coordinator_->store().ListRaceRounds("final");
  ASSERT_TRUE(rounds_before.ok());
  ASSERT_TRUE(Submit("medium-late").ok());
  ASSERT_TRUE(*Race().Advance());
  auto rounds = coordinator_->store().ListRaceRounds("final");
  ASSERT_EQ(rounds->size(), rounds_before->size() + 1);
  EXPECT_THAT(rounds->back().note, HasSubstr("admitted medium-late"));
  // The late one catches up on instances drawn before it came; nobody else's earlier jobs are
  // queued again (each has at most the new round's instances more).
  EXPECT_GT(JobsOf("medium-late"), 0);
  EXPECT_GE(JobsOf("strong"), strong_before);
  auto results = coordinator_->store().RaceResults("final", "final");
  ASSERT_TRUE(results.ok());
  std::set<std::tuple<int64_t, std::string, int>> seen;
  for (const RaceResultRecord& r : *results) {
    EXPECT_TRUE(seen.insert({r.submission_id, r.problem, r.trial}).second)
        << "instance run twice by submission " << r.submission_id;
  }
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, ElementsAre("strong"));
  EXPECT_EQ(v->eliminated_by.at("medium-late"), "strong");
  EXPECT_GE(JobsOf("weak"), weak_before);
}

TEST_F(RaceTest, ACrashingSubmissionRanksLastAndIsEliminated) {
  Start(std::make_unique<InMemoryStore>());
  ASSERT_TRUE(Submit("medium").ok());
  ASSERT_TRUE(Submit("crash").ok());
  ASSERT_TRUE(*Race().Advance());
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, ElementsAre("medium"));
  EXPECT_EQ(v->eliminated_by.at("crash"), "medium");
}

TEST_F(RaceTest, RoundZeroWaitsForTheQuorumOfDirectSubmissions) {
  // quorum 3 in a phase taking direct submissions: no round (and no doubling b for rounds that
  // admit one entry at a time) until the third arrives.
  std::string text = kRacing;
  text.replace(text.find("\"alpha\": 0.95"), 13, "\"alpha\": 0.95, \"quorum\": 3");
  Start(std::make_unique<InMemoryStore>(), text);
  ASSERT_TRUE(Submit("strong").ok());
  EXPECT_FALSE(*Race().Advance());
  ASSERT_TRUE(Submit("medium").ok());
  EXPECT_FALSE(*Race().Advance());
  absl::StatusOr<RaceView> waiting = Race().View();
  ASSERT_TRUE(waiting.ok());
  EXPECT_THAT(waiting->note, HasSubstr("waiting for 3 submissions (2 so far)"));
  EXPECT_EQ(JobsOf("strong"), 0);
  ASSERT_TRUE(Submit("weak").ok());
  ASSERT_TRUE(*Race().Advance());
  EXPECT_EQ(JobsOf("weak"), 4) << "all three start together on round 0's instances";
  auto rounds = coordinator_->store().ListRaceRounds("final");
  ASSERT_EQ(rounds->size(), 1u);
  EXPECT_THAT(rounds->front().note, HasSubstr("started with 3 submission(s)"));
}

TEST_F(RaceTest, AnAdmissionRoundDoesNotDoubleTheRoundSize) {
  // Two entries tied (no pair resolves in a round); a third arrives: its pairs have no results
  // yet, so they are not "pairs left undecided" and b stays.
  Start(std::make_unique<InMemoryStore>());
  ASSERT_TRUE(Submit("strong").ok());
  ASSERT_TRUE(Submit("strong-twin").ok());
  ASSERT_TRUE(*Race().Advance());
  PlayQueued();
  ASSERT_TRUE(Submit("strong-late").ok());
  ASSERT_TRUE(*Race().Advance());
  auto rounds = coordinator_->store().ListRaceRounds("final");
  ASSERT_EQ(rounds->size(), 2u);
  // Only the twins' pair counts as open (the two pairs with the newcomer had nothing to decide
  // on: "0 of 3" before).
  EXPECT_THAT(rounds->back().note, HasSubstr("admitted strong-late"));
  EXPECT_THAT(rounds->back().note, HasSubstr("0 of 1 open pair(s) resolved"));
}

TEST_F(RaceTest, OneSubmissionWithAQuorumOfOneStopsAfterItsFirstRound) {
  std::string text = kRacing;
  text.replace(text.find("\"alpha\": 0.95"), 13, "\"alpha\": 0.95, \"quorum\": 1");
  Start(std::make_unique<InMemoryStore>(), text);
  ASSERT_TRUE(Submit("weak-alone").ok());
  ASSERT_TRUE(*Race().Advance());
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped);
  EXPECT_THAT(v->candidates, ElementsAre("weak-alone"));
  EXPECT_EQ(JobsOf("weak-alone"), 4) << "one submission: nothing to decide after round 0";
}

TEST_F(RaceTest, RoundsAreQueuedExactlyOnceAcrossRestarts) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("race_test_" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Start(*std::move(store));
  }
  // Two of one strength keep the race going for several rounds (their pair stays open).
  ASSERT_TRUE(Submit("strong").ok());
  ASSERT_TRUE(Submit("strong-twin").ok());
  ASSERT_TRUE(Submit("weak").ok());
  ASSERT_TRUE(*Race().Advance());
  PlayQueued();
  ASSERT_TRUE(*Race().Advance());
  const int jobs_before = JobsOf("strong") + JobsOf("strong-twin") + JobsOf("weak");
  // A restart before the round ran: the new coordinator continues from the recorded round and
  // queues nothing twice (the round's jobs are still queued, so nothing is planned).
  for (int restart = 0; restart < 2; ++restart) {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Start(*std::move(store));
    EXPECT_FALSE(*Race().Advance());
    EXPECT_EQ(JobsOf("strong") + JobsOf("strong-twin") + JobsOf("weak"), jobs_before);
  }
  auto rounds = coordinator_->store().ListRaceRounds("final");
  ASSERT_TRUE(rounds.ok());
  ASSERT_EQ(rounds->size(), 2u);
  // Two coordinators' calls racing for the same round: one records it.
  PlayQueued();
  auto other = SqliteStore::Open(path);
  ASSERT_TRUE(other.ok());
  RaceDriver twin(other->get(), &coordinator_->clock(), Race().options(),
                  *coordinator_->competition().Get("final").value()->Board("main"));
  absl::StatusOr<bool> advanced = Race().Advance();
  ASSERT_TRUE(advanced.ok()) << advanced.status();
  ASSERT_TRUE(*advanced) << Race().View()->ToJson().dump();
  EXPECT_FALSE(*twin.Advance()) << "the twin sees the round queued and running";
  rounds = coordinator_->store().ListRaceRounds("final");
  EXPECT_EQ(rounds->size(), 3u);
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, Contains("strong"));
  EXPECT_THAT(v->candidates, Not(Contains("weak")));
  coordinator_.reset();
  std::filesystem::remove(path);
}

TEST_F(RaceTest, AnOrganizerStopsTheRaceForGoodAndTheCandidatesAreItsParetoSet) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("race_stop_test_" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Start(*std::move(store));
  }
  auto db = ArenaDatabase::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ((*db)->StopRace("final", "enough", "alice").code(),
            absl::StatusCode::kFailedPrecondition)
      << "no race yet";
  ASSERT_TRUE(Submit("strong").ok());
  ASSERT_TRUE(Submit("medium").ok());
  ASSERT_TRUE(*Race().Advance());
  EXPECT_EQ((*db)->StopRace("final", "", "alice").code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE((*db)->StopRace("final", "the deadline moved", "alice").ok());
  EXPECT_EQ((*db)->StopRace("final", "again", "alice").code(),
            absl::StatusCode::kFailedPrecondition);
  const int before = JobsOf("strong") + JobsOf("medium");
  EXPECT_EQ(PlayQueued(), before) << "jobs already queued still run";
  EXPECT_FALSE(*Race().Advance());
  // A late entry would never run: it is refused, saying why, rather than shown "finished 0/0".
  absl::StatusOr<RegisteredSubmission> late = Submit("weak-late");
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.status().message(), HasSubstr("stopped by its organizers"));
  EXPECT_THAT(late.status().message(), HasSubstr("the deadline moved"));
  EXPECT_EQ(JobsOf("weak-late"), -1);
  EXPECT_FALSE(*Race().Advance());
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped);
  EXPECT_THAT(v->note, HasSubstr("stopped by an organizer: the deadline moved (alice)"));
  EXPECT_EQ(v->history.back().jobs, 0) << "the stop is a bookkeeping round";
  EXPECT_THAT(v->candidates, ElementsAre("strong", "medium"));
  auto audit = (*db)->ListAudit(10);
  ASSERT_TRUE(audit.ok());
  bool audited = false;
  for (const auto& e : *audit) {
    audited = audited || (e.action == "stop-race (alice)" && e.allowed &&
                          e.detail.find("the deadline moved") != std::string::npos);
  }
  EXPECT_TRUE(audited);
  db->reset();
  coordinator_.reset();
  std::filesystem::remove(path);
}

TEST_F(RaceTest, TheWarmStartBoardRunsTheSameJobsAsTheMainBoard) {
  Start(std::make_unique<InMemoryStore>(), kWarmStart);
  ASSERT_TRUE(Submit("strong").ok());
  ASSERT_TRUE(Submit("weak").ok());
  ASSERT_TRUE(*Race().Advance());
  EXPECT_EQ(JobsOf("strong"), 8) << "4 instances on each of the two boards";
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, ElementsAre("strong"));
  auto main_board = coordinator_->store().RaceResults("final", "final");
  auto warm = coordinator_->store().RaceResults("final", "final/warm-start");
  ASSERT_TRUE(main_board.ok());
  ASSERT_TRUE(warm.ok());
  ASSERT_EQ(main_board->size(), warm->size());
  for (size_t i = 0; i < main_board->size(); ++i) {
    EXPECT_EQ((*main_board)[i].problem, (*warm)[i].problem);
    EXPECT_EQ((*main_board)[i].trial, (*warm)[i].trial);
    EXPECT_EQ((*main_board)[i].max_batches, (*warm)[i].max_batches);
    EXPECT_TRUE((*warm)[i].has_final_study);
  }
  // The view counts the main board only.
  EXPECT_EQ(v->jobs_queued, static_cast<int>(main_board->size()));
}

TEST(RaceInstancesTest, EveryProblemAndTrialOnceInAnOrderFixedBySeedAndPhase) {
  InMemoryStore store;
  FakeClock clock(absl::UnixEpoch());
  RaceDriverOptions o;
  o.phase_key = "final";
  o.problems = {"a", "b", "c"};
  o.trials = 5;
  o.boards = {"final"};
  o.seed = 11;
  RaceDriver one(&store, &clock, o), same(&store, &clock, o);
  EXPECT_EQ(one.Instances(), same.Instances());
  std::set<std::pair<int, int>> all(one.Instances().begin(), one.Instances().end());
  EXPECT_EQ(all.size(), 15u);
  EXPECT_EQ(one.Instances().size(), 15u);
  o.phase_key = "final-2";
  RaceDriver other_phase(&store, &clock, o);
  EXPECT_NE(one.Instances(), other_phase.Instances());
  o.phase_key = "final";
  o.seed = 12;
  RaceDriver other_seed(&store, &clock, o);
  EXPECT_NE(one.Instances(), other_seed.Instances());
}

TEST_F(RaceTest, AMigratedFinalPhaseRacesTheChosenSubmissionsAndStaysHidden) {
  Start(std::make_unique<InMemoryStore>(), kMigrating, "2026-02-02T00:00:00Z");
  for (const char* name : {"strong", "weak"}) {
    ASSERT_TRUE(Submit(name, "feedback").ok());
  }
  PlayQueued();
  EXPECT_FALSE(*Race().Advance()) << "nothing to race before the migration";
  calendar_->Advance(At("2026-03-01T00:00:01Z") - calendar_->Now());
  auto moved = coordinator_->competition().MigrateDue();
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(*moved, 2);
  EXPECT_EQ(JobsOf("strong", "final"), 0) << "the race queues the migrated submissions' jobs";
  ASSERT_TRUE(*Race().Advance());
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, ElementsAre("strong"));
  for (const PhaseView& p : coordinator_->competition().Describe()) {
    EXPECT_EQ(p.racing, p.name == "final") << p.name;
  }
  // The final board stays hidden from teams until published.
  Phase* final_phase = *coordinator_->competition().Get("final");
  EXPECT_FALSE(final_phase->Leaderboard(Identity::Team("team-weak"), "final").ok());
}

// The Pareto set of one database: the report's Racing section (the race's candidates) and its
// Plackett-Luce section (the board's one fit), the web board, and `bbo report --db` all name it.
TEST_F(RaceTest, TheRacingAndPlackettLuceSectionsTheWebBoardAndTheDatabaseNameOneParetoSet) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("race_pareto_test_" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(path);
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  Start(*std::move(store));
  for (const char* name : {"strong", "strong-twin", "medium", "weak"}) ASSERT_TRUE(Submit(name).ok());
  ASSERT_TRUE(*Race().Advance());
  RunRace();
  ASSERT_TRUE(coordinator_->baseline().RunPending().ok());
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v->stopped) << v->note;
  std::vector<std::string> candidates = v->candidates;
  std::sort(candidates.begin(), candidates.end());
  EXPECT_THAT(candidates, Contains("strong"));
  EXPECT_THAT(candidates, Not(Contains("weak")));
  auto names = [](const nlohmann::json& list) {
    std::vector<std::string> out;
    for (const auto& m : list) out.push_back(m.get<std::string>());
    std::sort(out.begin(), out.end());
    return out;
  };
  ReportRequest request;
  request.bootstrap_replicates = 50;
  Phase* final_phase = *coordinator_->competition().Get("final");
  auto report = final_phase->Report(request);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(names((**report)["racing"]["candidates"]), candidates);
  EXPECT_EQ(names((**report)["plackett_luce"]["pareto_set"]), candidates)
      << (**report)["plackett_luce"].dump();
  // The decisions use the race's rule (alpha 0.95 here, not the report's default 0.99).
  EXPECT_EQ((**report)["plackett_luce"]["decisions"]["alpha"].get<double>(), 0.95);
  web::WebViews web(coordinator_.get());
  auto board = web.Leaderboard(Identity::Organizer(), "final", "main");
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_EQ(names((*board)["plackett_luce"]["pareto_set"]), candidates)
      << (*board)["plackett_luce"].dump();
  auto db = ArenaDatabase::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  scoring::BootstrapOptions boot;
  boot.replicates = 50;
  auto offline = (*db)->Report("", "final", boot);
  ASSERT_TRUE(offline.ok()) << offline.status();
  EXPECT_EQ(names((*offline)["racing"]["candidates"]), candidates);
  EXPECT_EQ(names((*offline)["plackett_luce"]["pareto_set"]), candidates);
  // The same fit offline as on the server (same results, model and seed; only the time it took
  // may differ).
  EXPECT_EQ((*offline)["plackett_luce"]["final"], (**report)["plackett_luce"]["final"]);
  EXPECT_EQ((*offline)["plackett_luce"]["decisions"], (**report)["plackett_luce"]["decisions"]);
  EXPECT_EQ((*offline)["racing"]["history"].size(), (**report)["racing"]["history"].size());
  db->reset();
  coordinator_.reset();
  std::filesystem::remove(path);
}

// An entry withdrawn mid-race: its cancelled jobs are neither run nor ranked (as crashes or
// otherwise); it is shown withdrawn, not eliminated; the evaluations the race says ran are the
// ones that ran.
TEST_F(RaceTest, AnEntryWithdrawnMidRaceIsWithdrawnNotEliminatedAndItsCancelledJobsDidNotRun) {
  Start(std::make_unique<InMemoryStore>());
  // Three of one strength: nobody is eliminated before the withdrawal.
  for (const char* name : {"medium", "medium-b", "medium-copy"}) ASSERT_TRUE(Submit(name).ok());
  ASSERT_TRUE(*Race().Advance());
  PlayQueued();
  ASSERT_TRUE(*Race().Advance());  // round 1 queued for all three
  auto sub = coordinator_->store().FindSubmission("medium-copy", "final");
  ASSERT_TRUE(sub.ok() && *sub);
  const int ran_before = coordinator_->store().CountJobs((*sub)->id)->done;
  Phase* final_phase = *coordinator_->competition().Get("final");
  absl::StatusOr<int> cancelled =
      final_phase->Withdraw(Identity::Team("team-medium-copy"), (*sub)->id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_GT(*cancelled, 0);
  RunRace();
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_THAT(v->withdrawn, ElementsAre("medium-copy"));
  EXPECT_EQ(v->eliminated_by.count("medium-copy"), 0u) << v->ToJson().dump();
  EXPECT_THAT(v->candidates, Not(Contains("medium-copy")));
  EXPECT_EQ(JobsOf("medium-copy"), ran_before + *cancelled) << "no job after the withdrawal";
  // What ran: every batch the test played (as a worker), 2 evaluations each.
  int64_t played = 0;
  for (const auto& [name, batches] : batches_run_) played += batches * 2;
  EXPECT_EQ(v->evaluations_run, played);
  EXPECT_EQ(v->evaluations_planned, played) << "cancelled jobs are not planned work";
  bool noted = false;
  for (const RaceRoundView& r : v->history) noted |= r.note.find("withdrawn") != std::string::npos;
  EXPECT_TRUE(noted);
  // Ranked on the studies it ran only, and listed withdrawn in the Plackett-Luce section.
  ASSERT_TRUE(coordinator_->baseline().RunPending().ok());
  auto board = final_phase->Board("main");
  ASSERT_TRUE(board.ok());
  auto snapshot = (*board)->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  int trials = 0;
  for (const auto& [problem, data] : (*snapshot)->input.methods.at("medium-copy")) {
    trials += static_cast<int>(data.trials.size());
  }
  EXPECT_EQ(trials, ran_before);
  auto fits = (*board)->PlackettLuce(*snapshot);
  ASSERT_TRUE(fits->batches.ok()) << fits->batches.status();
  EXPECT_THAT(fits->batches->withdrawn, ElementsAre("medium-copy"));
  EXPECT_EQ(fits->batches->eliminated_by.count("medium-copy"), 0u);
  // A withdrawn entry stays out: nothing is queued for it again.
  EXPECT_FALSE(*Race().Advance());
}

// The issue's race: an entry whose studies the race shortened (its pairs decided at the later
// batches only), and an identical copy entered late that runs in full. The two rank level on the
// leaderboard and in every section of the report; nothing the race did not run is a result.
TEST_F(RaceTest, AnIdenticalLateCopyRanksLevelWithAnEntryWhoseStudiesTheRaceShortened) {
  Start(std::make_unique<InMemoryStore>());
  for (const char* name : {"cma", "rs", "rs-near"}) ASSERT_TRUE(Submit(name).ok());
  ASSERT_TRUE(*Race().Advance());
  int shortened = 0;
  for (int round = 0; round < 8 && shortened == 0; ++round) {
    PlayQueued();
    ASSERT_TRUE(*Race().Advance());
    auto results = coordinator_->store().RaceResults("final", "final");
    ASSERT_TRUE(results.ok());
    auto cma = coordinator_->store().FindSubmission("cma", "final");
    shortened = 0;
    for (const RaceResultRecord& r : *results) {
      shortened += r.submission_id == (*cma)->id && r.max_batches > 0;
    }
  }
  ASSERT_GT(shortened, 0) << "the race shortened none of cma's studies: "
                          << Race().View()->ToJson().dump();
  ASSERT_TRUE(Submit("cma-copy").ok());
  RunRace(60);
  absl::StatusOr<RaceView> v = Race().View();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->stopped) << v->note;
  EXPECT_THAT(v->candidates, Contains("cma"));
  EXPECT_THAT(v->candidates, Contains("cma-copy"));
  ASSERT_TRUE(coordinator_->baseline().RunPending().ok());
  Phase* final_phase = *coordinator_->competition().Get("final");
  ReportRequest request;
  request.bootstrap_replicates = 1000;
  auto report = final_phase->Report(request);
  ASSERT_TRUE(report.ok()) << report.status();
  const nlohmann::json& j = **report;
  // Leaderboard: level within the error of the trials' mean (one problem here, so the error
  // bar over problems is infinite: the per-trial standard errors are the error bars).
  double score[2] = {NAN, NAN};
  for (const auto& row : j["methods"]) {
    for (int k = 0; k < 2; ++k) {
      if (row["method"] == (k == 0 ? "cma" : "cma-copy")) {
        score[k] = row["leaderboard_score"].get<double>();
      }
    }
  }
  ASSERT_FALSE(std::isnan(score[0]) || std::isnan(score[1])) << j["methods"].dump();
  auto board = final_phase->Board("main");
  ASSERT_TRUE(board.ok());
  auto snapshot = (*board)->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  auto leaderboard = (*board)->Leaderboard();
  ASSERT_TRUE(leaderboard.ok()) << leaderboard.status();
  double se[2] = {0, 0};
  int full[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const std::string method = k == 0 ? "cma" : "cma-copy";
    for (const auto& [problem, data] : (*snapshot)->input.methods.at(method)) {
      const scoring::ProblemBaseline& b = (*leaderboard)->baselines.at(problem);
      std::vector<double> x;
      for (const scoring::TrialCurve& c : data.trials) {
        if (scoring::BatchesRun(c, 4) < 4) continue;
        x.push_back(100 * std::clamp((scoring::BestSoFar(c).back() - b.opt) / (b.clip - b.opt),
                                     -1.0, 1.0));
      }
      full[k] = static_cast<int>(x.size());
      double mean = 0, ss = 0;
      for (double v : x) mean += v / x.size();
      for (double v : x) ss += (v - mean) * (v - mean);
      se[k] = std::sqrt(ss / (x.size() - 1) / x.size());
      // The score is 100 (1 - that mean) over exactly these trials.
      EXPECT_NEAR(score[k], 100 - mean, 1e-9) << method;
    }
  }
  EXPECT_LT(full[0], JobsOf("cma")) << "cma's shortened studies are not in its score";
  EXPECT_LE(std::abs(score[0] - score[1]), 2 * (se[0] + se[1]))
      << score[0] << " +- " << se[0] << " vs " << score[1] << " +- " << se[1];
  // Plackett-Luce: no decision between them, neither eliminates the other.
  const nlohmann::json& pl = j["plackett_luce"];
  EXPECT_FALSE(pl["decisions"]["eliminated_by"].contains("cma")) << pl["decisions"].dump();
  EXPECT_FALSE(pl["decisions"]["eliminated_by"].contains("cma-copy")) << pl["decisions"].dump();
  for (const auto& pair : pl["decisions"]["pairs"]) {
    const bool ours = (pair["a"] == "cma" && pair["b"] == "cma-copy") ||
                      (pair["a"] == "cma-copy" && pair["b"] == "cma");
    if (!ours) continue;
    for (const auto& p : pair["p_a_better"]) {
      EXPECT_GT(p.get<double>(), 1 - 0.95);
      EXPECT_LT(p.get<double>(), 0.95);
    }
  }
  // Bootstrap ranks: either may come first.
  for (const auto& m : j["bootstrap"]["methods"]) {
    if (m["method"] == "cma" || m["method"] == "cma-copy") {
      EXPECT_GT(m["rank_counts"][0].get<int>() + m["rank_counts"][1].get<int>(), 500)
          << m.dump();
    }
  }
}

}  // namespace
}  // namespace bbo
