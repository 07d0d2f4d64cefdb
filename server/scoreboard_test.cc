// The Scoreboard: one snapshot per store change and every view of it computed once, the seconds
// view of the Plackett-Luce ranking on the coordinator's own turn times, and the whole path from
// StudyManager through the store to Phase::Report.

#include "server/scoreboard.h"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/report.h"
#include "scoring/plackett_luce/seconds.h"
#include "server/baseline_runner.h"
#include "server/phase.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"
#include "server/study_manager.h"
#include "server/testing/mixed_problem.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

double At(const json& pl, const std::string& what, const std::string& method, size_t t) {
  return pl["anytime"][what][method][t].get<double>();
}

// The demo's size (4 methods x 13 problems x 5 trials x 16 batches of 8, and a random-search
// baseline of 10 trials) in SQLite: the seconds view from the coordinator's turn times, fitted
// once per snapshot (its cost is printed; bench/scoring_bench measures the full report).
TEST(ScoreboardTest, DemoSizeFromSqliteFitsOnceAndCostsWellUnderTwoSeconds) {
  const std::string path =
      (fs::temp_directory_path() / ("pl_seconds_demo_" + std::to_string(::getpid()) + ".sqlite"))
          .string();
  fs::remove(path);
  auto opened = SqliteStore::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status();
  std::unique_ptr<SqliteStore> store = *std::move(opened);
  std::vector<std::string> problems;
  for (int p = 0; p < 13; ++p) problems.push_back(absl::StrCat("p", p));
  auto add = [&](const std::string& name, int trials, bool baseline) {
    SubmissionRecord s;
    s.name = name;
    s.kind = SubmissionKind::kPython;
    s.digest = name;
    s.trials = trials;
    s.is_baseline = baseline;
    ASSERT_TRUE(store->AddSubmission(s, "", problems, 1).ok());
  };
  add("rs", 10, true);
  for (const char* m : {"a", "b", "c", "d"}) add(m, 5, false);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  while (true) {
    auto job = store->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok()) << job.status();
    if (!job->has_value()) break;
    StudyRecord sr;
    sr.job_id = (*job)->id;
    sr.submission_id = (*job)->submission_id;
    sr.problem = (*job)->problem;
    sr.trial = (*job)->trial;
    sr.board = (*job)->board;
    const int64_t study = *store->CreateStudy(sr);
    double total = 0;
    for (int b = 0; b < 16; ++b) {
      BatchRecord br;
      br.study_id = study;
      br.batch = b;
      br.turn_time_s = 0.05 + u(rng);
      total += br.turn_time_s;
      br.optimizer_time_s = total;
      for (int i = 0; i < 8; ++i) br.evaluations.push_back({"{}", u(rng), false, 0, "", {}});
      ASSERT_TRUE(store->RecordBatch(br).ok());
    }
    ASSERT_TRUE(store->EndStudy(study, StudyState::kCompleted, "done", 1, total).ok());
    ASSERT_TRUE(store->FinishJob((*job)->id, "w", "", 2).ok());
  }
  const std::clock_t cpu0 = std::clock();
  const auto wall0 = std::chrono::steady_clock::now();
  ScoreboardSpec spec;
  spec.phase = "practice";
  spec.batch_size = 8;
  spec.n_batches = 16;
  for (const std::string& name : problems) {
    ScoreboardProblem p;
    p.name = name;
    spec.problems.push_back(std::move(p));
  }
  Scoreboard board(store.get(), kMainBoard, spec);
  auto snapshot = board.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  ASSERT_TRUE((*snapshot)->baseline.ok()) << (*snapshot)->baseline;
  auto fits = board.PlackettLuce(*snapshot);
  ASSERT_TRUE(fits->seconds.has_value());
  const json j = scoring::pl::PlackettLuceSecondsJson(*fits->seconds);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  ASSERT_TRUE(j.contains("final")) << j.dump();
  EXPECT_EQ(j["model"]["runs"], 65);
  EXPECT_EQ(j["methods"], json({"a", "b", "c", "d"}));  // the baseline is not ranked
  EXPECT_EQ(j["anytime"]["time"].size(), 16u);
  std::printf(
      "Plackett-Luce views at 4 x 13 x 5 x 16, store read included: %.3f s wall, "
      "%.3f s CPU\n",
      wall, cpu);
  // One fit per snapshot: asking again, or for the same snapshot, fits nothing new.
  EXPECT_EQ(board.PlackettLuce(*snapshot), fits);
  EXPECT_EQ(board.PlackettLuce(*board.Snapshot()), fits);
  EXPECT_EQ(board.plackett_luce_fits(), 1);
  store.reset();
  fs::remove(path);
}

