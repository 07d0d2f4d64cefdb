// What a SIGKILLed worker leaves, removed by the next one (issue 34, item 11), with real
// control groups and real processes. The dead worker ran as under Slurm on cgroups v1: moved into
// a "job" group of its own in the memory and freezer hierarchies only (where the next worker's
// own sweep never looks), its pids, cpu and cpuacct groups nested under the same path
// (follow_memory_cgroup), a study group with a process in it, and a scratch folder beside the
// next worker's.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/cgroup.h"
#include "worker/worker.h"
#include "worker/worker_record.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

bool OnCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

bool WriteTo(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  return static_cast<bool>(out);
}

// In the forked "worker": sets up as described above, writes "J <dir>\n" for each "job" group
// it made and "P <sleeper pid>\n" to `fd`, then dies by SIGKILL. Exits 1 (with a message on `fd`) when a step fails.
[[noreturn]] void DyingWorker(int fd, const std::string& work_dir) {
  auto fail = [&](const std::string& why) {
    const std::string msg = "FAIL " + why + "\n";
    (void)!write(fd, msg.data(), msg.size());
    _exit(1);
  };
  CgroupManagerOptions job;
  job.parent_name = absl::StrCat("bbo-test-job-", getpid());
  absl::StatusOr<std::unique_ptr<CgroupManager>> job_groups = CgroupManager::Detect(job);
  if (!job_groups.ok()) fail(job_groups.status().ToString());
  if ((*job_groups)->version() != CgroupVersion::kV1) fail("not cgroups v1");
  for (const auto& [controller, dir] : (*job_groups)->parent_dirs()) {
    const std::string made = absl::StrCat("J ", dir, "\n");  // for the test to remove
    (void)!write(fd, made.data(), made.size());
    if ((controller == "memory" || controller == "freezer") &&
        !WriteTo(dir + "/cgroup.procs", absl::StrCat(getpid()))) {
      fail("cannot move into " + dir);
    }
  }
  CgroupManagerOptions worker;
  worker.parent_name = "bbo-arena-stale-test";
  worker.follow_memory_cgroup = true;
  absl::StatusOr<std::unique_ptr<CgroupManager>> groups = CgroupManager::Detect(worker);
  if (!groups.ok()) fail(groups.status().ToString());
  absl::StatusOr<std::unique_ptr<WorkerRecord>> record =
      WorkerRecord::Claim(work_dir, groups->get());
  if (!record.ok()) fail(record.status().ToString());
  absl::StatusOr<std::unique_ptr<StudyCgroup>> study =
      (*groups)->Create(absl::StrCat("study-7-", getpid(), "-0"), CgroupLimits());
  if (!study.ok()) fail(study.status().ToString());
  const pid_t sleeper = fork();
  if (sleeper == 0) {
    execl("/bin/sleep", "sleep", "120", nullptr);
    _exit(127);
  }
  if (absl::Status s = (*study)->AddProcess(sleeper); !s.ok()) fail(s.ToString());
  const std::string line = absl::StrCat("P ", sleeper, "\n");
  (void)!write(fd, line.data(), line.size());
  raise(SIGKILL);
  _exit(2);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Alive(pid_t pid) {
  const std::string stat = ReadAll(absl::StrCat("/proc/", pid, "/stat"));
  if (stat.empty()) return false;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] != 'Z';
}

