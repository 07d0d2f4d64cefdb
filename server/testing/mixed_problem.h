#ifndef BBO_SERVER_TESTING_MIXED_PROBLEM_H_
#define BBO_SERVER_TESTING_MIXED_PROBLEM_H_

// A small problem with one parameter of each type, for server tests. f = (x - 1)^2 + |n - 3|
// + (kernel == "rbf" ? 0 : 1) + (flag ? 0 : 0.5); minimum 0 at x=1, n=3, rbf, flag=true.

#include <cmath>
#include <memory>
#include <string>

#include "problems/problem.h"

namespace bbo::testing {

class MixedProblem : public Problem {
 public:
  explicit MixedProblem(std::string name = "mixed") : name_(std::move(name)) {
    space_ = *SearchSpace::FromJson(nlohmann::json::parse(R"({
      "x": {"type": "real", "space": "linear", "range": [-5, 5]},
      "n": {"type": "int", "space": "linear", "range": [1, 10]},
      "kernel": {"type": "cat", "values": ["rbf", "linear", "poly"]},
      "flag": {"type": "bool"}})"));
  }
  const std::string& name() const override { return name_; }
  const SearchSpace& space() const override { return space_; }
  std::optional<double> known_optimum() const override { return 0.0; }
  std::string description() const override { return "mixed test problem"; }
  double Evaluate(const Point& p) const override {
    double x = std::get<double>(p.at("x"));
    double n = static_cast<double>(std::get<int64_t>(p.at("n")));
    const std::string& k = std::get<std::string>(p.at("kernel"));
    bool flag = std::get<bool>(p.at("flag"));
    return (x - 1) * (x - 1) + std::abs(n - 3) + (k == "rbf" ? 0 : 1) + (flag ? 0 : 0.5);
  }

 private:
  std::string name_;
  SearchSpace space_;
};

inline Point GoodPoint(double x = 1.0) {
  return Point{{"x", x}, {"n", int64_t{3}}, {"kernel", std::string("rbf")}, {"flag", true}};
}

}  // namespace bbo::testing

#endif  // BBO_SERVER_TESTING_MIXED_PROBLEM_H_