// The whole path: StudyManager measures the turns on the coordinator's clock, the store sums them,
// Phase::Report ranks on them.
class PlackettLuceSecondsReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("pl_seconds_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::vector<std::unique_ptr<Problem>> problems;
    problems.push_back(std::make_unique<testing::MixedProblem>("mixed_a"));
    problems.push_back(std::make_unique<testing::MixedProblem>("mixed_b"));
    problems_ = std::make_unique<ProblemSet>(std::move(problems));
    evaluator_ = std::make_unique<Evaluator>(1);
    StudyOptions so;
    so.budget.batch_size = 2;
    so.budget.n_batches = 3;
    studies_ =
        std::make_unique<StudyManager>(&store_, &store_, std::vector<StudyPhase>{StudyPhase{"", problems_.get(), so}}, evaluator_.get(), &clock_);
    PhaseOptions co;
    co.baseline_trials = 2;
    co.default_trials = 2;
    phase_ = std::make_unique<Phase>(&store_, problems_.get(), &clock_, 2, 3, co);
    ASSERT_TRUE(phase_->EnsureBaseline().ok());
    ASSERT_TRUE(store_.RegisterWorker("w", "h", 1, 0).ok());
  }
  void TearDown() override { fs::remove_all(root_); }

  int64_t Register(const std::string& name) {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "optimizer") << "#!/bin/sh\n";
    chmod((dir / "optimizer").c_str(), 0755);
    auto reg = phase_->Register(name, *TarDirectory(dir.string()), 2);
    EXPECT_TRUE(reg.ok()) << reg.status();
    return reg.ok() ? reg->submission_id : 0;
  }
  // Plays every queued job: the same points for everyone (better every batch), each turn taking
  // the submission's `turn_s` on the coordinator's clock.
  void PlayAll(const std::map<int64_t, double>& turn_s) {
    while (true) {
      auto job = store_.LeaseJob("w", 1e12);
      ASSERT_TRUE(job.ok()) << job.status();
      if (!job->has_value()) return;
      auto study = studies_->OpenForJob(Identity::Coordinator(), (*job)->id, "w");
      ASSERT_TRUE(study.ok()) << study.status();
      for (int b = 0; b < 3; ++b) {
        clock_.Advance(absl::Seconds(turn_s.at((*job)->submission_id)));
        std::vector<IncomingPoint> pts(2, {testing::GoodPoint(1.0 + (3 - b)), ""});
        ASSERT_TRUE(studies_->SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
      }
      ASSERT_TRUE(store_.FinishJob((*job)->id, "w", "", 3).ok());
    }
  }

  fs::path root_;
  FakeClock clock_;
  InMemoryStore store_;
  std::unique_ptr<ProblemSet> problems_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<Phase> phase_;
};

TEST_F(PlackettLuceSecondsReportTest, TheServersReportHasTheSecondsViewBesideTheBatchView) {
  BaselineRunner runner(&store_, problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  const int64_t fast = Register("fast");
  const int64_t slow = Register("slow");
  PlayAll({{fast, 0.25}, {slow, 2.0}});
  ReportRequest r;
  r.bootstrap_replicates = 50;
  auto report = phase_->Report(r);
  ASSERT_TRUE(report.ok()) << report.status();
  const json& s = (**report)["plackett_luce_seconds"];
  ASSERT_TRUE(s.contains("final")) << s.dump();
  EXPECT_EQ(s["anytime"]["unit"], "seconds");
  EXPECT_EQ(s["model"]["runs"], 4);  // 2 problems x 2 trials
  // T = the phase's 3 batches, raised to 10; from the first turn (0.25 s) to 3 x 2 s.
  ASSERT_EQ(s["anytime"]["time"].size(), 10u);
  EXPECT_NEAR(s["anytime"]["time"][0].get<double>(), 0.25, 1e-9);
  EXPECT_NEAR(s["anytime"]["time"][9].get<double>(), 6.0, 1e-9);
  // 4 runs won by "fast" while "slow" is still running: Beta(5, 1), mean 5/6.
  EXPECT_GT(At(s, "mean", "fast", 0), 0.7);
  EXPECT_EQ(s["selection"]["uniform"]["best"], "fast");
  // The batch view sees two equal methods.
  const json& b = (**report)["plackett_luce"];
  EXPECT_NEAR(b["final"]["posterior_mean"]["fast"].get<double>(), 0.5, 0.15) << b.dump();
  EXPECT_NEAR(At(b, "mean", "fast", 0), 0.5, 0.15);
  // The HTML shows both sections.
  auto files = phase_->ReportFiles(Identity::Organizer(), r, "html");
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 1u);
  const std::string& html = (*files)[0].content;
  EXPECT_NE(html.find("<section id=\"plackett-luce-seconds\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"plackett-luce\">"), std::string::npos);
}

