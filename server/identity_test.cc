#include "server/identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

class CredentialsTest : public ::testing::Test {
 protected:
  CredentialsTest() : clock_(absl::FromUnixSeconds(1000)) {}
  InMemoryStore store_;
  FakeClock clock_;
  Credentials creds_{&store_, std::string(32, 'k'), &clock_};
};

TEST_F(CredentialsTest, IssuedTokensAuthenticateAsTheirOwnerAndOnlyTheHashIsStored) {
  auto team = creds_.Issue(CredentialKind::kTeam, "alpha");
  auto worker = creds_.Issue(CredentialKind::kWorker, "host-1");
  auto org = creds_.Issue(CredentialKind::kOrganizer, "");
  ASSERT_TRUE(team.ok() && worker.ok() && org.ok());
  EXPECT_TRUE(absl::StartsWith(*team, "bbo_team_"));
  EXPECT_EQ(team->size(), std::string("bbo_team_").size() + 43);  // 32 bytes, base64url
  EXPECT_EQ(creds_.Authenticate(*team)->Describe(), "team:alpha");
  EXPECT_EQ(creds_.Authenticate(*worker)->Describe(), "worker:host-1");
  EXPECT_TRUE(creds_.Authenticate(*org)->is_organizer());
  EXPECT_EQ(creds_.Authenticate("")->Describe(), "anonymous");
  for (const CredentialRecord& c : *store_.ListCredentials()) {
    EXPECT_EQ(c.token_hash.size(), 32u);
    EXPECT_EQ(c.token_hash.find(team->substr(9, 16)), std::string::npos);
    EXPECT_NE(c.token_hash, *team);
  }
}

TEST_F(CredentialsTest, TokensAreRandomAndTheHashIsKeyed) {
  std::set<std::string> tokens;
  for (int i = 0; i < 50; ++i) tokens.insert(*creds_.Issue(CredentialKind::kTeam, "t"));
  EXPECT_EQ(tokens.size(), 50u);
  Credentials other_key(&store_, std::string(32, 'x'), &clock_);
  const std::string token = *tokens.begin();
  EXPECT_NE(creds_.Hash(token), other_key.Hash(token));
  // The same database with another secret authenticates nobody.
  EXPECT_EQ(other_key.Authenticate(token).status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(CredentialsTest, WrongMalformedAndRevokedTokensAreUnauthenticated) {
  const std::string token = *creds_.Issue(CredentialKind::kTeam, "alpha");
  std::string flipped = token;
  flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
  for (const std::string& bad : {flipped, std::string("Bearer x"), std::string(200, 'b'),
                                 std::string("bbo_team_")}) {
    auto who = creds_.Authenticate(bad);
    EXPECT_EQ(who.status().code(), absl::StatusCode::kUnauthenticated) << bad;
  }
  ASSERT_TRUE(creds_.Revoke(CredentialKind::kTeam, "alpha").ok());
  auto revoked = creds_.Authenticate(token);
  EXPECT_EQ(revoked.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(revoked.status().message(), HasSubstr("revoked"));
  EXPECT_TRUE(absl::IsNotFound(creds_.Revoke(CredentialKind::kTeam, "alpha")));
}

TEST_F(CredentialsTest, RotateRevokesTheOldTokenAndIssuesANewOne) {
  const std::string old = *creds_.Issue(CredentialKind::kWorker, "w");
  const std::string fresh = *creds_.Rotate(CredentialKind::kWorker, "w");
  EXPECT_NE(old, fresh);
  EXPECT_FALSE(creds_.Authenticate(old).ok());
  EXPECT_EQ(creds_.Authenticate(fresh)->Describe(), "worker:w");
}

TEST_F(CredentialsTest, OwnerNamesAreValidated) {
  for (const char* bad : {"", "with space", "slash/", "é", "semi;colon"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(creds_.Issue(CredentialKind::kTeam, bad).status()))
        << bad;
  }
  EXPECT_TRUE(absl::IsInvalidArgument(
      creds_.Issue(CredentialKind::kTeam, std::string(65, 'a')).status()));
  EXPECT_TRUE(creds_.Issue(CredentialKind::kTeam, std::string(64, 'a')).ok());
}

TEST_F(CredentialsTest, AuditRecordsWhoDidWhat) {
  creds_.Audit(Identity::Team("alpha"), "RegisterSubmission", false, "quota reached");
  auto log = store_.ListAudit(10);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].who, "team:alpha");
  EXPECT_FALSE((*log)[0].allowed);
  EXPECT_EQ((*log)[0].at, 1000);
}

TEST(CredentialsSecretTest, IsCreatedPrivateOnceAndReadBack) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("identity_test_" + std::to_string(getpid()) + ".secret");
  std::filesystem::remove(path);
  auto made = Credentials::LoadOrCreateSecret(path);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->size(), 32u);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(*Credentials::LoadOrCreateSecret(path), *made);
  chmod(path.c_str(), 0644);
  EXPECT_TRUE(absl::IsFailedPrecondition(Credentials::LoadOrCreateSecret(path).status()));
  chmod(path.c_str(), 0600);
  std::ofstream(path, std::ios::trunc) << "short";
  EXPECT_TRUE(absl::IsFailedPrecondition(Credentials::LoadOrCreateSecret(path).status()));
  std::filesystem::remove(path);
}

// Item 8 of issue 34: refused calls write at most refusal_rows_per_minute rows per caller and
// action (the rest counted in the next row), and the log keeps its latest audit_rows_kept rows.
TEST(CredentialsAuditTest, RefusalRowsAreBoundedAndTheLogIsTrimmed) {
  const std::filesystem::path db = std::filesystem::temp_directory_path() /
                                   ("bbo_audit_trim_" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(db);
  auto store = SqliteStore::Open(db.string());
  ASSERT_TRUE(store.ok()) << store.status();
  FakeClock clock(absl::FromUnixSeconds(1000));
  CredentialsOptions o;
  o.refusal_rows_per_minute = 3;
  o.audit_rows_kept = 100;
  Credentials creds(store->get(), std::string(32, 'k'), &clock, o);
  for (int i = 0; i < 10; ++i) creds.Audit(Identity::Anonymous(), "GetReport", false, "no");
  creds.Audit(Identity::Team("red"), "GetReport", false, "another caller");
  EXPECT_EQ((*store)->ListAudit(1000)->size(), 4u);
  clock.Advance(absl::Seconds(61));
  creds.Audit(Identity::Anonymous(), "GetReport", false, "no");
  auto last = (*store)->ListAudit(1);
  ASSERT_EQ(last->size(), 1u);
  EXPECT_THAT((*last)[0].detail, HasSubstr("and 7 more such refusals not written"));
  for (int i = 0; i < 2500; ++i) creds.Audit(Identity::Organizer(), "admin:x", true, "");
  const std::vector<AuditRecord> kept = *(*store)->ListAudit(100000);
  EXPECT_GE(kept.size(), 100u);
  EXPECT_LE(kept.size(), 1100u);
  EXPECT_EQ(kept.back().id, 2505);  // ids keep growing
  std::filesystem::remove(db);
}

}  // namespace
}  // namespace bbo
