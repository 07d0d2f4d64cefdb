#include "common/wire.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

v1::Suggestion Proto(const Point& p) {
  v1::Suggestion s;
  PointToProto(p, &s);
  return s;
}

TEST(WireTest, EveryParameterTypeRoundTripsThroughProto) {
  const Point p = {{"b", true}, {"c", std::string("adam")}, {"i", int64_t{-7}}, {"r", 0.25}};
  v1::Suggestion s = Proto(p);
  ASSERT_EQ(s.params_size(), 4);
  EXPECT_EQ(s.params().at("b").kind_case(), v1::ParamValue::kBoolValue);
  EXPECT_TRUE(s.params().at("b").bool_value());
  EXPECT_EQ(s.params().at("c").cat_value(), "adam");
  EXPECT_EQ(s.params().at("i").int_value(), -7);
  EXPECT_EQ(s.params().at("r").real_value(), 0.25);
  absl::StatusOr<Point> back = PointFromProto(s);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, p);
}

TEST(WireTest, IntsAndRealsStayApart) {
  v1::Suggestion from_json;
  ASSERT_TRUE(SuggestionFromJson(json::parse(R"({"a": 3, "b": 3.0, "c": -1})"), &from_json).ok());
  EXPECT_EQ(from_json.params().at("a").kind_case(), v1::ParamValue::kIntValue);
  EXPECT_EQ(from_json.params().at("a").int_value(), 3);
  EXPECT_EQ(from_json.params().at("b").kind_case(), v1::ParamValue::kRealValue);
  EXPECT_EQ(from_json.params().at("b").real_value(), 3.0);
  EXPECT_EQ(from_json.params().at("c").int_value(), -1);
  absl::StatusOr<json> j = SuggestionToJson(from_json);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->dump(), R"({"a":3,"b":3.0,"c":-1})");
  absl::StatusOr<Point> p = PointFromProto(from_json);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(std::holds_alternative<int64_t>(p->at("a")));
  EXPECT_TRUE(std::holds_alternative<double>(p->at("b")));
}

TEST(WireTest, LargeUnsignedJsonBecomesAReal) {
  v1::Suggestion s;
  ASSERT_TRUE(SuggestionFromJson(json::parse(R"({"a": 18446744073709551615})"), &s).ok());
  EXPECT_EQ(s.params().at("a").kind_case(), v1::ParamValue::kRealValue);
}

TEST(WireTest, BoolIsNotANumber) {
  v1::Suggestion s;
  ASSERT_TRUE(SuggestionFromJson(json::parse(R"({"flag": false, "n": 0})"), &s).ok());
  EXPECT_EQ(s.params().at("flag").kind_case(), v1::ParamValue::kBoolValue);
  EXPECT_FALSE(s.params().at("flag").bool_value());
  EXPECT_EQ(s.params().at("n").kind_case(), v1::ParamValue::kIntValue);
  EXPECT_EQ(SuggestionToJson(s)->dump(), R"({"flag":false,"n":0})");
}

TEST(WireTest, CategoricalStringsKeepTheirBytes) {
  v1::Suggestion s;
  ASSERT_TRUE(SuggestionFromJson(json{{"kernel", "rbf"}, {"empty", ""}, {"u", "é"}}, &s).ok());
  EXPECT_EQ(s.params().at("kernel").cat_value(), "rbf");
  EXPECT_EQ(s.params().at("empty").kind_case(), v1::ParamValue::kCatValue);
  EXPECT_EQ(s.params().at("u").cat_value(), "é");
  EXPECT_EQ(*PointFromProto(s), (Point{{"empty", std::string()}, {"kernel", std::string("rbf")},
                                       {"u", std::string("é")}}));
}

TEST(WireTest, NanAndInfinityTravelUnchanged) {
  const double inf = std::numeric_limits<double>::infinity();
  v1::Suggestion s = Proto({{"n", std::nan("")}, {"p", inf}, {"m", -inf}});
  absl::StatusOr<Point> p = PointFromProto(s);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(std::isnan(std::get<double>(p->at("n"))));
  EXPECT_EQ(std::get<double>(p->at("p")), inf);
  EXPECT_EQ(std::get<double>(p->at("m")), -inf);
  // In memory (a parsed Python NaN literal), JSON holds them as reals too.
  v1::Suggestion from_json;
  ASSERT_TRUE(SuggestionFromJson(json{{"n", std::nan("")}, {"p", inf}}, &from_json).ok());
  EXPECT_TRUE(std::isnan(from_json.params().at("n").real_value()));
  EXPECT_EQ(from_json.params().at("p").real_value(), inf);
}

