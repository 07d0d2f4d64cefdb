#include "server/phase.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>
#include <fstream>
#include <map>
#include <sstream>

#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/results_csv.h"
#include "server/baseline_runner.h"
#include "server/requeue.h"
#include "server/store/export.h"
#include "server/store/sqlite_store.h"
#include "server/study_manager.h"
#include "server/testing/mixed_problem.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

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
    so.budget.batch_size = 4;
    so.budget.n_batches = 3;
    studies_ = std::make_unique<StudyManager>(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), so}}, evaluator_.get(), &clock_);
    PhaseOptions co;
    co.baseline_trials = 5;
    co.default_trials = 2;
    phase_ = std::make_unique<Phase>(store_.get(), problems_.get(), &clock_, 4, 3, co);
    ASSERT_TRUE(phase_->EnsureBaseline().ok());
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

  // Registers `name` and plays all its jobs by hand: x = 1 + drift * (job + batch + point), so
  // drift 0 always suggests the optimum.
  void PlaySubmission(const std::string& name, int trials, double drift) {
    auto reg = phase_->Register(name, Archive("optimizer", true), trials);
    ASSERT_TRUE(reg.ok()) << reg.status();
    if (!worker_registered_) {
      ASSERT_TRUE(store_->RegisterWorker("w", "h", 1, 0).ok());
      worker_registered_ = true;
    }
    for (int j = 0; j < reg->jobs; ++j) {
      auto job = store_->LeaseJob("w", 1e12);
      ASSERT_TRUE(job.ok() && job->has_value());
      auto study = studies_->OpenForJob(Identity::Coordinator(), (*job)->id, "w");
      ASSERT_TRUE(study.ok()) << study.status();
      for (int b = 0; b < 3; ++b) {
        std::vector<IncomingPoint> pts;
        for (int i = 0; i < 4; ++i) {
          pts.push_back({testing::GoodPoint(1.0 + drift * (j + b + i)), ""});
        }
        ASSERT_TRUE(studies_->SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
      }
      ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
    }
  }

  // Plays a leased job to its end with the optimum.
  void PlayLeased(const JobRecord& job) {
    auto study = studies_->OpenForJob(Identity::Coordinator(), job.id, "w");
    ASSERT_TRUE(study.ok()) << study.status();
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts(4, {testing::GoodPoint(1.0), ""});
      ASSERT_TRUE(studies_->SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
    }
    ASSERT_TRUE(store_->FinishJob(job.id, "w", "", 3).ok());
  }
  // Plays every queued job to its end with the optimum.
  void PlayQueuedJobs() {
    while (true) {
      auto job = store_->LeaseJob("w", 1e12);
      ASSERT_TRUE(job.ok());
      if (!job->has_value()) return;
      PlayLeased(**job);
    }
  }

  fs::path root_;
  bool worker_registered_ = false;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<ProblemSet> problems_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<Phase> phase_;
};

TEST_F(CompetitionTest, RegisterDetectsKindAndQueuesJobs) {
  auto py = phase_->Register("py-opt", Archive("optimizer.py", false), 0);
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_EQ(py->kind, SubmissionKind::kPython);
  EXPECT_EQ(py->jobs, 4);  // 2 problems x default 2 trials
  auto exe = phase_->Register("exe-opt", Archive("optimizer", true), 3);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->kind, SubmissionKind::kExecutable);
  EXPECT_EQ(exe->jobs, 6);
}

