#include "worker/sandbox.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

// Runs testdata/probe.py with `checks` in a sandbox and returns check -> answer.
std::map<std::string, std::string> Probe(const SandboxOptions& opts,
                                         const std::vector<std::string>& checks) {
  Sandbox sandbox(opts);
  SandboxedCommand cmd;
  cmd.submission_dir = BBO_WORKER_TESTDATA;
  cmd.argv = {"/usr/bin/python3", "probe.py"};
  cmd.argv.insert(cmd.argv.end(), checks.begin(), checks.end());
  auto child = sandbox.Launch(cmd);
  EXPECT_TRUE(child.ok()) << child.status();
  std::map<std::string, std::string> out;
  if (!child.ok()) return out;
  absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (true) {
    auto line = (*child)->ReadLine(deadline);
    if (!line.ok()) break;
    size_t eq = line->rfind('=');
    if (eq != std::string::npos) out[line->substr(0, eq)] = line->substr(eq + 1);
  }
  (*child)->Wait(absl::Seconds(5));
  return out;
}

// A TCP listener on 127.0.0.1 (ephemeral port), closed on destruction.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 4);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(SandboxTest, ProbeSucceedsOnThisHost) { EXPECT_TRUE(Sandbox::Probe(SandboxOptions()).ok()); }

TEST(SandboxTest, RunsAsNobodyWithScientificPython) {
  auto r = Probe(SandboxOptions(), {"uid", "numpy"});
  EXPECT_EQ(r["uid"], "65534");
  EXPECT_EQ(r["numpy"], "yes");
}

// The host uid of the sandboxed probe holding `token` (found through /proc), or -1.
int HostUidOfProbe(const SandboxOptions& opts, const std::string& token) {
  Sandbox sandbox(opts);
  SandboxedCommand cmd;
  cmd.submission_dir = BBO_WORKER_TESTDATA;
  cmd.argv = {"/usr/bin/python3", "probe.py", "hold:" + token};
  auto child = sandbox.Launch(cmd);
  EXPECT_TRUE(child.ok()) << child.status();
  if (!child.ok()) return -1;
  auto line = (*child)->ReadLine(absl::Now() + absl::Seconds(30));
  EXPECT_TRUE(line.ok() && *line == "hold=started")
      << (line.ok() ? *line : line.status().ToString());
  int uid = -1;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (args.find("hold:" + token) == std::string::npos ||
        args.find("bwrap") != std::string::npos) {
      continue;
    }
    std::ifstream status(entry.path() / "status");
    for (std::string l; std::getline(status, l);) {
      if (l.rfind("Uid:", 0) == 0) uid = std::stoi(l.substr(4));  // the real uid
    }
  }
  (*child)->Kill();
  (*child)->Wait(absl::Seconds(5));
  return uid;
}

TEST(SandboxTest, OptimizerIsNeverHostRoot) {
  const std::string token =
      std::to_string(getpid()) + "-" + std::to_string(absl::ToUnixNanos(absl::Now()));
  const int uid = HostUidOfProbe(SandboxOptions(), token);
  EXPECT_NE(uid, -1) << "the sandboxed probe was not found in /proc";
  EXPECT_NE(uid, 0) << "the sandboxed optimizer is host root";
  if (geteuid() == 0) {
    EXPECT_EQ(uid, 65534);
  }
  const std::string sysctl = "rewrite:/proc/sys/kernel/randomize_va_space";
  EXPECT_EQ(Probe(SandboxOptions(), {sysctl})[sysctl], "no")
      << "a sysctl was writable from inside the sandbox";
  if (geteuid() != 0) return;
  // Control: a sandbox mapped to host root (the old behaviour) is host uid 0, so the uid check
  // can fail. Even then the sysctl stays unwritable: /proc/sys is bound read-only, a second
  // layer (before it, this write succeeded from a root-mapped sandbox).
  SandboxOptions as_root;
  as_root.host_uid = 0;
  as_root.host_gid = 0;
  EXPECT_EQ(HostUidOfProbe(as_root, token + "-root"), 0);
  EXPECT_EQ(Probe(as_root, {sysctl})[sysctl], "no");
}

