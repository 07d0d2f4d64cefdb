// Worker tests: the real worker loop and sandbox with a scripted coordinator behind the
// CoordinatorClient seam (fault injection: budget cut-offs, a vanished coordinator).

#include "worker/worker.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <sys/wait.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/archive.h"
#include "common/testing/setup_errors.h"
#include "common/utf8.h"
#include "worker/study_tmp.h"
#include "worker/testing/sandbox_environment.h"
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
  OptimizerLimits limits;
  std::string archive;
  // Called inside SubmitBatch, while the coordinator "evaluates" the batch.
  std::function<void(int batch)> on_submit;

  // What the worker did.
  std::vector<int> submitted;
  std::vector<size_t> submitted_sizes;  // points per submitted batch
  std::vector<TurnReport> timings;      // per submitted batch
  int ready_calls = 0;
  std::vector<std::pair<int, bool>> failures;  // batch, optimizer_dead
  std::vector<std::string> failure_messages;
  std::vector<std::string> ended;
  std::vector<std::string> finished;  // error per finished job ("" = success)

  absl::StatusOr<WorkerIdentity> Register(const std::string&, int) override {
    return WorkerIdentity{"w-test", 30, 5};
  }
  absl::StatusOr<int64_t> Heartbeat(const std::string&) override { return int64_t{0}; }
  absl::StatusOr<std::optional<JobLease>> Lease(const std::string&, double) override {
    lease_calls++;
    if (!lease_error.ok()) return lease_error;
    return std::optional<JobLease>();
  }
  absl::Status lease_error;  // what Lease answers (OK: an empty queue)
  int lease_calls = 0;
  absl::Status Finish(const std::string&, int64_t, const std::string& error) override {
    finished.push_back(error);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Fetch(int64_t, int64_t, const std::string&) override {
    return archive;
  }
  absl::StatusOr<OpenedStudy> OpenStudy(int64_t, const std::string&, const std::string&) override {
    OpenedStudy s;
    s.study_id = 1;
    s.api_config = nlohmann::json::parse(
        R"({"x0": {"type": "real", "space": "linear", "range": [0, 1]}})");
    s.budget.batch_size = 4;
    s.budget.n_batches = n_batches;
    s.budget.suggest_budget_s = suggest_budget_s;
    s.remaining_s = 640;
    s.limits = limits;
    turn_started_ = absl::Now();
    return s;
  }
  absl::Status OptimizerReady(int64_t) override {
    ready_calls++;
    turn_started_ = absl::Now();
    return absl::OkStatus();
  }
  absl::StatusOr<BatchValues> SubmitBatch(int64_t, int batch, const std::vector<nlohmann::json>& x,
                                          const TurnReport& timing) override {
    submitted.push_back(batch);
    submitted_sizes.push_back(x.size());
    timings.push_back(timing);
    if (on_submit) on_submit(batch);
    if (batch == deadline_at_batch) return absl::DeadlineExceededError("over budget");
    // The coordinator's turn clock, as StudyManager keeps it.
    if (absl::Now() - turn_started_ > absl::Seconds(suggest_budget_s)) {
      return absl::DeadlineExceededError("over the per-suggest budget");
    }
    if (batch == unavailable_at_batch) return absl::UnavailableError("coordinator gone");
    return Values(batch, x);
  }
  absl::StatusOr<BatchValues> ReportSuggestFailure(int64_t, int batch, const std::string& msg,
                                                   bool dead) override {
    failures.emplace_back(batch, dead);
    failure_messages.push_back(msg);
    EXPECT_TRUE(IsValidUtf8(msg));
    if (dead) {
      BatchValues v;
      v.study_done = true;
      return v;
    }
    return Values(batch, std::vector<nlohmann::json>(4, {{"x0", 0.25}}));
  }
  absl::Status EndStudy(int64_t, const std::string& reason) override {
    EXPECT_TRUE(IsValidUtf8(reason));
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
    turn_started_ = absl::Now();
    return v;
  }
  absl::Time turn_started_;
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
  void UseOptimizer(const std::string& mode, const std::string& script_name = "protocol_echo.py") {
    fs::remove_all(root_ / "work");  // the worker caches unpacked submissions by digest
    std::ifstream in(std::string(BBO_WORKER_TESTDATA) + "/" + script_name);
    std::stringstream script;
    script << "import os\nos.environ['MODE'] = '" << mode << "'\n" << in.rdbuf();
    std::ofstream(root_ / "sub" / "optimizer.py") << script.str();
    coordinator_.archive = *TarDirectory((root_ / "sub").string());
  }

  void UseHostile(const std::string& mode) { UseOptimizer(mode, "hostile_replies.py"); }

  void RunOneJob(double kill_grace_s = 1.0) {
    WorkerOptions opts;
    opts.work_dir = (root_ / "work").string();
    opts.python_dir = std::string(BBO_SOURCE_DIR) + "/python";
    opts.kill_grace_s = kill_grace_s;
    opts.cgroups = cgroups_;
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
  CgroupManager* cgroups_ = nullptr;
};

// The same with a control group per study, as bbo-worker runs by default (needs root). A setup
// error skips only where the host lacks cgroups (not root, no controller mounted), never under
// CI=true (common/testing/setup_errors.h).
class WorkerCgroupTest : public WorkerTest {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<CgroupManager>> manager = CgroupManager::Detect(
        testing::TestCgroupOptions(absl::StrCat("bbo-workertest-", getpid())));
    if (!manager.ok()) {
      BBO_SKIP_OR_FAIL_SETUP(testing::CgroupUnsupportedReason(), manager.status());
    }
    manager_ = *std::move(manager);
    cgroups_ = manager_.get();
    WorkerTest::SetUp();
  }

  // The study groups under this test's parent (the worker removes them at the study's end).
  std::vector<fs::path> StudyGroups(const std::string& controller) {
    std::vector<fs::path> out;
    for (const auto& [c, dir] : manager_->parent_dirs()) {
      if (c != controller) continue;
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.is_directory()) out.push_back(e.path());
      }
    }
    return out;
  }

  std::unique_ptr<CgroupManager> manager_;
};