TEST_F(CompetitionTest, RegisterRejectsBadInputWithClearErrors) {
  auto none = phase_->Register("x", Archive("README.md", false), 1);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("optimizer.py"));
  auto noexec = phase_->Register("y", Archive("optimizer", false), 1);
  EXPECT_THAT(noexec.status().message(), HasSubstr("not executable"));
  auto badname = phase_->Register("a b/c", Archive("optimizer.py", false), 1);
  EXPECT_THAT(badname.status().message(), HasSubstr("name"));
  auto garbage = phase_->Register("z", "this is not an archive", 1);
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kInvalidArgument);
  auto trials = phase_->Register("t", Archive("optimizer.py", false), 1000);
  EXPECT_THAT(trials.status().message(), HasSubstr("trials"));
  ASSERT_TRUE(phase_->Register("dup", Archive("optimizer.py", false), 1).ok());
  EXPECT_EQ(phase_->Register("dup", Archive("optimizer.py", false), 1).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(phase_->Register("random-search-baseline", Archive("optimizer.py", false), 1)
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
}

// Codes by cause: a disk that cannot take an upload is the server's fault (Unavailable: try
// again), not the participant's (InvalidArgument). The disk is made "full" with RLIMIT_FSIZE while
// the archive is extracted, and only then.
TEST_F(CompetitionTest, ADiskThatCannotTakeTheUploadIsUnavailableNotTheCallersFault) {
  const fs::path dir = root_ / "big_submission";
  fs::create_directories(dir);
  std::ofstream(dir / "optimizer.py") << "print('hi')\n";
  std::ofstream(dir / "weights.bin") << std::string(256 << 10, 'w');
  const std::string archive = *TarDirectory(dir.string());
  struct rlimit old_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct sigaction ignore {}, old_action {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGXFSZ, &ignore, &old_action), 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 64 << 10;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  auto full = phase_->Register("big", archive, 1);
  setrlimit(RLIMIT_FSIZE, &old_limit);
  sigaction(SIGXFSZ, &old_action, nullptr);
  EXPECT_EQ(full.status().code(), absl::StatusCode::kUnavailable) << full.status();
  EXPECT_THAT(full.status().message(), HasSubstr("archive: cannot write"));
  // With room again the same upload is taken: nothing of the failed attempt stayed behind.
  auto ok = phase_->Register("big", archive, 1);
  EXPECT_TRUE(ok.ok()) << ok.status();
}

TEST_F(CompetitionTest, LeaderboardRanksPerfectOptimizerAboveBaseline) {
  EXPECT_EQ(phase_->Leaderboard().status().code(), absl::StatusCode::kFailedPrecondition);
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  auto ran = runner.RunPending();
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ(*ran, 10);  // 2 problems x 5 trials

  auto reg = phase_->Register("perfect", Archive("optimizer", true), 2);
  ASSERT_TRUE(reg.ok());
  // Play the perfect optimizer's jobs by hand: always suggest the optimum.
  ASSERT_TRUE(store_->RegisterWorker("w", "h", 1, 0).ok());
  for (int j = 0; j < reg->jobs; ++j) {
    auto job = store_->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok() && job->has_value());
    auto study = studies_->OpenForJob(Identity::Coordinator(), (*job)->id, "w");
    ASSERT_TRUE(study.ok()) << study.status();
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts(4, IncomingPoint{testing::GoodPoint(), ""});
      ASSERT_TRUE(studies_->SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
    }
    ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
  }
  // A second, imperfect optimizer: x drifts away from the optimum over jobs and batches.
  auto noisy = phase_->Register("noisy", Archive("optimizer", true), 2);
  ASSERT_TRUE(noisy.ok());
  for (int j = 0; j < noisy->jobs; ++j) {
    auto job = store_->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok() && job->has_value());
    auto study = studies_->OpenForJob(Identity::Coordinator(), (*job)->id, "w");
    ASSERT_TRUE(study.ok());
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts;
      for (int i = 0; i < 4; ++i) {
        pts.push_back({testing::GoodPoint(1.0 + 0.7 * j + 0.3 * b + 0.2 * i), ""});
      }
      ASSERT_TRUE(studies_->SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
    }
    ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
  }
  auto board = phase_->Leaderboard();
  ASSERT_TRUE(board.ok()) << board.status();
  // Nothing new landed: the second request is served from the cache.
  const int computed = phase_->leaderboard_computations();
  ASSERT_TRUE(phase_->Leaderboard().ok());
  EXPECT_EQ(phase_->leaderboard_computations(), computed);
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
  EXPECT_EQ(LeaderboardReportJson(*board)["rows"][0]["name"], "perfect");
  // Offline scoring of the exported results reproduces the server's leaderboard.
  std::stringstream csv;
  ASSERT_TRUE(ExportResultsCsv(*store_, csv).ok());
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
  auto list = phase_->List();
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
    auto study = studies->OpenForJob(Identity::Coordinator(), (*job)->id, "w");
    ASSERT_TRUE(study.ok()) << study.status();
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts;
      for (int i = 0; i < 4; ++i) {
        pts.push_back({testing::GoodPoint(1.0 + drift * (1 + (*job)->trial + 0.3 * b + 0.2 * i)),
                       ""});
      }
      ASSERT_TRUE(studies->SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
    }
    ASSERT_TRUE(store->FinishJob((*job)->id, "w", "", 3).ok());
    if (!only_problem.empty() && (*job)->problem != only_problem) {
      FAIL() << "unexpected problem " << (*job)->problem;
    }
  }
}

