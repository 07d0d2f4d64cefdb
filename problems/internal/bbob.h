#ifndef BBO_PROBLEMS_INTERNAL_BBOB_H_
#define BBO_PROBLEMS_INTERNAL_BBOB_H_

// The 24 noiseless BBOB functions of Hansen, Finck, Ros & Auger, "Real-Parameter Black-Box
// Optimization Benchmarking 2009: Noiseless Functions Definitions" (INRIA RR-6829), in any
// dimension d >= 2 on [-5, 5]^d.
//
// Each (function, instance, dimension) triple seeds its own std::mt19937_64, from which the
// instance transforms are drawn as the definitions prescribe: the optimum x_opt (uniform in
// [-4, 4]^d unless the function says otherwise), the optimal value f_opt (a Cauchy variate with
// scale 100 rounded to 2 decimals and clipped to [-1000, 1000]), the random orthogonal matrices R
// and Q (QR of a Gaussian matrix), the +-1 sign vectors and the Gallagher peaks. The random numbers
// are NOT those of the COCO C code, so values differ from COCO's for the same instance number; the
// function definitions and f(x_opt) = f_opt are the same.
//
// Where the minimizer is not x_opt by construction the definitions are still followed:
//   f4  the skewed coordinates x_1, x_3, ... (1-based) of x_opt are made positive, as in COCO.
//   f5  linear slope: x_opt = 5 * (+-1)^d, a corner of the domain ("boundary optimum").
//   f8  x_opt is uniform in [-3, 3]^d (COCO scales it so that the optimum of the scaled
//       Rosenbrock stays inside the domain); f9 and f19 have no shift, x_opt = R^T 1 / (2 s).
//   f20 x_opt = 4.2096874633 / 2 * (+-1)^d; f(x_opt) equals f_opt to about 1e-15 because the
//       definition's constant 4.189828872724339 is rounded.
//   f21/f22 x_opt is the first (highest) peak y_1; no other peak is as high.
//   f24 x_opt = mu_0 / 2 * (+-1)^d with mu_0 = 2.5.
// Every function satisfies f(x) >= f_opt on [-5, 5]^d (f20 up to the rounding above).
//
// Thread safety: a BbobFunction is immutable after construction; Evaluate is const and reentrant.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "problems/problem.h"

namespace bbo::problems_internal {

inline constexpr int kBbobNumFunctions = 24;

// Portable random variates. The <random> distributions are implementation-defined, so instances
// drawn with them would differ between standard libraries; these depend only on the mt19937_64
// stream. UniformDouble is in [0, 1) with 53 random bits; StandardNormal uses Box-Muller;
// UniformIndex is in [0, n) (n >= 1).
double UniformDouble(std::mt19937_64& rng);
double StandardNormal(std::mt19937_64& rng);
int UniformIndex(std::mt19937_64& rng, int n);
// The SplitMix64 finalizer (Steele, Lea & Flood 2014), for deriving independent seeds.
uint64_t SplitMix64(uint64_t x);

// A random orthogonal dim x dim matrix, row-major: the Q factor of the QR decomposition of a
// matrix of standard normal variates, with column signs fixed so that R's diagonal is positive
// (which makes the result Haar-distributed). Precondition: dim >= 1.
std::vector<double> RandomOrthogonalMatrix(int dim, std::mt19937_64& rng);

// y = M x for a row-major dim x dim matrix M. Precondition: m.size() == x.size()^2.
std::vector<double> MatVec(const std::vector<double>& m, absl::Span<const double> x);

class BbobFunction {
 public:
  // InvalidArgument naming the parameter unless 1 <= function_id <= 24, 2 <= dim <= 1000 and
  // instance >= 1.
  static absl::StatusOr<BbobFunction> Create(int function_id, int dim, int instance);
  // As Create, but the instance transforms are drawn from `rng_seed` directly (the synthetic suite
  // derives it from its own seed). instance() is 0 for such functions.
  static absl::StatusOr<BbobFunction> CreateFromSeed(int function_id, int dim, uint64_t rng_seed);

