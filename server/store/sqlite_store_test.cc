#include "server/store/sqlite_store.h"

#include <filesystem>
#include <limits>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string TempDb(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() /
           ("sqlite_store_test_" + std::to_string(::getpid()) + "_" + tag + ".sqlite");
  std::filesystem::remove(p);
  return p.string();
}

SubmissionRecord Sub(const std::string& name, int trials = 2) {
  SubmissionRecord s;
  s.name = name;
  s.kind = SubmissionKind::kPython;
  s.digest = "d";
  s.trials = trials;
  s.created_at = 1;
  return s;
}

TEST(SqliteStoreTest, MigratesAndReopensWithData) {
  std::string path = TempDb("reopen");
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_EQ((*store)->SchemaVersion().value(), LatestSchemaVersion());
    ASSERT_TRUE((*store)->AddSubmission(Sub("a"), "archive-bytes", {"p1", "p2"}, 7).ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto found = (*store)->FindSubmission("a");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->kind, SubmissionKind::kPython);
  EXPECT_EQ((*store)->GetSubmissionArchive((*found)->id).value(), "archive-bytes");
  EXPECT_EQ((*store)->CountJobs((*found)->id)->total, 4);  // 2 problems x 2 trials
  std::filesystem::remove(path);
}

TEST(SqliteStoreTest, DuplicateNameIsAlreadyExistsAndAddsNoJobs) {
  auto store = *SqliteStore::Open(TempDb("dup"));
  ASSERT_TRUE(store->AddSubmission(Sub("a"), "", {"p"}, 1).ok());
  auto dup = store->AddSubmission(Sub("a"), "", {"p"}, 1);
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store->ListSubmissions()->size(), 1u);
}

TEST(SqliteStoreTest, LeaseExpiryRequeuesAndAbandonsStudy) {
  auto store = *SqliteStore::Open(TempDb("lease"));
  int64_t sub = *store->AddSubmission(Sub("a", 1), "", {"p"}, 1);
  ASSERT_TRUE(store->RegisterWorker("w1", "host", 1, 100).ok());
  auto job = store->LeaseJob("w1", 130);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->submission_id, sub);
  EXPECT_FALSE(store->LeaseJob("w2", 130)->has_value());  // nothing else queued
  StudyRecord s;
  s.job_id = (*job)->id;
  s.submission_id = sub;
  s.problem = "p";
  int64_t study = *store->CreateStudy(s);
  // Not yet expired at 120; expired at 131.
  EXPECT_TRUE(store->ExpireLeases(120, 3)->empty());
  auto requeued = store->ExpireLeases(131, 3);
  ASSERT_TRUE(requeued.ok());
  EXPECT_THAT(*requeued, ElementsAre((*job)->id));
  EXPECT_EQ(store->GetStudy(study)->state, StudyState::kAbandoned);
  // The old holder can no longer finish it; another worker leases it again.
  EXPECT_EQ(store->FinishJob((*job)->id, "w1", "", 3).code(),
            absl::StatusCode::kFailedPrecondition);
  auto again = store->LeaseJob("w2", 200);
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ((*again)->id, (*job)->id);
  EXPECT_EQ((*again)->attempts, 2);
  ASSERT_TRUE(store->FinishJob((*job)->id, "w2", "", 3).ok());
  EXPECT_EQ(store->CountJobs(sub)->done, 1);
}

TEST(SqliteStoreTest, JobFailsAfterMaxAttempts) {
  auto store = *SqliteStore::Open(TempDb("attempts"));
  int64_t sub = *store->AddSubmission(Sub("a", 1), "", {"p"}, 1);
  for (int i = 0; i < 2; ++i) {
    auto job = store->LeaseJob("w", 10);
    ASSERT_TRUE(job->has_value());
    ASSERT_TRUE(store->FinishJob((*job)->id, "w", "sandbox broke", 2).ok());
  }
  EXPECT_FALSE(store->LeaseJob("w", 10)->has_value());
  EXPECT_EQ(store->CountJobs(sub)->failed, 1);
}

