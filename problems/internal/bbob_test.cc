#include "problems/internal/bbob.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/internal/params.h"

namespace bbo::problems_internal {
namespace {

using ::testing::Contains;

constexpr int kDims[] = {2, 5, 10};
constexpr int kInstances[] = {1, 2};

BbobFunction MakeOrDie(int function_id, int dim, int instance) {
  absl::StatusOr<BbobFunction> f = BbobFunction::Create(function_id, dim, instance);
  EXPECT_TRUE(f.ok()) << f.status();
  return *std::move(f);
}

double Tolerance(double fopt) { return 1e-9 * std::max(1.0, std::fabs(fopt)); }

TEST(BbobFunctionTest, ValueAtXoptIsFoptForAllFunctionsDimsAndInstances) {
  for (int fid = 1; fid <= kBbobNumFunctions; ++fid) {
    for (int dim : kDims) {
      for (int instance : kInstances) {
        const BbobFunction f = MakeOrDie(fid, dim, instance);
        ASSERT_EQ(f.xopt().size(), static_cast<size_t>(dim));
        EXPECT_NEAR(f.Evaluate(f.xopt()), f.fopt(), Tolerance(f.fopt()))
            << "f" << fid << " d" << dim << " i" << instance;
        EXPECT_GE(f.fopt(), -1000.0);
        EXPECT_LE(f.fopt(), 1000.0);
        for (double x : f.xopt()) {
          EXPECT_LE(std::fabs(x), 5.0) << "f" << fid << " d" << dim << " i" << instance;
        }
      }
    }
  }
}

TEST(BbobFunctionTest, RandomAndNearbyPointsAreNotBelowFopt) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int fid = 1; fid <= kBbobNumFunctions; ++fid) {
    for (int dim : kDims) {
      for (int instance : kInstances) {
        const BbobFunction f = MakeOrDie(fid, dim, instance);
        const double floor = f.fopt() - Tolerance(f.fopt());
        std::vector<double> x(dim);
        for (int n = 0; n < 200; ++n) {
          for (double& xi : x) xi = 5.0 * unit(rng);
          EXPECT_GE(f.Evaluate(x), floor) << "f" << fid << " d" << dim << " i" << instance;
        }
        // Points near x_opt, clipped to the domain (f5's optimum is a corner).
        for (double radius : {1e-6, 1e-3, 1e-1, 1.0}) {
          for (int n = 0; n < 50; ++n) {
            for (int i = 0; i < dim; ++i) {
              x[i] = std::clamp(f.xopt()[i] + radius * unit(rng), -5.0, 5.0);
            }
            EXPECT_GE(f.Evaluate(x), floor)
                << "f" << fid << " d" << dim << " i" << instance << " radius " << radius;
          }
        }
      }
    }
  }
}

TEST(BbobFunctionTest, InstancesMoveXoptAndFopt) {
  for (int fid = 1; fid <= kBbobNumFunctions; ++fid) {
    for (int dim : kDims) {
      const BbobFunction f1 = MakeOrDie(fid, dim, 1);
      const BbobFunction f2 = MakeOrDie(fid, dim, 2);
      EXPECT_NE(f1.fopt(), f2.fopt()) << "f" << fid << " d" << dim;
      if (fid == 5 || fid == 20 || fid == 24) {
        // x_opt = c * (+-1)^d: only the signs are random, and two instances may share them in
        // low dimension. Among 8 instances at least two sign patterns must appear.
        bool moved = false;
        for (int instance = 2; instance <= 8; ++instance) {
          moved = moved || MakeOrDie(fid, dim, instance).xopt() != f1.xopt();
        }
        EXPECT_TRUE(moved) << "f" << fid << " d" << dim;
      } else {
        EXPECT_NE(f1.xopt(), f2.xopt()) << "f" << fid << " d" << dim;
      }
    }
  }
}

TEST(BbobFunctionTest, SameInstanceIsDeterministic) {
  for (int fid : {1, 15, 21}) {
    const BbobFunction a = MakeOrDie(fid, 6, 3);
    const BbobFunction b = MakeOrDie(fid, 6, 3);
    EXPECT_EQ(a.xopt(), b.xopt());
    EXPECT_EQ(a.fopt(), b.fopt());
    EXPECT_EQ(a.rotation_r(), b.rotation_r());
    const std::vector<double> x = {0.1, -0.2, 0.3, -0.4, 0.5, -0.6};
    EXPECT_EQ(a.Evaluate(x), b.Evaluate(x));
  }
}

TEST(BbobFunctionTest, RotationMatricesAreOrthogonal) {
  for (int dim : {2, 5, 10, 40}) {
    const BbobFunction f = MakeOrDie(15, dim, 1);
    for (const std::vector<double>* m : {&f.rotation_r(), &f.rotation_q()}) {
      ASSERT_EQ(m->size(), static_cast<size_t>(dim * dim));
      for (int i = 0; i < dim; ++i) {
        for (int j = 0; j < dim; ++j) {
          double dot = 0.0;
          for (int k = 0; k < dim; ++k) dot += (*m)[i * dim + k] * (*m)[j * dim + k];
          EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-12)
              << "dim " << dim << " (" << i << "," << j << ")";
        }
      }
    }
    EXPECT_NE(f.rotation_r(), f.rotation_q());
  }
}

