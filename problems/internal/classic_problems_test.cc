#include "problems/internal/classic_problems.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace bbo::problems_internal {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::map<std::string, std::unique_ptr<Problem>> ClassicByName() {
  std::map<std::string, std::unique_ptr<Problem>> out;
  for (auto& p : MakeClassicProblems()) out[p->name()] = std::move(p);
  return out;
}

double EvaluateAt(const Problem& problem, const std::vector<double>& x) {
  Point p;
  for (size_t i = 0; i < x.size(); ++i) p[absl::StrCat("x", i)] = x[i];
  absl::StatusOr<Point> canonical = problem.space().Canonicalize(p);
  EXPECT_TRUE(canonical.ok()) << problem.name() << ": " << canonical.status();
  if (!canonical.ok()) return NAN;
  return problem.Evaluate(*canonical);
}

struct Optimizer {
  std::string problem;
  std::vector<double> x;      // a global minimizer from the literature
  double tolerance;           // the precision the literature gives x to
  double literature_optimum;  // f* as usually quoted
};

TEST(ClassicProblemsTest, KnownOptimumIsAttainedAtLiteratureMinimizers) {
  const std::vector<Optimizer> optimizers = {
      {"branin", {-kPi, 12.275}, 1e-12, 0.397887},
      {"branin", {kPi, 2.275}, 1e-12, 0.397887},
      {"branin", {9.42478, 2.475}, 1e-9, 0.397887},
      {"hartmann3", {0.114589, 0.555649, 0.852547}, 1e-9, -3.86278},
      {"hartmann3", {0.114614, 0.555649, 0.852547}, 1e-6, -3.86278},
      {"hartmann6", {0.201690, 0.150011, 0.476874, 0.275332, 0.311652, 0.657301}, 1e-9, -3.32237},
      {"ackley5", std::vector<double>(5, 0.0), 1e-12, 0.0},
      {"rosenbrock4", std::vector<double>(4, 1.0), 0.0, 0.0},
      {"rastrigin4", std::vector<double>(4, 0.0), 1e-12, 0.0},
      {"levy4", std::vector<double>(4, 1.0), 1e-12, 0.0},
      {"styblinski_tang4", std::vector<double>(4, -2.903534), 1e-9, -156.66468},
      {"six_hump_camel", {0.0898, -0.7126}, 1e-4, -1.0316},
      {"six_hump_camel", {-0.0898, 0.7126}, 1e-4, -1.0316},
      {"goldstein_price", {0.0, -1.0}, 0.0, 3.0},
  };
  auto problems = ClassicByName();
  for (const Optimizer& o : optimizers) {
    SCOPED_TRACE(o.problem);
    ASSERT_EQ(problems.count(o.problem), 1u);
    const Problem& problem = *problems[o.problem];
    ASSERT_TRUE(problem.known_optimum().has_value());
    const double f_star = *problem.known_optimum();
    // The stored optimum agrees with the literature's rounded value...
    EXPECT_NEAR(f_star, o.literature_optimum, 1e-4 * std::max(1.0, std::fabs(f_star)));
    // ...and is (up to the minimizer's precision) attained.
    const double f = EvaluateAt(problem, o.x);
    EXPECT_NEAR(f, f_star, o.tolerance);
    EXPECT_GE(f, f_star - 1e-12);
  }
}

TEST(ClassicProblemsTest, SpacesHaveDocumentedBoundsAndDims) {
  struct Box {
    int dims;
    double lo0, hi0, lo_last, hi_last;
  };
  const std::map<std::string, Box> expected = {
      {"branin", {2, -5, 10, 0, 15}},        {"hartmann3", {3, 0, 1, 0, 1}},
      {"hartmann6", {6, 0, 1, 0, 1}},        {"ackley5", {5, -32.768, 32.768, -32.768, 32.768}},
      {"rosenbrock4", {4, -5, 10, -5, 10}},  {"rastrigin4", {4, -5.12, 5.12, -5.12, 5.12}},
      {"levy4", {4, -10, 10, -10, 10}},      {"styblinski_tang4", {4, -5, 5, -5, 5}},
      {"six_hump_camel", {2, -3, 3, -2, 2}}, {"goldstein_price", {2, -2, 2, -2, 2}},
  };
  auto problems = ClassicByName();
  ASSERT_EQ(problems.size(), expected.size());
  for (const auto& [name, box] : expected) {
    SCOPED_TRACE(name);
    ASSERT_EQ(problems.count(name), 1u);
    const SearchSpace& space = problems[name]->space();
    ASSERT_EQ(space.dims(), box.dims);
    for (const ParamSpec& param : space.params()) {
      EXPECT_EQ(param.type, ParamType::kReal);
      EXPECT_EQ(param.space, WarpKind::kLinear);
    }
    const nlohmann::json& config = space.api_config();
    EXPECT_EQ(config["x0"]["range"], nlohmann::json({box.lo0, box.hi0}));
    EXPECT_EQ(config[absl::StrCat("x", box.dims - 1)]["range"],
              nlohmann::json({box.lo_last, box.hi_last}));
  }
}

TEST(ClassicProblemsTest, EvaluatesRawValuesAwayFromTheOptimum) {
  auto problems = ClassicByName();
  EXPECT_NEAR(EvaluateAt(*problems["branin"], {0.0, 0.0}), 56.0 - 10.0 / (8.0 * kPi), 1e-12);
  EXPECT_EQ(EvaluateAt(*problems["goldstein_price"], {0.0, 0.0}), 600.0);
  EXPECT_EQ(EvaluateAt(*problems["rosenbrock4"], {0.0, 0.0, 0.0, 0.0}), 3.0);
  EXPECT_EQ(EvaluateAt(*problems["styblinski_tang4"], {1.0, 2.0, 1.0, 2.0}), -48.0);
}

}  // namespace
}  // namespace bbo::problems_internal
