#include "worker/cgroup_tuning.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A hybrid host (v1 controllers and the unified hierarchy), as these machines have.
constexpr char kHybrid[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:7 - cgroup cgroup rw,pids\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

std::string SelfMountinfo() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ParseCgroup2MountsTest, FindsTheUnifiedHierarchyOfAHybridHost) {
  std::vector<Cgroup2Mount> mounts = ParseCgroup2Mounts(kHybrid);
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup/unified");
  EXPECT_THAT(mounts[0].super_options, ElementsAre("rw"));
}

TEST(ParseCgroup2MountsTest, KeepsRootOptionsAndUnescapesThePath) {
  // A v2 host as systemd mounts it; optional fields before the dash; a space in a path.
  std::vector<Cgroup2Mount> mounts = ParseCgroup2Mounts(
      "25 1 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 master:1 - cgroup2 "
      "cgroup2 rw,nsdelegate,memory_recursiveprot\n"
      "90 25 0:50 / /mnt/my\\040cgroups rw - cgroup2 none rw,favordynmods\n"
      "broken line\n"
      "91 25 0:51 / /mnt/x rw - cgroup2\n");
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup");
  EXPECT_THAT(mounts[0].super_options, ElementsAre("rw", "nsdelegate", "memory_recursiveprot"));
  EXPECT_EQ(mounts[1].mount_point, "/mnt/my cgroups");
}

TEST(FavorDynmodsInEffectTest, SeenOnAnyCgroupHierarchyOnly) {
  EXPECT_FALSE(FavorDynmodsInEffect(kHybrid));
  EXPECT_FALSE(FavorDynmodsInEffect(""));
  // Set at boot (cgroup_favordynmods=true), v1 hierarchies show it too.
  EXPECT_TRUE(FavorDynmodsInEffect(
      "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory,favordynmods\n"));
  EXPECT_TRUE(FavorDynmodsInEffect(
      "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,favordynmods\n"));
  // The same word on another file system means nothing.
  EXPECT_FALSE(FavorDynmodsInEffect("50 1 0:40 / /x rw - tmpfs favordynmods rw,favordynmods\n"));
}

// Switches the host's setting both ways and puts it back as it was: the other root options of
// the hierarchy survive, and /proc/self/mountinfo shows the change.
TEST(SetFavorDynmodsTest, SwitchesBothWaysKeepingTheOtherRootOptions) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to reconfigure a cgroup2 hierarchy";
  std::vector<Cgroup2Mount> before = ParseCgroup2Mounts(SelfMountinfo());
  if (before.empty()) GTEST_SKIP() << "no cgroup2 hierarchy mounted on this host";
  const bool was_on = FavorDynmodsInEffect(SelfMountinfo());
  auto without = [](std::vector<std::string> o) {
    o.erase(std::remove(o.begin(), o.end(), "favordynmods"), o.end());
    return o;
  };

  absl::StatusOr<std::string> flipped = SetFavorDynmods(!was_on);
  ASSERT_TRUE(flipped.ok()) << flipped.status();
  EXPECT_THAT(*flipped, HasSubstr(before[0].mount_point));
  EXPECT_EQ(FavorDynmodsInEffect(SelfMountinfo()), !was_on);
  std::vector<Cgroup2Mount> middle = ParseCgroup2Mounts(SelfMountinfo());
  ASSERT_FALSE(middle.empty());
  EXPECT_EQ(without(middle[0].super_options), without(before[0].super_options));

  absl::StatusOr<std::string> again = SetFavorDynmods(!was_on);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(*again, HasSubstr("already"));

  absl::StatusOr<std::string> restored = SetFavorDynmods(was_on);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(FavorDynmodsInEffect(SelfMountinfo()), was_on);
  std::vector<Cgroup2Mount> after = ParseCgroup2Mounts(SelfMountinfo());
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after[0].super_options, before[0].super_options);
}

// Without a cgroup2 mount (in a private mount namespace where they are unmounted), the answer
// is an error that says what to do instead, and nothing else changes.
TEST(SetFavorDynmodsTest, WithoutACgroup2MountSaysToUseTheBootOption) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a private mount namespace";
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipe_fds[0]);
    std::string message = "setup failed";
    if (unshare(CLONE_NEWNS) == 0 &&
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0) {
      for (const Cgroup2Mount& m : ParseCgroup2Mounts(SelfMountinfo())) {
        umount2(m.mount_point.c_str(), MNT_DETACH);
      }
      absl::StatusOr<std::string> r = SetFavorDynmods(true);
      message = r.ok() ? "ok: " + *r : std::string(r.status().ToString());
    }
    ssize_t ignored = write(pipe_fds[1], message.data(), message.size());
    (void)ignored;
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string message;
  char buf[512];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof(buf))) > 0) message.append(buf, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_THAT(message, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(message, HasSubstr("no cgroup2 hierarchy is mounted"));
  EXPECT_THAT(message, HasSubstr("cgroup_favordynmods=true"));
}

}  // namespace
}  // namespace bbo
