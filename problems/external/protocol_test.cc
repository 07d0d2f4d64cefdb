#include "problems/external/protocol.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::external {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json Describe() {
  return json::parse(R"({"protocol": "bbo-problem/1", "name": "toy",
      "api_config": {"x": {"type": "real", "space": "linear", "range": [0, 1]}},
      "known_optimum": 0.5, "attributes": ["cheap"], "family": "demo"})");
}

TEST(ProtocolTest, EncodesRequests) {
  EXPECT_EQ(json::parse(DescribeRequest()),
            json::parse(R"({"type": "describe", "protocol": "bbo-problem/1"})"));
  absl::StatusOr<std::string> eval = EvaluateRequest(7, {{{"x", 0.5}}, {{"x", int64_t{2}}}});
  ASSERT_TRUE(eval.ok());
  EXPECT_EQ(*eval, R"({"id":7,"points":[{"x":0.5},{"x":2}],"type":"evaluate"})");
  EXPECT_EQ(json::parse(ExitRequest())["type"], "exit");
}

TEST(ProtocolTest, ParsesAValidDescribeReply) {
  absl::StatusOr<DescribeInfo> info = ParseDescribe(Describe());
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->name, "toy");
  EXPECT_EQ(info->known_optimum, 0.5);
  EXPECT_THAT(info->attributes, ::testing::ElementsAre("cheap"));
  EXPECT_EQ(info->family, "demo");
  EXPECT_EQ(DescribeIdentity(Describe()),
            json({{"name", "toy"}, {"api_config", Describe()["api_config"]}}));
}

TEST(ProtocolTest, DescribeErrorsNameTheField) {
  json bad_name = Describe();
  bad_name["name"] = "has space";
  EXPECT_THAT(ParseDescribe(bad_name).status().message(), HasSubstr("field \"name\""));
  json bad_protocol = Describe();
  bad_protocol["protocol"] = "bbo-problem/9";
  EXPECT_THAT(ParseDescribe(bad_protocol).status().message(), HasSubstr("unsupported protocol"));
  json bad_optimum = Describe();
  bad_optimum["known_optimum"] = "low";
  EXPECT_THAT(ParseDescribe(bad_optimum).status().message(), HasSubstr("\"known_optimum\""));
  EXPECT_THAT(ParseDescribe(json{{"error", "no model"}}).status().message(),
              HasSubstr("answered describe with an error: \"no model\""));
}

TEST(ProtocolTest, ParsesEvaluateRepliesWithInfNanAndGeneralization) {
  auto r = ParseEvaluateReply(
      R"({"id": 3, "values": [1.5, "inf", "nan"], "generalization": [2, 3, 4]})", 3, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].value, 1.5);
  EXPECT_EQ((*r)[1].value, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan((*r)[2].value));
  EXPECT_EQ((*r)[2].generalization, 4.0);
}

TEST(ProtocolTest, GarbageRepliesAreInvalidArgumentNamingTheFault) {
  struct Case {
    const char* line;
    const char* expected;
  };
  for (const Case& c : {Case{"not json", "reply is not JSON"},
                        Case{"NaN", "bare NaN/Infinity"},
                        Case{"[1]", "not a JSON object"},
                        Case{R"({"id": 4, "values": [1]})", "reply \"id\" is 4, expected 3"},
                        Case{R"({"values": [1, 2]})", "has 2 entries for 1 points"},
                        Case{R"({"values": ["x"]})", "\"values\"[0] is \"x\""},
                        Case{R"({"other": 1})", "no \"values\""}}) {
    SCOPED_TRACE(c.line);
    auto r = ParseEvaluateReply(c.line, 3, 1);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(c.expected));
  }
}

TEST(ProtocolTest, TheProblemsOwnErrorIsFailedPrecondition) {
  auto r = ParseEvaluateReply(R"({"id": 3, "error": "fit failed"})", 3, 1);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.status().message(), "fit failed");
}

TEST(ProtocolTest, QuoteCutsAndEscapes) {
  EXPECT_EQ(Quote("a\"b\n"), R"("a\"b\n")");
  EXPECT_EQ(Quote("abcdef", 3), R"("abc"...)");
}

}  // namespace
}  // namespace bbo::external
