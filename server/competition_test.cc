#include "server/competition.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoring/results_csv.h"
#include "server/baseline_runner.h"
#include "server/sqlite_store.h"
#include "server/study_manager.h"
#include "server/testing/mixed_problem.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class CompetitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("competition_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    store_ = *SqliteStore::Open((root_ / "db.sqlite").string());
    std::vector<std::unique_ptr<Problem>> problems;
    problems.push_back(std::make_unique<testing::MixedProblem>("mixed_a"));
    problems.push_back(std::make_unique<testing::MixedProblem>("mixed_b"));
    problems_ = std::make_unique<ProblemSet>(std::move(problems));
    evaluator_ = std::make_unique<Evaluator>(1);
    StudyOptions so;
    so.batch_size = 4;
    so.n_batches = 3;
    studies_ = std::make_unique<StudyManager>(store_.get(), problems_.get(), evaluator_.get(),
                                              &clock_, so);
    CompetitionOptions co;
    co.baseline_trials = 5;
    co.default_trials = 2;
    competition_ = std::make_unique<Competition>(store_.get(), problems_.get(), &clock_, 4, 3, co);
    ASSERT_TRUE(competition_->EnsureBaseline().ok());
  }
  void TearDown() override {
    studies_.reset();
    store_.reset();
    fs::remove_all(root_);
  }

  std::string Archive(const std::string& file, bool executable) {
    fs::path dir = root_ / ("sub_" + file + std::to_string(executable));
    fs::create_directories(dir);
    std::ofstream(dir / file) << "print('hi')\n";
    if (executable) chmod((dir / file).c_str(), 0755);
    return *TarDirectory(dir.string());
  }

  fs::path root_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<ProblemSet> problems_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<Competition> competition_;
};

TEST_F(CompetitionTest, RegisterDetectsKindAndQueuesJobs) {
  auto py = competition_->Register("py-opt", Archive("optimizer.py", false), 0);
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_EQ(py->kind, SubmissionKind::kPython);
  EXPECT_EQ(py->jobs, 4);  // 2 problems x default 2 trials
  auto exe = competition_->Register("exe-opt", Archive("optimizer", true), 3);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->kind, SubmissionKind::kExecutable);
  EXPECT_EQ(exe->jobs, 6);
}

