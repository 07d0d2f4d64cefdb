#include "server/web/internal/http.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "server/web/internal/assets.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::web::internal {
namespace {

using ::testing::HasSubstr;

TEST(HttpStatusTest, MapsDomainCodesToHttp) {
  EXPECT_EQ(HttpStatus(absl::OkStatus()), 200);
  EXPECT_EQ(HttpStatus(absl::InvalidArgumentError("x")), 400);
  EXPECT_EQ(HttpStatus(absl::UnauthenticatedError("x")), 401);
  EXPECT_EQ(HttpStatus(absl::PermissionDeniedError("x")), 403);
  EXPECT_EQ(HttpStatus(absl::NotFoundError("x")), 404);
  EXPECT_EQ(HttpStatus(absl::FailedPreconditionError("x")), 409);
  EXPECT_EQ(HttpStatus(absl::ResourceExhaustedError("x")), 429);
  EXPECT_EQ(HttpStatus(absl::UnavailableError("x")), 503);
  EXPECT_EQ(HttpStatus(absl::DeadlineExceededError("x")), 504);
  EXPECT_EQ(HttpStatus(absl::InternalError("x")), 500);
}

TEST(SafeJsonTest, WritesMarkupCharactersAsEscapesThatParseBack) {
  const nlohmann::json value = {{"name", "</script><img src=x onerror=alert(1)>&amp;"}};
  const std::string text = SafeJson(value);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text), value);
}

TEST(SafeJsonTest, ReplacesInvalidUtf8InsteadOfThrowing) {
  const std::string text = SafeJson({{"name", std::string("a\xff" "b")}});
  EXPECT_TRUE(nlohmann::json::parse(text, nullptr, false).is_object()) << text;
}

TEST(ErrorBodyTest, HasTheMessageAndTheCodeOnly) {
  const nlohmann::json body = ErrorBody(absl::PermissionDeniedError("hidden"));
  EXPECT_EQ(body, nlohmann::json({{"error", "hidden"}, {"code", "PERMISSION_DENIED"}}));
}

TEST(BearerTokenTest, TakesTheTokenOfABearerHeaderOnly) {
  EXPECT_EQ(*BearerToken("Bearer bbo_team_abc-_"), "bbo_team_abc-_");
  for (const char* bad : {"", "Bearer ", "bearer abc", "Basic abc", "Bearer a b", "Bearer a\tb",
                          "Token abc"}) {
    absl::StatusOr<std::string> token = BearerToken(bad);
    EXPECT_TRUE(absl::IsUnauthenticated(token.status())) << bad;
  }
  EXPECT_THAT(std::string(BearerToken("Basic x").status().message()), HasSubstr("Bearer <token>"));
}

TEST(ParseHostPortTest, AcceptsHostPortAndBracketedV6) {
  EXPECT_EQ(ParseHostPort("127.0.0.1:0", "--web_listen")->host, "127.0.0.1");
  EXPECT_EQ(ParseHostPort("127.0.0.1:8080", "--web_listen")->port, 8080);
  EXPECT_EQ(ParseHostPort("[::1]:443", "--web_listen")->host, "::1");
  for (const char* bad : {"", "8080", ":8080", "host:", "host:x", "host:65536", "host:-1"}) {
    absl::StatusOr<HostPort> hp = ParseHostPort(bad, "--web_listen");
    EXPECT_TRUE(absl::IsInvalidArgument(hp.status())) << bad;
    if (!hp.ok()) EXPECT_THAT(std::string(hp.status().message()), HasSubstr("--web_listen"));
  }
}

TEST(ValidNameTest, AcceptsPhaseAndBoardNamesOnly) {
  EXPECT_TRUE(ValidName(""));
  EXPECT_TRUE(ValidName("final"));
  EXPECT_TRUE(ValidName("warm-start"));
  EXPECT_TRUE(ValidName(std::string(64, 'a')));
  EXPECT_FALSE(ValidName(std::string(65, 'a')));
  EXPECT_FALSE(ValidName("<script>"));
  EXPECT_FALSE(ValidName("a b"));
  EXPECT_FALSE(ValidName("../x/y"));
}


// The routes of the OpenAPI description itself, as WebServer registers them.
std::vector<std::string> DescribedRoutes() {
  std::vector<std::string> out;
  for (const Asset& a : Assets()) {
    if (a.path != "/openapi.json") continue;
    const nlohmann::json doc = nlohmann::json::parse(a.content);
    for (const auto& [path, ops] : doc["paths"].items()) {
      for (const auto& [method, unused] : ops.items()) out.push_back(method + " " + path);
    }
  }
  return out;
}

TEST(CheckRoutesDescribedTest, EveryServedRouteIsDescribedAndEveryDescribedOneServed) {
  std::vector<std::string> routes = DescribedRoutes();
  ASSERT_GE(routes.size(), 20u);
  EXPECT_TRUE(CheckRoutesDescribed(routes).ok());
  routes.push_back("post /api/undescribed");
  absl::Status extra = CheckRoutesDescribed(routes);
  EXPECT_EQ(extra.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(extra.message()), ::testing::HasSubstr("/api/undescribed"));
  routes.pop_back();
  routes.pop_back();
  absl::Status missing = CheckRoutesDescribed(routes);
  EXPECT_EQ(missing.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(missing.message()), ::testing::HasSubstr("does not serve"));
}

TEST(ParseJsonBodyTest, TakesJsonObjectsOfBoundedDepthOnly) {
  EXPECT_TRUE(ParseJsonBody("application/json", R"({"a": [1, {"b": 2}]})").ok());
  EXPECT_TRUE(ParseJsonBody("Application/JSON; charset=utf-8", "{}").ok());
  EXPECT_EQ(ParseJsonBody("text/plain", "{}").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseJsonBody("application/x-www-form-urlencoded", "a=1").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseJsonBody("application/json", "{").status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string deep = std::string(9, '[') + std::string(9, ']');
  EXPECT_EQ(ParseJsonBody("application/json", deep).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(ParseJsonBody("application/json", std::string(8, '[') + std::string(8, ']')).ok());
  // Brackets inside strings (and escaped quotes) do not count.
  EXPECT_TRUE(ParseJsonBody("application/json", R"({"a": "[[[[[[[[[[\"[[[["})").ok());
}

}  // namespace
}  // namespace bbo::web::internal
