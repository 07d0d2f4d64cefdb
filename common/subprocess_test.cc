#include "common/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/utf8.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::ElementsAre;

SubprocessOptions Shell(const std::string& script) {
  SubprocessOptions options;
  options.argv = {"/bin/sh", "-c", script};
  options.env = {"PATH=/usr/bin:/bin"};
  return options;
}

std::unique_ptr<Subprocess> SpawnOrDie(SubprocessOptions options) {
  absl::StatusOr<std::unique_ptr<Subprocess>> p = Subprocess::Spawn(std::move(options));
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : nullptr;
}

absl::Time In(absl::Duration d) { return absl::Now() + d; }

// True while `pid` exists and is not a zombie (an orphan's zombie may wait for a slow init).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

TEST(SubprocessTest, ReadsStdoutLinesAndReportsTheExitStatus) {
  auto p = SpawnOrDie(Shell("echo hello; printf 'crlf\\r\\n'; exit 3"));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(getpgid(p->pid()), p->pid());  // its own process group
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).value_or("?"), "hello");
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).value_or("?"), "crlf");
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).status().code(),
            absl::StatusCode::kUnavailable);
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(10))));
  ASSERT_TRUE(p->wait_status().has_value());
  EXPECT_TRUE(WIFEXITED(*p->wait_status()));
  EXPECT_EQ(WEXITSTATUS(*p->wait_status()), 3);
  EXPECT_FALSE(p->exec_error().has_value());
}

TEST(SubprocessTest, EchoesStdinAndSeesEndOfInputForPipeAndSocket) {
  for (bool socket : {false, true}) {
    SubprocessOptions options;
    options.argv = {"/bin/cat"};
    options.stdin_is_socket = socket;
    auto p = SpawnOrDie(std::move(options));
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(p->Write("ping\n", In(absl::Seconds(10))).ok());
    EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).value_or("?"), "ping") << socket;
    p->CloseStdin();
    EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).status().code(),
              absl::StatusCode::kUnavailable);
    ASSERT_TRUE(p->WaitExit(In(absl::Seconds(10))));
    EXPECT_EQ(*p->wait_status(), 0);
    // Only a socket spares this process SIGPIPE when writing to the exited child.
    if (socket) {
      EXPECT_EQ(p->Write("late\n", In(absl::Seconds(1))).code(), absl::StatusCode::kUnavailable);
    }
  }
}

// 10,001 bytes of valid UTF-8 on stderr ("é" is 2 bytes: the tail's byte cut falls inside one):
// the tail starts on a whole character. Before the fix it started with a lone continuation
// byte, which every quote of it showed as U+FFFD.
TEST(SubprocessTest, TheStderrTailStartsOnACharacter) {
  SubprocessOptions options = Shell("i=0; while [ $i -lt 5000 ]; do printf '\\303\\251'; i=$((i+1)); done >&2; printf x >&2");
  options.stderr_tail_bytes = 4096;  // 10,001 - 4,096 is odd: the cut falls inside a character
  auto p = SpawnOrDie(std::move(options));
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(30))));
  ASSERT_TRUE(p->WaitStderrClosed(In(absl::Seconds(10))));
  const std::string tail = p->StderrTail();
  ASSERT_FALSE(tail.empty());
  EXPECT_NE(static_cast<unsigned char>(tail[0]) & 0xC0, 0x80);
  EXPECT_TRUE(IsValidUtf8(tail));
  EXPECT_EQ(tail.substr(0, 2), "\xc3\xa9");
  EXPECT_EQ(tail.back(), 'x');
  EXPECT_GE(tail.size(), 4093u);
}