TEST(StaleGroupsTest, NextWorkerRemovesADeadWorkersGroupsInEveryControllerAndItsScratch) {
  if (geteuid() != 0) {
    if (OnCi()) FAIL() << "needs root for cgroups v1 on the CI machine";
    GTEST_SKIP() << "needs root";
  }
  const fs::path root = fs::temp_directory_path() / absl::StrCat("bbo-stale-test-", getpid());
  fs::create_directories(root / "dead");
  fs::create_directories(root / "next");
  fs::permissions(root / "dead", fs::perms::owner_all);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);  // the sleeper must not hold it open
  const pid_t dead = fork();
  if (dead == 0) {
    close(pipe_fds[0]);
    DyingWorker(pipe_fds[1], (root / "dead").string());
  }
  close(pipe_fds[1]);
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(dead, &status, 0);
  if (absl::StartsWith(out, "FAIL") && !OnCi() &&
      absl::StrContains(out, "not cgroups v1")) {
    fs::remove_all(root);
    GTEST_SKIP() << "this host has no cgroups v1: " << out;
  }
  std::vector<std::string> job_dirs;
  pid_t sleeper = 0;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "J ")) job_dirs.emplace_back(line);
    if (absl::ConsumePrefix(&line, "P ")) sleeper = std::atoi(std::string(line).c_str());
  }
  struct CleanUp {  // also when an assertion fails: the sweep (idempotent), then the "job"
    const fs::path& root;  // groups, the batch system's part, here the test's
    const std::vector<std::string>& dirs;
    ~CleanUp() {
      RemoveDeadWorkers((root / "next").string());
      for (const std::string& d : dirs) rmdir(d.c_str());
      std::error_code ec;
      fs::remove_all(root, ec);
    }
  } clean_up{root, job_dirs};
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << out;
  ASSERT_GT(sleeper, 0) << out;
  ASSERT_TRUE(Alive(sleeper));

  // What it left: its record names every parent group, the mirrored ones nested under the job.
  const std::string record = ReadAll((root / "dead" / ".bbo-worker").string());
  std::vector<std::string> left;
  const std::string job = absl::StrCat("bbo-test-job-", dead);
  for (absl::string_view line : absl::StrSplit(record, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() == 3 && f[0] == "parent") {
      EXPECT_THAT(f[2], ::testing::HasSubstr(job)) << f[1] << " is not inside the job's groups";
      left.push_back(f[2]);
      EXPECT_TRUE(fs::exists(fs::path(f[2]) / absl::StrCat("study-7-", dead, "-0"))) << f[2];
    }
  }
  ASSERT_GE(left.size(), 4u) << record;

  const DeadWorkerSweep swept = RemoveDeadWorkers((root / "next").string());
  EXPECT_EQ(swept.groups, 1);
  EXPECT_EQ(swept.folders, 1);
  for (const std::string& dir : left) EXPECT_FALSE(fs::exists(dir)) << dir << " left behind";
  EXPECT_FALSE(fs::exists(root / "dead")) << "the dead worker's scratch folder left behind";
  EXPECT_TRUE(fs::exists(root / "next"));
  for (int i = 0; i < 100 && Alive(sleeper); ++i) usleep(10000);
  EXPECT_FALSE(Alive(sleeper)) << "the study's process survived";

  // The "job" groups are the batch system's to remove (here the test's): empty now, the
  // mirrored levels below them gone with the sweep.
  for (const std::string& dir : job_dirs) {
    EXPECT_TRUE(rmdir(dir.c_str()) == 0 || errno == ENOENT) << dir << ": " << strerror(errno);
  }
  fs::remove_all(root);
}

// Workers in one cgroup share its parent group, and each removes it when it finds it empty (at
// its exit, or sweeping a dead worker's record): another one's next study makes it again.
TEST(StaleGroupsTest, ASharedParentRemovedByAnotherWorkerIsMadeAgain) {
  if (geteuid() != 0) {
    if (OnCi()) FAIL() << "needs root for cgroups on the CI machine";
    GTEST_SKIP() << "needs root";
  }
  const std::string name = absl::StrCat("bbo-shared-parent-test-", getpid());
  absl::StatusOr<std::unique_ptr<CgroupManager>> idle = CgroupManager::Detect(name);
  ASSERT_TRUE(idle.ok()) << idle.status();
  {
    absl::StatusOr<std::unique_ptr<CgroupManager>> leaving = CgroupManager::Detect(name);
    ASSERT_TRUE(leaving.ok()) << leaving.status();
  }  // its exit removes the (empty) shared parent
  for (const auto& [controller, dir] : (*idle)->parent_dirs()) {
    EXPECT_FALSE(fs::exists(dir)) << dir;
  }
  absl::StatusOr<std::unique_ptr<StudyCgroup>> study =
      (*idle)->Create(absl::StrCat("study-1-", getpid(), "-0"), CgroupLimits());
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_TRUE((*study)->Remove().ok());
}

TEST(StaleGroupsTest, ALiveWorkersRecordAndFolderAreLeftAlone) {
  const fs::path root = fs::temp_directory_path() / absl::StrCat("bbo-live-test-", getpid());
  fs::create_directories(root / "live");
  fs::create_directories(root / "next");
  fs::permissions(root / "live", fs::perms::owner_all);
  {
    absl::StatusOr<std::unique_ptr<WorkerRecord>> record =
        WorkerRecord::Claim((root / "live").string(), nullptr);
    ASSERT_TRUE(record.ok()) << record.status();
    const DeadWorkerSweep swept = RemoveDeadWorkers((root / "next").string());
    EXPECT_EQ(swept.folders, 0);
    EXPECT_TRUE(fs::exists(root / "live" / ".bbo-worker"));
  }
  // Released (the worker ended normally): its record is gone, so the folder is not a worker's.
  EXPECT_FALSE(fs::exists(root / "live" / ".bbo-worker"));
  EXPECT_EQ(RemoveDeadWorkers((root / "next").string()).folders, 0);
  EXPECT_TRUE(fs::exists(root / "live"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace bbo
