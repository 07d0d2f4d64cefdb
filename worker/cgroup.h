#ifndef BBO_WORKER_CGROUP_H_
#define BBO_WORKER_CGROUP_H_

// A control group per study: caps the memory (swap and tmpfs pages included), the number of
// tasks and the CPU share of everything a sandboxed optimizer starts, accounts its CPU time and
// kills the whole tree at the end, on cgroups v1 (one hierarchy per controller) and v2 (one
// unified hierarchy), detected at start.
//
// Layout. Groups nest inside the worker's own cgroup (read from /proc/self/cgroup), so a worker
// run under systemd, a container or another supervisor stays inside the limits it was given:
//   <own cgroup>/<parent_name>/<study name>        (v2; v1: the same under each controller)
// On v2 the worker's own cgroup must delegate memory, pids and cpu to its children. When it
// cannot because the worker itself sits in it ("no internal processes" rule), the worker moves
// itself into the sibling leaf <own cgroup>/<parent_name>-worker first (optional, see
// CgroupManagerOptions::move_self_to_leaf).
//
// Kernel facts relied upon: a child process starts in its parent's cgroup; pages of a tmpfs
// are charged to the memory cgroup of the process that first touches them (so a sandbox's
// private /tmp and /dev/shm count against its memory limit); with swap accounting disabled
// (v1 without memory.memsw.*) swap is not limited by the group, so hosts should run without
// swap or with swap accounting on.
//
// Thread safety: CgroupManager is thread-safe (Create may be called concurrently). A
// StudyCgroup is not thread-safe; it is owned by the one study that uses it.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bbo {

struct CgroupLimits {
  // Memory of every process in the group, bytes: anonymous memory, page cache, tmpfs pages
  // written by the group and swap (v1 memory.memsw.limit_in_bytes when swap accounting is on;
  // v2 memory.swap.max = 0). Default 4 GiB. 0 = no limit.
  uint64_t memory_bytes = uint64_t{4} << 30;
  // Tasks (processes and threads) alive at once in the group. Default 256. 0 = no limit.
  uint64_t pids = 256;
  // CPU quota as a number of cores (1.0 = one full core, 0.5 = half a core), enforced over
  // 100 ms periods. Default 1.0. <= 0 = no quota.
  double cpus = 1.0;
};

enum class CgroupVersion { kV1, kV2 };

struct CgroupManagerOptions {
  // Name of the worker's parent group under its own cgroup. Must be a single path component.
  std::string parent_name = "bbo-arena";
  // Forces a version; unset = detect: v2 when the unified hierarchy delegates memory, pids and
  // cpu to the worker's cgroup, else v1 when memory, pids, cpu and cpuacct are mounted.
  std::optional<CgroupVersion> version;
  // v2 only: may the worker move itself into <own>/<parent_name>-worker so that its own cgroup
  // can delegate controllers (see the file comment)? Default true.
  bool move_self_to_leaf = true;
  // For tests and diagnostics only: accept a hierarchy that lacks some controllers; groups then
  // enforce, measure and report only what the present controllers offer. Default true.
  bool require_controllers = true;
  // v1 only: a controller whose hierarchy leaves the worker in its root while the memory
  // controller places it deeper (Slurm's job groups exist in memory and freezer only) gets its
  // groups under the same path all the same, made as needed: <memory path>/<parent_name>/...
  // in every hierarchy, so every study group sits inside the job's path and nothing lands at
  // the node's top level. The levels made are removed, when empty, with the manager (or by the
  // sweep of a later worker, worker/worker_record.h). Default false: the groups of such a
  // controller go under the worker's own cgroup there, the hierarchy's root.
  bool follow_memory_cgroup = false;
};

// Where a worker's groups are, everything needed to remove them after it died.
struct CgroupLayout {
  // controller -> the worker's parent group (<own cgroup>/<parent_name>); v2: one directory.
  std::vector<std::pair<std::string, std::string>> parents;
  // The worker's own cgroup directory in each hierarchy (with follow_memory_cgroup, the
  // mirrored one).
  std::vector<std::string> own;
  // v2: what the parent's cgroup.subtree_control enables ("+memory +pids +cpu"), written again
  // when the parent is made again.
  std::string subtree_control;
  // A mirrored own directory (CgroupManagerOptions::follow_memory_cgroup) and the mount point
  // of its hierarchy: its levels are removed from the deepest up while empty, never the mount.
  struct Mirror {
    std::string mount_point;
    std::string dir;
  };
  std::vector<Mirror> mirrored;
};

// Which limit, if any, a group has hit.
enum class CgroupLimitHit { kNone, kMemory, kPids };

// "optimizer exceeded its 4 GiB memory limit", "optimizer reached its 256-process limit", or ""
// for kNone.
std::string DescribeLimitHit(CgroupLimitHit hit, const CgroupLimits& limits);

// One study's group. Destruction kills every process in it and removes its directories
// (errors there are dropped: call Remove() first to see them).
class StudyCgroup {
 public:
  ~StudyCgroup();
  StudyCgroup(const StudyCgroup&) = delete;
  StudyCgroup& operator=(const StudyCgroup&) = delete;

  // Moves `pid` into the group, then every descendant `pid` had already forked (walked through
  // /proc, until no new one appears), so calling it right after a launch is safe even when the
  // launched program (bwrap) has forked meanwhile. Processes forked later inherit the group.
  // NotFound when `pid` has gone; FailedPrecondition when the kernel refuses the move.
  absl::Status AddProcess(pid_t pid);

  // The cgroup.procs files a launcher may write "0" into in the child between fork and exec
  // (async-signal-safe open/write/close), which avoids any window outside the group.
  const std::vector<std::string>& procs_files() const { return procs_files_; }

