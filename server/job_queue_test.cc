#include "server/job_queue.h"

#include <chrono>
#include <filesystem>
#include <atomic>
#include <thread>

#include "gmock/gmock.h"
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

// A worker that is gone (its call cancelled, or its deadline passed) while it waits for a job is
// given none, and a job leased just as it went goes back to the queue at once, its attempt not
// counted. Before the fix the job was handed to the dead call and sat until its lease expired,
// costing one of its three attempts.
TEST_F(JobQueueTest, ALeaseForACallerThatIsGoneGoesBackToTheQueueUncharged) {
  const Identity worker = Identity::Worker("test");
  auto w = queue_->RegisterWorker(worker, "host", 4);
  ASSERT_TRUE(w.ok());
  // Gone before anything is leased: nothing is.
  auto none = queue_->Lease(worker, w->worker_id, absl::ZeroDuration(), [] { return true; });
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(*store_->CountLeases(w->worker_id), 0);
  // Gone just as a job is leased: it goes back, uncharged, and the next caller gets it.
  int asked = 0;
  auto lost = queue_->Lease(worker, w->worker_id, absl::ZeroDuration(), [&] { return ++asked > 1; });
  ASSERT_TRUE(lost.ok());
  EXPECT_FALSE(lost->has_value());
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(store_->CountJobs(sub_)->queued, 2);
  auto w2 = queue_->RegisterWorker(worker, "host2", 4);
  auto first = queue_->Lease(worker, w2->worker_id);
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ(store_->GetJob((*first)->job_id)->attempts, 1);  // this lease's only
  // A long poll whose caller goes away answers within a second, leasing nothing.
  auto second = queue_->Lease(worker, w2->worker_id);
  ASSERT_TRUE(second.ok() && second->has_value());
  std::atomic<bool> gone{false};
  std::thread cancel([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    gone = true;
  });
  const absl::Time start = absl::Now();
  auto waited = queue_->Lease(worker, w->worker_id, absl::Seconds(20), [&] { return gone.load(); });
  cancel.join();
  ASSERT_TRUE(waited.ok());
  EXPECT_FALSE(waited->has_value());
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

// A worker holds at most as many leases as the slots it registered (one with 1 slot leased 13
// jobs before the fix), and one token registers at most kMaxLiveWorkersPerToken live workers.
TEST_F(JobQueueTest, AWorkerLeasesNoMoreThanItsSlotsAndATokenRegistersABoundedNumber) {
  const Identity worker = Identity::Worker("test");
  auto w = queue_->RegisterWorker(worker, "host", 1);
  ASSERT_TRUE(w.ok());
  auto job = queue_->Lease(worker, w->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value());
  auto more = queue_->Lease(worker, w->worker_id);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(more.status().message(), ::testing::HasSubstr("registered 1 slot(s)"));
  EXPECT_EQ(store_->CountJobs(sub_)->leased, 1);
  ASSERT_TRUE(queue_->Finish(worker, w->worker_id, (*job)->job_id, "").ok());
  auto next = queue_->Lease(worker, w->worker_id);
  ASSERT_TRUE(next.ok() && next->has_value());

  for (int i = 1; i < JobQueue::kMaxLiveWorkersPerToken; ++i) {
    ASSERT_TRUE(queue_->RegisterWorker(worker, "host", 1).ok()) << i;
  }
  auto over = queue_->RegisterWorker(worker, "host", 1);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.status().message(), ::testing::HasSubstr("worker add"));
  EXPECT_TRUE(queue_->RegisterWorker(Identity::Worker("other"), "host", 1).ok());
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
  auto w = queue_->RegisterWorker(Identity::Worker("test"), "host", 4);
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
  auto w = queue_->RegisterWorker(Identity::Worker("test"), "host", 2);
  ASSERT_TRUE(w.ok());
  auto first = queue_->Lease(Identity::Worker("test"), w->worker_id);
  auto second = queue_->Lease(Identity::Worker("test"), w->worker_id);
  ASSERT_TRUE(first.ok() && first->has_value() && second.ok() && second->has_value());
  ASSERT_TRUE((*first)->problem.has_value());
  EXPECT_EQ((*first)->problem->name, "p1");
  EXPECT_FALSE((*second)->problem.has_value());
}

TEST_F(JobQueueTest, ARefusedJobGoesToAnotherWorkerWithoutLosingAnAttempt) {
  auto a = queue_->RegisterWorker(Identity::Worker("test"), "host-a", 4);
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
