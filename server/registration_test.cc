#include "server/registration.h"

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/competition.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

// Registrations over both stores (the SQLite one in a file of its own).
class RegistrationsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      path_ = std::filesystem::temp_directory_path() /
              ("bbo_registration_" + std::to_string(getpid()) + ".sqlite");
      std::filesystem::remove(path_);
      auto s = SqliteStore::Open(path_.string());
      ASSERT_TRUE(s.ok()) << s.status();
      store_ = std::move(*s);
    } else {
      store_ = std::make_unique<InMemoryStore>();
    }
    creds_ = std::make_unique<Credentials>(store_.get(), std::string(32, 'k'), &clock_);
    competition_ = std::make_unique<Competition>(store_.get(), &clock_, 1);
    competition_->set_about("T", "D", "Be fair.");
  }
  void TearDown() override {
    store_.reset();
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  Registrations Make(RegistrationMode mode, int max_teams = 1000) {
    return Registrations(mode, max_teams, store_.get(), creds_.get(), competition_.get(),
                         &clock_);
  }
  static RegistrationRequest Request(const std::string& team, const std::string& peer = "10.0.0.1") {
    RegistrationRequest r;
    r.team = team;
    r.accept_terms = true;
    r.peer = peer;
    return r;
  }

  FakeClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  std::filesystem::path path_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Credentials> creds_;
  std::unique_ptr<Competition> competition_;
};

TEST_P(RegistrationsTest, OpenRegistrationGivesAWorkingTokenOnceAndChecksItsFields) {
  Registrations reg = Make(RegistrationMode::kOpen);
  RegistrationRequest bad = Request("no spaces allowed");
  EXPECT_THAT(reg.Register(Identity::Anonymous(), bad).status().message(), HasSubstr("team:"));
  RegistrationRequest no_terms = Request("alpha");
  no_terms.accept_terms = false;
  EXPECT_THAT(reg.Register(Identity::Anonymous(), no_terms).status().message(),
              HasSubstr("terms"));
  RegistrationRequest bad_mail = Request("alpha");
  bad_mail.email = "<script>@";
  EXPECT_TRUE(absl::IsInvalidArgument(reg.Register(Identity::Anonymous(), bad_mail).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(
      reg.Register(Identity::Team("beta"), Request("alpha")).status()));

  RegistrationRequest ok = Request("alpha");
  ok.email = "alpha@example.org";
  absl::StatusOr<RegistrationAnswer> a = reg.Register(Identity::Anonymous(), ok);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->state, "registered");
  EXPECT_TRUE(a->claim.empty());
  EXPECT_EQ(creds_->Authenticate(a->token)->Describe(), "team:alpha");
  // The e-mail is where its notifications go; the terms' acceptance is recorded.
  EXPECT_EQ((*store_->GetTeamContact("alpha"))->email, "alpha@example.org");
  EXPECT_EQ((*store_->GetRegistration("alpha"))->terms_accepted_at, 1'800'000'000);
  EXPECT_TRUE(absl::IsAlreadyExists(reg.Register(Identity::Anonymous(), Request("alpha")).status()));
  // A name a token was issued to is taken too.
  ASSERT_TRUE(creds_->Issue(CredentialKind::kTeam, "gamma").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(reg.Register(Identity::Anonymous(), Request("gamma")).status()));
}

TEST_P(RegistrationsTest, ClosedRegistrationRefusesEveryone) {
  Registrations reg = Make(RegistrationMode::kClosed);
  absl::Status s = reg.Register(Identity::Anonymous(), Request("alpha")).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s));
  EXPECT_THAT(s.message(), HasSubstr("organizers issue"));
  EXPECT_TRUE(store_->ListRegistrations()->empty());
}

TEST_P(RegistrationsTest, AnInviteCodeRegistersAsManyTeamsAsItsUsesUntilRevoked) {
  Registrations reg = Make(RegistrationMode::kInviteCode);
  RegistrationRequest none = Request("alpha");
  EXPECT_THAT(reg.Register(Identity::Anonymous(), none).status().message(),
              HasSubstr("invite_code"));
  none.invite_code = "bbo_invite_nonsense";
  EXPECT_TRUE(absl::IsPermissionDenied(reg.Register(Identity::Anonymous(), none).status()));
  none.invite_code = "<b>markup</b>";
  EXPECT_TRUE(absl::IsPermissionDenied(reg.Register(Identity::Anonymous(), none).status()));

  auto invite = reg.IssueInvite(2, "for the lab", "organizer");
  ASSERT_TRUE(invite.ok()) << invite.status();
  EXPECT_TRUE(absl::StartsWith(invite->second, "bbo_invite_"));
  // Only its hash is stored.
  for (const InviteRecord& i : *store_->ListInvites()) {
    EXPECT_FALSE(absl::StrContains(i.code_hash, invite->second));
  }
  for (const char* team : {"alpha", "beta"}) {
    RegistrationRequest r = Request(team);
    r.invite_code = " " + invite->second + "\n";  // pasted with blanks
    absl::StatusOr<RegistrationAnswer> a = reg.Register(Identity::Anonymous(), r);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(creds_->Authenticate(a->token)->name, team);
  }
  RegistrationRequest third = Request("gamma");
  third.invite_code = invite->second;
  EXPECT_TRUE(absl::IsPermissionDenied(reg.Register(Identity::Anonymous(), third).status()));
  // A refused code stores nothing and takes no use.
  auto second = reg.IssueInvite(5, "", "organizer");
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(reg.RevokeInvite(second->first).ok());
  third.invite_code = second->second;
  EXPECT_TRUE(absl::IsPermissionDenied(reg.Register(Identity::Anonymous(), third).status()));
  EXPECT_EQ(store_->ListRegistrations()->size(), 2u);
  EXPECT_TRUE(absl::IsNotFound(reg.RevokeInvite(second->first)));
  EXPECT_TRUE(absl::IsInvalidArgument(reg.IssueInvite(0, "", "organizer").status()));
}

