#include "worker/internal/cgroup_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace bbo::cgroup_files {
namespace {

// Parent pid of every process, from /proc/<pid>/stat (the comm field may hold spaces and ')').
std::multimap<pid_t, pid_t> ChildrenByParent() {
  std::multimap<pid_t, pid_t> children;
  DIR* d = opendir("/proc");
  if (d == nullptr) return children;
  while (struct dirent* e = readdir(d)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(e->d_name, &pid)) continue;
    absl::StatusOr<std::string> stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
    if (!stat.ok()) continue;  // Exited meanwhile.
    size_t close_paren = stat->rfind(')');
    if (close_paren == std::string::npos) continue;
    std::vector<absl::string_view> f =
        absl::StrSplit(absl::string_view(*stat).substr(close_paren + 2), ' ');
    pid_t ppid = 0;
    if (f.size() > 1 && absl::SimpleAtoi(f[1], &ppid)) children.emplace(ppid, pid);
  }
  closedir(d);
  return children;
}

}  // namespace

const char kNotWritableHelp[] =
    "run the worker as root, or give its user a delegated cgroup subtree (systemd: "
    "Delegate=yes in the unit; containers: a private cgroup namespace with /sys/fs/cgroup "
    "mounted read-write), or start the worker with cgroups disabled (unsafe for untrusted "
    "submissions)";

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

absl::Status ErrnoStatus(int err, absl::string_view what, const std::string& path) {
  std::string msg = absl::StrCat(what, " ", path, ": ", strerror(err));
  switch (err) {
    case ENOENT:
    case ESRCH:
      return absl::NotFoundError(msg);
    case EEXIST:
      return absl::AlreadyExistsError(msg);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::FailedPreconditionError(absl::StrCat(msg, "; ", kNotWritableHelp));
    default:
      return absl::FailedPreconditionError(msg);
  }
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return ErrnoStatus(err, "cannot read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

// Cgroup files take one value per write(2); the kernel reports refusal as the write's errno.
absl::Status WriteFile(const std::string& path, absl::string_view value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  ssize_t n = write(fd, value.data(), value.size());
  int err = errno;
  close(fd);
  if (n < 0) return ErrnoStatus(err, absl::StrCat("cannot write '", value, "' to"), path);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ReadUint(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  uint64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &v)) {
    return absl::InternalError(absl::StrCat("not a number in ", path, ": ", text));
  }
  return v;
}

// Value of `key` in a flat-keyed file ("key value" per line); nullopt when absent.
absl::StatusOr<std::optional<uint64_t>> ReadKey(const std::string& path, absl::string_view key) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    uint64_t v = 0;
    if (kv.first == key && absl::SimpleAtoi(absl::StripAsciiWhitespace(kv.second), &v)) {
      return std::optional<uint64_t>(v);
    }
  }
  return std::optional<uint64_t>();
}

std::set<pid_t> Descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children = ChildrenByParent();
  std::set<pid_t> out;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    auto [lo, hi] = children.equal_range(p);
    for (auto it = lo; it != hi; ++it) {
      if (out.insert(it->second).second) todo.push_back(it->second);
    }
  }
  return out;
}

absl::StatusOr<std::vector<pid_t>> ParsePids(const std::string& text) {
  std::vector<pid_t> pids;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(line, &pid)) return absl::InternalError("bad line in cgroup.procs");
    pids.push_back(pid);
  }
  return pids;
}

}  // namespace bbo::cgroup_files