TEST_F(WorkerTest, ARevokedTokenStopsTheWorkerWithItsReason) {
  coordinator_.lease_error = absl::UnauthenticatedError("the token was revoked");
  WorkerOptions opts;
  opts.work_dir = (root_ / "work").string();
  Sandbox sandbox{SandboxOptions()};
  Worker worker(&coordinator_, &sandbox, opts);
  ASSERT_TRUE(worker.Register("test", 1).ok());
  absl::Status run = worker.Run();  // returns instead of retrying forever
  worker.Stop();
  EXPECT_TRUE(absl::IsUnauthenticated(run)) << run;
  EXPECT_THAT(std::string(run.message()), HasSubstr("the token was revoked"));
  EXPECT_THAT(std::string(run.message()), HasSubstr("bbo admin worker rotate"));
  EXPECT_EQ(coordinator_.lease_calls, 1);
}

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

// --- Hostile replies (issue 10): the worker survives each, the study ends as documented in
// docs/hosting-protocol.md "Limits", and every text the coordinator receives is bounded, valid
// UTF-8.

constexpr size_t kReportLimit = 8u << 10;  // worker.cc's kMaxReportBytes

// A suggest reply that is a protocol error: every batch is reported as a live failure (random
// fill) naming the problem, and the study runs to its end.
void ExpectRandomFillEveryBatch(const ScriptedCoordinator& c, const std::string& why) {
  EXPECT_TRUE(c.submitted.empty());
  ASSERT_EQ(c.failures.size(), 3u);
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(c.failures[b], std::make_pair(b, false));
    EXPECT_THAT(c.failure_messages[b], HasSubstr(why));
    EXPECT_LE(c.failure_messages[b].size(), kReportLimit);
  }
  EXPECT_THAT(c.finished, ::testing::ElementsAre(""));
  EXPECT_TRUE(c.ended.empty());
}

TEST_F(WorkerTest, WrongTypesInASuggestReplyAreProtocolErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"suggest_type_int", "field 'type' must be a string, got number"},
      {"suggest_type_list", "field 'type' must be a string, got array"},
      {"suggest_type_missing", "field 'type' is missing"},
      {"suggest_x_string", "field 'x' must be an array of objects, got string"},
      {"suggest_x_object", "field 'x' must be an array of objects, got object"},
      {"suggest_x_missing", "field 'x' is missing"},
      {"suggest_msg_obj", "field 'message' must be a string, got object"},
      {"suggest_msg_num", "field 'message' must be a string, got number"},
      {"suggest_deep", "nested deeper than 64 levels"},
      {"suggest_deep_object", "nested deeper than 64 levels"},
  };
  for (const auto& [mode, why] : cases) {
    SCOPED_TRACE(mode);
    coordinator_ = ScriptedCoordinator();
    UseHostile(mode);
    RunOneJob();
    ExpectRandomFillEveryBatch(coordinator_, why);
  }
}

