#ifndef BBO_WORKER_CGROUP_TUNING_H_
#define BBO_WORKER_CGROUP_TUNING_H_

// Cheap moves into a study's control group: the kernel's "favordynmods" cgroup option.
//
// Moving a process into a cgroup (the write to cgroup.procs a sandbox makes before it execs
// bubblewrap) takes the kernel's global threadgroup lock for writing. By default that lock is
// tuned for cheap forks and exits, and each write waits for an RCU grace period: measured on
// these v1 hosts, 2–15 ms per study start, 1.6–1.9x the whole bubblewrap start of a native
// optimizer (bench/sandbox_bench). With "favordynmods" the lock favours writers: the move costs
// microseconds and forks and exits pay a little more instead. The setting belongs to the
// cgroup2 root and is global, so it can be switched on at run time by reconfiguring any
// mounted cgroup2 hierarchy (the hybrid /sys/fs/cgroup/unified of a v1 host, /sys/fs/cgroup of
// a v2 host); the kernel's boot option cgroup_favordynmods=true does the same from boot.
// (Linux >= 6.0; see the kernel's cgroup-v2 admin guide.)
//
// A worker host runs studies and little else, so bbo-worker switches it on at start unless told
// not to (--cgroup_favordynmods=false). It stays on after the worker exits: it is a property of
// the host, like the worker's sysctls, and is documented in deploy/README.md.
//
// Thread safety: the functions are thread-safe (they read /proc and make one reconfiguration).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bbo {

// One cgroup2 mount, as /proc/self/mountinfo lists it.
struct Cgroup2Mount {
  std::string mount_point;
  // The hierarchy's own (super block) options, e.g. {"rw", "nsdelegate", "favordynmods"}.
  std::vector<std::string> super_options;
};

// The cgroup2 mounts in `mountinfo` (the text of a /proc/<pid>/mountinfo file), in order.
std::vector<Cgroup2Mount> ParseCgroup2Mounts(absl::string_view mountinfo);

// Whether favordynmods is in effect according to `mountinfo`: some cgroup or cgroup2 mount
// carries it.
bool FavorDynmodsInEffect(absl::string_view mountinfo);

// Switches favordynmods on (or off) by reconfiguring the first cgroup2 mount in
// /proc/self/mountinfo, keeping its other options (nsdelegate, memory_recursiveprot, ...).
// Returns what was done, for the log: "already on (/sys/fs/cgroup/unified)",
// "switched on for /sys/fs/cgroup/unified". FailedPrecondition, with what to do instead, when no
// cgroup2 hierarchy is mounted or the kernel refuses (older than 6.0, or not allowed).
absl::StatusOr<std::string> SetFavorDynmods(bool on);

}  // namespace bbo

#endif  // BBO_WORKER_CGROUP_TUNING_H_
