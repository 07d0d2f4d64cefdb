#include "problems/internal/classic_problems.h"

#include <string>
#include <utility>

#include "problems/internal/benchmark_functions.h"
#include "problems/internal/params.h"

namespace bbo::problems_internal {
namespace {

constexpr double kPi = 3.14159265358979323846;

using BoxFunction = double (*)(const std::vector<double>& x);

// A function of x0..x{d-1} over a box. The function pointer keeps the class stateless, so
// Evaluate is trivially reentrant.
class BoxFunctionProblem : public BuiltinProblem {
 public:
  BoxFunctionProblem(std::string name, std::string description,
                     const std::vector<std::pair<double, double>>& bounds, double known_optimum,
                     BoxFunction f)
      : BuiltinProblem(std::move(name), std::move(description), BoxConfig(bounds), known_optimum),
        dims_(static_cast<int>(bounds.size())),
        f_(f) {}

  double Evaluate(const Point& canonical_point) const override {
    return f_(RealVector(canonical_point, dims_));
  }

 private:
  int dims_;
  BoxFunction f_;
};

using Bounds = std::vector<std::pair<double, double>>;

Bounds Cube(int dims, double lo, double hi) { return Bounds(dims, {lo, hi}); }

}  // namespace

std::vector<std::unique_ptr<Problem>> MakeClassicProblems() {
  std::vector<std::unique_ptr<Problem>> out;
  auto add = [&out](std::string name, std::string description, const Bounds& bounds,
                    double known_optimum, BoxFunction f) {
    out.push_back(std::make_unique<BoxFunctionProblem>(std::move(name), std::move(description),
                                                       bounds, known_optimum, f));
  };
  add("branin", "Branin-Hoo, 2-d on [-5,10]x[0,15], three global minima", {{-5, 10}, {0, 15}},
      5.0 / (4.0 * kPi), [](const std::vector<double>& x) { return Branin(x[0], x[1]); });
  // Hartmann optima: the literature's -3.86278 / -3.32237 refined by local optimization to the
  // double precision the objective itself has.
  add("hartmann3", "Hartmann 3-d on [0,1]^3, four local minima", Cube(3, 0, 1), -3.8627797873326557,
      [](const std::vector<double>& x) {
        return Hartmann3({x[0], x[1], x[2]});
      });
  add("hartmann6", "Hartmann 6-d on [0,1]^6, six local minima", Cube(6, 0, 1), -3.322368011415513,
      [](const std::vector<double>& x) {
        return Hartmann6({x[0], x[1], x[2], x[3], x[4], x[5]});
      });
  add("ackley5", "Ackley 5-d on [-32.768,32.768]^5, many local minima", Cube(5, -32.768, 32.768),
      0.0, [](const std::vector<double>& x) { return Ackley(x); });
  add("rosenbrock4", "Rosenbrock 4-d on [-5,10]^4, a curved valley", Cube(4, -5, 10), 0.0,
      [](const std::vector<double>& x) { return Rosenbrock(x); });
  add("rastrigin4", "Rastrigin 4-d on [-5.12,5.12]^4, a regular grid of local minima",
      Cube(4, -5.12, 5.12), 0.0, [](const std::vector<double>& x) { return Rastrigin(x); });
  add("levy4", "Levy 4-d on [-10,10]^4, many local minima", Cube(4, -10, 10), 0.0,
      [](const std::vector<double>& x) { return Levy(x); });
  add("styblinski_tang4", "Styblinski-Tang 4-d on [-5,5]^4, 2^4 local minima", Cube(4, -5, 5),
      4 * kStyblinskiTangMinPerDim, [](const std::vector<double>& x) { return StyblinskiTang(x); });
  add("six_hump_camel", "Six-hump camel 2-d on [-3,3]x[-2,2], two global minima",
      {{-3, 3}, {-2, 2}}, -1.0316284534898774,
      [](const std::vector<double>& x) { return SixHumpCamel(x[0], x[1]); });
  add("goldstein_price", "Goldstein-Price 2-d on [-2,2]^2, raw (unlogged) values", Cube(2, -2, 2),
      3.0, [](const std::vector<double>& x) { return GoldsteinPrice(x[0], x[1]); });
  return out;
}

}  // namespace bbo::problems_internal
