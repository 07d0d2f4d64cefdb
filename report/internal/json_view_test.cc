#include "report/internal/json_view.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::scoring::internal {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

TEST(JsonViewTest, GetReadsAPresentKey) {
  const json j = {{"a", 1}, {"b", "x"}};
  EXPECT_EQ(Get(j, "a"), 1);
  EXPECT_EQ(Get(j, "b"), "x");
}

TEST(JsonViewTest, GetIsNullForAMissingKeyOrANonObject) {
  EXPECT_TRUE(Get(json{{"a", 1}}, "b").is_null());
  EXPECT_TRUE(Get(json(), "a").is_null());
  EXPECT_TRUE(Get(json::array({1, 2}), "a").is_null());
  EXPECT_TRUE(Get(json("a"), "a").is_null());
  EXPECT_TRUE(Get(json(3.5), "a").is_null());
  // Chains through missing levels without throwing.
  EXPECT_TRUE(Get(Get(Get(json::object(), "x"), "y"), "z").is_null());
}

TEST(JsonViewTest, AtIsNullOutOfRangeOrOnANonArray) {
  const json a = {10, 20};
  EXPECT_EQ(At(a, 1), 20);
  EXPECT_TRUE(At(a, 2).is_null());
  EXPECT_TRUE(At(json(), 0).is_null());
  EXPECT_TRUE(At(json{{"0", 1}}, 0).is_null());
  EXPECT_TRUE(At(json("ab"), 0).is_null());
}

TEST(JsonViewTest, ArrAndObjAreEmptyForTheWrongType) {
  const json a = {1, 2, 3};
  const json o = {{"k", 1}};
  EXPECT_EQ(&Arr(a), &a);
  EXPECT_EQ(&Obj(o), &o);
  for (const json& wrong : {json(), json(1), json("s"), json(true), o}) {
    EXPECT_TRUE(Arr(wrong).is_array()) << wrong.dump();
    EXPECT_TRUE(Arr(wrong).empty()) << wrong.dump();
  }
  for (const json& wrong : {json(), json(1), json("s"), json(true), a}) {
    EXPECT_TRUE(Obj(wrong).is_object()) << wrong.dump();
    EXPECT_TRUE(Obj(wrong).empty()) << wrong.dump();
  }
}

TEST(JsonViewTest, NumIsNaNForNullMissingAndWrongTypes) {
  EXPECT_EQ(Num(json(2.5)), 2.5);
  EXPECT_EQ(Num(json(-7)), -7.0);
  EXPECT_EQ(Num(json(18446744073709551615u)), 18446744073709551615.0);
  EXPECT_TRUE(std::isnan(Num(json())));
  EXPECT_TRUE(std::isnan(Num(Get(json::object(), "missing"))));
  EXPECT_TRUE(std::isnan(Num(json("1.5"))));
  EXPECT_TRUE(std::isnan(Num(json(true))));
  EXPECT_TRUE(std::isnan(Num(json::array({1}))));
  EXPECT_TRUE(std::isnan(Num(json::object())));
}

TEST(JsonViewTest, NumPassesNonFiniteDoublesThrough) {
  // A report built in memory (not parsed) may hold them; the renderers decide how to show them.
  EXPECT_TRUE(std::isnan(Num(json(std::numeric_limits<double>::quiet_NaN()))));
  EXPECT_EQ(Num(json(std::numeric_limits<double>::infinity())),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(Num(json(-std::numeric_limits<double>::infinity())),
            -std::numeric_limits<double>::infinity());
}

TEST(JsonViewTest, BoolIsTrueOnlyForTrue) {
  EXPECT_TRUE(Bool(json(true)));
  EXPECT_FALSE(Bool(json(false)));
  EXPECT_FALSE(Bool(json()));
  EXPECT_FALSE(Bool(json(1)));
  EXPECT_FALSE(Bool(json("true")));
}

TEST(JsonViewTest, StrPrintsScalarsAndIsEmptyOtherwise) {
  EXPECT_EQ(Str(json("name")), "name");
  EXPECT_EQ(Str(json(42)), "42");
  EXPECT_EQ(Str(json(1.5)), "1.5");
  EXPECT_EQ(Str(json(false)), "false");
  EXPECT_EQ(Str(json()), "");
  EXPECT_EQ(Str(Get(json::object(), "missing")), "");
  EXPECT_EQ(Str(json::array({"a"})), "");
  EXPECT_EQ(Str(json{{"a", "b"}}), "");
}

TEST(JsonViewTest, NumsMapsEveryElementAndIgnoresNonArrays) {
  const std::vector<double> v = Nums(json::array({1, nullptr, "x", 2.5}));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 1.0);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(v[3], 2.5);
  EXPECT_TRUE(Nums(json()).empty());
  EXPECT_TRUE(Nums(json(3)).empty());
  EXPECT_TRUE(Nums(json{{"a", 1}}).empty());
}

TEST(JsonViewTest, LastIsNaNForEmpty) {
  EXPECT_THAT(Last({1.0, 2.0}), 2.0);
  EXPECT_TRUE(std::isnan(Last({})));
  EXPECT_TRUE(std::isnan(Last(Nums(json::array({1, nullptr})))));
}

}  // namespace
}  // namespace bbo::scoring::internal