// A row is complete only when every job of its submission has its final study; a submission
// with no final study yet is listed as pending, with its failed jobs, never dropped.
TEST_F(CompetitionTest, ARowIsCompleteOnlyWithEveryJobDoneAndNoSubmissionDropsOff) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("whole", 1, 0.0);
  auto partial = phase_->Register("partial", Archive("optimizer", true), 1);
  ASSERT_TRUE(partial.ok());
  ASSERT_EQ(partial->jobs, 2);  // 2 problems x 1 trial
  // One job plays to its end; the other is lost for good (its only attempt expires).
  auto job = store_->LeaseJob("w", 1e12);
  ASSERT_TRUE(job.ok() && job->has_value());
  PlayLeased(**job);
  ASSERT_TRUE(store_->LeaseJob("w", 1).ok());
  ASSERT_TRUE(store_->ExpireLeases(2, 1).ok());
  auto never = phase_->Register("never", Archive("optimizer.py", false), 1);
  ASSERT_TRUE(never.ok());
  ASSERT_EQ(*store_->CancelQueuedJobs(never->submission_id, "withdrawn by team:x"), 2);

  auto board = phase_->Leaderboard(Identity::Organizer(), "main");
  ASSERT_TRUE(board.ok()) << board.status();
  std::map<std::string, bool> complete;
  for (const auto& row : board->board.rows) complete[row.method] = row.complete;
  EXPECT_TRUE(complete.at("whole"));
  EXPECT_FALSE(complete.at("partial"));  // one of its jobs has no result
  // Withdrawn before it ran: off the board, with why; nothing pending.
  EXPECT_TRUE(board->pending.empty());
  ASSERT_EQ(board->removed.size(), 1u);
  EXPECT_EQ(board->removed[0].name, "never");
  EXPECT_EQ(board->removed[0].why, "withdrawn by team:x");
  // An organizer requeues the lost job; once it has its final study the row is complete.
  ASSERT_EQ(*RequeueFailedJobs(*store_, 0), 1);  // the withdrawn ones stay withdrawn
  PlayQueuedJobs();
  board = phase_->Leaderboard(Identity::Organizer(), "main");
  ASSERT_TRUE(board.ok());
  for (const auto& row : board->board.rows) {
    if (row.method == "partial") EXPECT_TRUE(row.complete);
  }
}