TEST(BbobFunctionTest, SphereMatchesHandComputedValue) {
  const BbobFunction f = MakeOrDie(1, 3, 4);
  const std::vector<double> x = {f.xopt()[0] + 1.0, f.xopt()[1] - 2.0, f.xopt()[2] + 0.5};
  // ||x - x_opt||^2 = 1 + 4 + 0.25.
  EXPECT_NEAR(f.Evaluate(x), 5.25 + f.fopt(), 1e-12);
  const std::vector<double> origin = {0.0, 0.0, 0.0};
  const double norm2 =
      f.xopt()[0] * f.xopt()[0] + f.xopt()[1] * f.xopt()[1] + f.xopt()[2] * f.xopt()[2];
  EXPECT_NEAR(f.Evaluate(origin), norm2 + f.fopt(), 1e-12);
}

TEST(BbobFunctionTest, LinearSlopeHasCornerOptimumAndHandComputedValue) {
  const BbobFunction f = MakeOrDie(5, 2, 1);
  for (double x : f.xopt()) EXPECT_EQ(std::fabs(x), 5.0);
  // At the origin z = 0, so f = sum 5 |s_i| + f_opt with |s| = (1, 10).
  const std::vector<double> origin = {0.0, 0.0};
  EXPECT_NEAR(f.Evaluate(origin), 55.0 + f.fopt(), 1e-12);
  // Beyond the optimum the slope is flat (z_i = x_opt_i).
  const std::vector<double> beyond = {1.2 * f.xopt()[0], 1.5 * f.xopt()[1]};
  EXPECT_NEAR(f.Evaluate(beyond), f.fopt(), 1e-12);
}

TEST(BbobFunctionTest, CreateRejectsBadArguments) {
  EXPECT_EQ(BbobFunction::Create(0, 2, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BbobFunction::Create(25, 2, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BbobFunction::Create(1, 1, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BbobFunction::Create(1, 2, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeBbobProblem(3, 1, 1).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BbobProblemTest, WrapsFunctionWithNameFamilyAttributesAndOptimum) {
  absl::StatusOr<std::unique_ptr<Problem>> problem = MakeBbobProblem(7, 5, 3);
  ASSERT_TRUE(problem.ok()) << problem.status();
  const Problem& p = **problem;
  EXPECT_EQ(p.name(), "bbob_f07_i3_d5");
  EXPECT_EQ(p.family(), "bbob");
  EXPECT_THAT(p.attributes(), Contains("nonsmooth"));
  EXPECT_THAT(p.attributes(), Contains("moderate conditioning"));
  EXPECT_EQ(p.space().dims(), 5);
  const BbobFunction f = MakeOrDie(7, 5, 3);
  ASSERT_TRUE(p.known_optimum().has_value());
  EXPECT_EQ(*p.known_optimum(), f.fopt());
  Point point;
  for (int i = 0; i < 5; ++i) point[absl::StrCat("x", i)] = f.xopt()[i];
  ASSERT_TRUE(p.space().Validate(point).ok());
  EXPECT_NEAR(p.Evaluate(point), f.fopt(), Tolerance(f.fopt()));
  point["x2"] = 1.25;
  std::vector<double> x = f.xopt();
  x[2] = 1.25;
  EXPECT_EQ(p.Evaluate(point), f.Evaluate(x));
}

TEST(BbobProblemTest, AttributesFollowTheFunctionGroups) {
  EXPECT_THAT(BbobFunction::Attributes(1, 5), Contains("separable"));
  EXPECT_THAT(BbobFunction::Attributes(5, 5), Contains("boundary optimum"));
  EXPECT_THAT(BbobFunction::Attributes(8, 2), Contains("unimodal"));
  EXPECT_THAT(BbobFunction::Attributes(8, 10), Contains("multimodal"));
  EXPECT_THAT(BbobFunction::Attributes(12, 5), Contains("ill-conditioned"));
  EXPECT_THAT(BbobFunction::Attributes(16, 5), Contains("nonsmooth"));
  EXPECT_THAT(BbobFunction::Attributes(17, 5),
              Contains("multimodal with adequate global structure"));
  EXPECT_THAT(BbobFunction::Attributes(21, 5), Contains("multimodal with weak global structure"));
  for (int fid = 1; fid <= kBbobNumFunctions; ++fid) {
    const std::vector<std::string> tags = BbobFunction::Attributes(fid, 5);
    const bool uni = std::find(tags.begin(), tags.end(), "unimodal") != tags.end();
    const bool multi = std::find(tags.begin(), tags.end(), "multimodal") != tags.end();
    EXPECT_NE(uni, multi) << "f" << fid;
    EXPECT_FALSE(BbobFunction::FunctionName(fid).empty());
  }
}

}  // namespace
}  // namespace bbo::problems_internal