TEST_F(WorkerTest, WrongTypesInStartRepliesFailTheStart) {
  for (const std::string mode : {"start_type_int", "start_msg_obj", "start_deep"}) {
    SCOPED_TRACE(mode);
    coordinator_ = ScriptedCoordinator();
    UseHostile(mode);
    RunOneJob();
    ASSERT_EQ(coordinator_.ended.size(), 1u);
    EXPECT_THAT(coordinator_.ended[0], HasSubstr("optimizer failed to start: invalid reply"));
    EXPECT_TRUE(coordinator_.submitted.empty());
    EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
  }
}

TEST_F(WorkerTest, WrongTypesInObserveRepliesAreIgnored) {
  for (const std::string mode : {"observe_type_int", "observe_msg_obj", "observe_deep"}) {
    SCOPED_TRACE(mode);
    coordinator_ = ScriptedCoordinator();
    UseHostile(mode);
    RunOneJob();
    EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0, 1, 2));
    EXPECT_TRUE(coordinator_.failures.empty());
    EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
  }
}

TEST_F(WorkerTest, BadPointsTravelToTheCoordinatorToBeReplaced) {
  UseHostile("suggest_points_bad");
  RunOneJob();
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0, 1, 2));
  EXPECT_THAT(coordinator_.submitted_sizes, ::testing::Each(4u));
}

TEST_F(WorkerTest, AMillionPointsAreNotMaterialised) {
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  UseHostile("suggest_million");
  RunOneJob();
  getrusage(RUSAGE_SELF, &after);
  // One more point than asked, so the coordinator records "extra points ignored".
  EXPECT_THAT(coordinator_.submitted_sizes, ::testing::ElementsAre(5u, 5u, 5u));
  // The ~12 MB line itself, not the ~1.5 GiB of a parsed million points.
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 256 * 1024);  // KiB
}

TEST_F(WorkerTest, LongStringsInPointsAreCut) {
  UseHostile("suggest_long_key");
  RunOneJob();
  EXPECT_THAT(coordinator_.submitted_sizes, ::testing::ElementsAre(1u, 1u, 1u));
}

TEST_F(WorkerTest, HugeMessagesAreCutOnACharacterBoundary) {
  UseHostile("suggest_msg_10mb");
  RunOneJob();
  ASSERT_EQ(coordinator_.failures.size(), 3u);
  for (const std::string& m : coordinator_.failure_messages) {
    EXPECT_LE(m.size(), 4096u);
    EXPECT_GT(m.size(), 4000u);
    EXPECT_THAT(m, HasSubstr("\xE2\x82\xAC"));
  }
}

TEST_F(WorkerTest, LinesOverTheLimitMeanADeadOptimizer) {
  for (const std::string mode : {"suggest_line_20mb", "suggest_msg_60mb"}) {
    SCOPED_TRACE(mode);
    coordinator_ = ScriptedCoordinator();
    UseHostile(mode);
    RunOneJob();
    ASSERT_EQ(coordinator_.failures.size(), 1u);
    EXPECT_EQ(coordinator_.failures[0], std::make_pair(0, true));
    // The sandbox's line reader refuses it before buffering it.
    EXPECT_THAT(coordinator_.failure_messages[0], HasSubstr("longer than 16 MiB"));
    EXPECT_LE(coordinator_.failure_messages[0].size(), kReportLimit);
    EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
  }
}

TEST_F(WorkerTest, InvalidUtf8InAMessageIsReplaced) {
  UseHostile("suggest_msg_badutf8");
  RunOneJob();
  ASSERT_EQ(coordinator_.failures.size(), 3u);
  EXPECT_EQ(coordinator_.failures[0], std::make_pair(0, false));
  EXPECT_THAT(coordinator_.failure_messages[0], HasSubstr("bad \xEF\xBF\xBD"));
}

TEST_F(WorkerTest, NonAsciiAndInvalidStderrTailIsQuotedNotEmptied) {
  UseHostile("stderr_badutf8");
  RunOneJob();
  ASSERT_EQ(coordinator_.ended.size(), 1u);
  const std::string& why = coordinator_.ended[0];
  EXPECT_THAT(why, HasSubstr("optimizer failed to start"));
  EXPECT_THAT(why, HasSubstr("status 4"));
  EXPECT_THAT(why, HasSubstr("\xE2\x82\xAC"));  // the tail is there, not cut to nothing
  EXPECT_LE(why.size(), kReportLimit);
}

