#include "common/json_number.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace bbo {
namespace {

TEST(JsonNumberTest, NonFiniteTravelAsStrings) {
  EXPECT_EQ(ValueToJson(1.5).dump(), "1.5");
  EXPECT_EQ(ValueToJson(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(ValueToJson(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(ValueToJson(std::nan("")), "nan");
}

TEST(JsonNumberTest, ParsesNumbersAndInfinitySpellings) {
  EXPECT_EQ(*ValueFromJson(nlohmann::json(2)), 2.0);
  EXPECT_TRUE(std::isinf(*ValueFromJson(nlohmann::json("inf"))));
  EXPECT_TRUE(std::isinf(*ValueFromJson(nlohmann::json("Infinity"))));
  EXPECT_LT(*ValueFromJson(nlohmann::json("-inf")), 0);
  EXPECT_TRUE(std::isnan(*ValueFromJson(nlohmann::json("NaN"))));
  EXPECT_EQ(ValueFromJson(nlohmann::json("x")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ValueFromJson(nlohmann::json(nullptr)).ok());
}

}  // namespace
}  // namespace bbo
