#include "server/job_queue.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include "gtest/gtest.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

class JobQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("job_queue_test_" + std::to_string(::getpid()) + ".sqlite"))
                .string();
    std::filesystem::remove(path_);
    store_ = *SqliteStore::Open(path_);
    JobQueueOptions opts;
    opts.lease_ttl_s = 10;
    queue_ = std::make_unique<JobQueue>(store_.get(), &clock_, opts);
    SubmissionRecord s;
    s.name = "sub";
    s.kind = SubmissionKind::kExecutable;
    s.digest = "abc";
    s.trials = 1;
    sub_ = *store_->AddSubmission(s, "tar", {"p1", "p2"}, 1);
  }
  void TearDown() override {
    queue_.reset();
    store_.reset();
    std::filesystem::remove(path_);
  }
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<JobQueue> queue_;
  int64_t sub_ = 0;
};

TEST_F(JobQueueTest, UnregisteredWorkerCannotLease) {
  EXPECT_EQ(queue_->Lease(Identity::Worker("test"), "nobody").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(JobQueueTest, HeartbeatsKeepLeaseAliveAndSilenceLosesIt) {
  auto w = queue_->RegisterWorker(Identity::Worker("test"), "host", 1);
  ASSERT_TRUE(w.ok());
  auto job = queue_->Lease(Identity::Worker("test"), w->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->kind, SubmissionKind::kExecutable);
  EXPECT_EQ((*job)->digest, "abc");
  for (int i = 0; i < 5; ++i) {  // 25 s of heartbeats every 5 s: lease survives
    clock_.Advance(absl::Seconds(5));
    ASSERT_TRUE(queue_->Heartbeat(Identity::Worker("test"), w->worker_id).ok());
    EXPECT_EQ(queue_->Sweep().value(), 0);
  }
  clock_.Advance(absl::Seconds(11));  // silent for longer than the 10 s TTL
  EXPECT_EQ(queue_->Sweep().value(), 1);
  EXPECT_EQ(queue_->Finish(Identity::Worker("test"), w->worker_id, (*job)->job_id, "").code(),
            absl::StatusCode::kFailedPrecondition);
  auto w2 = queue_->RegisterWorker(Identity::Worker("test"), "host2", 1);
  auto again = queue_->Lease(Identity::Worker("test"), w2->worker_id);
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ((*again)->job_id, (*job)->job_id);
}

// A worker retrying a finish whose answer it lost (same request id) is answered OK again; the
// job was finished once. Another id, or another worker, still gets FailedPrecondition.
TEST_F(JobQueueTest, ARetriedFinishIsAnsweredAgain) {
  auto w = queue_->RegisterWorker(Identity::Worker("test"), "host", 1);
  ASSERT_TRUE(w.ok());
  auto job = queue_->Lease(Identity::Worker("test"), w->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value());
  const Identity trusted = Identity::Worker("test");
  ASSERT_TRUE(queue_->Finish(trusted, w->worker_id, (*job)->job_id, "", "f1").ok());
  EXPECT_TRUE(queue_->Finish(trusted, w->worker_id, (*job)->job_id, "", "f1").ok());
  EXPECT_EQ(queue_->Finish(trusted, w->worker_id, (*job)->job_id, "", "f2").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(queue_->Finish(Identity::Worker("test"), w->worker_id, (*job)->job_id, "").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->GetJob((*job)->job_id)->state, JobState::kDone);
}

// A long-poll lease waits for a job queued meanwhile and takes it; with nothing queued it
// answers nullopt once its wait is over; a wait of zero answers at once.
TEST_F(JobQueueTest, ALongPollLeaseTakesAJobQueuedWhileItWaits) {
  auto w = queue_->RegisterWorker(Identity::Worker("test"), "host", 1);
  ASSERT_TRUE(w.ok());
  // Drain the fixture's two jobs.
  ASSERT_TRUE((*queue_->Lease(Identity::Worker("test"), w->worker_id)).has_value());
  ASSERT_TRUE((*queue_->Lease(Identity::Worker("test"), w->worker_id)).has_value());
  const Identity trusted = Identity::Worker("test");
  EXPECT_FALSE((*queue_->Lease(trusted, w->worker_id, absl::ZeroDuration())).has_value());
  EXPECT_FALSE((*queue_->Lease(trusted, w->worker_id, absl::Milliseconds(50))).has_value());
  const uint64_t before = queue_->version();
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    SubmissionRecord s;
    s.name = "late";
    s.kind = SubmissionKind::kPython;
    s.digest = "late";
    s.trials = 1;
    ASSERT_TRUE(store_->AddSubmission(s, "tar", {"p1"}, 1).ok());
    queue_->NotifyChanged();
  });
  auto job = queue_->Lease(trusted, w->worker_id, absl::Seconds(20));
  producer.join();
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE(job->has_value());
  EXPECT_EQ(store_->GetSubmission((*job)->submission_id)->name, "late");
  EXPECT_GT(queue_->version(), before);
}

TEST_F(JobQueueTest, FetchReturnsTheArchiveToTheLeaseHolderOnly) {
  const Identity worker = Identity::Worker("test");
  auto w = queue_->RegisterWorker(worker, "host", 1);
  ASSERT_TRUE(w.ok()) << w.status();
  auto job = queue_->Lease(worker, w->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value());
  auto files = queue_->Fetch(worker, w->worker_id, (*job)->job_id, sub_);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->archive, "tar");
  // Another submission than the leased job's, or another worker token: refused.
  EXPECT_EQ(queue_->Fetch(worker, w->worker_id, (*job)->job_id, 999).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(queue_->Fetch(Identity::Worker("other"), w->worker_id, (*job)->job_id, sub_).ok());
}

}  // namespace
}  // namespace bbo

