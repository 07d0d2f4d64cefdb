// The optimizer-seconds view of the Plackett-Luce ranking: hand-made timings where the batch view
// and the seconds view must disagree, its refusals, and the whole path from StudyManager's turn
// times through the store to Phase::Report.

#include "server/plackett_luce_seconds.h"

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

constexpr double kInf = std::numeric_limits<double>::infinity();

// `n_batches` batch minima 10 - b (every batch improves) ending every `turn_s` optimizer seconds.
StudyCurve Curve(int trial, int n_batches, double turn_s) {
  StudyCurve c;
  c.trial = trial;
  for (int b = 0; b < n_batches; ++b) {
    c.batch_min.push_back(10.0 - b);
    c.batch_end_seconds.push_back(turn_s * (b + 1));
  }
  return c;
}

// "fast" and "slow" find identical values batch by batch on 3 problems x 4 trials; "fast" needs
// 0.1 s of optimizer time per batch, "slow" 1 s.
ScoringData FastAndSlow() {
  ScoringData d;
  for (int p = 0; p < 3; ++p) {
    for (int n = 0; n < 4; ++n) {
      d.methods["fast"][absl::StrCat("p", p)].push_back(Curve(n, 16, 0.1));
      d.methods["slow"][absl::StrCat("p", p)].push_back(Curve(n, 16, 1.0));
    }
  }
  return d;
}

// The batch view's input from the same curves, as Phase::RefreshInput builds it.
scoring::ScoringInput BatchInput(const ScoringData& d, int n_batches) {
  scoring::ScoringInput in;
  in.batch_size = 1;
  in.n_batches = n_batches;
  for (const auto& [method, per_problem] : d.methods) {
    for (const auto& [problem, curves] : per_problem) {
      in.problems[problem];
      for (const StudyCurve& c : curves) {
        scoring::TrialCurve t;
        t.batch_min = c.batch_min;
        t.batch_min.resize(n_batches, kInf);
        in.methods[method][problem].trials.push_back(t);
      }
    }
  }
  return in;
}

double At(const json& pl, const std::string& what, const std::string& method, size_t t) {
  return pl["anytime"][what][method][t].get<double>();
}

TEST(PlackettLuceSecondsTest, AMethodFasterInSecondsRanksHigherThanInBatches) {
  const ScoringData data = FastAndSlow();
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
  auto batches = scoring::ReportPlackettLuce(BatchInput(data, 16), {});
  ASSERT_TRUE(batches.ok()) << batches.status();
  const json b = scoring::PlackettLuceReportJson(batches);
  EXPECT_EQ(b["anytime"]["unit"], "batches");
  for (size_t t = 0; t < 16; ++t) EXPECT_NEAR(At(b, "mean", "fast", t), 0.5, 0.1) << t;
  EXPECT_TRUE(b["decisions"]["eliminated_by"].empty()) << b["decisions"].dump();
  EXPECT_EQ(b["pareto_set"].size(), 2u);
}

