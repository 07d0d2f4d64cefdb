#include "problems/problem.h"

#include "gtest/gtest.h"

namespace bbo {
namespace {

class ConstantProblem : public BuiltinProblem {
 public:
  explicit ConstantProblem(const nlohmann::json& api_config)
      : BuiltinProblem("constant", "always 7", api_config, 7.0) {}
  double Evaluate(const Point&) const override { return 7.0; }
};

TEST(BuiltinProblemTest, ExposesMetadataAndParsedSpace) {
  const nlohmann::json config = {
      {"x0", {{"type", "real"}, {"space", "log"}, {"range", {0.1, 10.0}}}},
      {"flag", {{"type", "bool"}}}};
  ConstantProblem problem(config);
  EXPECT_EQ(problem.name(), "constant");
  EXPECT_EQ(problem.description(), "always 7");
  ASSERT_TRUE(problem.known_optimum().has_value());
  EXPECT_EQ(*problem.known_optimum(), 7.0);
  ASSERT_EQ(problem.space().dims(), 2);
  // params() is sorted by name.
  EXPECT_EQ(problem.space().params()[0].name, "flag");
  EXPECT_EQ(problem.space().params()[0].type, ParamType::kBool);
  EXPECT_EQ(problem.space().params()[1].name, "x0");
  EXPECT_EQ(problem.space().params()[1].space, WarpKind::kLog);
}

TEST(BuiltinProblemDeathTest, AbortsOnInvalidBuiltinConfig) {
  // A log range must be positive: a bug in a built-in problem must not start serving.
  const nlohmann::json bad = {{"x0", {{"type", "real"}, {"space", "log"}, {"range", {-1, 1}}}}};
  EXPECT_DEATH(ConstantProblem{bad}, "built-in problem \"constant\" has an invalid api_config");
}

TEST(BuiltinProblemDeathTest, AbortsOnEmptyConfig) {
  EXPECT_DEATH(ConstantProblem{nlohmann::json::object()}, "invalid api_config");
}

}  // namespace
}  // namespace bbo
