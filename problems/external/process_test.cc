#include "problems/external/process.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/testing/shell_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::external {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

ProcessSpec Shell(const std::string& script) { return bbo::testing::ShellProcess(script); }

absl::Time In(absl::Duration d) { return absl::Now() + d; }

TEST(ProblemProcessTest, RepliesLineByLineAndExitsOnRequest) {
  PosixProcessLauncher launcher;
  auto log = std::make_shared<StderrLog>("", 0);
  auto p = ProblemProcess::Spawn(
      Shell("while read l; do case $l in *exit*) exit 0;; esac; echo \"re $l\"; done"), log,
      &launcher);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE((*p)->WriteLine("hello", In(absl::Seconds(10))).ok());
  EXPECT_EQ((*p)->ReadLine(In(absl::Seconds(10))).value_or("?"), "re hello");
  (*p)->RequestExit();
  EXPECT_TRUE((*p)->WaitExit(In(absl::Seconds(10))));
}

TEST(ProblemProcessTest, ACrashQuotesTheStderrTail) {
  PosixProcessLauncher launcher;
  auto p = ProblemProcess::Spawn(Shell("echo 'toy: simulated crash' >&2; exit 3"),
                                 std::make_shared<StderrLog>("", 0), &launcher);
  ASSERT_TRUE(p.ok());
  EXPECT_THAT((*p)->ReadLine(In(absl::Seconds(10))).status().message(),
              AllOf(HasSubstr("the process closed its stdout and exited with status 3"),
                    HasSubstr("; its stderr ended with:\n  | toy: simulated crash")));
}

TEST(ProblemProcessTest, AnOverlongReplyIsGarbage) {
  PosixProcessLauncher launcher;
  auto p = ProblemProcess::Spawn(Shell("head -c 17000000 /dev/zero | tr '\\0' x"),
                                 std::make_shared<StderrLog>("", 0), &launcher);
  ASSERT_TRUE(p.ok());
  absl::StatusOr<std::string> line = (*p)->ReadLine(In(absl::Seconds(20)));
  EXPECT_EQ(line.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(line.status().message(), HasSubstr("longer than 16 MiB"));
}

TEST(ProblemProcessTest, AProgramThatCannotRunFailsTheSpawn) {
  PosixProcessLauncher launcher;
  ProcessSpec spec = Shell("");
  spec.argv = {"/nonexistent/problem"};
  auto p = ProblemProcess::Spawn(spec, std::make_shared<StderrLog>("", 0), &launcher);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("cannot execute \"/nonexistent/problem\""));
}

TEST(ProblemProcessTest, StderrLogStopsAtItsLimit) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/stderr_log_", getpid());
  std::remove(path.c_str());
  {
    StderrLog log(path, 10);
    log.Append("0123456");
    log.Append("789abcdef");
    log.Append("more");
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "0123456789\n[stderr log limit reached; further output dropped]\n");
}

TEST(ResolveProgramTest, FindsBareNamesOnTheChildsPathOnly) {
  EXPECT_EQ(ResolveProgram("sh", {"PATH=/nonexistent:/bin"}, "").value_or("?"), "/bin/sh");
  EXPECT_THAT(ResolveProgram("sh", {"PATH=/nonexistent"}, "").status().message(),
              HasSubstr("was not found on the child's PATH"));
  EXPECT_THAT(ResolveProgram("./nothing-here", {}, "/").status().message(),
              HasSubstr("is not executable"));
  EXPECT_EQ(DescribeCommand({"/usr/bin/python3", "a b"}), R"(["/usr/bin/python3", "a b"])");
}

}  // namespace
}  // namespace bbo::external