// Short lines in floods are read whole and in order, across the reads' chunk boundaries, on
// stdout (ReadLine) and stderr (the line callback). (Their cost is the benchmark's:
// bench/subprocess_lines_bench.)
TEST(SubprocessTest, FloodsOfShortLinesAreSplitExactly) {
  std::vector<std::string> err_lines;
  absl::Mutex mu;
  SubprocessOptions options = Shell(
      "i=0; while [ $i -lt 30000 ]; do echo $i; echo \"e$i\" >&2; i=$((i+1)); done; printf '\\n\\n'");
  options.on_stderr_line = [&](absl::string_view line) {
    absl::MutexLock l(&mu);
    err_lines.emplace_back(line);
  };
  auto p = SpawnOrDie(std::move(options));
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 30000; ++i) {
    absl::StatusOr<std::string> line = p->ReadLine(In(absl::Seconds(30)), 1024);
    ASSERT_TRUE(line.ok()) << i << ": " << line.status();
    ASSERT_EQ(*line, std::to_string(i));
  }
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).value_or("?"), "");
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).value_or("?"), "");
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).status().code(), absl::StatusCode::kUnavailable);
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(30))));
  ASSERT_TRUE(p->WaitStderrClosed(In(absl::Seconds(10))));
  absl::MutexLock l(&mu);
  ASSERT_EQ(err_lines.size(), 30000u);
  for (int i = 0; i < 30000; i += 997) EXPECT_EQ(err_lines[i], "e" + std::to_string(i));
}

TEST(SubprocessTest, LongLineIsResourceExhausted) {
  auto p = SpawnOrDie(Shell("printf '%0100d'; sleep 5"));
  ASSERT_NE(p, nullptr);
  absl::StatusOr<std::string> line = p->ReadLine(In(absl::Seconds(10)), 50);
  EXPECT_EQ(line.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(SubprocessTest, TimeoutThenKillGroupEndsTheChildAndItsGrandchildren) {
  auto p = SpawnOrDie(Shell("sleep 1000 & echo $!; wait"));
  ASSERT_NE(p, nullptr);
  int64_t grandchild = 0;
  ASSERT_TRUE(absl::SimpleAtoi(p->ReadLine(In(absl::Seconds(10)), 1024).value_or(""), &grandchild));
  EXPECT_TRUE(Running(static_cast<pid_t>(grandchild)));

  const absl::Time start = absl::Now();
  EXPECT_EQ(p->ReadLine(start + absl::Milliseconds(200), 1024).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(200));
  EXPECT_FALSE(p->WaitExit(absl::Now()));

  p->KillGroup();
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(10))));
  EXPECT_TRUE(WIFSIGNALED(*p->wait_status()));
  EXPECT_EQ(WTERMSIG(*p->wait_status()), SIGKILL);
  const absl::Time until = In(absl::Seconds(10));
  while (Running(static_cast<pid_t>(grandchild)) && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_FALSE(Running(static_cast<pid_t>(grandchild)));
}

TEST(SubprocessTest, WriteToAChildThatDoesNotReadHitsTheDeadline) {
  auto p = SpawnOrDie(Shell("sleep 1000"));
  ASSERT_NE(p, nullptr);
  const std::string big(4 << 20, 'x');
  EXPECT_EQ(p->Write(big, In(absl::Milliseconds(200))).code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(SubprocessTest, StderrTailKeepsTheLastBytesAndLinesReachTheCallback) {
  SubprocessOptions options = Shell("printf 'first\\nsecond\\n0123456789\\nabcXYZ' >&2");
  options.stderr_tail_bytes = 16;
  std::vector<std::string> lines;  // written by the drain thread until WaitStderrClosed
  options.on_stderr_line = [&lines](absl::string_view line) { lines.emplace_back(line); };
  auto p = SpawnOrDie(std::move(options));
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(10))));
  ASSERT_TRUE(p->WaitStderrClosed(In(absl::Seconds(10))));
  EXPECT_EQ(p->StderrTail(), "123456789\nabcXYZ");
  EXPECT_THAT(lines, ElementsAre("first", "second", "0123456789", "abcXYZ"));
}

// Spawns `options`, which must fail at `stage` with ENOENT and then exit with `exit_code`.
void ExpectExecFailure(SubprocessOptions options, Subprocess::ExecError::Stage stage,
                       int exit_code) {
  auto p = SpawnOrDie(std::move(options));
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->exec_error().has_value());
  EXPECT_EQ(p->exec_error()->stage, stage);
  EXPECT_EQ(p->exec_error()->error_number, ENOENT);
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(10))));
  EXPECT_EQ(WEXITSTATUS(*p->wait_status()), exit_code);
}

