// The command line as a whole (cli.h Main): help, version, parse errors and their exit codes,
// option spellings, BBO_CLI_CHECK, the token never echoed, the token file and the TLS files.

#include "client/cli.h"

#include <string>

#include "client/testing/cli_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::client {
namespace {

using cli_testing::BboRun;
using cli_testing::RunBbo;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHint[] = "\nRun with --help for more information.\n";

class CliTest : public ::testing::Test {
 protected:
  cli_testing::CleanEnvironment env_;
};

TEST_F(CliTest, HelpListsEveryCommandAndExitsZero) {
  const BboRun run = RunBbo({"--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_THAT(run.out,
              HasSubstr("bbo: the bbo-arena command line (black-box optimization competitions)"));
  for (const char* command : {"local", "check", "submit", "status", "choose", "logs", "phases",
                              "withdraw", "leaderboard", "problems", "score", "export", "report",
                              "replay", "tasks", "admin"}) {
    EXPECT_THAT(run.out, HasSubstr(std::string("\n  ") + command + " ")) << command;
  }
  EXPECT_THAT(run.out, HasSubstr("--token_file"));
  EXPECT_EQ(run.err, "");
}

TEST_F(CliTest, SubcommandHelpShowsItsOptionsAndDefaults) {
  const BboRun run = RunBbo({"score", "--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_THAT(run.out, HasSubstr("RESULTS_CSV"));
  EXPECT_THAT(run.out, HasSubstr("--bootstrap"));
  EXPECT_THAT(run.out, HasSubstr("10000"));
}

TEST_F(CliTest, VersionPrintsTheBuildsVersion) {
  const BboRun run = RunBbo({"--version"});
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, std::string("bbo ") + BBO_VERSION + "\n");
}

TEST_F(CliTest, NoCommandIsAnErrorWithExitTwo) {
  const BboRun run = RunBbo({});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("bbo: A subcommand is required"));
  EXPECT_THAT(run.err, HasSubstr(kHint));
}

TEST_F(CliTest, MissingRequiredArgumentExitsTwo) {
  const BboRun run = RunBbo({"score"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, std::string("bbo: RESULTS_CSV is required") + kHint);
  EXPECT_EQ(run.out, "");
}

TEST_F(CliTest, ValueOutOfRangeExitsTwoNamingTheOption) {
  BboRun run = RunBbo({"local", "some-folder", "--trials", "0"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("--trials"));
  EXPECT_THAT(run.err, HasSubstr(kHint));

  run = RunBbo({"check", "some-folder", "--n-batches", "17"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("--n-batches"));

  run = RunBbo({"report", "--format", "pdf"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("--format"));
}

TEST_F(CliTest, UnknownOptionAndNonNumberExitTwo) {
  BboRun run = RunBbo({"leaderboard", "--no-such-flag"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("--no-such-flag"));

  run = RunBbo({"submit", "folder", "--trials", "many"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("many"));
}

TEST_F(CliTest, OptionNamesTakeDashesOrUnderscores) {
  cli_testing::ScopedEnv check("BBO_CLI_CHECK", "strict");
  EXPECT_EQ(RunBbo({"score", "r.csv", "--random_search", "rs", "--top_k", "3"}).code, 0);
  EXPECT_EQ(RunBbo({"problems", "list", "--suite_file", "suite.json"}).code, 0);
  EXPECT_EQ(RunBbo({"--token-file", "t", "status", "--ca-file", "ca.pem"}).code, 0);
  EXPECT_EQ(RunBbo({"local", "dir", "--eval_slots=2"}).code, 0);
  EXPECT_EQ(RunBbo({"local", "dir", "--no_such_option"}).code, 2);
}

TEST_F(CliTest, GlobalOptionsComeBeforeOrAfterTheCommand) {
  cli_testing::ScopedEnv check("BBO_CLI_CHECK", "strict");
  EXPECT_EQ(RunBbo({"--token", "abcd", "leaderboard"}).code, 0);
  EXPECT_EQ(RunBbo({"leaderboard", "--token", "abcd"}).code, 0);
  EXPECT_EQ(RunBbo({"problems", "list", "--token_file", "f"}).code, 0);
}

TEST_F(CliTest, FragmentCheckAcceptsMissingArgumentsButNotUnknownOnes) {
  {
    cli_testing::ScopedEnv check("BBO_CLI_CHECK", "fragment");
    EXPECT_EQ(RunBbo({"submit"}).code, 0);
    EXPECT_EQ(RunBbo({"report", "--server"}).code, 0);
    EXPECT_EQ(RunBbo({"score", "--bogus"}).code, 2);
  }
  cli_testing::ScopedEnv check("BBO_CLI_CHECK", "strict");
  EXPECT_EQ(RunBbo({"submit"}).code, 2);
  EXPECT_EQ(RunBbo({"submit", "folder"}).code, 0);
}

TEST_F(CliTest, ParseErrorNeverEchoesTheToken) {
  BboRun run = RunBbo({"--token", "s3cr3t-token", "status", "s3cr3t-token"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("<token hidden>"));
  EXPECT_THAT(run.err, Not(HasSubstr("s3cr3t-token")));

  cli_testing::ScopedEnv token("BBO_TOKEN", "env-s3cr3t");
  run = RunBbo({"phases", "env-s3cr3t"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("<token hidden>"));
  EXPECT_THAT(run.err, Not(HasSubstr("env-s3cr3t")));
}

TEST_F(CliTest, UnreadableTokenFileExitsTwoBeforeAnyCommandRuns) {
  const std::string missing = cli_testing::MakeTempDir() + "/no-token";
  const BboRun run = RunBbo({"--token_file", missing, "score", "results.csv"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "bbo: cannot read a token from --token_file " + missing + "\n");
}

TEST_F(CliTest, UnreadableCaFileNamesTheFlagOrTheVariable) {
  const std::string missing = cli_testing::MakeTempDir() + "/ca.pem";
  BboRun run = RunBbo({"status", "--server", "127.0.0.1:1", "--ca_file", missing});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("--ca_file"));
  EXPECT_THAT(run.err, HasSubstr(missing));

  cli_testing::ScopedEnv ca("BBO_CA_FILE", missing);
  run = RunBbo({"leaderboard", "--server", "127.0.0.1:1"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("BBO_CA_FILE"));
}

TEST_F(CliTest, CommandsThatStayOfflineDoNotReadTheTlsFiles) {
  cli_testing::ScopedEnv ca("BBO_CA_FILE", cli_testing::MakeTempDir() + "/missing-ca.pem");
  const BboRun run = RunBbo({"problems", "list", "--counts"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("problems;"));
}

TEST_F(CliTest, ReportRefusesTwoSources) {
  const BboRun run = RunBbo({"report", "--results", "a.csv", "--db", "b.sqlite"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "bbo report: give one of --server, --results, --db\n");
}

TEST_F(CliTest, AdminNeedsWhatToDo) {
  const std::string dir = cli_testing::MakeTempDir();
  BboRun run = RunBbo({"admin", "--db", dir + "/arena.sqlite"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, std::string("bbo: WHAT is required") + kHint);

  run = RunBbo({"admin", "--db", dir + "/arena.sqlite", "team", "add"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("bbo admin: say what to do"));
}

TEST_F(CliTest, TasksNeedsASubcommand) {
  const BboRun run = RunBbo({"tasks"});
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("subcommand"));
}

}  // namespace
}  // namespace bbo::client