TEST(SqliteStoreTest, RecordsBatchesWithInfAndLoadsScoringData) {
  auto store = *SqliteStore::Open(TempDb("batches"));
  int64_t sub = *store->AddSubmission(Sub("opt", 1), "", {"p"}, 1);
  auto job = *store->LeaseJob("w", 10);
  StudyRecord s;
  s.job_id = job->id;
  s.submission_id = sub;
  s.problem = "p";
  int64_t study = *store->CreateStudy(s);
  BatchRecord b;
  b.study_id = study;
  b.batch = 0;
  b.evaluations = {{"{\"x\":1}", 3.0, false, 0}, {"{\"x\":2}", kInf, true, 0},
                   {"{\"x\":3}", std::numeric_limits<double>::quiet_NaN(), false, 0}};
  b.errors = {"suggestion 1: bad"};
  ASSERT_TRUE(store->RecordBatch(b).ok());
  b.batch = 1;
  b.evaluations = {{"{}", 5.0, false, 0}, {"{}", 2.0, false, 0}, {"{}", 4.0, false, 0}};
  b.errors.clear();
  ASSERT_TRUE(store->RecordBatch(b).ok());
  // A duplicate batch is rejected and changes nothing.
  EXPECT_FALSE(store->RecordBatch(b).ok());
  auto values = store->StudyValues(study);
  ASSERT_TRUE(values.ok());
  EXPECT_THAT((*values)[0], ElementsAre(3.0, kInf, kInf));  // NaN stored as +inf
  EXPECT_THAT((*values)[1], ElementsAre(5.0, 2.0, 4.0));
  EXPECT_EQ(store->ListStudyErrors(study)->size(), 1u);

  // Running studies are not scored.
  EXPECT_TRUE(store->LoadScoringData()->methods.empty());
  auto before = store->ScoringChangesSince(0);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->problems.empty());
  ASSERT_EQ(store->EndStudy(study, StudyState::kCutOff, "budget", 2, 1).value(),
            StudyState::kCutOff);
  // Ending again leaves the first final state.
  EXPECT_EQ(store->EndStudy(study, StudyState::kCompleted, "x", 3, 1).value(),
            StudyState::kCutOff);
  auto data = store->LoadScoringData();
  ASSERT_TRUE(data.ok());
  const auto& curves = data->methods.at("opt").at("p");
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_THAT(curves[0].batch_min, ElementsAre(3.0, 2.0));
  // The cut-off study is the first scored final state, on problem p.
  auto changes = store->ScoringChangesSince(before->seq);
  ASSERT_TRUE(changes.ok());
  EXPECT_EQ(changes->seq, before->seq + 1);
  EXPECT_THAT(changes->problems, ElementsAre("p"));
  EXPECT_TRUE(store->ScoringChangesSince(changes->seq)->problems.empty());
  // Filtering by problem.
  EXPECT_EQ(store->LoadScoringData({"p"})->methods.at("opt").at("p").size(), 1u);
  EXPECT_TRUE(store->LoadScoringData({"other"})->methods.empty());
}

TEST(SqliteStoreTest, UnknownWorkerHeartbeatIsNotFound) {
  auto store = *SqliteStore::Open(TempDb("worker"));
  EXPECT_EQ(store->TouchWorker("ghost", 1).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(store->RegisterWorker("w", "h", 1, 1).ok());
  EXPECT_TRUE(store->TouchWorker("w", 2).ok());
}

TEST(SqliteStoreTest, UnwritableLocationIsUnavailable) {
  auto store = SqliteStore::Open("/nonexistent-dir/x/y.sqlite");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("/nonexistent-dir"));
}

