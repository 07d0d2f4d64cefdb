#ifndef BBO_WORKER_STUDY_TMP_H_
#define BBO_WORKER_STUDY_TMP_H_

// StudyTmp: the private, size-limited scratch space of one study. The worker mounts a tmpfs of
// `size` bytes (mode 0700, owned by the sandbox's host user, nosuid, nodev) on a folder of its
// own, and the sandbox binds that folder at both /tmp and /dev/shm, so a submission that fills
// either gets ENOSPC at the size, not the host's memory. The pages are charged to the memory
// cgroup of the process that writes them: the optimizer's study group (worker/cgroup.h).
//
// bubblewrap 0.8's own --tmpfs has no size option (it is half of RAM), hence this mount. Making
// it needs CAP_SYS_ADMIN in the worker's mount namespace (a root worker); without it Mount()
// fails with FailedPrecondition and the caller falls back to bubblewrap's tmpfs, bounded then
// only by the study's memory cgroup.
//
// Not thread-safe; one per study. Destruction unmounts (lazily: a process still holding the
// mount keeps it until it exits) and removes the folder; errors there are logged.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace bbo {

class StudyTmp {
 public:
  // Creates `dir` (its parent must exist) and mounts the tmpfs there.
  static absl::StatusOr<std::unique_ptr<StudyTmp>> Mount(const std::string& dir, uint64_t size,
                                                         uid_t owner_uid, gid_t owner_gid);
  ~StudyTmp();
  StudyTmp(const StudyTmp&) = delete;
  StudyTmp& operator=(const StudyTmp&) = delete;

  const std::string& dir() const { return dir_; }
  uint64_t size() const { return size_; }

 private:
  StudyTmp(std::string dir, uint64_t size) : dir_(std::move(dir)), size_(size) {}
  std::string dir_;
  uint64_t size_;
};

// Moves this process into a mount namespace of its own whose mounts do not propagate back to
// the host (MS_SLAVE: the host's later mounts still show here). The study tmpfs mounts of a
// worker then vanish with it, even when it is killed with SIGKILL. Call it first thing in
// main(), before any thread starts: a mount namespace is per thread, and threads created later
// inherit it. FailedPrecondition without CAP_SYS_ADMIN.
absl::Status EnterPrivateMountNamespace();

// Unmounts and removes the study folders under `parent` whose name `is_stale` accepts (left by
// a worker that was killed). Returns how many it removed.
int RemoveStaleStudyTmps(const std::string& parent,
                         const std::function<bool(const std::string& name)>& is_stale);

}  // namespace bbo

#endif  // BBO_WORKER_STUDY_TMP_H_
