#include "worker/worker_record.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "spdlog/spdlog.h"
#include "worker/study_tmp.h"
#include "worker/worker.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

constexpr char kRecordName[] = ".bbo-worker";

std::string Serialize(const CgroupManager* cgroups) {
  std::string out = absl::StrCat("pid\t", getpid(), "\n");
  if (cgroups == nullptr) return out;
  absl::StrAppend(&out, "version\t", cgroups->version() == CgroupVersion::kV1 ? "v1" : "v2", "\n");
  for (const auto& [controller, dir] : cgroups->layout().parents) {
    absl::StrAppend(&out, "parent\t", controller, "\t", dir, "\n");
  }
  for (const CgroupLayout::Mirror& m : cgroups->layout().mirrored) {
    absl::StrAppend(&out, "mirror\t", m.mount_point, "\t", m.dir, "\n");
  }
  return out;
}

struct Parsed {
  CgroupVersion version = CgroupVersion::kV1;
  CgroupLayout layout;
};

// Only paths under /sys/fs/cgroup are acted upon, whatever a record says.
bool UnderCgroupFs(const std::string& path) {
  return path.rfind("/sys/fs/cgroup/", 0) == 0 && path.find("/..") == std::string::npos;
}

Parsed Parse(const std::string& text) {
  Parsed p;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() == 2 && f[0] == "version") {
      p.version = f[1] == "v2" ? CgroupVersion::kV2 : CgroupVersion::kV1;
    } else if (f.size() == 3 && f[0] == "parent" && UnderCgroupFs(f[2])) {
      p.layout.parents.emplace_back(f[1], f[2]);
    } else if (f.size() == 3 && f[0] == "mirror" && UnderCgroupFs(f[2])) {
      p.layout.mirrored.push_back({f[1], f[2]});
    }
  }
  return p;
}

// Opens `dir`'s record when it is a dead worker's: it exists, is ours, and its lock is free
// (then held by the returned descriptor); -1 otherwise.
int OpenDeadRecord(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/", kRecordName);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode) ||
      flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

// Removes the groups a dead worker's record names; how many study groups went.
int RemoveRecordedGroups(const std::string& text) {
  const Parsed p = Parse(text);
  if (p.layout.parents.empty()) return 0;
  absl::StatusOr<int> removed =
      CgroupManager::RemoveStaleIn(p.version, p.layout.parents, IsStaleStudyName);
  if (!removed.ok()) spdlog::warn("a dead worker's study groups: {}", removed.status().ToString());
  CgroupManager::RemoveParents(p.layout);
  return removed.ok() ? *removed : 0;
}

// A folder we own that others cannot write to (a scratch folder of this worker's user).
bool OwnedFolder(const std::string& dir) {
  struct stat st;
  return lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & S_IWOTH) == 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerRecord>> WorkerRecord::Claim(const std::string& work_dir,
                                                                  const CgroupManager* cgroups) {
  const std::string path = absl::StrCat(work_dir, "/", kRecordName);
  const std::string tmp = absl::StrCat(path, ".", getpid());
  const int fd = open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("cannot write ", tmp, ": ", strerror(errno)));
  }
  const std::string text = Serialize(cgroups);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
      rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    close(fd);
    unlink(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", strerror(e)));
  }
  return std::unique_ptr<WorkerRecord>(new WorkerRecord(fd, path));
}

WorkerRecord::~WorkerRecord() {
  unlink(path_.c_str());
  close(fd_);
}

DeadWorkerSweep RemoveDeadWorkers(const std::string& work_dir) {
  DeadWorkerSweep sweep;
  std::error_code ec;
  fs::path own = fs::absolute(work_dir, ec).lexically_normal();
  if (own.filename().empty()) own = own.parent_path();  // "dir/" names dir
  if (int fd = OpenDeadRecord(own.string()); fd >= 0) {
    sweep.groups += RemoveRecordedGroups(ReadAll(fd));
    unlink(absl::StrCat(own.string(), "/", kRecordName).c_str());
    close(fd);
  }
  const fs::path parent = own.parent_path();
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return sweep;
  std::vector<std::string> siblings;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == ".." || name == own.filename().string()) continue;
    if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) siblings.push_back(name);
  }
  closedir(d);
  for (const std::string& name : siblings) {
    const std::string dir = (parent / name).string();
    if (!OwnedFolder(dir)) continue;
    const int fd = OpenDeadRecord(dir);
    if (fd < 0) continue;
    sweep.groups += RemoveRecordedGroups(ReadAll(fd));
    // Renamed first: a worker starting there meanwhile makes a fresh folder, never a half-gone
    // one. A study's /tmp still mounted (a worker without a private mount namespace) is
    // unmounted, not emptied.
    const std::string doomed = absl::StrCat(dir, ".removing-", getpid());
    close(fd);
    if (rename(dir.c_str(), doomed.c_str()) != 0) continue;
    RemoveStaleStudyTmps(doomed + "/tmp", [](const std::string&) { return true; });
    fs::remove_all(doomed, ec);
    if (ec) {
      spdlog::warn("cannot remove a dead worker's scratch folder {}: {}", doomed, ec.message());
    } else {
      ++sweep.folders;
    }
  }
  return sweep;
}

}  // namespace bbo