TEST_F(PlackettLuceSecondsReportTest, AReportWithOneSubmissionSaysWhy) {
  BaselineRunner runner(&store_, problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  const int64_t only = Register("only");
  PlayAll({{only, 1.0}});
  ReportRequest r;
  r.bootstrap_replicates = 50;
  auto report = phase_->Report(r);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT((**report)["plackett_luce_seconds"]["error"].get<std::string>(),
              HasSubstr("at least two methods"));
}

}  // namespace
}  // namespace bbo

namespace bbo {
namespace {

// A study a race planned shorter reaches the snapshot with its horizon; a study cut off for its
// budget does not (its best so far stands). The spec with a race survives its JSON.
TEST(ScoreboardRaceTest, AStudyARacePlannedShorterHasItsHorizonInTheSnapshot) {
  InMemoryStore store;
  SubmissionRecord sub;
  sub.name = "opt";
  sub.kind = SubmissionKind::kPython;
  sub.trials = 2;
  ASSERT_TRUE(store.AddSubmission(sub, "", {"p"}, 1).ok());
  ASSERT_TRUE(store.RegisterWorker("w", "h", 1, 0).ok());
  for (int k = 0; k < 2; ++k) {
    auto job = store.LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok() && job->has_value());
    StudyRecord s;
    s.job_id = (*job)->id;
    s.submission_id = (*job)->submission_id;
    s.problem = (*job)->problem;
    s.trial = (*job)->trial;
    s.budget.n_batches = k == 0 ? 4 : 2;
    const int64_t study = *store.CreateStudy(s);
    BatchRecord b;
    b.study_id = study;
    b.batch = 0;
    b.evaluations = {{"{}", 1.0, false, 0}};
    ASSERT_TRUE(store.RecordBatch(b).ok());
    // The first is cut off after one batch of four; the second ran one batch of its two.
    ASSERT_TRUE(store.EndStudy(study, StudyState::kCutOff, "slow", 1, 1).ok());
  }
  ScoreboardSpec spec;
  spec.n_batches = 4;
  spec.batch_size = 1;
  spec.problems = {{"p", 2, {}, std::nullopt}};
  ScoreboardRace race;
  race.phase_key = "final";
  race.racing.enabled = true;
  race.racing.alpha = 0.95;
  race.trials = 2;
  race.seed = 7;
  spec.race = race;
  auto round_trip = ScoreboardSpec::FromJson(spec.ToJson());
  ASSERT_TRUE(round_trip.ok()) << round_trip.status();
  ASSERT_TRUE(round_trip->race.has_value());
  EXPECT_EQ(round_trip->race->racing, race.racing);
  EXPECT_EQ(round_trip->race->seed, 7);
  EXPECT_EQ(round_trip->race->SummaryOptions().decisions.alpha, 0.95);
  Scoreboard board(&store, kMainBoard, *round_trip, &store);
  auto snapshot = board.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const auto& trials = (*snapshot)->input.methods.at("opt").at("p").trials;
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].horizon, -1) << "cut off: its best so far stands";
  EXPECT_EQ(trials[1].horizon, 2) << "planned for two batches by the race";
  EXPECT_EQ((*snapshot)->race_round, -1) << "no round recorded yet";
}

}  // namespace
}  // namespace bbo