// Plays one job: a study of `n` values (generalization = value + 10) that completes.
int64_t PlayJob(SqliteStore* store, const JobRecord& job, const std::vector<double>& values) {
  StudyRecord s;
  s.job_id = job.id;
  s.submission_id = job.submission_id;
  s.problem = job.problem;
  s.trial = job.trial;
  s.board = job.board;
  int64_t study = *store->CreateStudy(s);
  BatchRecord b;
  b.study_id = study;
  for (double v : values) {
    EvaluationRecord e;
    e.params_json = "{}";
    e.value = v;
    e.generalization = v + 10;
    b.evaluations.push_back(e);
  }
  EXPECT_TRUE(store->RecordBatch(b).ok());
  EXPECT_TRUE(store->EndStudy(study, StudyState::kCompleted, "done", 1, 0).ok());
  EXPECT_TRUE(store->FinishJob(job.id, "w", "", 3).ok());
  return study;
}

TEST(SqliteStoreTest, BoardsQueueTheSameJobsAndAreScoredAndExportedApart) {
  auto store = *SqliteStore::Open(TempDb("boards"));
  ASSERT_TRUE(store->AddSubmission(Sub("rs", 1), "", {"p"}, 1, {kMainBoard}).ok());
  auto baseline = *store->FindSubmission("rs");
  ASSERT_TRUE(store->ExecForTesting("UPDATE submissions SET is_baseline = 1").ok());
  int64_t sub = *store->AddSubmission(Sub("opt", 2), "", {"p"}, 1, {kMainBoard, kWarmStartBoard});
  EXPECT_EQ(store->CountJobs(sub)->total, 4);
  EXPECT_THAT(*store->ListBoards(), ElementsAre("", "warm-start"));
  std::vector<JobRecord> jobs;
  while (true) {
    auto job = *store->LeaseJob("w", 100);
    if (!job) break;
    jobs.push_back(*job);
  }
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(jobs[0].submission_id, baseline->id);
  // The main board's jobs first; the warm-start board repeats them with the same seeds.
  EXPECT_EQ(jobs[1].board, "");
  EXPECT_EQ(jobs[2].board, "");
  EXPECT_EQ(jobs[3].board, "warm-start");
  EXPECT_EQ(jobs[3].seed, jobs[1].seed);
  EXPECT_EQ(jobs[4].seed, jobs[2].seed);
  EXPECT_NE(jobs[1].seed, jobs[2].seed);
  PlayJob(store.get(), jobs[0], {5, 6});
  PlayJob(store.get(), jobs[1], {4, 3});
  PlayJob(store.get(), jobs[2], {4, 2});
  int64_t warm_study = PlayJob(store.get(), jobs[3], {1, 0.5});
  PlayJob(store.get(), jobs[4], {1, 0.25});
  EXPECT_EQ(store->GetStudy(warm_study)->board, "warm-start");

  auto main_data = *store->LoadScoringData({}, kMainBoard);
  auto warm_data = *store->LoadScoringData({}, kWarmStartBoard);
  ASSERT_EQ(main_data.methods.at("opt").at("p").size(), 2u);
  ASSERT_EQ(warm_data.methods.at("opt").at("p").size(), 2u);
  EXPECT_THAT(main_data.methods.at("opt").at("p")[0].batch_min, ElementsAre(3.0));
  EXPECT_THAT(warm_data.methods.at("opt").at("p")[0].batch_min, ElementsAre(0.5));
  // The baseline serves both boards.
  EXPECT_THAT(main_data.baseline_evals.at("p"), ElementsAre(5.0, 6.0));
  EXPECT_THAT(warm_data.baseline_evals.at("p"), ElementsAre(5.0, 6.0));

  std::stringstream main_csv, warm_csv;
  ASSERT_TRUE(store->ExportResultsCsv(main_csv, kMainBoard).ok());
  ASSERT_TRUE(store->ExportResultsCsv(warm_csv, kWarmStartBoard).ok());
  EXPECT_EQ(main_csv.str(),
            "problem,method,trial,batch,suggestion,value,generalization\n"
            "p,opt,0,0,0,4,14\np,opt,0,0,1,3,13\np,opt,1,0,0,4,14\np,opt,1,0,1,2,12\n"
            "p,rs,0,0,0,5,15\np,rs,0,0,1,6,16\n");
  EXPECT_THAT(warm_csv.str(), HasSubstr("p,opt,0,0,1,0.5,10.5\n"));
  EXPECT_THAT(warm_csv.str(), HasSubstr("p,rs,0,0,0,5,15\n"));
  // The held-out loss round-trips; evaluations without one export their value.
  auto evals = *store->StudyEvaluations(warm_study);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[1].second.generalization, 10.5);
}