TEST(PlackettLuceSecondsTest, OneMethodOrNoTimingsIsAnErrorInTheJson) {
  ScoringData one;
  one.methods["alone"]["p"].push_back(Curve(0, 4, 1.0));
  one.methods["alone"]["q"].push_back(Curve(0, 4, 1.0));
  auto alone = PlackettLuceSeconds(one);
  EXPECT_EQ(alone.status().code(), absl::StatusCode::kFailedPrecondition);
  const json j = PlackettLuceSecondsJson(alone);
  EXPECT_EQ(j["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("at least two methods"));
  EXPECT_FALSE(j.contains("grid"));
  EXPECT_FALSE(j.contains("final"));

  // Two methods, but no curve carries timings (a store that does not fill them).
  ScoringData untimed = FastAndSlow();
  for (auto& [method, per_problem] : untimed.methods) {
    for (auto& [problem, curves] : per_problem) {
      for (StudyCurve& c : curves) c.batch_end_seconds.clear();
    }
  }
  auto none = PlackettLuceSeconds(untimed);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  // Timed, but every turn took no time (a fake clock that never moved).
  ScoringData zero = FastAndSlow();
  for (auto& [method, per_problem] : zero.methods) {
    for (auto& [problem, curves] : per_problem) {
      for (StudyCurve& c : curves) c.batch_end_seconds.assign(c.batch_end_seconds.size(), 0.0);
    }
  }
  auto still = PlackettLuceSeconds(zero);
  EXPECT_EQ(still.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(PlackettLuceSecondsJson(still)["error"].get<std::string>(),
              HasSubstr("no optimizer time was recorded"));
}

TEST(PlackettLuceSecondsTest, AStudyWithoutBatchesIsRankedLastAndBadInputIsNamed) {
  ScoringData d = FastAndSlow();
  d.methods["crashed"]["p0"].push_back(StudyCurve{});  // trial 0, no batch at all
  auto traces = SecondsTraces(d);
  ASSERT_TRUE(traces.ok()) << traces.status();
  EXPECT_TRUE(traces->at("crashed").at({"p0", 0}).time.empty());
  EXPECT_EQ(traces->at("fast").at({"p1", 3}).time.size(), 16u);
  auto s = PlackettLuceSeconds(d);
  ASSERT_TRUE(s.ok()) << s.status();
  const json j = PlackettLuceSecondsJson(s);
  EXPECT_LT(j["final"]["posterior_mean"]["crashed"].get<double>(),
            j["final"]["posterior_mean"]["slow"].get<double>());

  d.methods["fast"]["p2"][1].batch_end_seconds[5] = 0.01;  // time going backwards
  auto bad = PlackettLuceSeconds(d);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("method \"fast\", problem \"p2\", trial 1"));
  PlackettLuceSecondsOptions o;
  o.timepoints = 1;
  EXPECT_EQ(PlackettLuceSeconds(FastAndSlow(), o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = {};
  o.min_first_s = 0;
  EXPECT_THAT(PlackettLuceSeconds(FastAndSlow(), o).status().message(), HasSubstr("min_first_s"));
}

// The demo's size (4 methods x 13 problems x 5 trials x 16 batches of 8, and a random-search
// baseline of 10 trials) in SQLite: what the seconds view adds to a report, the store read
// included, must stay small. CPU seconds, which a loaded machine does not inflate as it does wall
// time.
TEST(PlackettLuceSecondsTest, DemoSizeFromSqliteCostsWellUnderTwoSeconds) {
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
  const json j = ReportPlackettLuceSeconds(*store, problems, kMainBoard, 16);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  store.reset();
  fs::remove(path);
  ASSERT_TRUE(j.contains("final")) << j.dump();
  EXPECT_EQ(j["model"]["runs"], 65);
  EXPECT_EQ(j["methods"], json({"a", "b", "c", "d"}));  // the baseline is not ranked
  EXPECT_EQ(j["anytime"]["time"].size(), 16u);
  std::printf(
      "Plackett-Luce seconds view at 4 x 13 x 5 x 16, store read included: %.3f s wall, "
      "%.3f s CPU\n",
      wall, cpu);
  EXPECT_LT(cpu, 2.0);
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
        std::make_unique<StudyManager>(&store_, problems_.get(), evaluator_.get(), &clock_, so);
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
      auto study = studies_->OpenForJob((*job)->id, "w");
      ASSERT_TRUE(study.ok()) << study.status();
      for (int b = 0; b < 3; ++b) {
        clock_.Advance(absl::Seconds(turn_s.at((*job)->submission_id)));
        std::vector<IncomingPoint> pts(2, {testing::GoodPoint(1.0 + (3 - b)), ""});
        ASSERT_TRUE(studies_->SubmitBatch(study->study_id, b, pts, 0, 0).ok());
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
