#include "server/notify/internal/url.h"

#include "gtest/gtest.h"

namespace bbo::notify::internal {
namespace {

TEST(ParseUrlTest, SplitsSchemeHostAndPort) {
  absl::StatusOr<UrlParts> url = ParseUrl("HTTPS://Hooks.Example.ORG:8443/a/b?c=d#e");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->host, "hooks.example.org");
  EXPECT_EQ(url->port, 8443);
  url = ParseUrl("smtp://[::1]:25");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, 25);
  url = ParseUrl("https://example.org?x");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "example.org");
  EXPECT_EQ(url->port, 0);
}

TEST(ParseUrlTest, RefusesWhatNoWebhookNeeds) {
  for (const char* url :
       {"", "example.org", "://example.org", "1http://example.org", "https://", "https://:443/",
        "https://a@example.org", "https://example.org:65536", "https://example.org:-1",
        "https://example.org:+80", "https://example.org:8o", "https://[::1", "https://[zz::1]/",
        "https://[::1]x/", "https://exa%6dple.org/", "https://example.org/\x7f",
        "https://example.org/\xc3\xa9", "https://example.org\\x"}) {
    EXPECT_EQ(ParseUrl(url).status().code(), absl::StatusCode::kInvalidArgument) << url;
  }
  EXPECT_EQ(ParseUrl("https://example.org/" + std::string(kMaxUrlBytes, 'x')).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(IsLoopbackHostTest, LiteralLoopbackOnly) {
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("LocalHost."));
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.255.0.9"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("127.example.org"));
  EXPECT_FALSE(IsLoopbackHost("localhost.example.org"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("::2"));
  EXPECT_FALSE(IsLoopbackHost(""));
}

}  // namespace
}  // namespace bbo::notify::internal
