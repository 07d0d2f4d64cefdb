#include "server/sqlite_store.h"

#include <filesystem>
#include <limits>

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

}  // namespace
}  // namespace bbo
