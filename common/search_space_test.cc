#include "common/search_space.h"

#include <cmath>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

nlohmann::json Example() {
  // PROTOCOL.md's example (Turner et al. (2021)).
  return nlohmann::json::parse(R"({
    "C": {"type": "real", "space": "log", "range": [1.0, 1e3]},
    "kernel": {"type": "cat", "values": ["rbf", "linear"]},
    "n_estimators": {"type": "int", "space": "linear", "range": [10, 200]},
    "bootstrap": {"type": "bool"}})");
}

absl::Status ParseError(const std::string& json) {
  return SearchSpace::Parse(json).status();
}

TEST(SearchSpaceTest, ParsesExampleSortedByName) {
  auto s = SearchSpace::FromJson(Example());
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->dims(), 4);
  EXPECT_EQ(s->params()[0].name, "C");
  EXPECT_EQ(s->params()[1].name, "bootstrap");
  EXPECT_EQ(s->params()[2].name, "kernel");
  EXPECT_EQ(s->params()[3].name, "n_estimators");
  EXPECT_EQ(s->params()[0].space, WarpKind::kLog);
  EXPECT_EQ(s->params()[3].type, ParamType::kInt);
}

TEST(SearchSpaceTest, RejectsEveryMalformedConfigNamingTheParameter) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {R"({})", "no parameters"},
      {R"([1])", "JSON object"},
      {R"({"a": {"type": "float", "range": [0, 1]}})", "\"a\": unknown type"},
      {R"({"a": {"type": "real", "space": "sqrt", "range": [0, 1]}})", "unknown space"},
      {R"({"a": {"type": "real", "range": [0, 1], "values": [0.5]}})", "exactly one of"},
      {R"({"a": {"type": "real"}})", "exactly one of"},
      {R"({"a": {"type": "real", "space": "linear", "range": [2, 1]}})", "above the upper bound"},
      // Bayesmark's JointSpace: no default space, two distinct values at least.
      {R"({"a": {"type": "real", "range": [0, 1]}})", "a real needs \"space\""},
      {R"({"a": {"type": "int", "values": [16, 32]}})", "an int needs \"space\""},
      {R"({"a": {"type": "int", "space": "linear", "values": [3, 3]}})", "two distinct"},
      {R"({"a": {"type": "cat", "values": ["x"]}})", "at least two distinct"},
      {R"({"a": {"type": "cat", "values": ["x", "x"]}})", "at least two distinct"},
      {R"({"a": {"type": "real", "space": "log", "range": [0, 1]}})", "log space"},
      {R"({"a": {"type": "real", "space": "logit", "range": [0.1, 1]}})", "logit"},
      {R"({"a": {"type": "int", "space": "logit", "range": [1, 2]}})", "int cannot use"},
      {R"({"a": {"type": "bool", "range": [0, 1]}})", "bool takes no key"},
      {R"({"a": {"type": "cat", "values": [1, 2]}})", "must be strings"},
      {R"({"a": {"type": "cat"}})", "non-empty list"},
      {R"({"a": {"type": "real", "range": [0, 1], "foo": 1}})", "unknown key"},
      {R"({"a": {"type": "int", "space": "linear", "values": [1.5, 2]}})", "not an integer"},
  };
  for (const auto& c : cases) {
    absl::Status s = ParseError(c.json);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_THAT(s.message(), HasSubstr(c.expect)) << c.json;
  }
  EXPECT_EQ(ParseError("{not json").code(), absl::StatusCode::kInvalidArgument);
}

TEST(SearchSpaceTest, OrdinalIsAnAliasOfCat) {
  auto s = SearchSpace::Parse(R"({"o": {"type": "ordinal", "values": ["lo", "hi"]}})");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->params()[0].type, ParamType::kCat);
  EXPECT_EQ(s->api_config()["o"]["type"], "cat");
}

TEST(SearchSpaceTest, ValidateReportsEachKindOfInvalidPoint) {
  auto s = *SearchSpace::FromJson(Example());
  Point good{{"C", 10.0}, {"kernel", std::string("rbf")}, {"n_estimators", int64_t{50}},
             {"bootstrap", true}};
  EXPECT_TRUE(s.Validate(good).ok());
  struct Case {
    const char* key;
    ParamValue value;
    const char* expect;
  } cases[] = {
      {"C", 2000.0, "parameter \"C\": value 2000 is outside range [1, 1000]"},
      {"C", std::nan(""), "parameter \"C\": value nan is not finite"},
      {"n_estimators", 3.5, "parameter \"n_estimators\": value 3.5 is not an integer"},
      {"kernel", std::string("poly"), "value \"poly\" is not one of [\"rbf\", \"linear\"]"},
      {"bootstrap", std::string("yes"), "parameter \"bootstrap\": expected a bool"},
      {"C", std::string("big"), "parameter \"C\": expected a number"},
  };
  for (const auto& c : cases) {
    Point p = good;
    p[c.key] = c.value;
    absl::Status st = s.Validate(p);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << c.expect;
    EXPECT_THAT(st.message(), HasSubstr(c.expect));
  }
  Point missing = good;
  missing.erase("C");
  EXPECT_THAT(s.Validate(missing).message(), HasSubstr("missing parameter \"C\""));
  Point extra = good;
  extra["foo"] = 1.0;
  EXPECT_THAT(s.Validate(extra).message(), HasSubstr("unexpected parameter \"foo\""));
}