namespace bbo {
namespace {

TEST_F(JobQueueTest, ALeaseCarriesTheProblemDefinitionTheWorkerEvaluates) {
  queue_->set_problem_for_lease([](const JobRecord& job) -> std::optional<ProblemDefinition> {
    if (job.problem != "p1") return std::nullopt;  // p2: the coordinator evaluates it
    return ProblemDefinition{"practice", "p1", 0, "", 0};
  });
  auto w = queue_->RegisterWorker(Identity::Worker("test"), "host", 1);
  ASSERT_TRUE(w.ok());
  auto first = queue_->Lease(Identity::Worker("test"), w->worker_id);
  auto second = queue_->Lease(Identity::Worker("test"), w->worker_id);
  ASSERT_TRUE(first.ok() && first->has_value() && second.ok() && second->has_value());
  ASSERT_TRUE((*first)->problem.has_value());
  EXPECT_EQ((*first)->problem->name, "p1");
  EXPECT_FALSE((*second)->problem.has_value());
}

TEST_F(JobQueueTest, ARefusedJobGoesToAnotherWorkerWithoutLosingAnAttempt) {
  auto a = queue_->RegisterWorker(Identity::Worker("test"), "host-a", 1);
  auto b = queue_->RegisterWorker(Identity::Worker("test"), "host-b", 1);
  ASSERT_TRUE(a.ok() && b.ok());
  auto job = queue_->Lease(Identity::Worker("test"), a->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value());
  const int64_t id = (*job)->job_id;
  queue_->Refuse(id, a->worker_id);
  JobRecord rec = *store_->GetJob(id);
  EXPECT_EQ(rec.state, JobState::kQueued);
  EXPECT_EQ(rec.attempts, 0);
  // Not to the worker that refused it: it gets the other job...
  auto other = queue_->Lease(Identity::Worker("test"), a->worker_id);
  ASSERT_TRUE(other.ok() && other->has_value());
  EXPECT_NE((*other)->job_id, id);
  EXPECT_FALSE(queue_->Lease(Identity::Worker("test"), a->worker_id)->has_value());
  // ... and another worker gets it.
  auto elsewhere = queue_->Lease(Identity::Worker("test"), b->worker_id);
  ASSERT_TRUE(elsewhere.ok() && elsewhere->has_value());
  EXPECT_EQ((*elsewhere)->job_id, id);
  EXPECT_EQ(store_->GetJob(id)->attempts, 1);
  // A refusal of a lease the worker no longer holds changes nothing.
  queue_->Refuse(id, a->worker_id);
  EXPECT_EQ(store_->GetJob(id)->state, JobState::kLeased);
  EXPECT_EQ(store_->GetJob(id)->worker_id, b->worker_id);
}

}  // namespace
}  // namespace bbo
