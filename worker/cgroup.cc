#include "worker/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "worker/internal/cgroup_files.h"

namespace bbo {
namespace {

using cgroup_files::Descendants;
using cgroup_files::ErrnoStatus;
using cgroup_files::Exists;
using cgroup_files::ParsePids;
using cgroup_files::ReadFile;
using cgroup_files::ReadKey;
using cgroup_files::ReadUint;
using cgroup_files::WriteFile;

constexpr int64_t kCpuPeriodUs = 100000;

absl::Status MakeDir(const std::string& path, bool exist_ok) {
  if (mkdir(path.c_str(), 0755) == 0) return absl::OkStatus();
  if (errno == EEXIST && exist_ok) return absl::OkStatus();
  return ErrnoStatus(errno, "cannot create cgroup", path);
}

struct Mount {
  std::string root;         // Path inside the cgroup file system that is mounted.
  std::string mount_point;  // Where it is mounted.
  std::string fstype;
  std::vector<std::string> super_options;
};

absl::StatusOr<std::vector<Mount>> CgroupMounts() {
  ASSIGN_OR_RETURN(std::string text, ReadFile("/proc/self/mountinfo"));
  std::vector<Mount> mounts;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    // id parent major:minor root mount_point options [optional...] - fstype source super_opts
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 6 || dash == f.end() || f.end() - dash < 4) continue;
    Mount m{f[3], f[4], *(dash + 1), absl::StrSplit(*(dash + 3), ',')};
    if (m.fstype == "cgroup" || m.fstype == "cgroup2") mounts.push_back(std::move(m));
  }
  return mounts;
}

// /proc/self/cgroup: "hierarchy-id:controllers:path"; v2 is "0::path".
absl::StatusOr<std::vector<std::pair<std::vector<std::string>, std::string>>> OwnCgroups() {
  ASSIGN_OR_RETURN(std::string text, ReadFile("/proc/self/cgroup"));
  std::vector<std::pair<std::vector<std::string>, std::string>> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (f.size() != 3) continue;
    out.emplace_back(absl::StrSplit(f[1], ',', absl::SkipEmpty()), f[2]);
  }
  return out;
}

// Host directory of this process's cgroup within `m` (handles a mount of a sub-tree).
std::string OwnDir(const Mount& m, const std::string& own_path) {
  absl::string_view rel = own_path;
  if (m.root != "/") absl::ConsumePrefix(&rel, m.root);
  std::string dir = m.mount_point;
  if (!rel.empty() && rel != "/") absl::StrAppend(&dir, rel);
  return dir;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool ValidName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

std::string FormatBytes(uint64_t b) {
  if (b != 0 && b % (uint64_t{1} << 30) == 0) return absl::StrCat(b >> 30, " GiB");
  if (b != 0 && b % (uint64_t{1} << 20) == 0) return absl::StrCat(b >> 20, " MiB");
  return absl::StrCat(b, " bytes");
}

const std::vector<std::string>& V1Controllers() {
  static const auto* k =
      new std::vector<std::string>{"memory", "pids", "cpu", "cpuacct", "freezer"};
  return *k;
}

// Core v2 files (cgroup.procs, cgroup.kill, cgroup.freeze, cpu.stat) need no controller, so
// "cpuacct" and "freezer" are always there; "memory", "pids" and "cpu" need delegation.
const std::vector<std::string>& V2Delegated() {
  static const auto* k = new std::vector<std::string>{"memory", "pids", "cpu"};
  return *k;
}

// The path the worker's groups of a v1 controller that leaves it in the hierarchy's root go
// under: its memory cgroup's path (a batch system such as Slurm places a job in the memory,
// freezer, cpuset and devices hierarchies only), else the deepest of the others; "/" when
// every controller leaves it in the root.
std::string V1Anchor(const std::vector<std::pair<std::vector<std::string>, std::string>>& own) {
  std::string anchor = "/";
  for (const auto& [controllers, path] : own) {
    if (Contains(controllers, "memory") && path != "/") return path;
    if (path.size() > anchor.size() && !Contains(controllers, "name=systemd") &&
        !controllers.empty()) {
      anchor = path;
    }
  }
  return anchor;
}

// mkdir -p of `path` below `root`.
absl::Status MakeDirs(const std::string& root, const std::string& path) {
  std::string dir = root;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    absl::StrAppend(&dir, "/", part);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoStatus(errno, "cannot create cgroup", dir);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CgroupLayout> SetUpV1(const std::vector<Mount>& mounts,
                                     const CgroupManagerOptions& options) {
  ASSIGN_OR_RETURN(auto own, OwnCgroups());
  const std::string anchor = options.follow_memory_cgroup ? V1Anchor(own) : "/";
  CgroupLayout layout;
  std::vector<std::string> missing;
  for (const std::string& c : V1Controllers()) {
    const Mount* mount = nullptr;
    for (const Mount& m : mounts) {
      if (m.fstype == "cgroup" && Contains(m.super_options, c)) mount = &m;
    }
    const std::string* own_path = nullptr;
    for (const auto& [controllers, path] : own) {
      if (Contains(controllers, c)) own_path = &path;
    }
    if (mount == nullptr || own_path == nullptr) {
      if (c != "freezer") missing.push_back(c);
      continue;
    }
    std::string own_dir = OwnDir(*mount, *own_path);
    if (*own_path == "/" && anchor != "/" && mount->root == "/") {
      // Left in the root by the batch system: nest under the job's path all the same, so the
      // study groups of every controller sit inside the job's (and leave with it).
      RETURN_IF_ERROR(MakeDirs(mount->mount_point, anchor));
      own_dir = OwnDir(*mount, anchor);
      layout.mirrored.push_back({mount->mount_point, own_dir});
    }
    if (!Contains(layout.own, own_dir)) layout.own.push_back(own_dir);
    std::string parent = absl::StrCat(own_dir, "/", options.parent_name);
    RETURN_IF_ERROR(MakeDir(parent, /*exist_ok=*/true));
    layout.parents.emplace_back(c, parent);
  }
  if (!missing.empty() && options.require_controllers) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cgroup v1 controllers not mounted: ", absl::StrJoin(missing, ", "),
        "; mount them under /sys/fs/cgroup/<controller> (or boot with the unified hierarchy)"));
  }
  return layout;
}

}  // namespace