TEST(SearchSpaceTest, CanonicalizeConvertsTypes) {
  auto s = *SearchSpace::FromJson(Example());
  Point p{{"C", int64_t{10}}, {"kernel", std::string("rbf")}, {"n_estimators", 50.0},
          {"bootstrap", int64_t{0}}};
  auto c = s.Canonicalize(p);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(std::get<double>(c->at("C")), 10.0);
  EXPECT_EQ(std::get<int64_t>(c->at("n_estimators")), 50);
  EXPECT_EQ(std::get<bool>(c->at("bootstrap")), false);
}

TEST(SearchSpaceTest, ValuesSnapToNearest) {
  auto s = *SearchSpace::Parse(R"({"v": {"type": "real", "space": "linear", "values": [0.1, 1, 10]}})");
  auto c = s.Canonicalize(Point{{"v", 4.0}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(std::get<double>(c->at("v")), 1.0);
  EXPECT_FALSE(s.Validate(Point{{"v", 11.0}}).ok());
}

TEST(SearchSpaceTest, WarpUnwarpRoundTripsEveryWarp) {
  auto s = *SearchSpace::Parse(R"({
    "lin": {"type": "real", "space": "linear", "range": [-3, 5]},
    "log": {"type": "real", "space": "log", "range": [1e-3, 1e3]},
    "logit": {"type": "real", "space": "logit", "range": [0.01, 0.99]},
    "bilog": {"type": "real", "space": "bilog", "range": [-100, 100]},
    "ilog": {"type": "int", "space": "log", "range": [1, 1000]},
    "b": {"type": "bool"},
    "c": {"type": "cat", "values": ["x", "y", "z"]}})");
  Point p{{"lin", 1.5},   {"log", 0.5},    {"logit", 0.25},          {"bilog", -7.0},
          {"ilog", int64_t{37}}, {"b", true}, {"c", std::string("z")}};
  std::vector<double> w = s.Warp(p);
  // params sorted: b, bilog, c, ilog, lin, log, logit
  EXPECT_EQ(w[0], 1.0);
  EXPECT_NEAR(w[1], -std::log(8.0), 1e-12);  // bilog(-7) = -log(1 + 7)
  EXPECT_EQ(w[2], 2.0);
  EXPECT_NEAR(w[3], std::log(37.0), 1e-12);
  EXPECT_NEAR(w[5], std::log(0.5), 1e-12);
  EXPECT_NEAR(w[6], std::log(0.25 / 0.75), 1e-12);
  Point back = s.Unwarp(w);
  EXPECT_NEAR(std::get<double>(back["bilog"]), -7.0, 1e-9);
  EXPECT_EQ(std::get<int64_t>(back["ilog"]), 37);
  EXPECT_NEAR(std::get<double>(back["logit"]), 0.25, 1e-12);
  EXPECT_EQ(std::get<std::string>(back["c"]), "z");
  EXPECT_TRUE(s.Validate(back).ok());
  // Out-of-bounds warped input is clipped into the space.
  Point clipped = s.Unwarp(std::vector<double>(7, 1e6));
  EXPECT_TRUE(s.Validate(clipped).ok());
  EXPECT_EQ(std::get<double>(clipped["lin"]), 5.0);
  EXPECT_EQ(std::get<int64_t>(clipped["ilog"]), 1000);
}

TEST(SearchSpaceTest, RandomSearchIsUniformInWarpedSpace) {
  auto s = *SearchSpace::Parse(R"({
    "C": {"type": "real", "space": "log", "range": [1, 1000]},
    "n": {"type": "int", "space": "linear", "range": [1, 4]},
    "k": {"type": "cat", "values": ["a", "b", "c"]},
    "f": {"type": "bool"}})");
  std::mt19937_64 rng(7);
  const int n = 20000;
  int below_10 = 0, trues = 0;
  std::map<int64_t, int> ints;
  std::map<std::string, int> cats;
  for (const Point& p : s.SampleRandom(n, rng)) {
    ASSERT_TRUE(s.Validate(p).ok());
    below_10 += std::get<double>(p.at("C")) < 10 ? 1 : 0;
    ints[std::get<int64_t>(p.at("n"))]++;
    cats[std::get<std::string>(p.at("k"))]++;
    trues += std::get<bool>(p.at("f")) ? 1 : 0;
  }
  // log10 uniform on [0, 3]: P(C < 10) = 1/3.
  EXPECT_NEAR(below_10 / static_cast<double>(n), 1.0 / 3, 0.02);
  EXPECT_EQ(ints.size(), 4u);  // both ends reached
  EXPECT_EQ(cats.size(), 3u);
  for (auto& [k, c] : cats) EXPECT_NEAR(c / static_cast<double>(n), 1.0 / 3, 0.02) << k;
  EXPECT_NEAR(trues / static_cast<double>(n), 0.5, 0.02);
}

TEST(SearchSpaceTest, PointFromJsonKeepsTypes) {
  auto p = PointFromJson(nlohmann::json::parse(R"({"a": 3, "b": 3.0, "c": true, "d": "x"})"));
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(std::holds_alternative<int64_t>(p->at("a")));
  EXPECT_TRUE(std::holds_alternative<double>(p->at("b")));
  EXPECT_TRUE(std::holds_alternative<bool>(p->at("c")));
  EXPECT_TRUE(std::holds_alternative<std::string>(p->at("d")));
  EXPECT_THAT(PointFromJson(nlohmann::json::parse(R"({"a": [1]})")).status().message(),
              HasSubstr("\"a\""));
  EXPECT_EQ(PointToJson(*p).dump(), R"({"a":3,"b":3.0,"c":true,"d":"x"})");
}

}  // namespace
}  // namespace bbo