  // Pids of the processes in the group now.
  absl::StatusOr<std::vector<pid_t>> Pids() const;

  // CPU time (user + system) used by every process that ever ran in the group, seconds
  // (v1 cpuacct.usage, v2 cpu.stat usage_usec). Differences between calls give per-batch time.
  absl::StatusOr<double> CpuSeconds() const;

  // Highest memory use of the group so far, bytes (v1 memory.max_usage_in_bytes, v2
  // memory.peak). Unimplemented when the kernel does not record it (v2 before 5.19).
  absl::StatusOr<uint64_t> MemoryPeakBytes() const;
  // Starts a new high-water mark at the group's current use, so that MemoryPeakBytes gives the
  // peak since this call (v1: writes memory.max_usage_in_bytes). Unimplemented on v2, whose
  // memory.peak cannot be reset for other readers.
  absl::Status ResetMemoryPeak();
  // The peak since the last successful ResetMemoryPeak, bytes; FailedPrecondition when there
  // was none (the figure would be the whole study's).
  absl::StatusOr<uint64_t> MemoryPeakSinceReset() const;

  // Whether the memory limit killed a process (OOM kill) or a fork/clone failed at the pids
  // limit. Memory wins when both happened. Reads counters, so it stays true after KillAll.
  absl::StatusOr<CgroupLimitHit> LimitHit() const;

  // Kills every process in the group, including daemons that left the session and process
  // group: v2 cgroup.kill when present; otherwise freeze, SIGKILL every pid, thaw, repeated
  // until the group is empty. DeadlineExceeded when processes remain after ~5 s.
  absl::Status KillAll();

  // Freezes (true) or thaws (false) every process in the group (v1 freezer, v2 cgroup.freeze):
  // a frozen group uses no CPU, so a worker may freeze the optimizer between its replies to
  // stop background work charging the next batch. Freezing waits up to 1 s for every task to
  // stop (DeadlineExceeded otherwise); Unimplemented without a freezer.
  absl::Status SetFrozen(bool frozen);

  // KillAll, then removes the group's directories. Idempotent.
  absl::Status Remove();

  const std::string& name() const { return name_; }
  const CgroupLimits& limits() const { return limits_; }

 private:
  friend class CgroupManager;
  StudyCgroup(CgroupVersion version, std::string name, CgroupLimits limits);

  // Directory holding `controller`'s files ("" when that controller is absent).
  std::string Dir(const std::string& controller) const;

  CgroupVersion version_;
  std::string name_;
  CgroupLimits limits_;
  // v1: controller -> directory (co-mounted controllers share one). v2: all map to one.
  std::vector<std::pair<std::string, std::string>> controller_dirs_;
  // Distinct directories, created in this order and removed in reverse.
  std::vector<std::string> dirs_;
  // ResetMemoryPeak succeeded (the study's host calls it, one thread).
  bool peak_reset_ = false;
  std::vector<std::string> procs_files_;
  bool removed_ = false;
};

class CgroupManager {
 public:
  // Finds the cgroup hierarchy (see CgroupManagerOptions::version) and creates the worker's
  // parent group. FailedPrecondition, saying what to do, when cgroups are missing or not
  // writable (not root, read-only mount, v2 without delegated controllers).
  static absl::StatusOr<std::unique_ptr<CgroupManager>> Detect(
      const std::string& parent_name = "bbo-arena");
  static absl::StatusOr<std::unique_ptr<CgroupManager>> Detect(const CgroupManagerOptions& options);

  // Removes the parent group when it is empty (other workers may share it).
  ~CgroupManager();

  // Creates <parent>/<name> with `limits`. `name` is one path component ([A-Za-z0-9._-]);
  // InvalidArgument otherwise; AlreadyExists when a group of that name exists. A parent group
  // removed meanwhile (workers in one cgroup share it, and each removes it when it finds it
  // empty: at its exit, or sweeping a dead worker's) is made again.
  absl::StatusOr<std::unique_ptr<StudyCgroup>> Create(const std::string& name,
                                                      const CgroupLimits& limits) const;

  // Removes the groups under the parent whose name `is_stale` accepts (e.g. those of a worker
  // that died with SIGKILL), killing whatever still runs in them. Returns how many it removed;
  // the first error otherwise (the rest are still tried).
  absl::StatusOr<int> RemoveStale(const std::function<bool(const std::string& name)>& is_stale);
  // The same over the parent groups of a layout, e.g. that of a dead worker.
  static absl::StatusOr<int> RemoveStaleIn(
      CgroupVersion version, const std::vector<std::pair<std::string, std::string>>& parent_dirs,
      const std::function<bool(const std::string& name)>& is_stale);
  // Removes the parent groups of `layout` and its mirrored levels, those that are empty (others
  // are still in use); no error (the destructor's cleanup, and the sweep's of a dead worker).
  static void RemoveParents(const CgroupLayout& layout);

  CgroupVersion version() const { return version_; }
  // Whether `controller` ("memory", "pids", "cpu", "cpuacct", "freezer") is available.
  bool Has(const std::string& controller) const;
  // controller -> parent group directory (v2: every controller maps to the same directory).
  const std::vector<std::pair<std::string, std::string>>& parent_dirs() const {
    return layout_.parents;
  }
  const CgroupLayout& layout() const { return layout_; }

 private:
  CgroupManager(CgroupVersion version, CgroupLayout layout);

  CgroupVersion version_;
  CgroupLayout layout_;
};

}  // namespace bbo

#endif  // BBO_WORKER_CGROUP_H_
