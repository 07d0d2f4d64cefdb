#include "common/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "common/testing/shell_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

ProcessSpec Shell(const std::string& script) { return bbo::testing::ShellProcess(script); }

std::unique_ptr<ChildProcess> LaunchOrDie(const ProcessSpec& spec) {
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = launcher.Launch(spec);
  EXPECT_TRUE(child.ok()) << child.status();
  return child.ok() ? *std::move(child) : nullptr;
}

absl::Time In(absl::Duration d) { return absl::Now() + d; }

TEST(ChildProcessTest, EchoesLinesBothWays) {
  for (bool socket : {false, true}) {
    ProcessSpec spec = Shell("while read l; do echo \"got $l\"; done");
    spec.stdin_is_socket = socket;
    auto child = LaunchOrDie(spec);
    ASSERT_NE(child, nullptr);
    ASSERT_TRUE(child->ExecStatus().ok());
    ASSERT_TRUE(child->WriteLine("a", In(absl::Seconds(10))).ok());
    EXPECT_EQ(child->ReadLine(In(absl::Seconds(10))).value_or("?"), "got a");
    child->CloseStdin();
    EXPECT_EQ(child->ReadLine(In(absl::Seconds(10))).status().code(),
              absl::StatusCode::kUnavailable);
    EXPECT_EQ(child->Wait(absl::Seconds(10)), 0);
  }
}

TEST(ChildProcessTest, InheritedDescriptorReachesTheChild) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ASSERT_EQ(write(fds[1], "kept\n", 5), 5);
  close(fds[1]);
  ProcessSpec spec = Shell("cat <&" + std::to_string(fds[0]));
  spec.inherited_fds = {fds[0]};
  auto child = LaunchOrDie(spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->ReadLine(In(absl::Seconds(10))).value_or("?"), "kept");
  EXPECT_EQ(child->Wait(absl::Seconds(10)), 0);
  close(fds[0]);
}

