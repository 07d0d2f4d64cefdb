#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "problems/internal/bbob.h"
#include "problems/internal/benchmark_functions.h"
#include "problems/internal/synthetic_groups.h"

namespace bbo::problems_internal::synthetic {

void AddBbob(SuiteBuilder& b) {
  struct Choice {
    int function_id;
    int dim;
  };
  // Every BBOB group, in dimensions 3 to 20. f1 (sphere) and f5 (corner optimum at integer
  // coordinates +-5) are left out; the suite has its own sphere and boundary problems.
  constexpr Choice kChoices[] = {{2, 10}, {3, 5},   {4, 3},   {6, 5},   {7, 4},   {8, 6},  {10, 10},
                                 {11, 8}, {12, 5},  {13, 12}, {14, 6},  {15, 10}, {16, 4}, {17, 8},
                                 {18, 3}, {19, 20}, {20, 5},  {21, 10}, {22, 4},  {23, 3}, {24, 8}};
  for (const Choice& c : kChoices) {
    std::string name = absl::StrFormat("syn_bbob_f%02d_d%d", c.function_id, c.dim);
    absl::StatusOr<BbobFunction> f =
        BbobFunction::CreateFromSeed(c.function_id, c.dim, HashString(SplitMix64(b.seed()), name));
    if (!f.ok()) {
      // The choices above are compile-time constants in range; failing is a bug here.
      std::fprintf(stderr, "FATAL: %s: %s\n", name.c_str(), f.status().ToString().c_str());
      std::abort();
    }
    Point optimum = RealPoint(f->xopt());
    std::string description =
        absl::StrFormat("BBOB f%d %s, %d-d on [-5,5]^%d, instance drawn from the suite seed",
                        c.function_id, BbobFunction::FunctionName(c.function_id), c.dim, c.dim);
    b.AddProblem(WrapBbobFunction(*std::move(f), name, std::move(description)), std::move(optimum));
  }
}

void AddClassic(SuiteBuilder& b) {
  AddShifted(b, "syn_ackley_rot_d10",
             "Ackley 10-d on [-32.768,32.768]^10, shifted and rotated: many regular local minima",
             {"multimodal", "oscillatory"}, 10, -32.768, 32.768, true, Ackley,
             std::vector<double>(10, 0.0));
  AddShifted(b, "syn_rastrigin_rot_d10",
             "Rastrigin 10-d on [-5.12,5.12]^10, shifted and rotated: a grid of local minima "
             "not aligned with the axes",
             {"multimodal", "oscillatory"}, 10, -5.12, 5.12, true, Rastrigin,
             std::vector<double>(10, 0.0));
  AddShifted(b, "syn_rastrigin_shift_d3", "Rastrigin 3-d on [-5.12,5.12]^3, shifted",
             {"multimodal", "oscillatory", "separable"}, 3, -5.12, 5.12, false, Rastrigin,
             std::vector<double>(3, 0.0));
  AddShifted(b, "syn_rosenbrock_rot_d3",
             "Rosenbrock 3-d on [-5,5]^3, shifted and rotated: one curved valley",
             {"unimodal", "ill-conditioned"}, 3, -5, 5, true, Rosenbrock,
             std::vector<double>(3, 1.0));
  AddShifted(b, "syn_rosenbrock_shift_d12",
             "Rosenbrock 12-d on [-5,5]^12, shifted: a curved valley with one local minimum",
             {"multimodal", "ill-conditioned"}, 12, -5, 5, false, Rosenbrock,
             std::vector<double>(12, 1.0));
  AddShifted(b, "syn_levy_rot_d8", "Levy 8-d on [-10,10]^8, shifted and rotated",
             {"multimodal", "oscillatory"}, 8, -10, 10, true, Levy, std::vector<double>(8, 1.0));
  const double st_argmin = StyblinskiTangArgmin();
  AddShifted(b, "syn_styblinski_tang_shift_d6",
             "Styblinski-Tang 6-d on [-5,5]^6, shifted: 2^6 local minima",
             {"multimodal", "separable"}, 6, -5, 5, false, StyblinskiTang,
             std::vector<double>(6, st_argmin));
  AddShifted(b, "syn_styblinski_tang_rot_d16",
             "Styblinski-Tang 16-d on [-5,5]^16, shifted and rotated", {"multimodal"}, 16, -5, 5,
             true, StyblinskiTang, std::vector<double>(16, st_argmin));
  AddShifted(b, "syn_ellipsoid_rot_d16",
             "Rotated ellipsoid 16-d on [-5,5]^16 with condition number 1e6",
             {"unimodal", "ill-conditioned"}, 16, -5, 5, true, Ellipsoid(6.0),
             std::vector<double>(16, 0.0));
  AddShifted(b, "syn_ellipsoid_sep_d20",
             "Axis-aligned ellipsoid 20-d on [-5,5]^20 with condition number 1e6, shifted",
             {"unimodal", "ill-conditioned", "separable"}, 20, -5, 5, false, Ellipsoid(6.0),
             std::vector<double>(20, 0.0));
  AddShifted(b, "syn_griewank_rot_d10",
             "Griewank 10-d on [-60,60]^10, shifted and rotated: a bowl with fine cosine ripples",
             {"multimodal", "oscillatory"}, 10, -60, 60, true, Griewank,
             std::vector<double>(10, 0.0));
  AddShifted(b, "syn_ripple_bowl_d2",
             "2-d bowl with radial cosine ripples on [-4,4]^2, shifted: rings of local minima",
             {"multimodal", "oscillatory"}, 2, -4, 4, false, RippleBowl,
             std::vector<double>(2, 0.0));

  // Functions known only on their classic box: translated with their box.
  AddTranslated(
      b, "syn_branin_shift_d2", "Branin 2-d on a translated [-5,10]x[0,15]: three global minima",
      {"multimodal"}, {{-5, 10}, {0, 15}},
      [](absl::Span<const double> x) { return Branin(x[0], x[1]); }, {-kPi, 12.275},
      5.0 / (4.0 * kPi), 3.0);
  AddTranslated(
      b, "syn_six_hump_camel_shift_d2",
      "Six-hump camel 2-d on a translated [-3,3]x[-2,2]: two global and four local minima",
      {"multimodal"}, {{-3, 3}, {-2, 2}},
      [](absl::Span<const double> x) { return SixHumpCamel(x[0], x[1]); }, {0.0898420, -0.7126564},
      -1.0316284534898774, 2.0);
  AddTranslated(
      b, "syn_goldstein_price_shift_d2",
      "Goldstein-Price 2-d on a translated [-2,2]^2: raw values spanning six decades",
      {"multimodal"}, Cube(2, -2, 2),
      [](absl::Span<const double> x) { return GoldsteinPrice(x[0], x[1]); }, {0.0, -1.0}, 3.0, 2.0);
  AddTranslated(
      b, "syn_hartmann3_shift_d3", "Hartmann 3-d on a translated unit cube: four local minima",
      {"multimodal"}, Cube(3, 0, 1),
      [](absl::Span<const double> x) {
        return Hartmann3({x[0], x[1], x[2]});
      },
      {0.114589, 0.555649, 0.852547}, -3.8627797873326557, 2.0);
  AddTranslated(
      b, "syn_hartmann6_shift_d6", "Hartmann 6-d on a translated unit cube: six local minima",
      {"multimodal"}, Cube(6, 0, 1),
      [](absl::Span<const double> x) {
        return Hartmann6({x[0], x[1], x[2], x[3], x[4], x[5]});
      },
      {0.201690, 0.150011, 0.476874, 0.275332, 0.311652, 0.657301}, -3.322368011415513, 2.0);
}

void AddNoisy(SuiteBuilder& b) {
  AddShifted(b, "syn_sphere_noisy_d5",
             "Sphere 5-d on [-5,5]^5, shifted, with deterministic multiplicative log-normal "
             "noise (beta 0.1)",
             {"noisy", "unimodal", "separable"}, 5, -5, 5, false, Sphere,
             std::vector<double>(5, 0.0), Output{.noise_beta = 0.1});
  AddShifted(b, "syn_ellipsoid_rot_noisy_d8",
             "Rotated ellipsoid 8-d on [-5,5]^8 (condition 1e4) with deterministic "
             "multiplicative log-normal noise (beta 0.3)",
             {"noisy", "unimodal", "ill-conditioned"}, 8, -5, 5, true, Ellipsoid(4.0),
             std::vector<double>(8, 0.0), Output{.noise_beta = 0.3});
  AddShifted(b, "syn_rastrigin_noisy_d6",
             "Rastrigin 6-d on [-5.12,5.12]^6, shifted, with deterministic multiplicative "
             "log-normal noise (beta 0.1)",
             {"noisy", "multimodal", "oscillatory", "separable"}, 6, -5.12, 5.12, false, Rastrigin,
             std::vector<double>(6, 0.0), Output{.noise_beta = 0.1});
  AddShifted(b, "syn_rosenbrock_rot_noisy_d2",
             "Rosenbrock 2-d on [-5,5]^2, shifted and rotated, with severe deterministic "
             "multiplicative log-normal noise (beta 1)",
             {"noisy", "unimodal"}, 2, -5, 5, true, Rosenbrock, std::vector<double>(2, 1.0),
             Output{.noise_beta = 1.0});
  AddTranslated(
      b, "syn_branin_noisy_d2",
      "Branin 2-d on a translated [-5,10]x[0,15] with deterministic multiplicative log-normal "
      "noise (beta 0.3) on f - f*",
      {"noisy", "multimodal"}, {{-5, 10}, {0, 15}},
      [](absl::Span<const double> x) { return Branin(x[0], x[1]); }, {-kPi, 12.275},
      5.0 / (4.0 * kPi), 3.0, Output{.noise_beta = 0.3});
}

void AddDiscreteValued(SuiteBuilder& b) {
  // log10(1 + f) in quarter decades: fine levels near the optimum, about 20 levels in all.
  AddShifted(
      b, "syn_floor_log_ellipsoid_rot_d5",
      "log10(1 + rotated ellipsoid) 5-d on [-5,5]^5 (condition 1e3) rounded down to "
      "multiples of 0.25",
      {"discrete valued", "unimodal", "ill-conditioned"}, 5, -5, 5, true,
      [](absl::Span<const double> z) { return std::log10(1.0 + Ellipsoid(3.0)(z)); },
      std::vector<double>(5, 0.0), Output{.quanta = 4.0});
  AddShifted(b, "syn_floor_rastrigin_d4",
             "Rastrigin 4-d on [-5.12,5.12]^4, shifted, rounded down to integers",
             {"discrete valued", "multimodal", "oscillatory", "separable"}, 4, -5.12, 5.12, false,
             Rastrigin, std::vector<double>(4, 0.0), Output{.quanta = 1.0});
  AddTranslated(
      b, "syn_floor_hartmann3_d3",
      "Hartmann 3-d on a translated unit cube, rounded down to multiples of 0.05 like a "
      "cross-validation score",
      {"discrete valued", "multimodal"}, Cube(3, 0, 1),
      [](absl::Span<const double> x) {
        return Hartmann3({x[0], x[1], x[2]});
      },
      {0.114589, 0.555649, 0.852547}, -3.8627797873326557, 2.0, Output{.quanta = 20.0});
}

}  // namespace bbo::problems_internal::synthetic
