#include "server/access.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

TEST(AccessPolicyTest, VisiblePhaseShowsEverythingToEveryone) {
  AccessPolicy visible(false);
  EXPECT_TRUE(visible.RequireOrganizerIfHidden(Identity::Anonymous(), "the problems").ok());
  EXPECT_TRUE(visible.ShowsPerProblemResults(Identity::Anonymous()));
}

TEST(AccessPolicyTest, HiddenPhaseDeniesAnonymousCallersNamingWhat) {
  AccessPolicy hidden(true);
  absl::Status s = hidden.RequireOrganizerIfHidden(Identity::Anonymous(), "the problems");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(s.message()), ::testing::StartsWith("the problems of this hidden phase"));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("BBO_TOKEN"));
  EXPECT_FALSE(hidden.ShowsPerProblemResults(Identity::Anonymous()));
}

TEST(AccessPolicyTest, HiddenPhaseShowsEverythingToOrganizers) {
  AccessPolicy hidden(true);
  EXPECT_TRUE(hidden.RequireOrganizerIfHidden(Identity::Organizer(), "the problems").ok());
  EXPECT_TRUE(hidden.ShowsPerProblemResults(Identity::Organizer()));
}

}  // namespace
}  // namespace bbo