TEST_F(CompetitionTest, RegisterRejectsBadInputWithClearErrors) {
  auto none = competition_->Register("x", Archive("README.md", false), 1);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("optimizer.py"));
  auto noexec = competition_->Register("y", Archive("optimizer", false), 1);
  EXPECT_THAT(noexec.status().message(), HasSubstr("not executable"));
  auto badname = competition_->Register("a b/c", Archive("optimizer.py", false), 1);
  EXPECT_THAT(badname.status().message(), HasSubstr("name"));
  auto garbage = competition_->Register("z", "this is not an archive", 1);
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kInvalidArgument);
  auto trials = competition_->Register("t", Archive("optimizer.py", false), 1000);
  EXPECT_THAT(trials.status().message(), HasSubstr("trials"));
  ASSERT_TRUE(competition_->Register("dup", Archive("optimizer.py", false), 1).ok());
  EXPECT_EQ(competition_->Register("dup", Archive("optimizer.py", false), 1).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(competition_->Register("random-search-baseline", Archive("optimizer.py", false), 1)
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_F(CompetitionTest, LeaderboardRanksPerfectOptimizerAboveBaseline) {
  EXPECT_EQ(competition_->Leaderboard().status().code(), absl::StatusCode::kFailedPrecondition);
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  auto ran = runner.RunPending();
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ(*ran, 10);  // 2 problems x 5 trials

  auto reg = competition_->Register("perfect", Archive("optimizer", true), 2);
  ASSERT_TRUE(reg.ok());
  // Play the perfect optimizer's jobs by hand: always suggest the optimum.
  ASSERT_TRUE(store_->RegisterWorker("w", "h", 1, 0).ok());
  for (int j = 0; j < reg->jobs; ++j) {
    auto job = store_->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok() && job->has_value());
    auto study = studies_->OpenForJob((*job)->id, "w");
    ASSERT_TRUE(study.ok()) << study.status();
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts(4, IncomingPoint{testing::GoodPoint(), ""});
      ASSERT_TRUE(studies_->SubmitBatch(study->study_id, b, pts, 0, 0).ok());
    }
    ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
  }
  // A second, imperfect optimizer: x drifts away from the optimum over jobs and batches.
  auto noisy = competition_->Register("noisy", Archive("optimizer", true), 2);
  ASSERT_TRUE(noisy.ok());
  for (int j = 0; j < noisy->jobs; ++j) {
    auto job = store_->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok() && job->has_value());
    auto study = studies_->OpenForJob((*job)->id, "w");
    ASSERT_TRUE(study.ok());
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts;
      for (int i = 0; i < 4; ++i) {
        pts.push_back({testing::GoodPoint(1.0 + 0.7 * j + 0.3 * b + 0.2 * i), ""});
      }
      ASSERT_TRUE(studies_->SubmitBatch(study->study_id, b, pts, 0, 0).ok());
    }
    ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
  }
  auto board = competition_->Leaderboard();
  ASSERT_TRUE(board.ok()) << board.status();
  // Nothing new landed: the second request is served from the cache.
  const int computed = competition_->leaderboard_computations();
  ASSERT_TRUE(competition_->Leaderboard().ok());
  EXPECT_EQ(competition_->leaderboard_computations(), computed);
  double noisy_score = NAN;
  for (const auto& r : board->board.rows) {
    if (r.method == "noisy") noisy_score = r.score;
  }
  EXPECT_GT(noisy_score, 0);
  EXPECT_LT(noisy_score, 100);
  board->board.rows.erase(std::remove_if(board->board.rows.begin(), board->board.rows.end(),
                                         [](const auto& r) { return r.method == "noisy"; }),
                          board->board.rows.end());
  ASSERT_EQ(board->board.rows.size(), 2u);
  EXPECT_EQ(board->board.rows[0].method, "perfect");
  EXPECT_NEAR(board->board.rows[0].score, 100.0, 1e-6);
  EXPECT_TRUE(board->board.rows[1].is_baseline);
  EXPECT_GT(board->board.rows[1].score, 0.0);
  EXPECT_LT(board->board.rows[1].score, 100.0);
  EXPECT_EQ(board->json["rows"][0]["name"], "perfect");
  // Offline scoring of the exported results reproduces the server's leaderboard.
  std::stringstream csv;
  ASSERT_TRUE(store_->ExportResultsCsv(csv).ok());
  auto table = scoring::ParseResultsCsv(csv);
  ASSERT_TRUE(table.ok()) << table.status();
  auto built = scoring::BuildScoringInput(*table, "random-search-baseline", false);
  ASSERT_TRUE(built.ok()) << built.status();
  auto offline = scoring::ComputeLeaderboard(built->input, "");
  ASSERT_TRUE(offline.ok()) << offline.status();
  int matched = 0;
  for (const auto& row : offline->rows) {
    if (row.method == "perfect") {
      EXPECT_DOUBLE_EQ(row.score, board->board.rows[0].score);
      ++matched;
    }
    if (row.method == "noisy") {
      EXPECT_NEAR(row.score, noisy_score, 1e-9);
      ++matched;
    }
  }
  EXPECT_EQ(matched, 2);
  auto list = competition_->List();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 3u);
}