TEST_P(RegistrationsTest, ApprovalHandsTheTokenOverOnceAfterTheOrganizersDecide) {
  Registrations reg = Make(RegistrationMode::kApproval);
  absl::StatusOr<RegistrationAnswer> a = reg.Register(Identity::Anonymous(), Request("alpha"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->state, "pending");
  EXPECT_TRUE(a->token.empty());
  ASSERT_TRUE(absl::StartsWith(a->claim, "bbo_claim_"));
  // No token exists before the approval.
  EXPECT_TRUE(store_->ListCredentials()->empty());
  EXPECT_EQ(reg.Claim(a->claim)->state, "pending");
  EXPECT_TRUE(absl::IsNotFound(reg.Claim("bbo_claim_unknown").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(reg.Claim("not a code").status()));

  ASSERT_TRUE(reg.Decide("alpha", true, "organizer", "").ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(reg.Decide("alpha", false, "organizer", "late")));
  absl::StatusOr<RegistrationAnswer> claimed = reg.Claim(a->claim);
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_EQ(claimed->state, "registered");
  EXPECT_EQ(creds_->Authenticate(claimed->token)->Describe(), "team:alpha");
  // Shown once: a second claim gets no token.
  absl::Status again = reg.Claim(a->claim).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(again));
  EXPECT_THAT(again.message(), HasSubstr("rotate"));

  absl::StatusOr<RegistrationAnswer> b = reg.Register(Identity::Anonymous(), Request("beta"));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(reg.Decide("beta", false, "organizer", " ")));
  ASSERT_TRUE(reg.Decide("beta", false, "organizer", "not a <b>real</b> team").ok());
  absl::StatusOr<RegistrationAnswer> rejected = reg.Claim(b->claim);
  ASSERT_TRUE(rejected.ok());
  EXPECT_EQ(rejected->state, "rejected");
  EXPECT_THAT(rejected->message, HasSubstr("not a <b>real</b> team"));
  EXPECT_TRUE(rejected->token.empty());
  EXPECT_TRUE(absl::IsNotFound(reg.Decide("nobody", true, "organizer", "")));
}

TEST_P(RegistrationsTest, RegistrationsAreBoundedPerAddressAndInAll) {
  Registrations reg = Make(RegistrationMode::kOpen, /*max_teams=*/7);
  for (int i = 0; i < Registrations::kMaxPerAddress; ++i) {
    ASSERT_TRUE(reg.Register(Identity::Anonymous(), Request("t" + std::to_string(i))).ok());
  }
  absl::Status s = reg.Register(Identity::Anonymous(), Request("t9")).status();
  EXPECT_TRUE(absl::IsResourceExhausted(s));
  EXPECT_THAT(s.message(), HasSubstr("last 10 minutes"));
  // Another address may; after the window this one may again.
  ASSERT_TRUE(reg.Register(Identity::Anonymous(), Request("u1", "10.0.0.2")).ok());
  clock_.Advance(absl::Seconds(Registrations::kAddressWindowSeconds + 1));
  ASSERT_TRUE(reg.Register(Identity::Anonymous(), Request("t9")).ok());
  // 7 teams: the competition is full.
  s = reg.Register(Identity::Anonymous(), Request("t10", "10.0.0.3")).status();
  EXPECT_TRUE(absl::IsResourceExhausted(s));
  EXPECT_THAT(s.message(), HasSubstr("7 teams"));
}

// Item 8 of issue 34: five junk registrations from a shared address (a proxy, a campus) lock
// nobody out for an hour: the per-address window is 10 minutes, rejecting the junk frees the
// address at once, and registrations with an invite code are bounded by the code's uses only.
TEST_P(RegistrationsTest, JunkFromASharedAddressLocksNobodyOutForLong) {
  Registrations approval = Make(RegistrationMode::kApproval);
  for (int i = 0; i < Registrations::kMaxPerAddress; ++i) {
    ASSERT_TRUE(approval.Register(Identity::Anonymous(), Request("junk" + std::to_string(i))).ok());
  }
  EXPECT_TRUE(absl::IsResourceExhausted(
      approval.Register(Identity::Anonymous(), Request("real")).status()));
  ASSERT_TRUE(approval.Decide("junk0", false, "organizer", "not a team").ok());
  ASSERT_TRUE(approval.Register(Identity::Anonymous(), Request("real")).ok());
  EXPECT_TRUE(absl::IsResourceExhausted(
      approval.Register(Identity::Anonymous(), Request("real2")).status()));
  clock_.Advance(absl::Minutes(11));
  ASSERT_TRUE(approval.Register(Identity::Anonymous(), Request("real2")).ok());

  Registrations invited = Make(RegistrationMode::kInviteCode);
  auto invite = invited.IssueInvite(20, "the whole lab, one NAT", "organizer");
  ASSERT_TRUE(invite.ok()) << invite.status();
  for (int i = 0; i < 3 * Registrations::kMaxPerAddress; ++i) {
    RegistrationRequest r = Request("lab" + std::to_string(i), "192.0.2.7");
    r.invite_code = invite->second;
    ASSERT_TRUE(invited.Register(Identity::Anonymous(), r).ok()) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, RegistrationsTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Sqlite" : "InMemory"; });

}  // namespace
}  // namespace bbo