TEST(WireTest, EmptyParamValueIsRefusedWithTheName) {
  v1::Suggestion s = Proto({{"x", 1.0}});
  (*s.mutable_params())["lr"] = v1::ParamValue();
  absl::StatusOr<Point> p = PointFromProto(s);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  // The coordinator reports this message verbatim; keep it stable.
  EXPECT_EQ(p.status().message(), "parameter \"lr\": no value set");
  absl::StatusOr<json> j = SuggestionToJson(s);
  EXPECT_EQ(j.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(j.status().message(), HasSubstr("\"lr\""));
}

TEST(WireTest, ArraysObjectsAndNullAreRefusedWithTheNameAndMarked) {
  for (const char* bad : {"[1, 2]", R"({"a": 1})", "null"}) {
    SCOPED_TRACE(bad);
    json j = {{"ok", 0.5}, {"lr", json::parse(bad)}};
    v1::Suggestion s;
    absl::Status st = SuggestionFromJson(j, &s);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(st.message(), HasSubstr("parameter \"lr\""));
    EXPECT_THAT(st.message(), HasSubstr(json::parse(bad).type_name()));
    // The refused value travels as the "no value" marker; the rest as usual.
    ASSERT_EQ(s.params_size(), 2);
    EXPECT_EQ(s.params().at("lr").kind_case(), v1::ParamValue::KIND_NOT_SET);
    EXPECT_EQ(s.params().at("ok").real_value(), 0.5);
    // ...which the receiving side refuses with the same name.
    EXPECT_EQ(PointFromProto(s).status().message(), "parameter \"lr\": no value set");
  }
}

TEST(WireTest, ANonObjectSuggestionIsRefusedAndSentEmpty) {
  v1::Suggestion s = Proto({{"stale", 1.0}});
  absl::Status st = SuggestionFromJson(json::parse("[0.1, 0.2]"), &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("JSON object"));
  EXPECT_EQ(s.params_size(), 0);
}

TEST(WireTest, PointToProtoReplacesThePreviousParams) {
  v1::Suggestion s = Proto({{"old", 1.0}});
  PointToProto({{"new", int64_t{2}}}, &s);
  ASSERT_EQ(s.params_size(), 1);
  EXPECT_EQ(s.params().at("new").int_value(), 2);
}

TEST(WireTest, ATurnReportRoundTripsAndAnUnknownFigureStaysUnknown) {
  TurnReport turn;
  turn.suggest_s = 1.25;
  turn.observe_s = 0.5;
  turn.figures.optimizer_cpu_s = 0.75;
  v1::SubmitBatchRequest req;
  TurnReportToProto(turn, &req);
  const TurnReport back = TurnReportFromProto(req);
  EXPECT_EQ(back.suggest_s, 1.25);
  EXPECT_EQ(back.observe_s, 0.5);
  EXPECT_EQ(back.figures, turn.figures);
  v1::SubmitBatchRequest none;
  TurnReportToProto(TurnReport{}, &none);
  EXPECT_FALSE(none.has_optimizer_cpu_s());
  EXPECT_EQ(TurnReportFromProto(none).figures, BatchFigures{});
}

TEST(WireTest, TheCoordinatorKeepsOnlyFiguresThatAreNonNegativeNumbers) {
  for (double bad : {-0.5, std::nan(""), HUGE_VAL}) {
    BatchFigures f;
    f.optimizer_cpu_s = bad;
    EXPECT_FALSE(CheckedFigures(f).optimizer_cpu_s.has_value()) << bad;
    EXPECT_FALSE(AnyFigure(CheckedFigures(f)));
  }
  BatchFigures ok;
  ok.optimizer_cpu_s = 0;
  EXPECT_EQ(CheckedFigures(ok), ok);
  EXPECT_TRUE(AnyFigure(ok));
}

}  // namespace
}  // namespace bbo