TEST_F(CompetitionTest, IncrementalRescoringMatchesAFreshComputationAndServesReports) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  auto a = phase_->Register("a", Archive("optimizer", true), 2);
  ASSERT_TRUE(a.ok());
  PlayJobs(store_.get(), studies_.get(), a->submission_id, 0.5);
  auto first = phase_->Leaderboard();
  ASSERT_TRUE(first.ok()) << first.status();
  const int64_t misses = phase_->scoring_cache_misses();
  EXPECT_EQ(misses, 2 + 2);  // two baselines, a on two problems

  // A new submission lands on both problems: every (problem) is rescored, but a's results are
  // reused where opt_p did not move.
  auto b = phase_->Register("b", Archive("optimizer", true), 1);
  ASSERT_TRUE(b.ok());
  PlayJobs(store_.get(), studies_.get(), b->submission_id, 2.0);
  auto second = phase_->Leaderboard();
  ASSERT_TRUE(second.ok());
  EXPECT_GT(phase_->scoring_cache_hits(), 0);
  EXPECT_EQ(phase_->leaderboard_computations(), 2);

  // The incremental board equals one computed from scratch over the same database.
  Phase fresh(store_.get(), problems_.get(), &clock_, 4, 3, PhaseOptions{});
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
  auto report = phase_->Report(r);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ((**report)["schema"], "bbo-arena/report/1");
  EXPECT_EQ((**report)["phase"], "practice");
  EXPECT_EQ((**report)["bootstrap"]["replicates"], 200);
  EXPECT_EQ((**report)["problems"].size(), 2u);
  EXPECT_EQ((**report)["problems"][0]["dimension"], problems_->Get("mixed_a").value()->space().dims());
  EXPECT_EQ((**report)["nonparametric"]["ballots"].size(), 2u);
  // The report carries the Bayesian Plackett-Luce ranking of a and b (report/report.h).
  const nlohmann::json& pl = (**report)["plackett_luce"];
  EXPECT_EQ(pl["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_TRUE(pl["final"]["posterior_mean"]["a"].is_number()) << pl.dump();
  EXPECT_TRUE(pl["final"]["posterior_mean"]["b"].is_number()) << pl.dump();
  ASSERT_TRUE(phase_->Report(r).ok());
  EXPECT_EQ(phase_->report_computations(), 1);
  r.seed = 2;
  ASSERT_TRUE(phase_->Report(r).ok());
  EXPECT_EQ(phase_->report_computations(), 2);
  r.phase = "final";
  EXPECT_EQ(phase_->Report(r).status().code(), absl::StatusCode::kNotFound);
  r.phase = "";
  r.bootstrap_replicates = 0;
  EXPECT_EQ(phase_->Report(r).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CompetitionTest, LeaderboardAnswersWhileAMillionReplicateReportComputes) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("steady", 20, 0.01);
  PlaySubmission("drifting", 20, 0.2);
  ASSERT_TRUE(phase_->Leaderboard().ok());

  ReportRequest r;
  r.bootstrap_replicates = 1000000;
  std::future<absl::StatusOr<std::shared_ptr<const nlohmann::json>>> report =
      std::async(std::launch::async, [&] { return phase_->Report(r); });
  // Wait until the report's computation has begun (its data snapshot is taken).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (phase_->report_computations() == 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ASSERT_EQ(phase_->report_computations(), 1);
  // A study finishing meanwhile makes the leaderboard recompute, still without waiting.
  PlaySubmission("late", 1, 0.1);
  absl::StatusOr<LeaderboardReport> board = phase_->Leaderboard();
  ASSERT_TRUE(board.ok()) << board.status();
  EXPECT_EQ(board->board.rows.size(), 4u);
  EXPECT_EQ(report.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the leaderboard waited for the report";
  absl::StatusOr<std::shared_ptr<const nlohmann::json>> done = report.get();
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ((**done)["bootstrap"]["replicates"], 1000000);
  // The report was computed on the snapshot taken before "late" finished; the next request sees
  // the new study and recomputes.
  r.bootstrap_replicates = 100;
  auto fresh = phase_->Report(r);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(phase_->report_computations(), 2);
}

TEST_F(CompetitionTest, HiddenPhaseLeaderboardShowsOverallScoresOnlyToParticipants) {
  PhaseOptions co;
  co.baseline_trials = 5;
  co.hidden_phase = true;
  Phase hidden(store_.get(), problems_.get(), &clock_, 4, 3, co);
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("steady", 2, 0.01);
  auto participant = hidden.Leaderboard(Identity::Anonymous(), "main");
  ASSERT_TRUE(participant.ok()) << participant.status();
  EXPECT_FALSE(participant->per_problem);
  EXPECT_FALSE(participant->per_problem);
  ASSERT_FALSE(participant->board.rows.empty());
  for (const auto& row : participant->board.rows) EXPECT_TRUE(row.problems.empty());
  auto organizer = hidden.Leaderboard(Identity::Organizer(), "main");
  ASSERT_TRUE(organizer.ok());
  EXPECT_TRUE(organizer->per_problem);
  EXPECT_FALSE(organizer->board.rows[0].problems.empty());
  EXPECT_EQ(organizer->board.rows[0].score, participant->board.rows[0].score);
  ReportRequest r;
  r.bootstrap_replicates = 10;
  EXPECT_EQ(hidden.ReportFiles(Identity::Anonymous(), r, "json").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(hidden.ReportFiles(Identity::Organizer(), r, "json").ok());
  // A visible phase shows everything to everyone.
  auto visible = phase_->Leaderboard(Identity::Anonymous(), "main");
  ASSERT_TRUE(visible.ok());
  EXPECT_TRUE(visible->per_problem);
}

// A board's Plackett-Luce fits (which the web leaderboard shows) follow the leaderboard's rule
// for who may see them, and are fitted once per change of the board, shared with the report.
TEST_F(CompetitionTest, PlackettLuceFollowsTheLeaderboardsRuleAndFitsOncePerChange) {
  PhaseOptions co;
  co.baseline_trials = 5;
  co.board_hidden_until_published = true;
  Phase hidden(store_.get(), problems_.get(), &clock_, 4, 3, co);
  const Identity team = Identity::Team("red");
  for (const Identity& who : {team, Identity::Anonymous()}) {
    EXPECT_EQ(hidden.PlackettLuce(who, "main").status().code(),
              absl::StatusCode::kPermissionDenied);
  }
  // Organizers get past the rule, to the baseline that has not run yet.
  EXPECT_EQ(hidden.PlackettLuce(Identity::Organizer(), "main").status().code(),
            absl::StatusCode::kFailedPrecondition);
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("steady", 2, 0.0);
  PlaySubmission("drifting", 2, 0.3);
  for (const Identity& who : {team, Identity::Anonymous()}) {
    EXPECT_EQ(hidden.PlackettLuce(who, "main").status().message(),
              hidden.Leaderboard(who, "main").status().message());
  }
  auto first = hidden.PlackettLuce(Identity::Organizer(), "main");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE((*first)->batches.ok()) << (*first)->batches.status();
  EXPECT_EQ((*first)->batches->methods, std::vector<std::string>({"drifting", "steady"}));
  ASSERT_TRUE((*first)->seconds.has_value());  // the coordinator's records carry turn times
  // Nothing changed: the same fit. The report uses it too.
  auto same = hidden.PlackettLuce(Identity::Organizer(), "main");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, *first);
  ReportRequest r;
  r.bootstrap_replicates = 20;
  ASSERT_TRUE(hidden.Report(r).ok());
  auto board = hidden.Board("main");
  ASSERT_TRUE(board.ok());
  EXPECT_EQ((*board)->plackett_luce_fits(), 1);
  EXPECT_EQ(hidden.PlackettLuce(Identity::Organizer(), "warm-start").status().code(),
            absl::StatusCode::kNotFound);
  // Published: everyone; a study ending makes a new fit.
  ASSERT_TRUE(hidden.Publish(Identity::Organizer(), false, "").ok());
  PlaySubmission("late", 1, 0.1);
  auto after = hidden.PlackettLuce(team, "main");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_NE(*after, *first);
  ASSERT_TRUE((*after)->batches.ok());
  EXPECT_EQ((*after)->batches->methods.size(), 3u);
  EXPECT_EQ((*board)->plackett_luce_fits(), 2);
}

TEST_F(CompetitionTest, FinalPhaseEvaluatesEachSubmissionOnceWithThePhasesTrials) {
  PhaseOptions co;
  co.phase = "final";
  co.default_trials = 3;
  co.evaluate_once = true;
  Phase final_phase(store_.get(), problems_.get(), &clock_, 4, 3, co);
  auto first = final_phase.Register("ours", Archive("optimizer.py", false), 0);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->trials, 3);
  EXPECT_EQ(first->jobs, 6);  // 2 problems x the phase's 3 trials
  // A submission cannot pick its trials in the final phase (0 or the phase's own number only).
  auto chosen = final_phase.Register("more", Archive("optimizer", true), 10);
  EXPECT_EQ(chosen.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(chosen.status().message(), HasSubstr("3 trials"));
  EXPECT_TRUE(final_phase.Register("same-trials", Archive("optimizer", true), 3).ok());
  // The same optimizer under another name is not run again.
  auto again = final_phase.Register("ours-again", Archive("optimizer.py", false), 0);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  // Another team's submission is never named (both are team-less here).
  EXPECT_THAT(again.status().message(), HasSubstr("identical to one already registered"));
  EXPECT_THAT(again.status().message(), Not(HasSubstr("ours")));
  // Outside the final phase the same archive may be registered twice.
  EXPECT_TRUE(phase_->Register("ours-practice", Archive("optimizer.py", false), 0).ok());
  EXPECT_EQ(store_->ListSubmissions()->size(), 4u);  // baseline, ours, same-trials, practice
}

TEST_F(CompetitionTest, PerTeamLimitNeedsATeamAndCountsItsSubmissions) {
  PhaseOptions co;
  co.phase = "feedback";
  co.max_submissions_per_team = 2;
  Phase feedback(store_.get(), problems_.get(), &clock_, 4, 3, co);
  auto anonymous = feedback.Register("a", Archive("optimizer.py", false), 1);
  EXPECT_EQ(anonymous.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(anonymous.status().message(), HasSubstr("team's token"));
  EXPECT_EQ(feedback.Register("b", Archive("optimizer.py", false), 1, "bad team!").status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(feedback.Register("red-1", Archive("optimizer.py", false), 1, "red").ok());
  ASSERT_TRUE(feedback.Register("red-2", Archive("optimizer", true), 1, "red").ok());
  auto third = feedback.Register("red-3", Archive("optimizer.py", false), 1, "red");
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("team \"red\" has used its 2"));
  EXPECT_TRUE(feedback.Register("blue-1", Archive("optimizer.py", false), 1, "blue").ok());
  // A refused submission leaves nothing behind; the team is stored with the others.
  EXPECT_FALSE(store_->FindSubmission("red-3")->has_value());
  EXPECT_EQ((*store_->FindSubmission("red-2"))->team, "red");
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 2);
}

// Withdrawing a queued submission gives its quota back; one with scored studies keeps counting.
TEST_F(CompetitionTest, AWithdrawnQueuedSubmissionDoesNotCountAgainstTheQuota) {
  PhaseOptions co;
  co.phase = "final";
  co.max_submissions_per_team = 1;
  co.max_submissions_per_team_per_day = 1;
  Phase final_phase(store_.get(), problems_.get(), &clock_, 4, 3, co);
  const Identity red = Identity::Team("red");
  auto first = final_phase.Register(red, "red-1", Archive("optimizer.py", false), 1, "");
  ASSERT_TRUE(first.ok()) << first.status();
  auto refused = final_phase.Register(red, "red-2", Archive("optimizer", true), 1, "");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("withdrawn submissions"));
  // Another team cannot withdraw it (and is not told it exists).
  EXPECT_EQ(final_phase.Withdraw(Identity::Team("blue"), first->submission_id).status().code(),
            absl::StatusCode::kNotFound);
  ASSERT_EQ(*final_phase.Withdraw(red, first->submission_id), first->jobs);
  auto second = final_phase.Register(red, "red-2", Archive("optimizer", true), 1, "");
  ASSERT_TRUE(second.ok()) << second.status();
  // red-2 plays one study to a scored end, then is withdrawn: it still counts.
  auto job = store_->LeaseJob("w", 100);
  ASSERT_TRUE(job.ok() && job->has_value());
  ASSERT_EQ((*job)->submission_id, second->submission_id);
  StudyRecord study;
  study.job_id = (*job)->id;
  study.submission_id = (*job)->submission_id;
  study.problem = (*job)->problem;
  study.trial = (*job)->trial;
  study.board = (*job)->board;
  int64_t study_id = *store_->CreateStudy(study);
  ASSERT_TRUE(store_->EndStudy(study_id, StudyState::kCompleted, "done", 0, 0).ok());
  ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
  ASSERT_TRUE(final_phase.Withdraw(red, second->submission_id).ok());
  EXPECT_EQ(
      final_phase.Register(red, "red-3", Archive("optimizer.py", false), 1, "").status().code(),
      absl::StatusCode::kResourceExhausted);
}

TEST_F(CompetitionTest, DailyQuotaPerTeamResetsAtMidnightUtc) {
  PhaseOptions co;
  co.phase = "feedback";
  co.max_submissions_per_team_per_day = 2;
  // 2023-11-14 22:13:20 UTC: 1 h 47 min to midnight.
  FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  Phase feedback(store_.get(), problems_.get(), &clock, 4, 3, co);
  ASSERT_TRUE(feedback.Register("red-1", Archive("optimizer.py", false), 1, "red").ok());
  ASSERT_TRUE(feedback.Register("red-2", Archive("optimizer", true), 1, "red").ok());
  auto third = feedback.Register("red-3", Archive("optimizer.py", false), 1, "red");
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("2 submission(s) of today (UTC)"));
  EXPECT_THAT(third.status().message(), HasSubstr("in 1 h 47 min"));
  EXPECT_TRUE(feedback.Register("blue-1", Archive("optimizer.py", false), 1, "blue").ok());
  // At 00:00:01 UTC the next day the quota is fresh.
  clock.Advance(absl::Seconds(86400 - 1'700'000'000 % 86400 + 1));
  EXPECT_TRUE(feedback.Register("red-3", Archive("optimizer.py", false), 1, "red").ok());
}

TEST_F(CompetitionTest, WarmStartBoardRunsTheSameJobsWithRealNamesOnItsOwnBoard) {
  // A final phase with anonymized names and the warm-start board (Turner et al. (2021) §4.7).
  StudyOptions so;
  so.budget.batch_size = 4;
  so.budget.n_batches = 3;
  so.anonymize = true;
  so.anonymize_seed = 5;
  StudyManager anon_studies(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), so}}, evaluator_.get(), &clock_);
  PhaseOptions co;
  co.phase = "final";
  co.baseline_trials = 5;
  co.default_trials = 2;
  co.warm_start_board = true;
  Phase final_phase(store_.get(), problems_.get(), &clock_, 4, 3, co);
  ASSERT_EQ(final_phase.boards().size(), 2u);
  BaselineRunner runner(store_.get(), problems_.get(), &anon_studies, &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  // The baseline samples the opaque space it is shown, so none of its points is refused.
  auto baseline = *store_->FindSubmission("random-search-baseline");
  ASSERT_TRUE(baseline.has_value());
  EXPECT_EQ(*store_->CountStudiesWithErrors(baseline->id), 0);
  EXPECT_EQ(store_->CountJobs(baseline->id)->done, 10);

  auto reg = final_phase.Register("namer", Archive("optimizer", true), 0);
  ASSERT_TRUE(reg.ok()) << reg.status();
  EXPECT_EQ(reg->jobs, 8);  // 2 boards x 2 problems x 2 trials
  ASSERT_TRUE(store_->RegisterWorker("w", "h", 1, 0).ok());
  std::map<std::pair<std::string, int>, int64_t> seeds;
  int main_jobs = 0, warm_jobs = 0;
  for (int j = 0; j < reg->jobs; ++j) {
    auto job = store_->LeaseJob("w", 1e12);
    ASSERT_TRUE(job.ok() && job->has_value());
    const bool warm = (*job)->board == kWarmStartBoard;
    // The phase's own board runs first; both boards run the same seeds.
    if (warm) {
      ++warm_jobs;
      EXPECT_EQ(main_jobs, 4);
      EXPECT_EQ(seeds.at({(*job)->problem, (*job)->trial}), (*job)->seed);
    } else {
      ++main_jobs;
      seeds[{(*job)->problem, (*job)->trial}] = (*job)->seed;
    }
    auto study = anon_studies.OpenForJob(Identity::Coordinator(), (*job)->id, "w");
    ASSERT_TRUE(study.ok()) << study.status();
    const nlohmann::json& config = study->api_config;
    // Opaque names on the main board, the real ones on the warm-start board.
    EXPECT_EQ(config.contains("x"), warm) << config.dump();
    EXPECT_EQ(config.contains("p0"), !warm) << config.dump();
    // This optimizer "warm starts": it suggests the optimum by its real parameter names. On the
    // anonymized board those names are invalid and random search replaces them.
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> pts(4, IncomingPoint{testing::GoodPoint(), ""});
      ASSERT_TRUE(anon_studies.SubmitBatch(Identity::Coordinator(), study->study_id, b, pts).ok());
    }
    ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "", 3).ok());
  }
  EXPECT_EQ(warm_jobs, 4);

  auto main_board = final_phase.Leaderboard();
  auto warm_board = final_phase.Leaderboard("warm-start");
  ASSERT_TRUE(main_board.ok()) << main_board.status();
  ASSERT_TRUE(warm_board.ok()) << warm_board.status();
  EXPECT_EQ(LeaderboardReportJson(*main_board)["board"], "main");
  EXPECT_EQ(LeaderboardReportJson(*warm_board)["board"], "warm-start");
  auto score_of = [](const LeaderboardReport& r, const std::string& name) {
    for (const auto& row : r.board.rows) {
      if (row.method == name) return row.score;
    }
    return -1.0;
  };
  EXPECT_NEAR(score_of(*warm_board, "namer"), 100.0, 1e-6);
  EXPECT_LT(score_of(*main_board, "namer"), 100.0);
  EXPECT_GE(score_of(*main_board, "namer"), 0.0);
  EXPECT_EQ(final_phase.Leaderboard("main")->board.rows.size(), main_board->board.rows.size());
  auto unknown = final_phase.Leaderboard("shadow");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("main, warm-start"));
  // The report and the export are per board too.
  ReportRequest r;
  r.bootstrap_replicates = 50;
  r.board = "warm-start";
  auto report = final_phase.Report(r);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT((**report)["phase"].get<std::string>(), HasSubstr("warm-start"));
  std::stringstream main_csv, warm_csv;
  ASSERT_TRUE(ExportResultsCsv(*store_, main_csv, kMainBoard).ok());
  ASSERT_TRUE(ExportResultsCsv(*store_, warm_csv, kWarmStartBoard).ok());
  EXPECT_NE(main_csv.str(), warm_csv.str());
  // A phase without the warm-start board has none.
  EXPECT_EQ(phase_->Leaderboard("warm-start").status().code(),
            absl::StatusCode::kNotFound);
}

