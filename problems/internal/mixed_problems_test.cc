#include "problems/internal/mixed_problems.h"

#include <cmath>
#include <map>
#include <string>

#include "gtest/gtest.h"

namespace bbo::problems_internal {
namespace {

const ParamSpec& Spec(const Problem& problem, const std::string& name) {
  for (const ParamSpec& spec : problem.space().params()) {
    if (spec.name == name) return spec;
  }
  ADD_FAILURE() << problem.name() << " has no parameter " << name;
  static const ParamSpec kMissing;
  return kMissing;
}

// Evaluates after the same Canonicalize step the service applies to suggestions.
double EvaluateCanonical(const Problem& problem, const Point& p) {
  absl::StatusOr<Point> canonical = problem.space().Canonicalize(p);
  EXPECT_TRUE(canonical.ok()) << canonical.status();
  if (!canonical.ok()) return NAN;
  return problem.Evaluate(*canonical);
}

TEST(MixedSphereTest, HasRealLogRealLinearIntBoolAndCatParameters) {
  auto problem = MakeMixedSphere();
  EXPECT_EQ(problem->name(), "mixed_sphere");
  ASSERT_EQ(problem->space().dims(), 5);
  EXPECT_EQ(Spec(*problem, "C").type, ParamType::kReal);
  EXPECT_EQ(Spec(*problem, "C").space, WarpKind::kLog);
  EXPECT_EQ(Spec(*problem, "C").lo, 1e-3);
  EXPECT_EQ(Spec(*problem, "C").hi, 1e3);
  EXPECT_EQ(Spec(*problem, "alpha").type, ParamType::kReal);
  EXPECT_EQ(Spec(*problem, "alpha").space, WarpKind::kLinear);
  EXPECT_EQ(Spec(*problem, "n_layers").type, ParamType::kInt);
  EXPECT_EQ(Spec(*problem, "use_bias").type, ParamType::kBool);
  EXPECT_EQ(Spec(*problem, "kernel").type, ParamType::kCat);
  EXPECT_EQ(Spec(*problem, "kernel").cat_values,
            (std::vector<std::string>{"linear", "rbf", "poly"}));
}

TEST(MixedSphereTest, IsZeroAtOptimizerAndSumsEveryTermElsewhere) {
  auto problem = MakeMixedSphere();
  ASSERT_EQ(problem->known_optimum(), 0.0);
  Point best = {{"C", 10.0},
                {"alpha", 0.5},
                {"n_layers", int64_t{3}},
                {"use_bias", true},
                {"kernel", std::string("rbf")}};
  EXPECT_NEAR(EvaluateCanonical(*problem, best), 0.0, 1e-15);
  // (log10 1 - 1)^2 + (0 - 0.5)^2 + (1 - 3)^2 / 4 + 0.5 + 1 = 1 + 0.25 + 1 + 0.5 + 1.
  Point worse = {{"C", 1.0},
                 {"alpha", 0.0},
                 {"n_layers", int64_t{1}},
                 {"use_bias", false},
                 {"kernel", std::string("linear")}};
  EXPECT_NEAR(EvaluateCanonical(*problem, worse), 3.75, 1e-12);
  // Each categorical/boolean choice alone moves the value by its documented offset.
  Point poly = best;
  poly["kernel"] = std::string("poly");
  EXPECT_NEAR(EvaluateCanonical(*problem, poly), 0.5, 1e-12);
  Point no_bias = best;
  no_bias["use_bias"] = false;
  EXPECT_NEAR(EvaluateCanonical(*problem, no_bias), 0.5, 1e-12);
  // The log parameter is symmetric in decades around 10: C = 1 and C = 100 cost the same.
  Point c100 = best;
  c100["C"] = 100.0;
  EXPECT_NEAR(EvaluateCanonical(*problem, c100), 1.0, 1e-12);
}

TEST(MixedSphereTest, ThrowsOnUncanonicalizedCatValue) {
  auto problem = MakeMixedSphere();
  Point bad = {{"C", 10.0},
               {"alpha", 0.5},
               {"n_layers", int64_t{3}},
               {"use_bias", true},
               {"kernel", std::string("sigmoid")}};
  EXPECT_THROW(problem->Evaluate(bad), std::invalid_argument);
}

TEST(DiscreteQuadraticTest, HasOnlyIntParametersIncludingALogOne) {
  auto problem = MakeDiscreteQuadratic();
  EXPECT_EQ(problem->name(), "discrete_quadratic");
  ASSERT_EQ(problem->space().dims(), 3);
  for (const ParamSpec& spec : problem->space().params()) {
    EXPECT_EQ(spec.type, ParamType::kInt) << spec.name;
  }
  EXPECT_EQ(Spec(*problem, "n_estimators").space, WarpKind::kLog);
  EXPECT_EQ(Spec(*problem, "max_depth").space, WarpKind::kLinear);
  EXPECT_EQ(Spec(*problem, "shift").lo, -10.0);
}

TEST(DiscreteQuadraticTest, IsZeroAtOptimizerAndMatchesHandValue) {
  auto problem = MakeDiscreteQuadratic();
  ASSERT_EQ(problem->known_optimum(), 0.0);
  Point best = {{"n_estimators", int64_t{100}}, {"max_depth", int64_t{7}}, {"shift", int64_t{-3}}};
  EXPECT_NEAR(EvaluateCanonical(*problem, best), 0.0, 1e-15);
  // (ln 10 - ln 100)^2 + (9 - 7)^2 / 4 + |0 + 3|.
  Point other = {{"n_estimators", int64_t{10}}, {"max_depth", int64_t{9}}, {"shift", int64_t{0}}};
  EXPECT_NEAR(EvaluateCanonical(*problem, other), std::pow(std::log(10.0), 2) + 1.0 + 3.0, 1e-12);
  // An integral double is accepted and canonicalized to int64_t before Evaluate.
  Point as_doubles = {{"n_estimators", 100.0}, {"max_depth", 7.0}, {"shift", -3.0}};
  EXPECT_NEAR(EvaluateCanonical(*problem, as_doubles), 0.0, 1e-15);
}

TEST(WarpedMixTest, HasBilogLogitValuesAndCatParameters) {
  auto problem = MakeWarpedMix();
  EXPECT_EQ(problem->name(), "warped_mix");
  ASSERT_EQ(problem->space().dims(), 4);
  EXPECT_EQ(Spec(*problem, "offset").type, ParamType::kReal);
  EXPECT_EQ(Spec(*problem, "offset").space, WarpKind::kBilog);
  EXPECT_EQ(Spec(*problem, "dropout").space, WarpKind::kLogit);
  EXPECT_EQ(Spec(*problem, "batch_size").type, ParamType::kInt);
  EXPECT_EQ(Spec(*problem, "batch_size").numeric_values,
            (std::vector<double>{16, 32, 64, 128, 256}));
  EXPECT_EQ(Spec(*problem, "optimizer").type, ParamType::kCat);
}

TEST(WarpedMixTest, IsZeroAtOptimizerAndMatchesHandValue) {
  auto problem = MakeWarpedMix();
  ASSERT_EQ(problem->known_optimum(), 0.0);
  Point best = {{"offset", 50.0},
                {"dropout", 0.2},
                {"batch_size", int64_t{64}},
                {"optimizer", std::string("adam")}};
  EXPECT_NEAR(EvaluateCanonical(*problem, best), 0.0, 1e-15);
  // ln(51)^2 + ln(1/4)^2 + (4 - 6)^2 + 0.3.
  Point other = {{"offset", 0.0},
                 {"dropout", 0.5},
                 {"batch_size", int64_t{16}},
                 {"optimizer", std::string("sgd")}};
  EXPECT_NEAR(EvaluateCanonical(*problem, other), 21.68106486182085, 1e-12);
  // Bilog is odd: -50 is as far from 50 as 2 bilog(50).
  Point negative = best;
  negative["offset"] = -50.0;
  EXPECT_NEAR(EvaluateCanonical(*problem, negative), 4.0 * std::pow(std::log(51.0), 2), 1e-12);
  Point rmsprop = best;
  rmsprop["optimizer"] = std::string("rmsprop");
  EXPECT_NEAR(EvaluateCanonical(*problem, rmsprop), 0.1, 1e-12);
}

}  // namespace
}  // namespace bbo::problems_internal