  // f(x). Precondition: x.size() == dim(). Defined on all of R^d (the definitions' penalty f_pen
  // handles points outside [-5, 5]^d).
  double Evaluate(absl::Span<const double> x) const;

  int function_id() const { return function_id_; }
  int dim() const { return dim_; }
  int instance() const { return instance_; }
  // The global minimizer and minimum: Evaluate(xopt()) == fopt() (see the header comment for
  // f20's rounding).
  const std::vector<double>& xopt() const { return xopt_; }
  double fopt() const { return fopt_; }
  // The instance's rotation matrices R and Q, row-major dim x dim. Functions that use no
  // rotation still draw them.
  const std::vector<double>& rotation_r() const { return r_; }
  const std::vector<double>& rotation_q() const { return q_; }

  // "Sphere", "Step ellipsoidal", ... Precondition: 1 <= function_id <= 24.
  static std::string FunctionName(int function_id);
  // The function's group in the definitions ("separable", "moderate conditioning",
  // "ill-conditioned", "multimodal with adequate global structure", "multimodal with weak global
  // structure") followed by property tags: "unimodal" or "multimodal", and where they apply
  // "separable", "ill-conditioned", "nonsmooth", "oscillatory", "plateaus", "boundary optimum",
  // "deceptive". Rosenbrock (f8, f9) is "unimodal" for dim <= 3 and "multimodal" above.
  static std::vector<std::string> Attributes(int function_id, int dim);

 private:
  BbobFunction() = default;
  void Initialize(int function_id, int dim, int instance, uint64_t rng_seed);
  // Moves x_opt where the definition of the function puts it (f4, f5, f8, f9, f19, f20, f24).
  void PlaceOptimum();
  // Gallagher (f21, f22): draws the peaks, their heights and scales; x_opt is the first peak.
  void InitializeGallagherPeaks(std::mt19937_64& rng);
  // Evaluate for each group of the suite; `z0` = x - x_opt.
  double EvaluateSeparable(absl::Span<const double> x, const std::vector<double>& z0) const;
  double EvaluateModerateConditioning(absl::Span<const double> x,
                                      const std::vector<double>& z0) const;
  double EvaluateHighConditioning(const std::vector<double>& z0) const;
  double EvaluateAdequateStructure(absl::Span<const double> x,
                                   const std::vector<double>& z0) const;
  double EvaluateWeakStructure(absl::Span<const double> x, const std::vector<double>& z0) const;

  int function_id_ = 0;
  int dim_ = 0;
  int instance_ = 0;
  std::vector<double> xopt_;
  double fopt_ = 0.0;
  std::vector<double> r_, q_;
  // The +-1 vector of f5, f20 and f24, and the scaled sign of f5's slopes s_i.
  std::vector<double> signs_;
  // Gallagher (f21, f22): the peaks y_i (row i), their heights w_i and the diagonal of each
  // C_i = Lambda^{alpha_i} / alpha_i^{1/4} (row i; already permuted).
  std::vector<std::vector<double>> peaks_;
  std::vector<double> peak_weights_;
  std::vector<std::vector<double>> peak_scales_;
};

// The BBOB function as a Problem over the linear reals x0..x{dim-1} in [-5, 5]: name
// "bbob_f07_i3_d5", family "bbob", attributes BbobFunction::Attributes, known optimum f_opt.
// Same errors as BbobFunction::Create.
absl::StatusOr<std::unique_ptr<Problem>> MakeBbobProblem(int function_id, int dim, int instance);

// Wraps an existing function under the given name and description (used by the synthetic suite).
std::unique_ptr<Problem> WrapBbobFunction(BbobFunction function, std::string name,
                                          std::string description);

}  // namespace bbo::problems_internal

#endif  // BBO_PROBLEMS_INTERNAL_BBOB_H_
