#include "problems/internal/mixed_problems.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "problems/internal/params.h"

namespace bbo::problems_internal {
namespace {

double Square(double x) { return x * x; }

// Canonical points only carry listed cat values, so an unknown one means the caller skipped
// canonicalization; throwing makes the evaluator record +inf instead of a silent wrong value.
[[noreturn]] void ThrowUnknownCat(const std::string& param, const std::string& value) {
  throw std::invalid_argument("parameter \"" + param + "\": unknown value \"" + value + "\"");
}

class MixedSphere : public BuiltinProblem {
 public:
  MixedSphere()
      : BuiltinProblem(
            "mixed_sphere",
            "Mixed 5-d quadratic: log real C, linear real alpha, int n_layers, bool use_bias, "
            "cat kernel",
            {{"C", {{"type", "real"}, {"space", "log"}, {"range", {1e-3, 1e3}}}},
             {"alpha", {{"type", "real"}, {"space", "linear"}, {"range", {-2.0, 2.0}}}},
             {"n_layers", {{"type", "int"}, {"space", "linear"}, {"range", {1, 8}}}},
             {"use_bias", {{"type", "bool"}}},
             {"kernel", {{"type", "cat"}, {"values", {"linear", "rbf", "poly"}}}}},
            0.0) {}

  double Evaluate(const Point& p) const override {
    const std::string& kernel = CatParam(p, "kernel");
    double offset;
    if (kernel == "linear") {
      offset = 1.0;
    } else if (kernel == "rbf") {
      offset = 0.0;
    } else if (kernel == "poly") {
      offset = 0.5;
    } else {
      ThrowUnknownCat("kernel", kernel);
    }
    return Square(std::log10(RealParam(p, "C")) - 1.0) + Square(RealParam(p, "alpha") - 0.5) +
           0.25 * Square(static_cast<double>(IntParam(p, "n_layers") - 3)) +
           (BoolParam(p, "use_bias") ? 0.0 : 0.5) + offset;
  }
};

class DiscreteQuadratic : public BuiltinProblem {
 public:
  DiscreteQuadratic()
      : BuiltinProblem(
            "discrete_quadratic",
            "Integer 3-d quadratic: log int n_estimators, linear ints max_depth and shift",
            {{"n_estimators", {{"type", "int"}, {"space", "log"}, {"range", {1, 1000}}}},
             {"max_depth", {{"type", "int"}, {"space", "linear"}, {"range", {1, 20}}}},
             {"shift", {{"type", "int"}, {"space", "linear"}, {"range", {-10, 10}}}}},
            0.0) {}

  double Evaluate(const Point& p) const override {
    const double n = static_cast<double>(IntParam(p, "n_estimators"));
    return Square(std::log(n) - std::log(100.0)) +
           0.25 * Square(static_cast<double>(IntParam(p, "max_depth") - 7)) +
           static_cast<double>(std::llabs(IntParam(p, "shift") + 3));
  }
};

double Bilog(double x) { return std::copysign(std::log1p(std::fabs(x)), x); }
double Logit(double p) { return std::log(p / (1.0 - p)); }

class WarpedMix : public BuiltinProblem {
 public:
  WarpedMix()
      : BuiltinProblem(
            "warped_mix",
            "Mixed 4-d quadratic: bilog real offset, logit real dropout, int batch_size from "
            "listed values, cat optimizer",
            {{"offset", {{"type", "real"}, {"space", "bilog"}, {"range", {-1000.0, 1000.0}}}},
             {"dropout", {{"type", "real"}, {"space", "logit"}, {"range", {0.01, 0.99}}}},
             {"batch_size",
              {{"type", "int"}, {"space", "linear"}, {"values", {16, 32, 64, 128, 256}}}},
             {"optimizer", {{"type", "cat"}, {"values", {"sgd", "adam", "rmsprop"}}}}},
            0.0) {}

  double Evaluate(const Point& p) const override {
    const std::string& optimizer = CatParam(p, "optimizer");
    double penalty;
    if (optimizer == "sgd") {
      penalty = 0.3;
    } else if (optimizer == "adam") {
      penalty = 0.0;
    } else if (optimizer == "rmsprop") {
      penalty = 0.1;
    } else {
      ThrowUnknownCat("optimizer", optimizer);
    }
    const double batch_size = static_cast<double>(IntParam(p, "batch_size"));
    return Square(Bilog(RealParam(p, "offset")) - Bilog(50.0)) +
           Square(Logit(RealParam(p, "dropout")) - Logit(0.2)) +
           Square(std::log2(batch_size) - 6.0) + penalty;
  }
};

}  // namespace

std::unique_ptr<Problem> MakeMixedSphere() { return std::make_unique<MixedSphere>(); }
std::unique_ptr<Problem> MakeDiscreteQuadratic() { return std::make_unique<DiscreteQuadratic>(); }
std::unique_ptr<Problem> MakeWarpedMix() { return std::make_unique<WarpedMix>(); }

}  // namespace bbo::problems_internal
