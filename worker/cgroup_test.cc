#include "worker/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/setup_errors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/testing/sandbox_environment.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMiB = uint64_t{1} << 20;

bool PathExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A process that is gone or only a zombie no longer runs anything.
bool Running(pid_t pid) {
  std::string stat = Slurp(absl::StrCat("/proc/", pid, "/stat"));
  if (stat.empty()) return false;
  size_t paren = stat.rfind(')');
  return paren == std::string::npos || stat.substr(paren + 2, 1) != "Z";
}

pid_t SessionOf(pid_t pid) {
  std::string stat = Slurp(absl::StrCat("/proc/", pid, "/stat"));
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 2));
  std::string state;
  pid_t ppid, pgrp, session;
  rest >> state >> ppid >> pgrp >> session;
  return session;
}

// Forks `argv`, puts the child into `group` (when given) before it execs, so nothing it does
// runs outside the limits.
pid_t Spawn(StudyCgroup* group, const std::vector<std::string>& argv) {
  int gate[2];
  if (pipe2(gate, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(gate[1]);
    char c;
    if (read(gate[0], &c, 1) != 1) _exit(126);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(gate[0]);
  if (group != nullptr) {
    absl::Status s = group->AddProcess(pid);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) kill(pid, SIGKILL);
  }
  (void)!write(gate[1], "x", 1);
  close(gate[1]);
  return pid;
}

// Waits up to `timeout` for `pid`; kills it on timeout. Returns the wait status, -1 on timeout.
int WaitFor(pid_t pid, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  int status = 0;
  while (absl::Now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    absl::SleepFor(absl::Milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

class CgroupTest : public ::testing::Test {
 protected:
  // A setup error skips only where the host lacks cgroups (not root, no controller mounted)
  // and never under CI=true (common/testing/setup_errors.h).
  void SetUp() override {
    auto manager =
        CgroupManager::Detect(testing::TestCgroupOptions(absl::StrCat("bbo-cgtest-", getpid())));
    if (!manager.ok()) {
      BBO_SKIP_OR_FAIL_SETUP(testing::CgroupUnsupportedReason(), manager.status());
    }
    manager_ = std::move(*manager);
  }

  std::unique_ptr<StudyCgroup> MakeGroup(const std::string& name, CgroupLimits limits) {
    auto group = manager_->Create(name, limits);
    EXPECT_TRUE(group.ok()) << group.status();
    return group.ok() ? std::move(*group) : nullptr;
  }

  std::unique_ptr<CgroupManager> manager_;
};

TEST(DescribeLimitHitTest, NamesTheLimit) {
  CgroupLimits limits;
  EXPECT_EQ(DescribeLimitHit(CgroupLimitHit::kMemory, limits),
            "optimizer exceeded its 4 GiB memory limit");
  EXPECT_EQ(DescribeLimitHit(CgroupLimitHit::kPids, limits),
            "optimizer reached its 256-process limit");
  EXPECT_EQ(DescribeLimitHit(CgroupLimitHit::kNone, limits), "");
  limits.memory_bytes = 64 * kMiB;
  EXPECT_EQ(DescribeLimitHit(CgroupLimitHit::kMemory, limits),
            "optimizer exceeded its 64 MiB memory limit");
}

TEST_F(CgroupTest, DetectReportsV1OnAHybridHost) {
  bool v1_host =
      PathExists("/sys/fs/cgroup/memory/memory.limit_in_bytes") &&
      Slurp("/sys/fs/cgroup/unified/cgroup.controllers").find("memory") == std::string::npos;
  if (!v1_host) GTEST_SKIP() << "not a cgroup v1 host";
  EXPECT_EQ(manager_->version(), CgroupVersion::kV1);
  for (const char* c : {"memory", "pids", "cpu", "cpuacct", "freezer"}) {
    EXPECT_TRUE(manager_->Has(c)) << c;
  }
}

TEST_F(CgroupTest, CreateValidatesAndRemoveLeavesNoDirectory) {
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->Create("../escape", {}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->Create("", {}).status()));
  auto group = MakeGroup("study-remove", {});
  ASSERT_NE(group, nullptr);
  EXPECT_TRUE(absl::IsAlreadyExists(manager_->Create("study-remove", {}).status()));
  std::vector<std::string> dirs;
  for (const auto& [controller, parent] : manager_->parent_dirs()) {
    dirs.push_back(parent + "/study-remove");
    EXPECT_TRUE(PathExists(dirs.back())) << dirs.back();
  }
  pid_t pid = Spawn(group.get(), {"/bin/sleep", "30"});
  ASSERT_TRUE(group->Remove().ok());
  EXPECT_NE(WaitFor(pid, absl::Seconds(5)), -1);
  for (const std::string& dir : dirs) EXPECT_FALSE(PathExists(dir)) << dir;
  EXPECT_TRUE(group->Remove().ok());  // Idempotent.
}

TEST_F(CgroupTest, MemoryHogIsKilledAndReported) {
  CgroupLimits limits{64 * kMiB, 64, 1.0};
  auto group = MakeGroup("study-memory", limits);
  ASSERT_NE(group, nullptr);
  // Touches every byte of 512 MiB.
  pid_t pid = Spawn(group.get(), {"/usr/bin/python3", "-c", "x = b'x' * (512 << 20)"});
  int status = WaitFor(pid, absl::Seconds(30));
  ASSERT_NE(status, -1);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  auto hit = group->LimitHit();
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(*hit, CgroupLimitHit::kMemory);
  EXPECT_EQ(DescribeLimitHit(*hit, limits), "optimizer exceeded its 64 MiB memory limit");
  auto peak = group->MemoryPeakBytes();
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_LE(*peak, 64 * kMiB + kMiB);
  EXPECT_GE(*peak, 32 * kMiB);
  EXPECT_TRUE(group->Remove().ok());
}

TEST_F(CgroupTest, TheMemoryPeakRestartsWhenReset) {
  auto group = MakeGroup("study-peak", CgroupLimits{256 * kMiB, 64, 1.0});
  ASSERT_NE(group, nullptr);
  // Never reset: no figure (it would be the whole study's).
  EXPECT_EQ(group->MemoryPeakSinceReset().status().code(), absl::StatusCode::kFailedPrecondition);
  pid_t pid = Spawn(group.get(), {"/usr/bin/python3", "-c", "x = b'x' * (96 << 20)"});
  ASSERT_EQ(WaitFor(pid, absl::Seconds(30)), 0);
  absl::Status reset = group->ResetMemoryPeak();
  if (manager_->version() != CgroupVersion::kV1) {
    EXPECT_EQ(reset.code(), absl::StatusCode::kUnimplemented);
    return;
  }
  ASSERT_TRUE(reset.ok()) << reset;
  auto after = group->MemoryPeakSinceReset();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_LT(*after, 32 * kMiB);  // the 96 MiB process is gone: the mark starts again
  pid = Spawn(group.get(), {"/usr/bin/python3", "-c", "x = b'x' * (48 << 20)"});
  ASSERT_EQ(WaitFor(pid, absl::Seconds(30)), 0);
  auto peak = group->MemoryPeakSinceReset();
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_GE(*peak, 48 * kMiB);
  EXPECT_LT(*peak, 96 * kMiB);
  EXPECT_TRUE(group->Remove().ok());
}

// bwrap's --tmpfs has no size option in 0.8: the memory cgroup is what bounds /tmp and /dev/shm.
class TmpfsChargeTest : public CgroupTest, public ::testing::WithParamInterface<std::string> {};

std::vector<std::string> BwrapDd(const std::string& file, int mib) {
  return {"/usr/bin/bwrap", "--unshare-all", "--die-with-parent",
          "--ro-bind",      "/usr",          "/usr",
          "--symlink",      "usr/lib",       "/lib",
          "--symlink",      "usr/lib64",     "/lib64",
          "--symlink",      "usr/bin",       "/bin",
          "--dev",          "/dev",          "--tmpfs",
          "/tmp",           "/usr/bin/dd",   "if=/dev/zero",
          "of=" + file,     "bs=1M",         absl::StrCat("count=", mib),
          "status=none"};
}

TEST_P(TmpfsChargeTest, TmpfsPagesAreChargedToTheGroup) {
  if (const std::string reason = testing::NotInstalledReason("/usr/bin/bwrap", "bubblewrap");
      !reason.empty()) {
    BBO_SKIP_OR_FAIL_SETUP(reason, "no /usr/bin/bwrap");
  }
  {
    // Within the limit: the write succeeds and its pages show in the group's peak.
    auto group = MakeGroup("study-tmpfs-ok", {1024 * kMiB, 64, 2.0});
    ASSERT_NE(group, nullptr);
    int status = WaitFor(Spawn(group.get(), BwrapDd(GetParam(), 100)), absl::Seconds(30));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    auto peak = group->MemoryPeakBytes();
    ASSERT_TRUE(peak.ok()) << peak.status();
    EXPECT_GE(*peak, 100 * kMiB);
  }
  auto group = MakeGroup("study-tmpfs", {64 * kMiB, 64, 2.0});
  ASSERT_NE(group, nullptr);
  int status = WaitFor(Spawn(group.get(), BwrapDd(GetParam(), 200)), absl::Seconds(30));
  ASSERT_NE(status, -1);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "200 MiB fit in 64 MiB";
  auto hit = group->LimitHit();
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(*hit, CgroupLimitHit::kMemory);
  EXPECT_TRUE(group->Remove().ok());
}

// bwrap 0.8 does take `--size BYTES` before `--tmpfs DEST`: a sized /tmp fills up with ENOSPC
// (a clean error for the optimizer) long before the group's memory limit.
TEST_F(CgroupTest, SizedBwrapTmpfsFailsWithNoSpaceInsideTheGroup) {
  if (const std::string reason = testing::NotInstalledReason("/usr/bin/bwrap", "bubblewrap");
      !reason.empty()) {
    BBO_SKIP_OR_FAIL_SETUP(reason, "no /usr/bin/bwrap");
  }
  auto group = MakeGroup("study-tmpfs-sized", {256 * kMiB, 64, 2.0});
  ASSERT_NE(group, nullptr);
  std::vector<std::string> argv = BwrapDd("/tmp/fill", 40);
  auto tmpfs = std::find(argv.begin(), argv.end(), "--tmpfs");
  argv.insert(tmpfs, {"--size", absl::StrCat(16 * kMiB)});
  int status = WaitFor(Spawn(group.get(), argv), absl::Seconds(30));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);  // dd: No space left on device.
  auto hit = group->LimitHit();
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(*hit, CgroupLimitHit::kNone);
}

INSTANTIATE_TEST_SUITE_P(TmpAndShm, TmpfsChargeTest,
                         ::testing::Values("/tmp/fill", "/dev/shm/fill"));

TEST_F(CgroupTest, ForkBombStopsAtThePidsLimitAndKillAllLeavesNoProcess) {
  CgroupLimits limits{256 * kMiB, 32, 1.0};
  auto group = MakeGroup("study-forkbomb", limits);
  ASSERT_NE(group, nullptr);
  pid_t pid =
      Spawn(group.get(), {"/bin/sh", "-c", "exec 2>/dev/null; f() { f | f & }; f; sleep 30"});
  std::set<pid_t> seen;
  std::string pids_current;
  for (const auto& [c, parent] : manager_->parent_dirs()) {
    if (c == "pids") pids_current = parent + "/study-forkbomb/pids.current";
  }
  ASSERT_FALSE(pids_current.empty());
  size_t most = 0;
  absl::Time end = absl::Now() + absl::Seconds(1);
  while (absl::Now() < end) {
    auto pids = group->Pids();
    ASSERT_TRUE(pids.ok()) << pids.status();
    seen.insert(pids->begin(), pids->end());
    most = std::max<size_t>(most, std::stoull(Slurp(pids_current)));
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_LE(most, 32u);
  EXPECT_GE(most, 16u) << "the bomb never grew: did it run?";
  auto hit = group->LimitHit();
  ASSERT_TRUE(hit.ok()) << hit.status();
  EXPECT_EQ(*hit, CgroupLimitHit::kPids);
  EXPECT_EQ(DescribeLimitHit(*hit, limits), "optimizer reached its 32-process limit");

  ASSERT_TRUE(group->KillAll().ok());
  EXPECT_NE(WaitFor(pid, absl::Seconds(5)), -1);
  auto left = group->Pids();
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
  absl::SleepFor(absl::Milliseconds(100));  // Orphans are reaped by init.
  for (pid_t p : seen) EXPECT_FALSE(Running(p)) << "survivor " << p;
  EXPECT_TRUE(group->Remove().ok());
}

TEST_F(CgroupTest, CpuSecondsGrowAndTheQuotaHolds) {
  auto full = MakeGroup("study-cpu-full", {256 * kMiB, 16, 1.0});
  auto capped = MakeGroup("study-cpu-capped", {256 * kMiB, 16, 0.2});
  ASSERT_NE(full, nullptr);
  ASSERT_NE(capped, nullptr);
  std::vector<std::string> busy = {"/bin/sh", "-c", "while :; do :; done"};
  pid_t a = Spawn(full.get(), busy);
  pid_t b = Spawn(capped.get(), busy);
  absl::SleepFor(absl::Milliseconds(100));
  auto full0 = full->CpuSeconds(), capped0 = capped->CpuSeconds();
  absl::SleepFor(absl::Seconds(1));
  auto full1 = full->CpuSeconds(), capped1 = capped->CpuSeconds();
  ASSERT_TRUE(full0.ok() && full1.ok() && capped0.ok() && capped1.ok());
  double full_used = *full1 - *full0, capped_used = *capped1 - *capped0;
  // Two cores shared with other builds: the uncapped loop may get well under a core, so
  // "grows" is a low bar; the quota is an upper bound that load cannot break.
  EXPECT_GT(full_used, 0.1);
  EXPECT_GT(capped_used, 0.02);
  EXPECT_LT(capped_used, 0.35);
  // Frozen, the busy loop stops accruing CPU time.
  ASSERT_TRUE(full->SetFrozen(true).ok());
  auto frozen0 = full->CpuSeconds();
  absl::SleepFor(absl::Milliseconds(300));
  auto frozen1 = full->CpuSeconds();
  ASSERT_TRUE(frozen0.ok() && frozen1.ok());
  EXPECT_LT(*frozen1 - *frozen0, 0.02);
  ASSERT_TRUE(full->SetFrozen(false).ok());
  EXPECT_TRUE(full->KillAll().ok());
  EXPECT_TRUE(capped->KillAll().ok());
  EXPECT_NE(WaitFor(a, absl::Seconds(5)), -1);
  EXPECT_NE(WaitFor(b, absl::Seconds(5)), -1);
}

constexpr char kDaemonize[] =
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        os.execv('/bin/sleep', ['sleep', '300'])\n"
    "    os._exit(0)\n"
    "time.sleep(300)\n";

// The daemon leaves the session and process group and is reparented to init; only the cgroup
// still knows it.
void ExpectKillAllKillsDaemon(StudyCgroup* group) {
  pid_t pid = Spawn(group, {"/usr/bin/python3", "-c", kDaemonize});
  pid_t daemon = -1;
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (daemon == -1 && absl::Now() < deadline) {
    auto pids = group->Pids();
    ASSERT_TRUE(pids.ok()) << pids.status();
    for (pid_t p : *pids) {
      if (p != pid && Running(p) && Slurp(absl::StrCat("/proc/", p, "/comm")) == "sleep\n") {
        daemon = p;
      }
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_NE(daemon, -1) << "the daemon never appeared";
  EXPECT_NE(SessionOf(daemon), SessionOf(pid));
  ASSERT_TRUE(group->KillAll().ok());
  EXPECT_NE(WaitFor(pid, absl::Seconds(5)), -1);
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_FALSE(Running(daemon));
  auto left = group->Pids();
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

TEST_F(CgroupTest, KillAllKillsADaemonizedGrandchild) {
  auto group = MakeGroup("study-daemon", {256 * kMiB, 16, 1.0});
  ASSERT_NE(group, nullptr);
  ExpectKillAllKillsDaemon(group.get());
  EXPECT_TRUE(group->Remove().ok());
}

TEST_F(CgroupTest, AddProcessMovesChildrenForkedBeforeTheMove) {
  auto group = MakeGroup("study-late", {256 * kMiB, 16, 1.0});
  ASSERT_NE(group, nullptr);
  pid_t pid = Spawn(nullptr, {"/bin/sh", "-c", "sleep 30 & sleep 30 & wait"});
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_TRUE(group->AddProcess(pid).ok());
  auto pids = group->Pids();
  ASSERT_TRUE(pids.ok());
  EXPECT_EQ(pids->size(), 3u);
  EXPECT_TRUE(group->Remove().ok());
  EXPECT_NE(WaitFor(pid, absl::Seconds(5)), -1);
}

// The v2 code path on a host whose unified hierarchy has no controllers (hybrid, like the v1
// CI machines): no limits, but cgroup.procs, cgroup.kill, cpu.stat and removal are real.
TEST(CgroupV2CoreTest, KillAllCpuSecondsAndRemoveOnTheUnifiedHierarchy) {
  CgroupManagerOptions options;
  options.parent_name = absl::StrCat("bbo-cgtest-v2-", getpid());
  options.version = CgroupVersion::kV2;
  options.require_controllers = false;
  options.move_self_to_leaf = false;
  auto manager = CgroupManager::Detect(options);
  if (!manager.ok()) BBO_SKIP_OR_FAIL_SETUP(testing::Cgroup2UnsupportedReason(), manager.status());
  auto group = (*manager)->Create("study-v2", {});
  ASSERT_TRUE(group.ok()) << group.status();
  ExpectKillAllKillsDaemon(group->get());
  auto cpu = (*group)->CpuSeconds();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_GT(*cpu, 0.0);
  std::string dir = (*manager)->parent_dirs().front().second + "/study-v2";
  EXPECT_TRUE(PathExists(dir));
  EXPECT_TRUE((*group)->Remove().ok());
  EXPECT_FALSE(PathExists(dir));
  std::string parent = (*manager)->parent_dirs().front().second;
  manager->reset();
  EXPECT_FALSE(PathExists(parent));
}

}  // namespace
}  // namespace bbo
