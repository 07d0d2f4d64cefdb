#include "problems/test_problems.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "absl/strings/str_cat.h"
#include "problems/internal/benchmark_functions.h"
#include "problems/internal/params.h"

namespace bbo {
namespace {

using problems_internal::BoxConfig;
using problems_internal::RealParam;
using problems_internal::RealVector;

void CheckOrDie(bool condition, const char* message) {
  if (!condition) {
    std::fprintf(stderr, "FATAL: %s\n", message);
    std::abort();
  }
}

class CrashingProblem : public BuiltinProblem {
 public:
  explicit CrashingProblem(double crash_fraction)
      : BuiltinProblem(
            "test_crashing",
            absl::StrCat("(x0 - 0.3)^2 that throws for x0 > ", 1.0 - crash_fraction),
            BoxConfig(1, 0.0, 1.0),
            crash_fraction <= 0.7 ? 0.0 : (0.7 - crash_fraction) * (0.7 - crash_fraction)),
        threshold_(1.0 - crash_fraction) {}

  double Evaluate(const Point& p) const override {
    const double x0 = RealParam(p, "x0");
    if (x0 > threshold_) {
      throw std::runtime_error(absl::StrCat("test_crashing: deliberate crash at x0 = ", x0));
    }
    return (x0 - 0.3) * (x0 - 0.3);
  }

 private:
  double threshold_;
};

class NanProblem : public BuiltinProblem {
 public:
  NanProblem()
      : BuiltinProblem("test_nan", "(x0 - 0.3)^2 that returns NaN for x0 > 0.5",
                       BoxConfig(1, 0.0, 1.0), 0.0) {}

  double Evaluate(const Point& p) const override {
    const double x0 = RealParam(p, "x0");
    if (x0 > 0.5) return std::numeric_limits<double>::quiet_NaN();
    return (x0 - 0.3) * (x0 - 0.3);
  }
};

class SlowProblem : public BuiltinProblem {
 public:
  explicit SlowProblem(absl::Duration delay)
      : BuiltinProblem("test_slow", absl::StrCat("x0 after sleeping ", absl::FormatDuration(delay)),
                       BoxConfig(1, 0.0, 1.0), 0.0),
        delay_(delay) {}

  double Evaluate(const Point& p) const override {
    absl::SleepFor(delay_);
    return RealParam(p, "x0");
  }

 private:
  absl::Duration delay_;
};

class SphereProblem : public BuiltinProblem {
 public:
  explicit SphereProblem(int dims)
      : BuiltinProblem("test_sphere", absl::StrCat("Sphere ", dims, "-d on [-5,5]^", dims),
                       BoxConfig(dims, -5.0, 5.0), 0.0),
        dims_(dims) {}

  double Evaluate(const Point& p) const override {
    return problems_internal::Sphere(RealVector(p, dims_));
  }

 private:
  int dims_;
};

}  // namespace

std::unique_ptr<Problem> MakeCrashingProblem(double crash_fraction) {
  CheckOrDie(crash_fraction >= 0.0 && crash_fraction <= 1.0,
             "MakeCrashingProblem: crash_fraction must lie in [0, 1]");
  return std::make_unique<CrashingProblem>(crash_fraction);
}

std::unique_ptr<Problem> MakeNanProblem() { return std::make_unique<NanProblem>(); }

std::unique_ptr<Problem> MakeSlowProblem(absl::Duration delay) {
  return std::make_unique<SlowProblem>(delay);
}

std::unique_ptr<Problem> MakeTrivialProblem(int dims) {
  CheckOrDie(dims >= 1 && dims <= 10, "MakeTrivialProblem: dims must lie in [1, 10]");
  return std::make_unique<SphereProblem>(dims);
}

}  // namespace bbo