TEST_F(WorkerTest, StartUpIsNotChargedToTheFirstBatch) {
  UseHostile("slow_start");  // 3 s before `ready`
  coordinator_.suggest_budget_s = 2;
  RunOneJob();
  EXPECT_EQ(coordinator_.ready_calls, 1);
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0, 1, 2));
  EXPECT_TRUE(coordinator_.failures.empty());
  EXPECT_THAT(coordinator_.finished, ::testing::ElementsAre(""));
}

}  // namespace
}  // namespace bbo

namespace bbo {
namespace {

TEST_F(WorkerCgroupTest, MemoryLimitEndsTheStudyWithItsReasonAndItsBestSoFarStands) {
  UseOptimizer("memory", "resource_hog.py");
  coordinator_.limits.memory_mb = 128;
  coordinator_.limits.tmp_mb = 16;
  RunOneJob();
  // Batch 0 was evaluated (the best so far); the 512 MiB allocation in the second suggest
  // killed the optimizer.
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0));
  ASSERT_EQ(coordinator_.failures.size(), 1u);
  EXPECT_EQ(coordinator_.failures[0], std::make_pair(1, true));
  EXPECT_THAT(coordinator_.failure_messages[0],
              HasSubstr("optimizer exceeded its 128 MiB memory limit"));
  EXPECT_TRUE(StudyGroups("memory").empty()) << "the study's group outlived it";
}

TEST_F(WorkerCgroupTest, TaskLimitEndsTheStudyEvenWhenTheOptimizerSurvivesIt) {
  UseOptimizer("forks", "resource_hog.py");
  coordinator_.limits.max_tasks = 16;
  RunOneJob();
  EXPECT_THAT(coordinator_.submitted, ::testing::ElementsAre(0));
  ASSERT_EQ(coordinator_.failures.size(), 1u);
  EXPECT_EQ(coordinator_.failures[0], std::make_pair(1, true));
  EXPECT_EQ(coordinator_.failure_messages[0], "optimizer reached its 16-process limit");
  EXPECT_TRUE(StudyGroups("pids").empty()) << "the study's group outlived it";
}

TEST_F(WorkerCgroupTest, TmpAndDevShmShareOneSizeLimitedTmpfs) {
  UseOptimizer("tmp", "resource_hog.py");
  coordinator_.limits.tmp_mb = 8;
  RunOneJob();
  ASSERT_EQ(coordinator_.failures.size(), 1u);
  EXPECT_FALSE(coordinator_.failures[0].second);  // an error reply, not a dead optimizer
  // 8 MiB in all: /tmp takes (nearly) all of it and /dev/shm, the same tmpfs, nothing more.
  const std::string& m = coordinator_.failure_messages[0];
  EXPECT_THAT(m, HasSubstr("No space left on device")) << m;
  int tmp = -1, shm = -1;
  ASSERT_EQ(sscanf(m.c_str() + m.find("tmp="), "tmp=%d shm=%d", &tmp, &shm), 2) << m;
  EXPECT_GE(tmp, 6);
  EXPECT_LE(tmp + shm, 8) << m;
  // Unmounted and removed at the end of the study.
  std::error_code ec;
  EXPECT_TRUE(fs::is_empty(root_ / "work" / "tmp", ec)) << ec.message();
}

TEST_F(WorkerCgroupTest, OptimizerIsFrozenWhileItsBatchIsEvaluatedAndItsCpuIsAccounted) {
  UseOptimizer("hog", "resource_hog.py");
  coordinator_.n_batches = 3;
  std::vector<std::string> states;
  coordinator_.on_submit = [&](int) {
    for (const fs::path& group : StudyGroups("freezer")) {
      std::ifstream in(group / "freezer.state");
      std::string state;
      in >> state;
      states.push_back(state);
    }
    absl::SleepFor(absl::Milliseconds(300));  // "evaluating"
  };
  RunOneJob();
  ASSERT_EQ(coordinator_.submitted.size(), 3u);
  if (manager_->Has("freezer")) {
    EXPECT_THAT(states, ::testing::ElementsAre("FROZEN", "FROZEN", "FROZEN"));
  }
  // Every turn's CPU time is accounted. The spinning thread started in batch 0's suggest: the
  // later turns are short, so with the optimizer frozen during the 300 ms evaluations they
  // are charged far less than 300 ms each.
  ASSERT_EQ(coordinator_.timings.size(), 3u);
  for (const TurnReport& t : coordinator_.timings) {
    ASSERT_TRUE(t.figures.optimizer_cpu_s.has_value());
    EXPECT_GE(*t.figures.optimizer_cpu_s, 0);
  }
  EXPECT_LT(*coordinator_.timings[1].figures.optimizer_cpu_s, 0.2);
  EXPECT_LT(*coordinator_.timings[2].figures.optimizer_cpu_s, 0.2);
}

