// The remote commands' error path against an address where nothing listens: a clear message
// and exit 1, through Main and as functions, and Unavailable from Remote itself.

#include "client/remote.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "client/commands/commands.h"
#include "client/testing/cli_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::client {
namespace {

using cli_testing::BboRun;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// "127.0.0.1:<port>" of a port that was free a moment ago and that nothing listens on.
std::string ClosedAddress() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
}

constexpr char kHint[] = "bbo: is bbo-server running at that address? (--server)\n";

class RemoteTest : public ::testing::Test {
 protected:
  cli_testing::CleanEnvironment env_;
};

TEST_F(RemoteTest, StatusWithNoServerSaysSoAndExitsOne) {
  const BboRun run = cli_testing::RunBbo({"status", "--server", ClosedAddress()});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo: status: "));
  EXPECT_THAT(run.err, HasSubstr("connected without TLS"));
  EXPECT_THAT(run.err, HasSubstr(kHint));
  EXPECT_EQ(run.out, "");
}

TEST_F(RemoteTest, EveryRemoteCommandFailsTheSameWay) {
  const std::string address = ClosedAddress();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"leaderboard", "--server", address},
                                             {"phases", "--server", address},
                                             {"problems", "--server", address},
                                             {"logs", "7", "--server", address},
                                             {"withdraw", "7", "--server", address},
                                             {"choose", "7", "--server", address}}) {
    const BboRun run = cli_testing::RunBbo(args);
    EXPECT_EQ(run.code, 1) << args[0];
    EXPECT_THAT(run.err, StartsWith("bbo: " + args[0] + ": ")) << args[0];
    EXPECT_THAT(run.err, HasSubstr(kHint)) << args[0];
  }
}

TEST_F(RemoteTest, ReportFromAServerFailsTheSameWay) {
  const std::string out = cli_testing::MakeTempDir() + "/report";
  const BboRun run =
      cli_testing::RunBbo({"report", "--server", ClosedAddress(), "--out", out});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("bbo: report: "));
  EXPECT_THAT(run.err, HasSubstr(kHint));
}

TEST_F(RemoteTest, RunFunctionsReturnOneWithTheMessage) {
  LeaderboardArgs board;
  board.server.address = ClosedAddress();
  const BboRun run = cli_testing::Capture([&] { return RunLeaderboard(board); });
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo: leaderboard: "));
  EXPECT_THAT(run.err, HasSubstr(kHint));
}

TEST_F(RemoteTest, SubmitReadsTheFolderBeforeCalling) {
  SubmitArgs submit;
  submit.server.address = ClosedAddress();
  submit.path = cli_testing::MakeTempDir() + "/no-such-archive.zip";
  const BboRun run = cli_testing::Capture([&] { return RunSubmit(submit); });
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "bbo submit: cannot read " + submit.path + "\n");
}

TEST(RemoteCallTest, NoServerIsUnavailable) {
  const Remote remote(ClosedAddress(), "token");
  const absl::StatusOr<v1::ListProblemsResponse> problems = remote.ListProblems();
  EXPECT_EQ(problems.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(problems.status().message()), HasSubstr("connected without TLS"));
}

TEST(RemoteCallTest, PrintRemoteErrorHintsOnlyWhenUnreachable) {
  BboRun run = cli_testing::Capture(
      [] { return PrintRemoteError("status", absl::PermissionDeniedError("not your team")); });
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "bbo: status: not your team\n");

  run = cli_testing::Capture(
      [] { return PrintRemoteError("status", absl::UnavailableError("down")); });
  EXPECT_EQ(run.err, std::string("bbo: status: down\n") + kHint);
}

}  // namespace
}  // namespace bbo::client
