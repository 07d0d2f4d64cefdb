#include "common/child_process.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

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
                    HasSubstr("stderr: \"dying now\\n\"")));
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

TEST(ChildProcessTest, EmptyArgvIsInvalid) {
  PosixProcessLauncher launcher;
  EXPECT_EQ(launcher.Launch(ProcessSpec()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bbo