TEST(SandboxTest, OnlyTmpAndDevShmAreWritable) {
  // bubblewrap's own root, /etc and /dev are tmpfs mounts; /proc/sys is per namespace for some
  // sysctls (pid_max): all read-only inside, as /sub is.
  const std::vector<std::string> denied = {
      "write:/probe", "write:/etc/probe", "write:/dev/probe", "write:/sub/probe",
      "write:/usr/probe", "rewrite:/proc/sys/kernel/pid_max",
      "rewrite:/proc/sys/kernel/core_pattern"};
  std::vector<std::string> checks = denied;
  checks.insert(checks.end(), {"write:/tmp/probe", "write:/dev/shm/probe", "write:/dev/null"});
  auto r = Probe(SandboxOptions(), checks);
  for (const std::string& c : denied) EXPECT_EQ(r[c], "no") << c << " was writable";
  EXPECT_EQ(r["write:/tmp/probe"], "yes");
  EXPECT_EQ(r["write:/dev/shm/probe"], "yes");
  EXPECT_EQ(r["write:/dev/null"], "yes");
}

TEST(SandboxTest, SeccompRefusesNamespacesAndNetlink) {
  auto r = Probe(SandboxOptions(), {"userns", "netlink", "numpy"});
  EXPECT_EQ(r["userns"], "no");
  EXPECT_EQ(r["netlink"], "no");
  EXPECT_EQ(r["numpy"], "yes");
  // Control: without the filter both work inside bubblewrap, so the checks can fail.
  SandboxOptions unfiltered;
  unfiltered.seccomp = false;
  auto control = Probe(unfiltered, {"userns", "netlink"});
  EXPECT_EQ(control["userns"], "yes");
  EXPECT_EQ(control["netlink"], "yes");
}

TEST(SandboxTest, CannotConnectToHostLoopback) {
  Listener listener;
  std::string check = "tcp:" + std::to_string(listener.port());
  EXPECT_EQ(Probe(SandboxOptions(), {check})[check], "no");
  // Control: without the sandbox the same connection works, so the check can fail.
  SandboxOptions insecure;
  insecure.insecure_no_sandbox = true;
  EXPECT_EQ(Probe(insecure, {check})[check], "yes");
}

TEST(SandboxTest, SeesOnlyItsOwnFiles) {
  fs::path secret_dir = fs::temp_directory_path() / ("sandbox_secret_" + std::to_string(getpid()));
  fs::create_directories(secret_dir);
  std::ofstream(secret_dir / "problems.json") << "{\"hidden\": true}";
  std::string secret = "read:" + (secret_dir / "problems.json").string();
  std::string checkout = std::string("read:") + BBO_SOURCE_DIR + "/CMakeLists.txt";
  auto r = Probe(SandboxOptions(),
                 {secret, checkout, "read:/root", "read:/home", "read:/var/lib",
                  "read:/sub/probe.py", "write:/sub/x", "write:/tmp/x", "read:/etc/shadow"});
  EXPECT_EQ(r[secret], "no");
  EXPECT_EQ(r[checkout], "no");
  EXPECT_EQ(r["read:/root"], "no");
  EXPECT_EQ(r["read:/home"], "no");
  EXPECT_EQ(r["read:/var/lib"], "no");
  EXPECT_EQ(r["read:/etc/shadow"], "no");
  EXPECT_EQ(r["read:/sub/probe.py"], "yes");  // its own submission
  EXPECT_EQ(r["write:/sub/x"], "no");         // read-only
  EXPECT_EQ(r["write:/tmp/x"], "yes");        // private /tmp
  EXPECT_FALSE(fs::exists(fs::path(BBO_WORKER_TESTDATA) / "x"));
  fs::remove_all(secret_dir);
}

TEST(SandboxTest, AddressSpaceLimitStopsLargeAllocations) {
  SandboxOptions opts;
  opts.limits.address_space_bytes = 1024ull << 20;
  auto r = Probe(opts, {"alloc:2000", "alloc:10"});
  EXPECT_EQ(r["alloc:2000"], "no");
  EXPECT_EQ(r["alloc:10"], "yes");
}

TEST(SandboxTest, OptimizerMayStartChildProcessesUnderTheLimits) {
  EXPECT_EQ(Probe(SandboxOptions(), {"fork:50"})["fork:50"], "yes");
}

TEST(SandboxTest, CommandNeverBindsTheWholeRoot) {
  Sandbox sandbox{SandboxOptions()};
  SandboxedCommand cmd;
  cmd.submission_dir = "/tmp";
  cmd.argv = {"./optimizer"};
  ProcessSpec spec = sandbox.BuildCommand(cmd);
  for (size_t i = 0; i + 1 < spec.argv.size(); ++i) {
    if (spec.argv[i] == "--bind" || spec.argv[i] == "--ro-bind") {
      EXPECT_NE(spec.argv[i + 1], "/");
    }
  }
  EXPECT_THAT(spec.argv, ::testing::Contains("--unshare-all"));
  EXPECT_THAT(spec.argv, ::testing::Contains("--die-with-parent"));
  EXPECT_THAT(spec.argv, ::testing::Contains("--new-session"));
}

}  // namespace
}  // namespace bbo
