// Fault injection through the worker's Env seam: a fake clock, and a ProcessLauncher whose
// optimizer stalls past its deadline, dies mid-study or writes garbage. The worker must report
// each failure to the coordinator and go on to the next job.

#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/archive.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/env.h"
#include "worker/worker.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

// What one scripted optimizer process saw.
struct ChildRecord {
  std::string mode;
  std::vector<std::string> received;  // message types, in order
  bool killed = false;
};

// An optimizer that speaks the hosting protocol from a script, on the fake clock:
//   "ok": answers everything; "stall": never answers `suggest` (the read runs the clock to its
//   deadline); "dies": exits with status 3 when asked for batch 1; "garbage": answers `suggest`
//   with a line that is not JSON, then a `suggestions` message without a list; "slow": spends
//   7 s (fake) on each `suggest`.
class ScriptedChild : public ChildProcess {
 public:
  ScriptedChild(ChildRecord* record, FakeClock* clock) : record_(record), clock_(clock) {}

  absl::Status WriteLine(absl::string_view line, absl::Time) override {
    if (dead_) return absl::UnavailableError("optimizer could not be written to");
    json msg = json::parse(line);
    const std::string type = msg["type"];
    record_->received.push_back(type);
    const std::string& mode = record_->mode;
    if (type == "start") {
      replies_.push_back(R"({"type": "ready"})");
    } else if (type == "suggest") {
      const int batch = msg["batch"];
      if (mode == "stall") {
        stalled_ = true;
      } else if (mode == "dies" && batch == 1) {
        dead_ = true;
      } else if (mode == "garbage") {
        replies_.push_back("Traceback (most recent call last): {");
        replies_.push_back(R"({"type": "suggestions", "x": "oops"})");
      } else {
        if (mode == "slow") clock_->Advance(absl::Seconds(7));
        json x = json::array();
        for (int i = 0; i < msg["n"].get<int>(); ++i) x.push_back({{"x0", 0.5}});
        replies_.push_back(json{{"type", "suggestions"}, {"x", x}}.dump());
      }
    } else if (type == "observe") {
      replies_.push_back(R"({"type": "observed"})");
    }
    return absl::OkStatus();
  }

  void CloseStdin() override {}

  absl::StatusOr<std::string> ReadLine(absl::Time deadline) override {
    if (!replies_.empty()) {
      std::string line = replies_.front();
      replies_.pop_front();
      return line;
    }
    if (dead_) {
      return absl::UnavailableError(
          "optimizer closed its stdout and exited with status 3; stderr: \"boom\\n\"");
    }
    // Stalled (or nothing to say): the deadline passes on the fake clock.
    if (clock_->Now() < deadline) clock_->Advance(deadline - clock_->Now());
    return absl::DeadlineExceededError("optimizer did not answer in time");
  }

  void Kill() override {
    record_->killed = true;
    dead_ = true;
  }
  bool WaitExit(absl::Time) override { return true; }
  int Wait(absl::Duration) override { return record_->killed ? 128 + 9 : 0; }
  std::string StderrTail() override { return ""; }
  pid_t pid() const override { return 4242; }

 private:
  ChildRecord* const record_;
  FakeClock* const clock_;
  std::deque<std::string> replies_;
  bool stalled_ = false;
  bool dead_ = false;
};

// Hands out one scripted child per launch, in the order of `modes`.
class ScriptedLauncher : public ProcessLauncher {
 public:
  ScriptedLauncher(std::vector<std::string> modes, FakeClock* clock) : clock_(clock) {
    for (std::string& m : modes) records_.push_back({std::move(m), {}, false});
  }
  absl::StatusOr<std::unique_ptr<ChildProcess>> Launch(const ProcessSpec& spec) override {
    absl::MutexLock l(&mu_);
    if (launched_ >= records_.size()) return absl::ResourceExhaustedError("no more scripts");
    return std::make_unique<ScriptedChild>(&records_[launched_++], clock_);
  }
  const ChildRecord& record(size_t i) { return records_.at(i); }
  size_t launched() {
    absl::MutexLock l(&mu_);
    return launched_;
  }

 private:
  FakeClock* const clock_;
  absl::Mutex mu_;
  std::deque<ChildRecord> records_;  // stable addresses
  size_t launched_ = 0;
};

// The real file system; the fake clock and the scripted launcher.
class FaultEnv : public EnvWrapper {
 public:
  FaultEnv(FakeClock* clock, ProcessLauncher* launcher)
      : EnvWrapper(Env::Default()), clock_(clock), launcher_(launcher) {}
  absl::Time Now() override { return clock_->Now(); }
  void SleepFor(absl::Duration d) override {
    clock_->Advance(d);
    absl::SleepFor(absl::Milliseconds(1));  // let other threads run
  }
  ProcessLauncher* launcher() override { return launcher_; }

 private:
  FakeClock* const clock_;
  ProcessLauncher* const launcher_;
};