// Item 12 of issue 34: a partial entry's score is a mean over fewer problems; it is ranked after
// every complete entry, however high that mean.
TEST_F(CompetitionTest, PartialEntriesAreRankedAfterEveryCompleteEntry) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("whole", 1, 0.3);  // complete, far from the optimum
  auto partial = phase_->Register("partial", Archive("optimizer", true), 1);
  ASSERT_TRUE(partial.ok());
  ASSERT_EQ(partial->jobs, 2);
  auto job = store_->LeaseJob("w", 1e12);  // one of its two problems, at the optimum
  ASSERT_TRUE(job.ok() && job->has_value());
  PlayLeased(**job);
  ASSERT_EQ(*store_->CancelQueuedJobs(partial->submission_id, "withdrawn by team:x"), 1);
  for (const Identity& who : {Identity::Organizer(), Identity::Anonymous()}) {
    auto board = phase_->Leaderboard(who, "main");
    ASSERT_TRUE(board.ok()) << board.status();
    std::vector<std::string> order;
    double partial_score = 0, whole_score = 0;
    for (const auto& row : board->board.rows) {
      order.push_back(row.method);
      if (row.method == "partial") partial_score = row.score;
      if (row.method == "whole") whole_score = row.score;
    }
    ASSERT_GT(partial_score, whole_score) << "the case needs a partial row that scores higher";
    auto at = [&](const std::string& name) {
      return std::find(order.begin(), order.end(), name) - order.begin();
    };
    ASSERT_LT(at("partial"), static_cast<long>(order.size()));
    EXPECT_LT(at("whole"), at("partial")) << who.Describe();
    EXPECT_FALSE(board->board.rows.back().complete) << who.Describe();
  }
}

