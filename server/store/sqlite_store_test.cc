// SQLite-only behaviour: persistence across reopening, migrations, file errors. The Store
// contract itself is tested against every implementation in store_conformance_test.cc.

#include "server/store/sqlite_store.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

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

TEST(SqliteStoreTest, UnwritableLocationIsUnavailable) {
  auto store = SqliteStore::Open("/nonexistent-dir/x/y.sqlite");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("/nonexistent-dir"));
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

// Migration 8: a job run twice by an earlier version keeps its first final study (the later
// one is abandoned, no longer scored), and the database refuses a second one from then on.
TEST(SqliteStoreTest, MigrationEightKeepsTheFirstFinalStudyOfAJobRunTwice) {
  const std::string path = TempDb("v7");
  {
    auto db = sqlite::Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateTo(db->get(), 7).ok());
    ASSERT_TRUE((*db)
                    ->Exec(R"sql(
INSERT INTO submissions (id, name, kind, archive, digest, trials, created_at)
  VALUES (1, 'old', 1, x'00', 'd', 1, 1);
INSERT INTO jobs (id, submission_id, problem, trial, seed, state) VALUES (7, 1, 'p', 0, 1, 'done');
INSERT INTO studies (id, job_id, submission_id, problem, trial, state, batch_size, n_batches,
                     suggest_budget_s, study_budget_s, started_at, final_seq)
  VALUES (3, 7, 1, 'p', 0, 'completed', 1, 1, 40, 640, 1, 1),
         (4, 7, 1, 'p', 0, 'failed', 1, 1, 40, 640, 2, 2),
         (5, NULL, 1, 'p', 0, 'completed', 1, 1, 40, 640, 3, 3),
         (6, NULL, 1, 'p', 0, 'completed', 1, 1, 40, 640, 4, 4);
INSERT INTO batches (study_id, batch, source, turn_time_s, host_suggest_time_s,
                     host_observe_time_s, eval_time_s, n_replaced)
  VALUES (3, 0, 'optimizer', 0, 0, 0, 0, 0), (4, 0, 'optimizer', 0, 0, 0, 0, 0);
INSERT INTO evaluations (study_id, batch, idx, params_json, value, replaced, eval_time_s)
  VALUES (3, 0, 0, '{}', 1.5, 0, 0), (4, 0, 0, '{}', 9.5, 0, 0);
)sql")
                    .ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetStudy(3)->state, StudyState::kCompleted);
  EXPECT_EQ((*store)->GetStudy(4)->state, StudyState::kAbandoned);
  // Practice studies (no job) are untouched.
  EXPECT_EQ((*store)->GetStudy(6)->state, StudyState::kCompleted);
  const ScoringData data = *(*store)->LoadScoringData();
  const auto& curves = data.methods.at("old").at("p");
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].study_id, 3);
  EXPECT_EQ(curves[0].batch_min[0], 1.5);
  EXPECT_FALSE(
      (*store)->ExecForTesting("UPDATE studies SET state = 'completed' WHERE id = 4").ok());
  EXPECT_EQ(*(*store)->BeginEpoch(10), 1);
}

TEST(SqliteStoreTest, MigrationSixAddsTheOptimizerCpuTimeOfEachTurn) {
  const std::string path = TempDb("v5");
  {
    auto db = sqlite::Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateTo(db->get(), 5).ok());
    ASSERT_TRUE((*db)->Exec(R"sql(
INSERT INTO submissions (id, name, kind, archive, digest, trials, created_at)
  VALUES (1, 'old', 1, x'00', 'd', 1, 1);
INSERT INTO jobs (id, submission_id, problem, trial, seed, state) VALUES (7, 1, 'p', 0, 1, 'leased');
INSERT INTO studies (id, job_id, submission_id, problem, trial, state, batch_size, n_batches,
                     suggest_budget_s, study_budget_s, started_at, final_seq)
  VALUES (3, 7, 1, 'p', 0, 'running', 1, 3, 40, 640, 1, 0);
INSERT INTO batches (study_id, batch, source, turn_time_s, host_suggest_time_s,
                     host_observe_time_s, eval_time_s, n_replaced)
  VALUES (3, 0, 'optimizer', 0.5, 0.4, 0, 0.1, 0);
)sql").ok());
  }
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    BatchRecord b;
    b.study_id = 3;
    b.batch = 1;
    b.optimizer_cpu_s = 0.375;
    b.evaluations.push_back({});
    b.evaluations.back().params_json = "{}";
    b.evaluations.back().value = 2;
    ASSERT_TRUE((*store)->RecordBatch(b).ok());
    b.batch = 2;
    b.optimizer_cpu_s.reset();  // a host without cgroups
    ASSERT_TRUE((*store)->RecordBatch(b).ok());
  }
  auto db = sqlite::Database::Open(path);
  ASSERT_TRUE(db.ok());
  auto q = (*db)->Prepare("SELECT batch, optimizer_cpu_s FROM batches ORDER BY batch");
  ASSERT_TRUE(q.ok()) << q.status();
  std::vector<std::string> rows;
  while (*(*q)->Step()) {
    rows.push_back(absl::StrCat((*q)->Int(0), ":",
                                (*q)->IsNull(1) ? "NULL" : absl::StrCat((*q)->Double(1))));
  }
  // The batch recorded before the migration has no figure; the new ones have theirs or NULL.
  EXPECT_THAT(rows, ::testing::ElementsAre("0:NULL", "1:0.375", "2:NULL"));
}

}  // namespace
}  // namespace bbo
