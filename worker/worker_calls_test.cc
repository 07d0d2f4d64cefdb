// Worker tests of how the worker calls its coordinator: fetches that run side by side (no lock
// held across an RPC) and which failed calls are asked again (abseil's retry rule).

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/archive.h"
#include "gtest/gtest.h"
#include "worker/worker.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

// A coordinator whose Fetch of a submission may be held until the test releases it, and whose
// Lease and Finish answer scripted statuses. OpenStudy refuses, so a job ends right after its
// fetch.
class CallsCoordinator : public CoordinatorClient {
 public:
  std::string archive;
  // Fetches of this submission wait for `release` (up to 30 s, so a failing test still ends).
  int64_t held_submission = -1;
  absl::Notification release;
  absl::Notification held_fetch_started;
  std::deque<absl::Status> lease_answers;   // then: an empty queue
  std::deque<absl::Status> finish_answers;  // then: OK

  absl::StatusOr<WorkerIdentity> Register(const std::string&, int) override {
    return WorkerIdentity{"w-calls", 30, 5};
  }
  absl::StatusOr<int64_t> Heartbeat(const std::string&) override { return int64_t{0}; }
  absl::StatusOr<std::optional<JobLease>> Lease(const std::string&, double) override {
    absl::MutexLock l(&mu_);
    ++lease_calls_;
    if (lease_answers.empty()) return std::optional<JobLease>();
    absl::Status s = lease_answers.front();
    lease_answers.pop_front();
    return s;
  }
  absl::Status Finish(const std::string&, int64_t, const std::string&) override {
    absl::MutexLock l(&mu_);
    ++finish_calls_;
    if (finish_answers.empty()) return absl::OkStatus();
    absl::Status s = finish_answers.front();
    finish_answers.pop_front();
    return s;
  }
  absl::StatusOr<std::string> Fetch(int64_t submission_id, int64_t, const std::string&) override {
    {
      absl::MutexLock l(&mu_);
      ++fetches_[submission_id];
    }
    if (submission_id == held_submission) {
      {
        absl::MutexLock l(&mu_);
        if (!held_fetch_started.HasBeenNotified()) held_fetch_started.Notify();
      }
      release.WaitForNotificationWithTimeout(absl::Seconds(30));
    }
    return archive;
  }
  absl::StatusOr<OpenedStudy> OpenStudy(int64_t, const std::string&, const std::string&) override {
    return absl::FailedPreconditionError("this test ends the job after its fetch");
  }
  absl::StatusOr<BatchValues> SubmitBatch(int64_t, int, const std::vector<nlohmann::json>&,
                                          const TurnReport&) override {
    return absl::UnimplementedError("SubmitBatch");
  }
  absl::StatusOr<BatchValues> ReportSuggestFailure(int64_t, int, const std::string&,
                                                   bool) override {
    return absl::UnimplementedError("ReportSuggestFailure");
  }
  absl::Status EndStudy(int64_t, const std::string&) override { return absl::OkStatus(); }

  int fetches(int64_t submission_id) {
    absl::MutexLock l(&mu_);
    return fetches_[submission_id];
  }
  int lease_calls() {
    absl::MutexLock l(&mu_);
    return lease_calls_;
  }
  int finish_calls() {
    absl::MutexLock l(&mu_);
    return finish_calls_;
  }

 private:
  absl::Mutex mu_;
  std::map<int64_t, int> fetches_ ABSL_GUARDED_BY(mu_);
  int lease_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int finish_calls_ ABSL_GUARDED_BY(mu_) = 0;
};

class WorkerCallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("worker_calls_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    std::ofstream(root_ / "sub" / "optimizer.py") << "print('never run')\n";
    coordinator_.archive = *TarDirectory((root_ / "sub").string());
    WorkerOptions opts;
    opts.work_dir = (root_ / "work").string();
    opts.idle_poll_s = 0.05;
    opts.exit_when_idle_s = 0.3;
    worker_ = std::make_unique<Worker>(&coordinator_, &sandbox_, opts);
    ASSERT_TRUE(worker_->Register("test", 2).ok());
  }
  void TearDown() override {
    Release();
    worker_->Stop();
    worker_.reset();
    fs::remove_all(root_);
  }

  void Release() {
    if (!coordinator_.release.HasBeenNotified()) coordinator_.release.Notify();
  }

  static JobLease Job(int64_t job_id, int64_t submission_id) {
    JobLease job;
    job.job_id = job_id;
    job.submission_id = submission_id;
    job.digest = absl::StrCat("digest", submission_id);
    return job;
  }

  fs::path root_;
  CallsCoordinator coordinator_;
  Sandbox sandbox_{SandboxOptions()};
  std::unique_ptr<Worker> worker_;
};