std::string DescribeLimitHit(CgroupLimitHit hit, const CgroupLimits& limits) {
  switch (hit) {
    case CgroupLimitHit::kMemory:
      return absl::StrCat("optimizer exceeded its ", FormatBytes(limits.memory_bytes),
                          " memory limit");
    case CgroupLimitHit::kPids:
      return absl::StrCat("optimizer reached its ", limits.pids, "-process limit");
    case CgroupLimitHit::kNone:
      break;
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// CgroupManager

CgroupManager::CgroupManager(CgroupVersion version, CgroupLayout layout)
    : version_(version), layout_(std::move(layout)) {}

absl::StatusOr<std::unique_ptr<CgroupManager>> CgroupManager::Detect(
    const std::string& parent_name) {
  CgroupManagerOptions options;
  options.parent_name = parent_name;
  return Detect(options);
}

namespace {

absl::StatusOr<CgroupLayout> SetUpV2(const Mount& mount, const CgroupManagerOptions& options) {
  ASSIGN_OR_RETURN(auto own, OwnCgroups());
  std::string own_path = "/";
  for (const auto& [controllers, path] : own) {
    if (controllers.empty()) own_path = path;
  }
  std::string own_dir = OwnDir(mount, own_path);
  ASSIGN_OR_RETURN(std::string available_text, ReadFile(own_dir + "/cgroup.controllers"));
  std::vector<std::string> available =
      absl::StrSplit(absl::StripAsciiWhitespace(available_text), ' ', absl::SkipEmpty());
  std::vector<std::string> enable, missing;
  for (const std::string& c : V2Delegated()) {
    (Contains(available, c) ? enable : missing).push_back(c);
  }
  if (!missing.empty() && options.require_controllers) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cgroup v2: the worker's cgroup ", own_dir, " is not delegated the controllers ",
        absl::StrJoin(missing, ", "),
        "; enable them in the parent's cgroup.subtree_control (systemd: Delegate=yes, or run "
        "the worker in its own scope with `systemd-run --scope -p Delegate=yes`)"));
  }
  std::string subtree;
  for (const std::string& c : enable) absl::StrAppend(&subtree, subtree.empty() ? "" : " ", "+", c);
  if (!subtree.empty()) {
    absl::Status s = WriteFile(own_dir + "/cgroup.subtree_control", subtree);
    if (!s.ok() && options.move_self_to_leaf) {
      // EBUSY: processes (this worker) live in own_dir, and v2 forbids controllers in a
      // group's subtree_control while it has processes of its own. Leave for a leaf.
      std::string leaf = absl::StrCat(own_dir, "/", options.parent_name, "-worker");
      RETURN_IF_ERROR(MakeDir(leaf, /*exist_ok=*/true));
      RETURN_IF_ERROR(WriteFile(leaf + "/cgroup.procs", absl::StrCat(getpid())));
      s = WriteFile(own_dir + "/cgroup.subtree_control", subtree);
    }
    if (!s.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(s.message(),
                       " (cgroup v2 allows controllers below a group only when it holds no "
                       "processes: start the worker alone in its own cgroup)"));
    }
  }
  std::string parent = absl::StrCat(own_dir, "/", options.parent_name);
  RETURN_IF_ERROR(MakeDir(parent, /*exist_ok=*/true));
  if (!subtree.empty()) RETURN_IF_ERROR(WriteFile(parent + "/cgroup.subtree_control", subtree));
  CgroupLayout layout;
  layout.own.push_back(own_dir);
  layout.subtree_control = subtree;
  for (const std::string& c : enable) layout.parents.emplace_back(c, parent);
  layout.parents.emplace_back("cpuacct", parent);
  layout.parents.emplace_back("freezer", parent);
  return layout;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CgroupManager>> CgroupManager::Detect(
    const CgroupManagerOptions& options) {
  if (!ValidName(options.parent_name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("parent_name must be one path component: '", options.parent_name, "'"));
  }
  ASSIGN_OR_RETURN(std::vector<Mount> mounts, CgroupMounts());
  const Mount* v2 = nullptr;
  bool has_v1_memory = false;
  for (const Mount& m : mounts) {
    if (m.fstype == "cgroup2" && v2 == nullptr) v2 = &m;
    if (m.fstype == "cgroup" && Contains(m.super_options, "memory")) has_v1_memory = true;
  }
  std::optional<CgroupVersion> version = options.version;
  if (!version.has_value()) {
    bool v2_usable = false;
    if (v2 != nullptr) {
      // Hybrid hosts mount an empty unified hierarchy beside v1: v2 only when it holds
      // controllers.
      absl::StatusOr<std::string> controllers = ReadFile(v2->mount_point + "/cgroup.controllers");
      v2_usable = controllers.ok() && absl::StrContains(*controllers, "memory");
    }
    if (v2_usable || (v2 != nullptr && !has_v1_memory)) {
      version = CgroupVersion::kV2;
    } else if (has_v1_memory) {
      version = CgroupVersion::kV1;
    } else {
      return absl::FailedPreconditionError(
          "no cgroup file system is mounted; mount cgroup2 at /sys/fs/cgroup");
    }
  }
  CgroupLayout layout;
  if (*version == CgroupVersion::kV2) {
    if (v2 == nullptr) return absl::FailedPreconditionError("no cgroup2 file system is mounted");
    ASSIGN_OR_RETURN(layout, SetUpV2(*v2, options));
  } else {
    ASSIGN_OR_RETURN(layout, SetUpV1(mounts, options));
  }
  return std::unique_ptr<CgroupManager>(new CgroupManager(*version, std::move(layout)));
}

