#include "problems/internal/params.h"

#include <stdexcept>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::problems_internal {
namespace {

using ::testing::ElementsAre;

Point MixedPoint() {
  return Point{{"r", 1.5}, {"i", int64_t{4}}, {"b", true}, {"c", std::string("rbf")}};
}

TEST(ParamsTest, ReadsEachCanonicalType) {
  const Point p = MixedPoint();
  EXPECT_EQ(RealParam(p, "r"), 1.5);
  EXPECT_EQ(IntParam(p, "i"), 4);
  EXPECT_TRUE(BoolParam(p, "b"));
  EXPECT_EQ(CatParam(p, "c"), "rbf");
}

TEST(ParamsTest, ThrowsNamingParameterWhenMissing) {
  try {
    RealParam(MixedPoint(), "gamma");
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("\"gamma\""));
  }
}

TEST(ParamsTest, ThrowsOnWrongTypeInsteadOfConverting) {
  const Point p = MixedPoint();
  EXPECT_THROW(RealParam(p, "i"), std::invalid_argument);  // int64_t is not silently a double
  EXPECT_THROW(IntParam(p, "r"), std::invalid_argument);
  EXPECT_THROW(BoolParam(p, "c"), std::invalid_argument);
  EXPECT_THROW(CatParam(p, "b"), std::invalid_argument);
}

TEST(ParamsTest, RealVectorReadsXsInIndexOrder) {
  const Point p = {{"x0", 3.0}, {"x1", -1.0}, {"x2", 0.25}};
  EXPECT_THAT(RealVector(p, 3), ElementsAre(3.0, -1.0, 0.25));
  EXPECT_THAT(RealVector(p, 2), ElementsAre(3.0, -1.0));
  EXPECT_THROW(RealVector(p, 4), std::invalid_argument);
}

TEST(ParamsTest, BoxConfigBuildsLinearRealsWithPerDimensionBounds) {
  const nlohmann::json config = BoxConfig({{-5.0, 10.0}, {0.0, 15.0}});
  ASSERT_EQ(config.size(), 2u);
  EXPECT_EQ(config["x0"]["type"], "real");
  EXPECT_EQ(config["x0"]["space"], "linear");
  EXPECT_EQ(config["x0"]["range"], nlohmann::json({-5.0, 10.0}));
  EXPECT_EQ(config["x1"]["range"], nlohmann::json({0.0, 15.0}));
}

TEST(ParamsTest, BoxConfigCubeRepeatsBounds) {
  const nlohmann::json config = BoxConfig(3, -1.0, 1.0);
  ASSERT_EQ(config.size(), 3u);
  for (const char* name : {"x0", "x1", "x2"}) {
    EXPECT_EQ(config[name]["range"], nlohmann::json({-1.0, 1.0})) << name;
  }
  EXPECT_TRUE(SearchSpace::FromJson(config).ok());
}

}  // namespace
}  // namespace bbo::problems_internal