// Runs every queued job of a submission with points drifting by `drift` (0 = the optimum),
// optionally only those on `only_problem`.
void PlayJobs(Store* store, StudyManager* studies, int64_t submission_id, double drift,
              const std::string& only_problem = "") {
  (void)store->RegisterWorker("w", "h", 1, 0);  // AlreadyExists on the second call
  while (true) {
    auto job = store->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok());
    if (!job->has_value()) return;
    ASSERT_EQ((*job)->submission_id, submission_id);
    auto study = studies->OpenForJob((*job)->id, "w");
    ASSERT_TRUE(study.ok()) << study.status();
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts;
      for (int i = 0; i < 4; ++i) {
        pts.push_back({testing::GoodPoint(1.0 + drift * (1 + (*job)->trial + 0.3 * b + 0.2 * i)),
                       ""});
      }
      ASSERT_TRUE(studies->SubmitBatch(study->study_id, b, pts, 0, 0).ok());
    }
    ASSERT_TRUE(store->FinishJob((*job)->id, "w", "", 3).ok());
    if (!only_problem.empty() && (*job)->problem != only_problem) {
      FAIL() << "unexpected problem " << (*job)->problem;
    }
  }
}

TEST_F(CompetitionTest, IncrementalRescoringMatchesAFreshComputationAndServesReports) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  auto a = competition_->Register("a", Archive("optimizer", true), 2);
  ASSERT_TRUE(a.ok());
  PlayJobs(store_.get(), studies_.get(), a->submission_id, 0.5);
  auto first = competition_->Leaderboard();
  ASSERT_TRUE(first.ok()) << first.status();
  const int64_t misses = competition_->scoring_cache_misses();
  EXPECT_EQ(misses, 2 + 2);  // two baselines, a on two problems

  // A new submission lands on both problems: every (problem) is rescored, but a's results are
  // reused where opt_p did not move.
  auto b = competition_->Register("b", Archive("optimizer", true), 1);
  ASSERT_TRUE(b.ok());
  PlayJobs(store_.get(), studies_.get(), b->submission_id, 2.0);
  auto second = competition_->Leaderboard();
  ASSERT_TRUE(second.ok());
  EXPECT_GT(competition_->scoring_cache_hits(), 0);
  EXPECT_EQ(competition_->leaderboard_computations(), 2);

  // The incremental board equals one computed from scratch over the same database.
  Competition fresh(store_.get(), problems_.get(), &clock_, 4, 3, CompetitionOptions{});
  auto full = fresh.Leaderboard();
  ASSERT_TRUE(full.ok());
  ASSERT_EQ(full->board.rows.size(), second->board.rows.size());
  for (size_t i = 0; i < full->board.rows.size(); ++i) {
    EXPECT_EQ(full->board.rows[i].method, second->board.rows[i].method);
    EXPECT_EQ(full->board.rows[i].score, second->board.rows[i].score);
    EXPECT_EQ(full->board.rows[i].median_score, second->board.rows[i].median_score);
  }

  // The full report: cached per request, labelled with the phase, other phases NotFound.
  ReportRequest r;
  r.bootstrap_replicates = 200;
  auto report = competition_->Report(r);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ((**report)["schema"], "bbo-arena/report/1");
  EXPECT_EQ((**report)["phase"], "practice");
  EXPECT_EQ((**report)["bootstrap"]["replicates"], 200);
  EXPECT_EQ((**report)["problems"].size(), 2u);
  EXPECT_EQ((**report)["problems"][0]["dimension"], problems_->Get("mixed_a").value()->space().dims());
  EXPECT_EQ((**report)["nonparametric"]["ballots"].size(), 2u);
  ASSERT_TRUE(competition_->Report(r).ok());
  EXPECT_EQ(competition_->report_computations(), 1);
  r.seed = 2;
  ASSERT_TRUE(competition_->Report(r).ok());
  EXPECT_EQ(competition_->report_computations(), 2);
  r.phase = "final";
  EXPECT_EQ(competition_->Report(r).status().code(), absl::StatusCode::kNotFound);
  r.phase = "";
  r.bootstrap_replicates = 0;
  EXPECT_EQ(competition_->Report(r).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo
