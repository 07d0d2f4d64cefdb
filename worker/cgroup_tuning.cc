#include "worker/cgroup_tuning.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace bbo {
namespace {

constexpr absl::string_view kOption = "favordynmods";

// Octal escapes mountinfo uses in paths (\040 for a space, \011, \012, \134).
std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() &&
        std::all_of(s.begin() + i + 1, s.begin() + i + 4,
                    [](char c) { return c >= '0' && c <= '7'; })) {
      out.push_back(
          static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

struct MountLine {
  std::string mount_point;
  std::string fs_type;
  std::vector<std::string> super_options;
};

std::vector<MountLine> ParseMountinfo(absl::string_view mountinfo) {
  std::vector<MountLine> mounts;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    // ID parent dev root mount_point options [optional...] - fs_type source super_options
    auto dash = std::find(fields.begin(), fields.end(), "-");
    if (fields.size() < 5 || dash == fields.end() || fields.end() - dash < 4) continue;
    MountLine m;
    m.mount_point = Unescape(fields[4]);
    m.fs_type = std::string(dash[1]);
    for (absl::string_view o : absl::StrSplit(dash[3], ',', absl::SkipEmpty())) {
      m.super_options.emplace_back(o);
    }
    mounts.push_back(std::move(m));
  }
  return mounts;
}

bool HasOption(const std::vector<std::string>& options) {
  return std::find(options.begin(), options.end(), kOption) != options.end();
}

std::string ReadMountinfo() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<Cgroup2Mount> ParseCgroup2Mounts(absl::string_view mountinfo) {
  std::vector<Cgroup2Mount> out;
  for (MountLine& m : ParseMountinfo(mountinfo)) {
    if (m.fs_type == "cgroup2")
      out.push_back({std::move(m.mount_point), std::move(m.super_options)});
  }
  return out;
}

bool FavorDynmodsInEffect(absl::string_view mountinfo) {
  for (const MountLine& m : ParseMountinfo(mountinfo)) {
    if ((m.fs_type == "cgroup" || m.fs_type == "cgroup2") && HasOption(m.super_options))
      return true;
  }
  return false;
}

absl::StatusOr<std::string> SetFavorDynmods(bool on) {
  const std::string mountinfo = ReadMountinfo();
  const std::vector<Cgroup2Mount> mounts = ParseCgroup2Mounts(mountinfo);
  if (mounts.empty()) {
    return absl::FailedPreconditionError(
        "no cgroup2 hierarchy is mounted, so favordynmods cannot be set at run time; boot the "
        "host with cgroup_favordynmods=true (each study start otherwise waits for an RCU grace "
        "period, a few milliseconds)");
  }
  const Cgroup2Mount& target = mounts.front();
  if (HasOption(target.super_options) == on) {
    return absl::StrCat("already ", on ? "on" : "off", " (", target.mount_point, ")");
  }
  // Reconfiguring a cgroup2 root resets every root option to the ones given, so the present
  // ones are given again. fspick + fsconfig change the hierarchy only, never the mount's own
  // flags (nosuid, noexec, ...), unlike a mount(2) remount.
  const int fd = fspick(AT_FDCWD, target.mount_point.c_str(), FSPICK_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot reconfigure ", target.mount_point, " to set favordynmods: ", strerror(errno),
        " (needs root and Linux >= 6.0; or boot with cgroup_favordynmods=true)"));
  }
  std::string failed;
  for (const std::string& option : target.super_options) {
    if (option == "rw" || option == "ro" || option == kOption) continue;
    if (fsconfig(fd, FSCONFIG_SET_FLAG, option.c_str(), nullptr, 0) != 0) {
      failed = absl::StrCat("option ", option, ": ", strerror(errno));
      break;
    }
  }
  if (failed.empty() && on &&
      fsconfig(fd, FSCONFIG_SET_FLAG, std::string(kOption).c_str(), nullptr, 0) != 0) {
    failed =
        absl::StrCat("option favordynmods: ", strerror(errno), " (the kernel is older than 6.0)");
  }
  if (failed.empty() && fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, nullptr, nullptr, 0) != 0) {
    failed = absl::StrCat("reconfigure: ", strerror(errno));
  }
  close(fd);
  if (!failed.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot set favordynmods on ", target.mount_point, ": ", failed,
                     "; boot with cgroup_favordynmods=true instead"));
  }
  return absl::StrCat("switched ", on ? "on" : "off", " for ", target.mount_point);
}

}  // namespace bbo