TEST(SubprocessTest, ExecAndChdirFailuresAreReportedWithErrno) {
  SubprocessOptions missing;
  missing.argv = {"/nonexistent/program"};
  ExpectExecFailure(std::move(missing), Subprocess::ExecError::Stage::kExec, 127);

  SubprocessOptions bad_cwd = Shell("true");
  bad_cwd.cwd = "/nonexistent/folder";
  ExpectExecFailure(std::move(bad_cwd), Subprocess::ExecError::Stage::kChdir, 126);

  // A control group the child cannot join: it never runs the program outside it.
  SubprocessOptions no_group = Shell("echo ran");
  no_group.cgroup_procs_files = {"/nonexistent/cgroup.procs"};
  ExpectExecFailure(std::move(no_group), Subprocess::ExecError::Stage::kCgroup, 126);
}

TEST(SubprocessTest, EmptyArgvIsInvalidArgument) {
  EXPECT_EQ(Subprocess::Spawn(SubprocessOptions{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SubprocessTest, LimitsEnvironmentAndWorkingDirectoryApplyInTheChild) {
  SubprocessOptions options = Shell("ulimit -n; ulimit -c; pwd; echo \"$ONLY\" \"${HOME:-unset}\"");
  options.env.push_back("ONLY=this");
  options.cwd = "/tmp";
  options.limits = {{RLIMIT_NOFILE, 64}, {RLIMIT_CORE, 0}};
  auto p = SpawnOrDie(std::move(options));
  ASSERT_NE(p, nullptr);
  std::vector<std::string> lines;
  for (absl::StatusOr<std::string> line = p->ReadLine(In(absl::Seconds(10)), 1024); line.ok();
       line = p->ReadLine(In(absl::Seconds(10)), 1024)) {
    lines.push_back(*line);
  }
  EXPECT_THAT(lines, ElementsAre("64", "0", "/tmp", "this unset"));
}

TEST(SubprocessTest, InheritedDescriptorsStayOpenAndOthersAreClosed) {
  int kept[2], dropped[2];
  ASSERT_EQ(pipe2(kept, O_CLOEXEC), 0);
  ASSERT_EQ(pipe(dropped), 0);  // not close-on-exec: the child must close it all the same
  ASSERT_EQ(write(kept[1], "x", 1), 1);
  close(kept[1]);
  SubprocessOptions options =
      Shell("cat <&" + std::to_string(kept[0]) + "; echo; ls /proc/self/fd");
  options.inherited_fds = {kept[0]};
  auto p = SpawnOrDie(std::move(options));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ReadLine(In(absl::Seconds(10)), 1024).value_or("?"), "x");
  std::vector<std::string> fds;
  for (absl::StatusOr<std::string> line = p->ReadLine(In(absl::Seconds(10)), 1024); line.ok();
       line = p->ReadLine(In(absl::Seconds(10)), 1024)) {
    fds.push_back(*line);
  }
  // 0-2, the inherited descriptor, and the one ls opens to read the directory.
  EXPECT_THAT(fds, ::testing::Contains(std::to_string(kept[0])));
  EXPECT_THAT(fds, ::testing::SizeIs(5));
  EXPECT_THAT(fds, ::testing::Not(::testing::Contains(std::to_string(dropped[0]))));
  ASSERT_TRUE(p->WaitExit(In(absl::Seconds(10))));
  // The parent's descriptor keeps close-on-exec.
  EXPECT_NE(fcntl(kept[0], F_GETFD) & FD_CLOEXEC, 0);
  for (int fd : {kept[0], dropped[0], dropped[1]}) close(fd);

  SubprocessOptions bad = Shell("true");
  bad.inherited_fds = {2};
  EXPECT_EQ(Subprocess::Spawn(bad).status().code(), absl::StatusCode::kInvalidArgument);
  bad.inherited_fds = {dropped[0]};  // closed above
  EXPECT_EQ(Subprocess::Spawn(bad).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SubprocessTest, DestructorReturnsWhenAnEscapedDescendantHoldsStderr) {
  auto p = SpawnOrDie(Shell("setsid sleep 30 & echo $!"));
  ASSERT_NE(p, nullptr);
  int64_t escaped = 0;
  ASSERT_TRUE(absl::SimpleAtoi(p->ReadLine(In(absl::Seconds(10)), 1024).value_or(""), &escaped));
  const absl::Time start = absl::Now();
  p.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  kill(static_cast<pid_t>(escaped), SIGKILL);
}

}  // namespace
}  // namespace bbo