// Leases `jobs` jobs, then none; records every report. Thread-safe.
class RecordingCoordinator : public CoordinatorClient {
 public:
  RecordingCoordinator(int jobs, std::string archive) : jobs_left_(jobs), archive_(archive) {}

  struct Report {
    int64_t job_id;
    int batch;
    bool dead;
    std::string message;
  };

  absl::StatusOr<WorkerIdentity> Register(const std::string&, int) override {
    return WorkerIdentity{"w-fault", 30, 5};
  }
  absl::StatusOr<int64_t> Heartbeat(const std::string&) override { return int64_t{0}; }
  absl::StatusOr<std::optional<JobLease>> Lease(const std::string&, double) override {
    absl::MutexLock l(&mu_);
    if (jobs_left_ == 0) return std::optional<JobLease>();
    --jobs_left_;
    JobLease job;
    job.job_id = ++next_job_;
    job.submission_id = 5;
    job.digest = "d";
    job.kind = HostedKind::kPython;
    return std::optional<JobLease>(job);
  }
  absl::Status Finish(const std::string&, int64_t job_id, const std::string& error) override {
    absl::MutexLock l(&mu_);
    finished.emplace_back(job_id, error);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Fetch(int64_t, int64_t, const std::string&) override {
    return archive_;
  }
  absl::StatusOr<OpenedStudy> OpenStudy(int64_t job_id, const std::string&,
                                        const std::string&) override {
    OpenedStudy s;
    s.study_id = job_id;
    s.api_config = json::parse(
        R"({"x0": {"type": "real", "space": "linear", "range": [0, 1]}})");
    s.budget.batch_size = 2;
    s.budget.n_batches = 3;
    s.budget.suggest_budget_s = 40;
    s.remaining_s = 640;
    return s;
  }
  absl::StatusOr<BatchValues> SubmitBatch(int64_t study_id, int batch, const std::vector<json>& x,
                                          const TurnReport& timing) override {
    absl::MutexLock l(&mu_);
    submitted.push_back({study_id, batch});
    suggest_times.push_back(timing.suggest_s);
    return Values(batch, x);
  }
  absl::StatusOr<BatchValues> ReportSuggestFailure(int64_t study_id, int batch,
                                                   const std::string& message,
                                                   bool dead) override {
    absl::MutexLock l(&mu_);
    failures.push_back({study_id, batch, dead, message});
    if (dead) {
      BatchValues v;
      v.study_done = true;
      return v;
    }
    return Values(batch, std::vector<json>(2, {{"x0", 0.25}}));
  }
  absl::Status EndStudy(int64_t study_id, const std::string& reason) override {
    absl::MutexLock l(&mu_);
    ended.emplace_back(study_id, reason);
    return absl::OkStatus();
  }

  absl::Mutex mu_;
  std::vector<std::pair<int64_t, int>> submitted;
  std::vector<double> suggest_times;
  std::vector<Report> failures;
  std::vector<std::pair<int64_t, std::string>> finished;
  std::vector<std::pair<int64_t, std::string>> ended;

 private:
  BatchValues Values(int batch, const std::vector<json>& x) {
    BatchValues v;
    v.evaluated = x;
    v.values.assign(x.size(), 1.0);
    v.study_done = batch + 1 >= 3;
    v.remaining_s = 600;
    return v;
  }

  int jobs_left_;
  int64_t next_job_ = 0;
  const std::string archive_;
};

class WorkerFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("worker_fault_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    std::ofstream(root_ / "sub" / "optimizer.py") << "# never run: the launcher is scripted\n";
    archive_ = *TarDirectory((root_ / "sub").string());
  }
  void TearDown() override { fs::remove_all(root_); }

  WorkerOptions Options() {
    WorkerOptions opts;
    opts.work_dir = (root_ / "work").string();
    opts.python_dir = "/nonexistent";
    opts.kill_grace_s = 1.0;
    opts.idle_poll_s = 0.5;
    opts.exit_when_idle_s = 5;
    opts.log_optimizer_stderr = false;
    return opts;
  }

  // Runs the worker's lease loop over one job per mode, to the end.
  void RunJobs(const std::vector<std::string>& modes) {
    launcher_ = std::make_unique<ScriptedLauncher>(modes, &clock_);
    env_ = std::make_unique<FaultEnv>(&clock_, launcher_.get());
    coordinator_ = std::make_unique<RecordingCoordinator>(modes.size(), archive_);
    Sandbox sandbox(SandboxOptions(), env_->launcher());
    Worker worker(coordinator_.get(), &sandbox, Options(), env_.get());
    ASSERT_TRUE(worker.Register("test", 1).ok());
    const absl::Time real_start = absl::Now();
    EXPECT_TRUE(worker.Run().ok());
    worker.Stop();
    // Deadlines ran on the fake clock: no real waiting for stalled optimizers.
    EXPECT_LT(absl::Now() - real_start, absl::Seconds(20));
    EXPECT_EQ(worker.jobs_run(), static_cast<int>(modes.size()));
    EXPECT_EQ(launcher_->launched(), modes.size());
  }