TEST(SqliteStoreTest, FindsSubmissionsByDigestAndCountsTeams) {
  auto store = *SqliteStore::Open(TempDb("teams"));
  SubmissionRecord a = Sub("a"), b = Sub("b"), c = Sub("c");
  a.team = b.team = "red";
  a.digest = b.digest = "same";
  c.digest = "other";
  ASSERT_TRUE(store->AddSubmission(a, "", {"p"}, 1).ok());
  ASSERT_TRUE(store->AddSubmission(b, "", {"p"}, 1).ok());
  ASSERT_TRUE(store->AddSubmission(c, "", {"p"}, 1).ok());
  EXPECT_EQ(*store->CountTeamSubmissions("red"), 2);
  EXPECT_EQ(*store->CountTeamSubmissions("blue"), 0);
  auto same = *store->FindSubmissionsByDigest("same");
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[0].name, "a");
  EXPECT_EQ(same[0].team, "red");
  EXPECT_TRUE(store->FindSubmissionsByDigest("none")->empty());
}

TEST(SqliteStoreTest, MigrationFiveRebuildsJobsKeepingEveryRowAndReference) {
  const std::string path = TempDb("v4");
  {
    auto db = sqlite::Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateTo(db->get(), 4).ok());
    ASSERT_TRUE((*db)->Exec(R"sql(
INSERT INTO submissions VALUES (1, 'old', 1, x'00', 'd', 1, 0, 1);
INSERT INTO jobs (id, submission_id, problem, trial, seed, state, attempts, builtin)
  VALUES (7, 1, 'p', 0, 42, 'done', 1, 0), (8, 1, 'p', 1, 43, 'queued', 0, 0);
INSERT INTO studies (id, job_id, submission_id, problem, trial, state, batch_size, n_batches,
                     suggest_budget_s, study_budget_s, started_at, final_seq)
  VALUES (3, 7, 1, 'p', 0, 'completed', 1, 1, 40, 640, 1, 1);
INSERT INTO batches VALUES (3, 0, 'optimizer', 0, 0, 0, 0, 0);
INSERT INTO evaluations (study_id, batch, idx, params_json, value, replaced, eval_time_s)
  VALUES (3, 0, 0, '{}', 1.5, 0, 0);
)sql").ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(*(*store)->SchemaVersion(), LatestSchemaVersion());
  auto job = (*store)->GetJob(7);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->seed, 42);
  EXPECT_EQ(job->board, "");
  EXPECT_EQ((*store)->CountJobs(1)->total, 2);
  EXPECT_EQ((*store)->GetStudy(3)->job_id, 7);
  EXPECT_EQ((*store)->GetStudy(3)->board, "");
  EXPECT_EQ((*store)->LoadScoringData()->methods.at("old").at("p")[0].batch_min[0], 1.5);
  // The next lease is the queued job; foreign keys are enforced again after the rebuild.
  EXPECT_EQ((*(*store)->LeaseJob("w", 10))->id, 8);
  EXPECT_FALSE((*store)->ExecForTesting("INSERT INTO jobs (submission_id, problem, trial, seed,"
                                        " state) VALUES (99, 'p', 0, 1, 'queued')")
                   .ok());
  // The same (submission, problem, trial) is allowed once per board.
  EXPECT_TRUE((*store)->ExecForTesting("INSERT INTO jobs (submission_id, problem, trial, seed,"
                                       " state, board) VALUES (1, 'p', 0, 42, 'queued',"
                                       " 'warm-start')")
                  .ok());
  EXPECT_FALSE((*store)->ExecForTesting("INSERT INTO jobs (submission_id, problem, trial, seed,"
                                        " state, board) VALUES (1, 'p', 0, 42, 'queued',"
                                        " 'warm-start')")
                   .ok());
}

}  // namespace
}  // namespace bbo