TEST_F(WorkerCgroupTest, EveryTurnReportsItsOwnPeakMemory) {
  UseOptimizer("peak", "resource_hog.py");
  coordinator_.n_batches = 3;
  RunOneJob();
  ASSERT_EQ(coordinator_.timings.size(), 3u);
  std::vector<double> peaks;
  for (const TurnReport& t : coordinator_.timings) {
    if (manager_->version() != CgroupVersion::kV1) {
      // v2's memory.peak cannot be restarted per turn: no figure rather than the study's.
      EXPECT_FALSE(t.figures.optimizer_peak_memory_mb.has_value());
      continue;
    }
    ASSERT_TRUE(t.figures.optimizer_peak_memory_mb.has_value());
    peaks.push_back(*t.figures.optimizer_peak_memory_mb);
  }
  if (peaks.empty()) return;
  // Batch 1's suggest held 96 MiB; it was freed before the turn ended, and the next turn's
  // mark starts again from what the optimizer holds then.
  EXPECT_GE(peaks[1], 96);
  EXPECT_LT(peaks[0], 64);
  EXPECT_LT(peaks[2], 64);
}

TEST_F(WorkerCgroupTest, ADaemonDoesNotOutliveItsStudy) {
  UseOptimizer("daemon", "resource_hog.py");
  std::vector<int> seen_pids;
  coordinator_.on_submit = [&](int) {
    for (const fs::path& group : StudyGroups("pids")) {
      std::ifstream in(group / "cgroup.procs");
      for (int pid; in >> pid;) seen_pids.push_back(pid);
    }
  };
  RunOneJob();
  ASSERT_FALSE(seen_pids.empty());
  absl::SleepFor(absl::Milliseconds(100));
  for (int pid : seen_pids) {
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    std::getline(stat, line);
    EXPECT_TRUE(line.empty() || line.find(") Z") != std::string::npos)
        << "pid " << pid << " still runs: " << line;
  }
  EXPECT_TRUE(StudyGroups("pids").empty());
}

TEST_F(WorkerCgroupTest, WhatAKilledWorkerLeftBehindIsRemovedAtStart) {
  // A group and a mounted /tmp named after a worker pid that no longer exists, as a worker
  // killed with SIGKILL leaves them (with a process still in the group).
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string stale = absl::StrCat("study-9-", dead, "-0");
  const std::string live = absl::StrCat("study-9-", getpid(), "-0");
  auto group = manager_->Create(stale, CgroupLimits());
  ASSERT_TRUE(group.ok()) << group.status();
  auto mine = manager_->Create(live, CgroupLimits());
  ASSERT_TRUE(mine.ok()) << mine.status();
  const fs::path tmp_parent = root_ / "work" / "tmp";
  fs::create_directories(tmp_parent);
  auto tmp = StudyTmp::Mount((tmp_parent / stale).string(), 1 << 20, 0, 0);
  ASSERT_TRUE(tmp.ok()) << tmp.status();
  pid_t sleeper = fork();
  if (sleeper == 0) {
    execl("/bin/sleep", "sleep", "60", nullptr);
    _exit(127);
  }
  ASSERT_TRUE((*group)->AddProcess(sleeper).ok());
  (void)tmp->release();  // "the worker died": nothing unmounts it

  RemoveStaleStudies(manager_.get(), (root_ / "work").string());
  int status = 0;
  EXPECT_EQ(waitpid(sleeper, &status, 0), sleeper);
  EXPECT_TRUE(WIFSIGNALED(status));
  std::vector<std::string> left;
  for (const fs::path& g : StudyGroups("pids")) left.push_back(g.filename().string());
  EXPECT_THAT(left, ::testing::ElementsAre(live));  // only this live process's group stays
  EXPECT_FALSE(fs::exists(tmp_parent / stale));
  EXPECT_TRUE(IsStaleStudyName(stale));
  EXPECT_FALSE(IsStaleStudyName(live));
  EXPECT_FALSE(IsStaleStudyName("bbo-arena-worker"));
}

}  // namespace
}  // namespace bbo
