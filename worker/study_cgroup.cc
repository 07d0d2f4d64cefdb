// Each study's control group (worker/cgroup.h, StudyCgroup): its processes, figures, limits hit,
// freezing, killing and removal.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "worker/cgroup.h"
#include "worker/internal/cgroup_files.h"

namespace bbo {

using cgroup_files::Descendants;
using cgroup_files::ErrnoStatus;
using cgroup_files::Exists;
using cgroup_files::kKillBudget;
using cgroup_files::ParsePids;
using cgroup_files::ReadFile;
using cgroup_files::ReadKey;
using cgroup_files::ReadUint;
using cgroup_files::WriteFile;

StudyCgroup::StudyCgroup(CgroupVersion version, std::string name, CgroupLimits limits)
    : version_(version), name_(std::move(name)), limits_(limits) {}

StudyCgroup::~StudyCgroup() {
  // Callers wanting the error call Remove() first; a destructor has no one to tell.
  (void)Remove();
}

std::string StudyCgroup::Dir(const std::string& controller) const {
  for (const auto& [c, dir] : controller_dirs_) {
    if (c == controller) return dir;
  }
  return "";
}

absl::Status StudyCgroup::AddProcess(pid_t pid) {
  if (removed_) return absl::FailedPreconditionError("cgroup " + name_ + " was removed");
  std::string value = absl::StrCat(pid);
  for (const std::string& procs : procs_files_) RETURN_IF_ERROR(WriteFile(procs, value));
  // Children forked before the move stayed behind; move them too, until the walk finds no new
  // one (new forks of moved processes are born inside).
  std::set<pid_t> moved;
  for (int round = 0; round < 20; ++round) {
    std::set<pid_t> descendants = Descendants(pid);
    bool fresh = false;
    for (pid_t child : descendants) {
      if (!moved.insert(child).second) continue;
      fresh = true;
      for (const std::string& procs : procs_files_) {
        absl::Status s = WriteFile(procs, absl::StrCat(child));
        if (!s.ok() && !absl::IsNotFound(s)) return s;  // NotFound: it exited meanwhile.
      }
    }
    if (!fresh) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<pid_t>> StudyCgroup::Pids() const {
  if (removed_ || procs_files_.empty()) return std::vector<pid_t>();
  std::string dir = Dir("pids").empty() ? dirs_.front() : Dir("pids");
  ASSIGN_OR_RETURN(std::string text, ReadFile(dir + "/cgroup.procs"));
  return ParsePids(text);
}

absl::StatusOr<double> StudyCgroup::CpuSeconds() const {
  std::string dir = Dir("cpuacct");
  if (dir.empty()) return absl::UnimplementedError("no cpuacct controller");
  if (version_ == CgroupVersion::kV1) {
    ASSIGN_OR_RETURN(uint64_t ns, ReadUint(dir + "/cpuacct.usage"));
    return static_cast<double>(ns) * 1e-9;
  }
  ASSIGN_OR_RETURN(std::optional<uint64_t> us, ReadKey(dir + "/cpu.stat", "usage_usec"));
  if (!us.has_value()) return absl::InternalError("no usage_usec in " + dir + "/cpu.stat");
  return static_cast<double>(*us) * 1e-6;
}

absl::StatusOr<uint64_t> StudyCgroup::MemoryPeakBytes() const {
  std::string dir = Dir("memory");
  std::string file =
      dir + (version_ == CgroupVersion::kV1 ? "/memory.max_usage_in_bytes" : "/memory.peak");
  if (dir.empty() || !Exists(file)) {
    return absl::UnimplementedError("this kernel does not record the peak memory of a cgroup");
  }
  return ReadUint(file);
}

absl::Status StudyCgroup::ResetMemoryPeak() {
  const std::string dir = Dir("memory");
  if (dir.empty() || version_ != CgroupVersion::kV1) {
    return absl::UnimplementedError("the peak memory of this cgroup cannot be reset");
  }
  absl::Status s = WriteFile(dir + "/memory.max_usage_in_bytes", "0");
  peak_reset_ = s.ok();
  return s;
}

absl::StatusOr<uint64_t> StudyCgroup::MemoryPeakSinceReset() const {
  if (!peak_reset_) return absl::FailedPreconditionError("the memory peak was not reset");
  return MemoryPeakBytes();
}

absl::StatusOr<CgroupLimitHit> StudyCgroup::LimitHit() const {
  if (std::string mem = Dir("memory"); !mem.empty()) {
    if (version_ == CgroupVersion::kV1) {
      ASSIGN_OR_RETURN(std::optional<uint64_t> kills,
                       ReadKey(mem + "/memory.oom_control", "oom_kill"));
      ASSIGN_OR_RETURN(std::optional<uint64_t> under,
                       ReadKey(mem + "/memory.oom_control", "under_oom"));
      if (kills.value_or(0) > 0 || under.value_or(0) > 0) return CgroupLimitHit::kMemory;
      if (!kills.has_value()) {
        // Kernels before 4.13 do not count OOM kills; a failed charge is the best sign left.
        ASSIGN_OR_RETURN(uint64_t failcnt, ReadUint(mem + "/memory.failcnt"));
        if (failcnt > 0) return CgroupLimitHit::kMemory;
      }
    } else {
      ASSIGN_OR_RETURN(std::optional<uint64_t> kills, ReadKey(mem + "/memory.events", "oom_kill"));
      ASSIGN_OR_RETURN(std::optional<uint64_t> group_kills,
                       ReadKey(mem + "/memory.events", "oom_group_kill"));
      if (kills.value_or(0) > 0 || group_kills.value_or(0) > 0) return CgroupLimitHit::kMemory;
    }
  }
  if (std::string pids = Dir("pids"); !pids.empty()) {
    ASSIGN_OR_RETURN(std::optional<uint64_t> max, ReadKey(pids + "/pids.events", "max"));
    if (max.value_or(0) > 0) return CgroupLimitHit::kPids;
  }
  return CgroupLimitHit::kNone;
}

absl::Status StudyCgroup::SetFrozen(bool frozen) {
  std::string dir = Dir("freezer");
  if (dir.empty()) return absl::UnimplementedError("no freezer");
  absl::Time deadline = absl::Now() + absl::Seconds(1);
  if (version_ == CgroupVersion::kV1) {
    RETURN_IF_ERROR(WriteFile(dir + "/freezer.state", frozen ? "FROZEN" : "THAWED"));
    if (!frozen) return absl::OkStatus();
    // FREEZING until every task has stopped; a task stuck in the kernel may delay that.
    while (absl::Now() < deadline) {
      ASSIGN_OR_RETURN(std::string state, ReadFile(dir + "/freezer.state"));
      if (absl::StripAsciiWhitespace(state) == "FROZEN") return absl::OkStatus();
      absl::SleepFor(absl::Milliseconds(2));
    }
    return absl::DeadlineExceededError("cgroup " + name_ + " did not freeze");
  }
  RETURN_IF_ERROR(WriteFile(dir + "/cgroup.freeze", frozen ? "1" : "0"));
  if (!frozen) return absl::OkStatus();
  while (absl::Now() < deadline) {
    ASSIGN_OR_RETURN(std::optional<uint64_t> state, ReadKey(dir + "/cgroup.events", "frozen"));
    if (state.value_or(0) == 1) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(2));
  }
  return absl::DeadlineExceededError("cgroup " + name_ + " did not freeze");
}

absl::Status StudyCgroup::KillAll() {
  if (removed_ || dirs_.empty()) return absl::OkStatus();
  absl::Time deadline = absl::Now() + kKillBudget;
  std::string kill_file = dirs_.front() + "/cgroup.kill";
  if (version_ == CgroupVersion::kV2 && Exists(kill_file)) {
    RETURN_IF_ERROR(WriteFile(kill_file, "1"));
  }
  bool can_freeze = !Dir("freezer").empty();
  while (true) {
    ASSIGN_OR_RETURN(std::vector<pid_t> pids, Pids());
    if (pids.empty()) return absl::OkStatus();
    if (absl::Now() > deadline) {
      if (can_freeze) (void)SetFrozen(false);  // Never leave a group frozen behind us.
      return absl::DeadlineExceededError(
          absl::StrCat("cgroup ", name_, " still holds ", pids.size(), " processes after SIGKILL"));
    }
    // Frozen, nothing in the group can fork while we read and kill: one pass finds every pid.
    // Without a freezer, repeat until forks lose the race.
    bool frozen = can_freeze && SetFrozen(true).ok();
    if (frozen) {
      ASSIGN_OR_RETURN(pids, Pids());
    }
    for (pid_t pid : pids) kill(pid, SIGKILL);
    if (can_freeze) RETURN_IF_ERROR(SetFrozen(false));
    absl::SleepFor(absl::Milliseconds(5));
  }
}

absl::Status StudyCgroup::Remove() {
  if (removed_) return absl::OkStatus();
  absl::Status status = KillAll();
  absl::Time deadline = absl::Now() + absl::Seconds(2);
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
    while (rmdir(it->c_str()) != 0 && errno != ENOENT) {
      // EBUSY while the last killed tasks finish exiting.
      if (errno != EBUSY || absl::Now() > deadline) {
        if (status.ok()) status = ErrnoStatus(errno, "cannot remove cgroup", *it);
        break;
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  }
  if (status.ok()) removed_ = true;
  return status;
}
}  // namespace bbo