// Item 9 of issue 34: why a submission is off the board (who hid it, and why) is for its team and
// the organizers; everyone else sees only which kind of removal it was.
TEST_F(CompetitionTest, RemovalReasonsAreShownOnlyToTheTeamConcernedAndOrganizers) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("kept", 1, 0.0);
  auto gone = phase_->Register(Identity::Team("red"), "gone", Archive("optimizer", true), 1, "");
  ASSERT_TRUE(gone.ok()) << gone.status();
  ASSERT_TRUE(phase_->Withdraw(Identity::Team("red"), gone->submission_id).ok());
  auto hidden = phase_->Register(Identity::Team("red"), "hid", Archive("optimizer", true), 1, "");
  ASSERT_TRUE(hidden.ok()) << hidden.status();
  ASSERT_TRUE(phase_
                  ->Hide(Identity{Identity::Role::kOrganizer, "alice"}, hidden->submission_id,
                         "plagiarism of team blue's code", false)
                  .ok());
  auto why_of = [&](const Identity& who) {
    std::map<std::string, std::string> why;
    auto board = phase_->Leaderboard(who, "main");
    EXPECT_TRUE(board.ok()) << board.status();
    if (board.ok()) {
      for (const auto& r : board->removed) why[r.name] = r.why;
    }
    return why;
  };
  for (const Identity& who : {Identity::Organizer(), Identity::Team("red")}) {
    auto why = why_of(who);
    EXPECT_THAT(why["hid"], HasSubstr("plagiarism")) << who.Describe();
    EXPECT_THAT(why["gone"], HasSubstr("team:red")) << who.Describe();
  }
  for (const Identity& who : {Identity::Anonymous(), Identity::Team("blue")}) {
    auto why = why_of(who);
    ASSERT_EQ(why.size(), 2u) << who.Describe();
    EXPECT_EQ(why["hid"], "removed by the organizers") << who.Describe();
    EXPECT_EQ(why["gone"], "withdrawn by its team") << who.Describe();
  }
}

