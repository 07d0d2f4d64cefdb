#include "worker/study_tmp.h"

#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace bbo {

absl::StatusOr<std::unique_ptr<StudyTmp>> StudyTmp::Mount(const std::string& dir, uint64_t size,
                                                          uid_t owner_uid, gid_t owner_gid) {
  if (size == 0) return absl::InvalidArgumentError("study tmp: size must be > 0");
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", strerror(errno)));
  }
  const std::string data =
      absl::StrCat("size=", size, ",mode=0700,uid=", owner_uid, ",gid=", owner_gid);
  if (mount("bbo-study-tmp", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, data.c_str()) != 0) {
    const int e = errno;
    rmdir(dir.c_str());
    if (e == EPERM) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot mount a size-limited /tmp for the sandbox (", strerror(e),
          "): the worker needs to run as root (or with CAP_SYS_ADMIN) for it"));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot mount a tmpfs on ", dir, ": ", strerror(e)));
  }
  return std::unique_ptr<StudyTmp>(new StudyTmp(dir, size));
}

StudyTmp::~StudyTmp() {
  if (umount2(dir_.c_str(), MNT_DETACH) != 0) {
    spdlog::warn("cannot unmount the study tmpfs {}: {}", dir_, strerror(errno));
    return;
  }
  if (rmdir(dir_.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("cannot remove {}: {}", dir_, strerror(errno));
  }
}

absl::Status EnterPrivateMountNamespace() {
  if (unshare(CLONE_NEWNS) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot enter a private mount namespace: ", strerror(errno)));
  }
  if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make the mounts of this process private: ", strerror(errno)));
  }
  return absl::OkStatus();
}

int RemoveStaleStudyTmps(const std::string& parent,
                         const std::function<bool(const std::string& name)>& is_stale) {
  int removed = 0;
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return 0;
  std::vector<std::string> stale;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != ".." && is_stale(name)) stale.push_back(name);
  }
  closedir(d);
  for (const std::string& name : stale) {
    const std::string dir = parent + "/" + name;
    umount2(dir.c_str(), MNT_DETACH);  // EINVAL when nothing is mounted there: fine
    if (rmdir(dir.c_str()) == 0) {
      ++removed;
    } else {
      spdlog::warn("cannot remove the stale study folder {}: {}", dir, strerror(errno));
    }
  }
  return removed;
}

}  // namespace bbo