CgroupManager::~CgroupManager() { RemoveParents(layout_); }

void CgroupManager::RemoveParents(const CgroupLayout& layout) {
  std::set<std::string> done;
  for (const auto& [controller, dir] : layout.parents) {
    // EBUSY while other workers' or live studies' groups remain: theirs to clean.
    if (done.insert(dir).second) rmdir(dir.c_str());
  }
  // The job's path mirrored into a hierarchy the batch system leaves alone: removed from the
  // deepest level up, as far as no other worker's groups remain.
  for (const CgroupLayout::Mirror& m : layout.mirrored) {
    std::string dir = m.dir;
    while (dir.size() > m.mount_point.size() && absl::StartsWith(dir, m.mount_point + "/") &&
           rmdir(dir.c_str()) == 0) {
      dir = dir.substr(0, dir.rfind('/'));
    }
  }
}

absl::StatusOr<int> CgroupManager::RemoveStale(
    const std::function<bool(const std::string& name)>& is_stale) {
  return RemoveStaleIn(version_, layout_.parents, is_stale);
}

absl::StatusOr<int> CgroupManager::RemoveStaleIn(
    CgroupVersion version, const std::vector<std::pair<std::string, std::string>>& parent_dirs,
    const std::function<bool(const std::string& name)>& is_stale) {
  std::set<std::string> names;
  for (const auto& [controller, parent] : parent_dirs) {
    DIR* d = opendir(parent.c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || e->d_type != DT_DIR) continue;
      if (ValidName(name) && is_stale(name)) names.insert(name);
    }
    closedir(d);
  }
  absl::Status first;
  int removed = 0;
  for (const std::string& name : names) {
    // The same shape as a group made by Create, over the existing directories.
    std::unique_ptr<StudyCgroup> group(new StudyCgroup(version, name, CgroupLimits()));
    for (const auto& [controller, parent] : parent_dirs) {
      const std::string dir = absl::StrCat(parent, "/", name);
      group->controller_dirs_.emplace_back(controller, dir);
      if (Contains(group->dirs_, dir) || !Exists(dir)) continue;
      group->dirs_.push_back(dir);
      group->procs_files_.push_back(dir + "/cgroup.procs");
    }
    absl::Status s = group->Remove();
    if (s.ok()) {
      ++removed;
    } else if (first.ok()) {
      first = s;
    }
  }
  if (!first.ok()) return first;
  return removed;
}