// Item 5 of issue 34: only organizers choose a report's bootstrap settings; everyone else gets
// the defaults or one of a few cheaper ones, each one computation shared by all of them per store
// change.
TEST_F(CompetitionTest, OnlyOrganizersChooseAReportsBootstrapSettings) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("a", 1, 0.0);
  PlaySubmission("b", 1, 0.2);
  ReportRequest huge;
  huge.bootstrap_replicates = 1000000;
  ReportRequest seeded;
  seeded.seed = 12345;
  for (const Identity& who : {Identity::Anonymous(), Identity::Team("red")}) {
    for (const ReportRequest& r : {huge, seeded}) {
      auto refused = phase_->ReportFiles(who, r, "json");
      EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << who.Describe();
      EXPECT_THAT(refused.status().message(), HasSubstr("only organizers")) << who.Describe();
    }
  }
  EXPECT_EQ(phase_->report_computations(), 0);
  for (const Identity& who : {Identity::Anonymous(), Identity::Team("red"), Identity::Anonymous()}) {
    auto files = phase_->ReportFiles(who, ReportRequest(), "json");
    ASSERT_TRUE(files.ok()) << files.status();
  }
  EXPECT_EQ(phase_->report_computations(), 1);
  // A cheaper listed setting (kPublicReplicates), shared by everyone who asks for it.
  ReportRequest cheap;
  cheap.bootstrap_replicates = 100;
  for (const Identity& who : {Identity::Anonymous(), Identity::Team("red")}) {
    ASSERT_TRUE(phase_->ReportFiles(who, cheap, "json").ok());
  }
  EXPECT_EQ(phase_->report_computations(), 2);
  ReportRequest unlisted;
  unlisted.bootstrap_replicates = 5000;
  EXPECT_EQ(phase_->ReportFiles(Identity::Anonymous(), unlisted, "json").status().code(),
            absl::StatusCode::kPermissionDenied);
  ReportRequest chosen;
  chosen.bootstrap_replicates = 50;
  chosen.seed = 9;
  ASSERT_TRUE(phase_->ReportFiles(Identity::Organizer(), chosen, "json").ok());
  EXPECT_EQ(phase_->report_computations(), 3);
}

