// Worker tests: the real worker loop and sandbox with a scripted coordinator behind the
// CoordinatorClient seam (fault injection: budget cut-offs, a vanished coordinator).

#include "worker/worker.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/synchronization/mutex.h"
#include "common/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ScriptedCoordinator : public CoordinatorClient {
 public:
  int n_batches = 3;
  int deadline_at_batch = -1;     // SubmitBatch answers DeadlineExceeded at this batch
  int unavailable_at_batch = -1;  // SubmitBatch answers Unavailable at this batch
  double suggest_budget_s = 40;
  std::string archive;

  // What the worker did.
  std::vector<int> submitted;
  std::vector<std::pair<int, bool>> failures;  // batch, optimizer_dead
  std::vector<std::string> failure_messages;
  std::vector<std::string> ended;
  std::vector<std::string> finished;  // error per finished job ("" = success)

  absl::StatusOr<WorkerIdentity> Register(const std::string&, int) override {
    return WorkerIdentity{"w-test", 30, 5};
  }
  absl::Status Heartbeat(const std::string&) override { return absl::OkStatus(); }
  absl::StatusOr<std::optional<JobLease>> Lease(const std::string&) override {
    return std::optional<JobLease>();
  }
  absl::Status Finish(const std::string&, int64_t, const std::string& error) override {
    finished.push_back(error);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Fetch(int64_t) override { return archive; }
  absl::StatusOr<OpenedStudy> OpenStudy(int64_t, const std::string&) override {
    OpenedStudy s;
    s.study_id = 1;
    s.api_config = nlohmann::json::parse(R"({"x0": {"type": "real", "range": [0, 1]}})");
    s.budget.batch_size = 4;
    s.budget.n_batches = n_batches;
    s.budget.suggest_budget_s = suggest_budget_s;
    s.remaining_s = 640;
    return s;
  }
  absl::StatusOr<BatchValues> SubmitBatch(int64_t, int batch,
                                          const std::vector<nlohmann::json>& x, double,
                                          double) override {
    submitted.push_back(batch);
    if (batch == deadline_at_batch) return absl::DeadlineExceededError("over budget");
    if (batch == unavailable_at_batch) return absl::UnavailableError("coordinator gone");
    return Values(batch, x);
  }
  absl::StatusOr<BatchValues> ReportSuggestFailure(int64_t, int batch, const std::string& msg,
                                                   bool dead) override {
    failures.emplace_back(batch, dead);
    failure_messages.push_back(msg);
    if (dead) {
      BatchValues v;
      v.study_done = true;
      return v;
    }
    return Values(batch, std::vector<nlohmann::json>(4, {{"x0", 0.25}}));
  }
  absl::Status EndStudy(int64_t, const std::string& reason) override {
    ended.push_back(reason);
    return absl::OkStatus();
  }

 private:
  BatchValues Values(int batch, const std::vector<nlohmann::json>& x) {
    BatchValues v;
    v.evaluated = x;
    v.values.assign(x.size(), 1.0);
    v.study_done = batch + 1 >= n_batches;
    v.remaining_s = 600;
    return v;
  }
};

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("worker_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
  }
  void TearDown() override { fs::remove_all(root_); }

  // A Python submission running testdata/protocol_echo.py in `mode`.
  void UseOptimizer(const std::string& mode) {
    std::ifstream in(std::string(BBO_WORKER_TESTDATA) + "/protocol_echo.py");
    std::stringstream script;
    script << "import os\nos.environ['MODE'] = '" << mode << "'\n" << in.rdbuf();
    std::ofstream(root_ / "sub" / "optimizer.py") << script.str();
    coordinator_.archive = *TarDirectory((root_ / "sub").string());
  }

  void RunOneJob(double kill_grace_s = 1.0) {
    WorkerOptions opts;
    opts.work_dir = (root_ / "work").string();
    opts.python_dir = std::string(BBO_SOURCE_DIR) + "/python";
    opts.kill_grace_s = kill_grace_s;
    Sandbox sandbox{SandboxOptions()};
    Worker worker(&coordinator_, &sandbox, opts);
    ASSERT_TRUE(worker.Register("test", 1).ok());
    JobLease job;
    job.job_id = 7;
    job.submission_id = 3;
    job.digest = "d";
    job.kind = HostedKind::kPython;
    EXPECT_TRUE(worker.RunJob(job).ok());
    worker.Stop();
  }

  fs::path root_;
  ScriptedCoordinator coordinator_;
};

TEST_F(WorkerTest, RelaysAFullStudyAndFinishesTheJob) {
  UseOptimizer("ok");
  RunOneJob();
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0, 1, 2));
  EXPECT_TRUE(coordinator_.failures.empty());
  EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
  EXPECT_TRUE(coordinator_.ended.empty());
}

TEST_F(WorkerTest, CoordinatorCutOffEndsTheStudyAndTheJob) {
  UseOptimizer("ok");
  coordinator_.deadline_at_batch = 1;
  RunOneJob();
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0, 1));
  EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
}

TEST_F(WorkerTest, SuggestErrorsAreReportedAndTheStudyGoesOn) {
  UseOptimizer("raises");
  RunOneJob();
  ASSERT_EQ(coordinator_.failures.size(), 3u);
  EXPECT_FALSE(coordinator_.failures[0].second);
  EXPECT_THAT(coordinator_.failure_messages[0], HasSubstr("no suggestion"));
  EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
}

TEST_F(WorkerTest, DeadOptimizerIsReportedAsDead) {
  UseOptimizer("dies");
  RunOneJob();
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0));
  ASSERT_EQ(coordinator_.failures.size(), 1u);
  EXPECT_EQ(coordinator_.failures[0], std::make_pair(1, true));
  EXPECT_THAT(coordinator_.failure_messages[0], HasSubstr("status 3"));
  EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
}

TEST_F(WorkerTest, SilentOptimizerIsKilledAtTheBudget) {
  UseOptimizer("slow");
  coordinator_.suggest_budget_s = 1;
  absl::Time start = absl::Now();
  RunOneJob(/*kill_grace_s=*/0.5);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));  // not the optimizer's 30 s sleep
  ASSERT_EQ(coordinator_.failures.size(), 1u);
  EXPECT_TRUE(coordinator_.failures[0].second);
  EXPECT_THAT(coordinator_.failure_messages[0], HasSubstr("in time"));
}

TEST_F(WorkerTest, VanishedCoordinatorHandsTheJobBack) {
  UseOptimizer("ok");
  coordinator_.unavailable_at_batch = 1;
  RunOneJob();
  ASSERT_EQ(coordinator_.finished.size(), 1u);
  EXPECT_THAT(coordinator_.finished[0], HasSubstr("coordinator gone"));
  ASSERT_EQ(coordinator_.ended.size(), 1u);
  EXPECT_THAT(coordinator_.ended[0], HasSubstr("host error"));
}

}  // namespace
}  // namespace bbo