bool CgroupManager::Has(const std::string& controller) const {
  for (const auto& [c, dir] : layout_.parents) {
    if (c == controller) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<StudyCgroup>> CgroupManager::Create(
    const std::string& name, const CgroupLimits& limits) const {
  if (!ValidName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cgroup name must match [A-Za-z0-9._-]+: '", name, "'"));
  }
  std::unique_ptr<StudyCgroup> group(new StudyCgroup(version_, name, limits));
  for (const auto& [controller, parent] : layout_.parents) {
    std::string dir = absl::StrCat(parent, "/", name);
    group->controller_dirs_.emplace_back(controller, dir);
    if (Contains(group->dirs_, dir)) continue;
    absl::Status s = MakeDir(dir, /*exist_ok=*/false);
    if (absl::IsNotFound(s)) {
      // The shared parent was removed by another worker that found it empty: make it again.
      s = MakeDirs("", parent);
      if (s.ok() && !layout_.subtree_control.empty()) {
        s = WriteFile(parent + "/cgroup.subtree_control", layout_.subtree_control);
      }
      if (s.ok()) s = MakeDir(dir, /*exist_ok=*/false);
    }
    if (!s.ok()) {
      (void)group->Remove();  // Rolls back the directories made so far; `s` is the news.
      return s;
    }
    group->dirs_.push_back(dir);
    group->procs_files_.push_back(dir + "/cgroup.procs");
  }
  auto apply = [&]() -> absl::Status {
    std::string mem = group->Dir("memory"), pids = group->Dir("pids"), cpu = group->Dir("cpu");
    std::string quota = "max";
    if (limits.cpus > 0) {
      quota = absl::StrCat(
          std::max<int64_t>(1000, std::llround(limits.cpus * static_cast<double>(kCpuPeriodUs))));
    }
    std::string bytes = limits.memory_bytes > 0 ? absl::StrCat(limits.memory_bytes) : "-1";
    std::string max_pids = limits.pids > 0 ? absl::StrCat(limits.pids) : "max";
    if (version_ == CgroupVersion::kV1) {
      if (!mem.empty()) {
        RETURN_IF_ERROR(WriteFile(mem + "/memory.limit_in_bytes", bytes));
        // Present only with swap accounting; must not be below memory.limit_in_bytes.
        if (Exists(mem + "/memory.memsw.limit_in_bytes")) {
          RETURN_IF_ERROR(WriteFile(mem + "/memory.memsw.limit_in_bytes", bytes));
        }
      }
      if (!cpu.empty()) {
        RETURN_IF_ERROR(WriteFile(cpu + "/cpu.cfs_period_us", absl::StrCat(kCpuPeriodUs)));
        RETURN_IF_ERROR(WriteFile(cpu + "/cpu.cfs_quota_us", quota == "max" ? "-1" : quota));
      }
    } else {
      if (!mem.empty()) {
        RETURN_IF_ERROR(WriteFile(mem + "/memory.max", limits.memory_bytes > 0 ? bytes : "max"));
        if (Exists(mem + "/memory.swap.max")) {
          RETURN_IF_ERROR(WriteFile(mem + "/memory.swap.max", "0"));
        }
        // An OOM ends the study anyway; killing the whole group leaves no half-dead tree.
        if (Exists(mem + "/memory.oom.group")) {
          RETURN_IF_ERROR(WriteFile(mem + "/memory.oom.group", "1"));
        }
      }
      if (!cpu.empty()) {
        RETURN_IF_ERROR(WriteFile(cpu + "/cpu.max", absl::StrCat(quota, " ", kCpuPeriodUs)));
      }
    }
    if (!pids.empty()) RETURN_IF_ERROR(WriteFile(pids + "/pids.max", max_pids));
    return absl::OkStatus();
  };
  absl::Status s = apply();
  if (!s.ok()) {
    (void)group->Remove();  // Best-effort rollback; the limit error is what the caller needs.
    return s;
  }
  return group;
}


}  // namespace bbo
