#ifndef BBO_WORKER_TESTING_SANDBOX_ENVIRONMENT_H_
#define BBO_WORKER_TESTING_SANDBOX_ENVIRONMENT_H_

// For the worker's tests: whether this host can run what the sandbox needs (control groups,
// bubblewrap), read from the host itself rather than from the code under test, so that a setup
// error can be told apart from an environment that really lacks something
// (common/testing/setup_errors.h decides between a skip and a failure).
//
// Test-only seam: BBO_TEST_CGROUP_VERSION=v1|v2 forces the cgroup version the tests ask
// CgroupManager::Detect for (TestCgroupOptions), e.g. v2 on a v1 host to see a setup error fail
// the tests instead of skipping them.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "worker/cgroup.h"

namespace bbo::testing {

inline std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Why this host cannot make control groups, or "" when it plainly can: the caller is root and a
// cgroup v1 hierarchy with the memory controller, or a cgroup2 file system whose root offers
// memory, is mounted read-write. Reads /proc/self/mounts.
inline std::string CgroupUnsupportedReason() {
  if (geteuid() != 0) return "not root: creating control groups needs root";
  std::istringstream mounts(ReadSmallFile("/proc/self/mounts"));
  bool read_only_seen = false;
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream fields(line);
    std::string source, mount_point, fstype, options;
    fields >> source >> mount_point >> fstype >> options;
    const bool read_only = ("," + options + ",").find(",ro,") != std::string::npos;
    bool has_memory = false;
    if (fstype == "cgroup") {
      has_memory = ("," + options + ",").find(",memory,") != std::string::npos;
    } else if (fstype == "cgroup2") {
      has_memory =
          ReadSmallFile(mount_point + "/cgroup.controllers").find("memory") != std::string::npos;
    }
    if (!has_memory) continue;
    if (!read_only) return "";
    read_only_seen = true;
  }
  return read_only_seen ? "the cgroup file system with the memory controller is mounted read-only"
                        : "no cgroup memory controller is mounted (neither cgroup v1 memory nor "
                          "a cgroup2 file system offering it)";
}

// Why this host has no cgroup2 file system at all, or "" when one is mounted (hybrid v1 hosts
// mount an empty one at /sys/fs/cgroup/unified).
inline std::string Cgroup2UnsupportedReason() {
  if (geteuid() != 0) return "not root: creating control groups needs root";
  std::istringstream mounts(ReadSmallFile("/proc/self/mounts"));
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream fields(line);
    std::string source, mount_point, fstype;
    fields >> source >> mount_point >> fstype;
    if (fstype == "cgroup2") return "";
  }
  return "no cgroup2 file system is mounted";
}

// The options the tests pass to CgroupManager::Detect: `parent_name`, and the version that
// BBO_TEST_CGROUP_VERSION forces, if any.
inline CgroupManagerOptions TestCgroupOptions(const std::string& parent_name) {
  CgroupManagerOptions options;
  options.parent_name = parent_name;
  if (const char* v = std::getenv("BBO_TEST_CGROUP_VERSION")) {
    if (std::string(v) == "v1") options.version = CgroupVersion::kV1;
    if (std::string(v) == "v2") options.version = CgroupVersion::kV2;
  }
  return options;
}

// Why `program` cannot run here because it is not installed, or "" when it is executable.
inline std::string NotInstalledReason(const std::string& program, const std::string& package) {
  if (access(program.c_str(), X_OK) == 0) return "";
  return program + " is not installed (apt-get install " + package +
         "; deploy/install-deps.sh does)";
}

// Why bubblewrap cannot make its sandbox here for a reason of the host, or "" when it should:
// not installed, or user namespaces turned off (user.max_user_namespaces = 0; or, for a user
// other than root, Debian's kernel.unprivileged_userns_clone = 0).
inline std::string BwrapUnsupportedReason(const std::string& bwrap) {
  if (std::string reason = NotInstalledReason(bwrap, "bubblewrap"); !reason.empty()) {
    return reason;
  }
  if (ReadSmallFile("/proc/sys/user/max_user_namespaces").rfind("0\n", 0) == 0) {
    return "user namespaces are turned off (sysctl user.max_user_namespaces = 0)";
  }
  if (geteuid() != 0 &&
      ReadSmallFile("/proc/sys/kernel/unprivileged_userns_clone").rfind("0\n", 0) == 0) {
    return "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone = 0)";
  }
  return "";
}

}  // namespace bbo::testing

#endif  // BBO_WORKER_TESTING_SANDBOX_ENVIRONMENT_H_