// Two slots, two submissions: while one slot's download is stuck, the other slot fetches its
// own submission and runs its job (before: the first fetch held a lock every fetch waited for).
TEST_F(WorkerCallsTest, ASlotFetchesItsSubmissionWhileAnotherSlotsFetchIsStuck) {
  coordinator_.held_submission = 1;
  std::thread slot_a([&] { worker_->RunJob(Job(10, 1)).IgnoreError(); });
  ASSERT_TRUE(coordinator_.held_fetch_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::Notification b_done;
  std::thread slot_b([&] {
    worker_->RunJob(Job(20, 2)).IgnoreError();
    b_done.Notify();
  });
  const bool b_finished = b_done.WaitForNotificationWithTimeout(absl::Seconds(10));
  const int b_fetches = coordinator_.fetches(2);
  Release();
  slot_a.join();
  slot_b.join();
  EXPECT_TRUE(b_finished) << "slot B waited for slot A's fetch of another submission";
  EXPECT_EQ(b_fetches, 1);
  EXPECT_TRUE(fs::exists(root_ / "work" / "submissions" / "2-digest2" / "optimizer.py"));
  EXPECT_TRUE(fs::exists(root_ / "work" / "submissions" / "1-digest1" / "optimizer.py"));
}

// Two slots, one submission: it is downloaded once, the second slot waiting for the first's
// fetch; a later job of it uses the unpacked copy.
TEST_F(WorkerCallsTest, SlotsOfOneSubmissionFetchItOnce) {
  coordinator_.held_submission = 1;
  std::thread slot_a([&] { worker_->RunJob(Job(10, 1)).IgnoreError(); });
  ASSERT_TRUE(coordinator_.held_fetch_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  std::thread slot_b([&] { worker_->RunJob(Job(11, 1)).IgnoreError(); });
  absl::SleepFor(absl::Milliseconds(200));  // slot B waits for slot A's fetch meanwhile
  Release();
  slot_a.join();
  slot_b.join();
  EXPECT_EQ(coordinator_.fetches(1), 1);
  worker_->RunJob(Job(12, 1)).IgnoreError();
  EXPECT_EQ(coordinator_.fetches(1), 1);
  EXPECT_TRUE(fs::exists(root_ / "work" / "submissions" / "1-digest1" / "optimizer.py"));
}

// INTERNAL says the coordinator is broken: asking again cannot mend it, so the job's end is
// not asked again and the error comes back.
TEST_F(WorkerCallsTest, FinishIsNotRetriedOnInternal) {
  coordinator_.finish_answers = {absl::InternalError("the store's invariant broke")};
  absl::Status s = worker_->FinishJob(7, "");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_EQ(coordinator_.finish_calls(), 1);
}

TEST_F(WorkerCallsTest, FinishIsNotRetriedOnDataLoss) {
  coordinator_.finish_answers = {absl::DataLossError("the database is corrupt")};
  absl::Status s = worker_->FinishJob(7, "");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_EQ(coordinator_.finish_calls(), 1);
}

// UNAVAILABLE (a coordinator restarting) is asked again until it takes the job's end.
TEST_F(WorkerCallsTest, FinishIsRetriedOnUnavailable) {
  coordinator_.finish_answers = {absl::UnavailableError("restarting"),
                                 absl::UnavailableError("restarting")};
  absl::Status s = worker_->FinishJob(7, "");
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(coordinator_.finish_calls(), 3);
}

// The lease loop: UNAVAILABLE is asked again; INTERNAL ends Run with the coordinator's error.
TEST_F(WorkerCallsTest, LeaseIsRetriedOnUnavailableButNotOnInternal) {
  coordinator_.lease_answers = {absl::UnavailableError("restarting"),
                                absl::InternalError("the queue's invariant broke")};
  absl::Status s = worker_->Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_EQ(coordinator_.lease_calls(), 2);
}

TEST_F(WorkerCallsTest, LeaseIsRetriedOnUnavailableUntilTheQueueAnswers) {
  coordinator_.lease_answers = {absl::UnavailableError("restarting")};
  absl::Status s = worker_->Run();  // an empty queue then, for exit_when_idle_s
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_GE(coordinator_.lease_calls(), 2);
}

}  // namespace
}  // namespace bbo