// Item 5 of issue 34: several settings are cached side by side (alternating two no longer
// recomputes each time), and a report of other settings never waits for a long computation.
TEST_F(CompetitionTest, ReportsOfSeveralSettingsAreCachedAndComputedSideBySide) {
  BaselineRunner runner(store_.get(), problems_.get(), studies_.get(), &clock_);
  ASSERT_TRUE(runner.RunPending().ok());
  PlaySubmission("steady", 20, 0.01);
  PlaySubmission("drifting", 20, 0.2);
  ReportRequest one, two;
  one.bootstrap_replicates = two.bootstrap_replicates = 50;
  two.seed = 2;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(phase_->Report(one).ok());
    ASSERT_TRUE(phase_->Report(two).ok());
  }
  EXPECT_EQ(phase_->report_computations(), 2);

  ReportRequest slow;
  slow.bootstrap_replicates = 1000000;
  slow.seed = 3;
  std::future<absl::StatusOr<std::shared_ptr<const nlohmann::json>>> long_report =
      std::async(std::launch::async, [&] { return phase_->Report(slow); });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (phase_->report_computations() == 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ASSERT_EQ(phase_->report_computations(), 3);
  // The defaults (everyone's report), not computed yet: computed beside the long one.
  auto defaults = phase_->ReportFiles(Identity::Anonymous(), ReportRequest(), "json");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(long_report.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the default report waited for the million-replicate one";
  ASSERT_TRUE(long_report.get().ok());
}

}  // namespace
}  // namespace bbo