TEST(ChildProcessTest, ClosedStdoutSaysHowTheChildEndedWithItsStderr) {
  auto child = LaunchOrDie(Shell("echo 'dying now' >&2; exit 3"));
  ASSERT_NE(child, nullptr);
  absl::StatusOr<std::string> line = child->ReadLine(In(absl::Seconds(10)));
  EXPECT_EQ(line.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(line.status().message(),
              AllOf(HasSubstr("toy closed its stdout and exited with status 3"),
                    HasSubstr("; its stderr ended with:\n  | dying now")));
}

TEST(ChildProcessTest, KilledChildNamesTheSignal) {
  auto child = LaunchOrDie(Shell("kill -9 $$"));
  ASSERT_NE(child, nullptr);
  EXPECT_THAT(child->ReadLine(In(absl::Seconds(10))).status().message(),
              HasSubstr("was killed by signal 9 (SIGKILL); no stderr"));
}

TEST(ChildProcessTest, SilentChildMissesTheDeadline) {
  auto child = LaunchOrDie(Shell("sleep 30"));
  ASSERT_NE(child, nullptr);
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> line = child->ReadLine(In(absl::Milliseconds(200)));
  EXPECT_EQ(line.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(line.status().message(), "toy did not answer in time");
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  child->Kill();
  EXPECT_EQ(child->Wait(absl::Seconds(10)), 128 + 9);
}

TEST(ChildProcessTest, OverlongLineIsResourceExhausted) {
  ProcessSpec spec = Shell("head -c 3000000 /dev/zero | tr '\\0' x; echo");
  spec.max_line_bytes = 1u << 20;
  auto child = LaunchOrDie(spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->ReadLine(In(absl::Seconds(10))).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(ChildProcessTest, ExecFailureIsReportedByExecStatus) {
  ProcessSpec spec = Shell("");
  spec.argv = {"/nonexistent/program"};
  auto child = LaunchOrDie(spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->ExecStatus().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(child->ExecStatus().message(), HasSubstr("cannot execute"));
  EXPECT_EQ(child->Wait(absl::Seconds(10)), 127);
}

TEST(ChildProcessTest, RunsAsTheGivenHostIdentity) {
  if (geteuid() != 0) {
    // Without root the switch must fail closed: the child never runs as the parent.
    ProcessSpec spec = Shell("id -u");
    spec.run_as = SubprocessOptions::Identity{0, 0};
    auto child = LaunchOrDie(spec);
    ASSERT_NE(child, nullptr);
    EXPECT_THAT(child->ExecStatus().message(), HasSubstr("as an unprivileged user"));
    EXPECT_EQ(child->Wait(absl::Seconds(10)), 126);
    return;
  }
  ProcessSpec spec = Shell("id -u; id -g; id -G");
  spec.run_as = SubprocessOptions::Identity{65534, 65534};
  auto child = LaunchOrDie(spec);
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(child->ExecStatus().ok()) << child->ExecStatus();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  EXPECT_EQ(child->ReadLine(deadline).value_or(""), "65534");
  EXPECT_EQ(child->ReadLine(deadline).value_or(""), "65534");
  EXPECT_EQ(child->ReadLine(deadline).value_or(""), "65534");  // no supplementary groups left
  EXPECT_EQ(child->Wait(absl::Seconds(10)), 0);
}

TEST(ChildProcessTest, StderrCallbacksSeeLinesAndChunks) {
  std::string lines;
  std::string chunks;
  ProcessSpec spec = Shell("echo one >&2; echo two >&2");
  spec.on_stderr_line = [&lines](absl::string_view l) { lines += std::string(l) + "|"; };
  spec.on_stderr_chunk = [&chunks](absl::string_view c) { chunks += std::string(c); };
  auto child = LaunchOrDie(spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->Wait(absl::Seconds(10)), 0);
  child.reset();  // joins the drain thread
  EXPECT_EQ(lines, "one|two|");
  EXPECT_EQ(chunks, "one\ntwo\n");
}

TEST(ChildProcessTest, LimitsApply) {
  ProcessSpec spec = Shell("ulimit -n");
  spec.limits.open_files = 77;
  auto child = LaunchOrDie(spec);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->ReadLine(In(absl::Seconds(10))).value_or("?"), "77");
}

// True while `pid` exists and is not a zombie.
bool Alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::stringstream stat;
  stat << in.rdbuf();
  const std::string text = stat.str();
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

TEST(ChildProcessTest, DieWithHostChildOutlivesTheThreadThatLaunchedIt) {
  ProcessSpec spec = Shell("while read l; do echo \"got $l\"; done");
  spec.die_with_host = true;
  std::unique_ptr<ChildProcess> child;
  std::thread launcher([&] { child = LaunchOrDie(spec); });
  launcher.join();
  ASSERT_NE(child, nullptr);
  absl::SleepFor(absl::Milliseconds(200));  // a death signal tied to that thread has fired
  ASSERT_TRUE(child->WriteLine("a", In(absl::Seconds(10))).ok());
  EXPECT_EQ(child->ReadLine(In(absl::Seconds(10))).value_or("?"), "got a");
}

// A host forked by the test launches `sleep 30` and reports its pid; the test SIGKILLs the host.
// Returns whether the child was gone 3 s later (and kills it if it was not).
bool ChildGoneAfterTheHostIsKilled(bool die_with_host) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return false;
  const pid_t host = fork();
  if (host == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // safety nets: the host ends with the test, or in 30 s
    alarm(30);
    ProcessSpec spec = Shell("exec sleep 30");
    spec.die_with_host = die_with_host;
    PosixProcessLauncher launcher;
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = launcher.Launch(spec);
    if (!child.ok()) _exit(2);
    const pid_t pid = (*child)->pid();
    if (write(report[1], &pid, sizeof(pid)) != sizeof(pid)) _exit(3);
    while (true) pause();
  }
  close(report[1]);
  pid_t pid = 0;
  struct pollfd p = {report[0], POLLIN, 0};
  const bool reported =
      poll(&p, 1, 20000) == 1 && read(report[0], &pid, sizeof(pid)) == sizeof(pid);
  close(report[0]);
  kill(host, SIGKILL);
  waitpid(host, nullptr, 0);
  EXPECT_TRUE(reported) << "the host did not launch its child";
  if (!reported) return false;
  const absl::Time until = absl::Now() + absl::Seconds(3);
  while (Alive(pid) && absl::Now() < until) absl::SleepFor(absl::Milliseconds(10));
  if (!Alive(pid)) return true;
  kill(-pid, SIGKILL);  // its own process group
  return false;
}

TEST(ChildProcessTest, DieWithHostChildDiesWhenTheHostIsKilled) {
  EXPECT_TRUE(ChildGoneAfterTheHostIsKilled(/*die_with_host=*/true));
  // Without it, the child outlives its host.
  EXPECT_FALSE(ChildGoneAfterTheHostIsKilled(/*die_with_host=*/false));
}

TEST(ChildProcessTest, EmptyArgvIsInvalid) {
  PosixProcessLauncher launcher;
  EXPECT_EQ(launcher.Launch(ProcessSpec()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo
