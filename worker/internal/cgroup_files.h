#ifndef BBO_WORKER_INTERNAL_CGROUP_FILES_H_
#define BBO_WORKER_INTERNAL_CGROUP_FILES_H_

// Reading and writing control-group files and walking the process tree, for the cgroup manager
// (worker/cgroup.cc) and each study's group (worker/study_cgroup.cc). Plain functions;
// thread-safe.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace bbo::cgroup_files {

// How long killing a group's processes may take.
inline constexpr absl::Duration kKillBudget = absl::Seconds(5);
// What to do when the groups are not writable (said in every such error).
extern const char kNotWritableHelp[];

bool Exists(const std::string& path);
// The status of errno `err` from `what` on `path` (NotFound, AlreadyExists, FailedPrecondition
// with kNotWritableHelp for permissions, FailedPrecondition otherwise).
absl::Status ErrnoStatus(int err, absl::string_view what, const std::string& path);
absl::StatusOr<std::string> ReadFile(const std::string& path);
// Cgroup files take one value per write(2); the kernel reports refusal as the write's errno.
absl::Status WriteFile(const std::string& path, absl::string_view value);
absl::StatusOr<uint64_t> ReadUint(const std::string& path);
// Value of `key` in a flat-keyed file ("key value" per line); nullopt when absent.
absl::StatusOr<std::optional<uint64_t>> ReadKey(const std::string& path, absl::string_view key);
// Every descendant of `root` (from /proc).
std::set<pid_t> Descendants(pid_t root);
// The pids of a cgroup.procs file's text.
absl::StatusOr<std::vector<pid_t>> ParsePids(const std::string& text);

}  // namespace bbo::cgroup_files

#endif  // BBO_WORKER_INTERNAL_CGROUP_FILES_H_
