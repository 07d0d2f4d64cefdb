// SQLite-only behaviour: persistence across reopening, migrations, file errors. The Store
// contract itself is tested against every implementation in store_conformance_test.cc.

#include "server/store/sqlite_store.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
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

// Migration 12: a submission withdrawn before it existed is marked from its cancelled jobs.
TEST(SqliteStoreTest, MigrationTwelveMarksSubmissionsWithdrawnBeforeFromTheirJobs) {
  const std::string path = TempDb("v11");
  {
    auto db = sqlite::Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateTo(db->get(), 11).ok());
    ASSERT_TRUE((*db)
                    ->Exec(R"sql(
INSERT INTO submissions (id, name, kind, archive, digest, trials, created_at)
  VALUES (1, 'taken-back', 1, x'00', 'd', 1, 1), (2, 'kept', 1, x'00', 'd', 1, 1);
INSERT INTO jobs (id, submission_id, problem, trial, seed, state, last_error)
  VALUES (1, 1, 'p', 0, 1, 'done', NULL), (2, 1, 'p', 1, 1, 'failed', 'withdrawn by team:red'),
         (3, 2, 'p', 0, 1, 'failed', 'lease expired');
)sql")
                    .ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->GetSubmission(1)->withdrawn, "withdrawn by team:red");
  EXPECT_EQ((*store)->GetSubmission(2)->withdrawn, "");
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
    b.figures.optimizer_cpu_s = 0.375;
    b.evaluations.push_back({});
    b.evaluations.back().params_json = "{}";
    b.evaluations.back().value = 2;
    ASSERT_TRUE((*store)->RecordBatch(b).ok());
    b.batch = 2;
    b.figures.optimizer_cpu_s.reset();  // a host without cgroups
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

// One batch of `n` points whose value is `value` (params_json padded to `json_bytes`).
BatchRecord Batch(int64_t study, int batch, double value, int n = 8, size_t json_bytes = 16) {
  BatchRecord b;
  b.study_id = study;
  b.batch = batch;
  for (int i = 0; i < n; ++i) {
    EvaluationRecord e;
    e.params_json = "{\"x\":\"" + std::string(json_bytes, 'x') + "\"}";
    e.value = value;
    b.evaluations.push_back(e);
  }
  b.best_value = value;
  return b;
}

// Holds the store's connection for a while (a slow query), so that RecordBatch callers arriving
// meanwhile queue up and are committed in groups when it ends.
std::thread HoldConnection(SqliteStore* store) {
  std::thread t([store] {
    ASSERT_TRUE(store
                    ->ExecForTesting("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1"
                                     " FROM c WHERE x < 2000000) SELECT COUNT(*) FROM c")
                    .ok());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return t;
}

TEST(SqliteStoreTest, ConcurrentBatchesAreAllStoredAndAnInvalidOneFailsAlone) {
  const std::string path = TempDb("group");
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  constexpr int kStudies = 12, kBatches = 20;
  std::vector<int64_t> studies;
  for (int i = 0; i <= kStudies; ++i) {
    StudyRecord s;
    s.problem = "p";
    studies.push_back(*(*store)->CreateStudy(s));
  }
  const int64_t dup_study = studies.back();
  ASSERT_TRUE((*store)->RecordBatch(Batch(dup_study, 0, 1.0)).ok());

  std::thread holder = HoldConnection(store->get());
  std::vector<std::thread> threads;
  std::vector<absl::Status> first_error(kStudies);
  for (int i = 0; i < kStudies; ++i) {
    threads.emplace_back([&, i] {
      for (int b = 0; b < kBatches; ++b) {
        absl::Status s = (*store)->RecordBatch(Batch(studies[i], b, i * 100 + b));
        if (!s.ok() && first_error[i].ok()) first_error[i] = s;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Queued behind the others: a batch recorded already, and one of a study that does not exist.
  absl::Status dup, unknown;
  std::thread bad1([&] { dup = (*store)->RecordBatch(Batch(dup_study, 0, 99.0)); });
  std::thread bad2([&] { unknown = (*store)->RecordBatch(Batch(dup_study + 1000, 0, 7.0)); });
  holder.join();
  bad1.join();
  bad2.join();
  for (auto& t : threads) t.join();

  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists) << dup;
  EXPECT_THAT(dup.message(), HasSubstr("UNIQUE"));
  EXPECT_EQ(unknown.code(), absl::StatusCode::kAlreadyExists) << unknown;
  EXPECT_THAT(unknown.message(), HasSubstr("FOREIGN KEY"));
  for (int i = 0; i < kStudies; ++i) {
    EXPECT_TRUE(first_error[i].ok()) << "study " << i << ": " << first_error[i];
    auto values = (*store)->StudyValues(studies[i]);
    ASSERT_TRUE(values.ok());
    ASSERT_EQ(values->size(), static_cast<size_t>(kBatches)) << "study " << i;
    for (int b = 0; b < kBatches; ++b) {
      EXPECT_EQ((*values)[b], std::vector<double>(8, i * 100 + b));
    }
    EXPECT_EQ((*store)->GetStudy(studies[i])->state, StudyState::kRunning);
  }
  // The refused batch left nothing behind; the first one stands.
  EXPECT_EQ(*(*store)->StudyValues(dup_study), std::vector<std::vector<double>>{
                                                   std::vector<double>(8, 1.0)});
  EXPECT_EQ((*store)->StudyValues(dup_study + 1000)->size(), 0u);
  store->reset();
  std::filesystem::remove(path);
}

TEST(SqliteStoreTest, ConcurrentBatchesOnAFullDiskAllFailAndStoreNothing) {
  const std::string path = TempDb("group_full");
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  constexpr int kStudies = 8;
  std::vector<int64_t> studies;
  for (int i = 0; i < kStudies; ++i) {
    StudyRecord s;
    s.problem = "p";
    studies.push_back(*(*store)->CreateStudy(s));
  }
  // No page may be added: every batch (its points padded past a page) needs new ones.
  ASSERT_TRUE((*store)->ExecForTesting("PRAGMA max_page_count = 1").ok());
  std::thread holder = HoldConnection(store->get());
  std::vector<absl::Status> status(kStudies);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStudies; ++i) {
    threads.emplace_back(
        [&, i] { status[i] = (*store)->RecordBatch(Batch(studies[i], 0, i, 8, 5000)); });
  }
  holder.join();
  for (auto& t : threads) t.join();
  for (int i = 0; i < kStudies; ++i) {
    EXPECT_EQ(status[i].code(), absl::StatusCode::kResourceExhausted) << status[i];
    EXPECT_EQ((*store)->StudyValues(studies[i])->size(), 0u);
  }
  // Space again: the same batches are taken.
  ASSERT_TRUE((*store)->ExecForTesting("PRAGMA max_page_count = 1000000").ok());
  for (int i = 0; i < kStudies; ++i) {
    EXPECT_TRUE((*store)->RecordBatch(Batch(studies[i], 0, i, 8, 5000)).ok());
    EXPECT_EQ((*store)->StudyValues(studies[i])->size(), 1u);
  }
  store->reset();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace bbo
