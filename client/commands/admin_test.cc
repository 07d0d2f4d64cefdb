// bbo admin on a coordinator's SQLite file made here: what it refuses before touching the file,
// and tokens issued, listed and revoked.

#include <filesystem>
#include <string>

#include "client/commands/commands.h"
#include "client/testing/cli_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace bbo::client {
namespace {

using cli_testing::BboRun;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class AdminTest : public ::testing::Test {
 protected:
  BboRun Admin(std::vector<std::string> words, bool json = false) {
    AdminArgs a;
    a.db = db_;
    a.words = std::move(words);
    a.json = json;
    return cli_testing::Capture([&] { return RunAdmin(a); });
  }
  const std::string db_ = cli_testing::MakeTempDir() + "/arena.sqlite";
};

TEST_F(AdminTest, IncompleteWordsPrintUsageAndLeaveNoFile) {
  for (const std::vector<std::string>& words :
       std::vector<std::vector<std::string>>{{},
                                             {"team", "add"},
                                             {"team", "promote", "alpha"},
                                             {"publish"},
                                             {"stop-race", "final", "now"},
                                             {"jobs", "retry", "1"},
                                             {"tokens", "all"},
                                             {"frobnicate"}}) {
    const BboRun run = Admin(words);
    EXPECT_EQ(run.code, 2) << ::testing::PrintToString(words);
    EXPECT_THAT(run.err, StartsWith("bbo admin: say what to do, e.g.\n"));
  }
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(AdminTest, ListingAFileThatIsNotThereExitsOne) {
  const BboRun run = Admin({"tokens"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("bbo admin: "));
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(AdminTest, IssuesListsAndRevokesATeamToken) {
  BboRun run = Admin({"team", "add", "alpha"});
  ASSERT_EQ(run.code, 0) << run.err;
  // The token alone on stdout, the advice on stderr.
  ASSERT_FALSE(run.out.empty());
  EXPECT_EQ(run.out.find(' '), std::string::npos);
  EXPECT_EQ(run.out.back(), '\n');
  EXPECT_THAT(run.err, HasSubstr("the token of team alpha above is shown only this once"));
  const std::string token = run.out.substr(0, run.out.size() - 1);

  run = Admin({"tokens"}, /*json=*/true);
  ASSERT_EQ(run.code, 0) << run.err;
  nlohmann::json tokens = nlohmann::json::parse(run.out);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0]["kind"], "team");
  EXPECT_EQ(tokens[0]["owner"], "alpha");
  EXPECT_EQ(tokens[0]["revoked"], false);
  EXPECT_EQ(run.out.find(token), std::string::npos);  // never the token itself

  run = Admin({"team", "revoke", "alpha"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err, "bbo admin: team alpha: every token revoked\n");
  tokens = nlohmann::json::parse(Admin({"tokens"}, true).out);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0]["revoked"], true);

  run = Admin({"tokens"});
  EXPECT_THAT(run.out, StartsWith("kind "));
  EXPECT_THAT(run.out, HasSubstr("\nteam       alpha "));
}

TEST_F(AdminTest, JobsOnAFreshFile) {
  ASSERT_EQ(Admin({"worker", "add", "host-1"}).code, 0);
  BboRun run = Admin({"jobs"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("(no failed jobs)\n"));
  run = Admin({"jobs"}, /*json=*/true);
  EXPECT_EQ(nlohmann::json::parse(run.out), nlohmann::json::array());

  run = Admin({"jobs", "requeue", "abc"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "bbo admin: jobs requeue takes a job id or 'all', got 'abc'\n");
  run = Admin({"jobs", "requeue", "all"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "0 job(s) back in the queue\n");
}

TEST_F(AdminTest, AuditIsJsonWhenAsked) {
  ASSERT_EQ(Admin({"organizer", "add", "ops"}).code, 0);
  const BboRun run = Admin({"audit"}, /*json=*/true);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(nlohmann::json::parse(run.out).is_array());
}

}  // namespace
}  // namespace bbo::client