  // Runs one job with RunJob (no Register: no heartbeat thread moving the clock meanwhile).
  void RunOneJob(const std::vector<std::string>& modes, int64_t job_id) {
    launcher_ = std::make_unique<ScriptedLauncher>(modes, &clock_);
    env_ = std::make_unique<FaultEnv>(&clock_, launcher_.get());
    coordinator_ = std::make_unique<RecordingCoordinator>(0, archive_);
    Sandbox sandbox(SandboxOptions(), env_->launcher());
    Worker worker(coordinator_.get(), &sandbox, Options(), env_.get());
    JobLease job;
    job.job_id = job_id;
    job.submission_id = 5;
    job.digest = "d";
    EXPECT_TRUE(worker.RunJob(job).ok());
  }

  fs::path root_;
  std::string archive_;
  FakeClock clock_;
  std::unique_ptr<ScriptedLauncher> launcher_;
  std::unique_ptr<FaultEnv> env_;
  std::unique_ptr<RecordingCoordinator> coordinator_;
};

TEST_F(WorkerFaultTest, StalledOptimizerIsKilledAtItsDeadlineAndTheNextJobRuns) {
  RunJobs({"stall", "ok"});
  ASSERT_EQ(coordinator_->failures.size(), 1u);
  const auto& f = coordinator_->failures[0];
  EXPECT_EQ(f.job_id, 1);
  EXPECT_EQ(f.batch, 0);
  EXPECT_TRUE(f.dead);
  EXPECT_THAT(f.message, HasSubstr("did not answer in time"));
  EXPECT_TRUE(launcher_->record(0).killed);
  // The second job ran its whole study.
  EXPECT_THAT(coordinator_->submitted, ElementsAre(std::make_pair(int64_t{2}, 0),
                                                   std::make_pair(int64_t{2}, 1),
                                                   std::make_pair(int64_t{2}, 2)));
  EXPECT_THAT(coordinator_->finished,
              ElementsAre(std::make_pair(int64_t{1}, ""), std::make_pair(int64_t{2}, "")));
}

TEST_F(WorkerFaultTest, OptimizerDyingMidStudyIsReportedDeadAndTheNextJobRuns) {
  RunJobs({"dies", "ok"});
  ASSERT_EQ(coordinator_->failures.size(), 1u);
  const auto& f = coordinator_->failures[0];
  EXPECT_EQ(f.job_id, 1);
  EXPECT_EQ(f.batch, 1);  // batch 0 went through
  EXPECT_TRUE(f.dead);
  EXPECT_THAT(f.message, HasSubstr("exited with status 3"));
  EXPECT_EQ(coordinator_->submitted.front(), std::make_pair(int64_t{1}, 0));
  EXPECT_EQ(coordinator_->submitted.size(), 4u);  // 1 of job 1, 3 of job 2
  EXPECT_THAT(coordinator_->finished,
              ElementsAre(std::make_pair(int64_t{1}, ""), std::make_pair(int64_t{2}, "")));
}

TEST_F(WorkerFaultTest, GarbageRepliesAreReportedAndTheStudyGoesOn) {
  RunJobs({"garbage", "ok"});
  // Every batch of job 1 failed without killing the optimizer, and the study went on.
  ASSERT_EQ(coordinator_->failures.size(), 3u);
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(coordinator_->failures[b].job_id, 1);
    EXPECT_EQ(coordinator_->failures[b].batch, b);
    EXPECT_FALSE(coordinator_->failures[b].dead);
    EXPECT_THAT(coordinator_->failures[b].message, HasSubstr("field 'x' must be an array of objects, got string"));
  }
  EXPECT_FALSE(launcher_->record(0).killed);
  EXPECT_THAT(launcher_->record(0).received,
              ElementsAre("start", "suggest", "observe", "suggest", "observe", "suggest",
                          "observe", "end"));  // as Bayesmark: an observe after every batch
  EXPECT_THAT(coordinator_->finished,
              ElementsAre(std::make_pair(int64_t{1}, ""), std::make_pair(int64_t{2}, "")));
}

TEST_F(WorkerFaultTest, SuggestTimeIsMeasuredOnTheEnvClock) {
  RunOneJob({"slow"}, 9);
  ASSERT_EQ(coordinator_->suggest_times.size(), 3u);
  for (double s : coordinator_->suggest_times) EXPECT_DOUBLE_EQ(s, 7.0);
}

TEST_F(WorkerFaultTest, ALauncherThatCannotStartHandsTheJobBack) {
  RunOneJob({}, 4);
  ASSERT_EQ(coordinator_->finished.size(), 1u);
  EXPECT_THAT(coordinator_->finished[0].second, HasSubstr("cannot start the sandbox"));
  ASSERT_EQ(coordinator_->ended.size(), 1u);
  EXPECT_THAT(coordinator_->ended[0].second, HasSubstr("host error"));
}

}  // namespace
}  // namespace bbo
