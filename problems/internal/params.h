#ifndef BBO_PROBLEMS_INTERNAL_PARAMS_H_
#define BBO_PROBLEMS_INTERNAL_PARAMS_H_

// Helpers for built-in problems: typed access to a canonical Point and api_config builders.
//
// The accessors are meant to be called from Problem::Evaluate on a canonicalized point, so a
// missing parameter or a wrong type is a caller bug; they throw std::invalid_argument naming the
// parameter (Evaluate may throw; the evaluator maps it to +inf). Thread-safe: pure functions.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/search_space.h"
#include "nlohmann/json.hpp"

namespace bbo::problems_internal {

double RealParam(const Point& p, const std::string& name);
int64_t IntParam(const Point& p, const std::string& name);
bool BoolParam(const Point& p, const std::string& name);
const std::string& CatParam(const Point& p, const std::string& name);

// The reals x0, x1, ..., x{dims-1} in that order.
std::vector<double> RealVector(const Point& p, int dims);

// An api_config of linear reals x0..x{n-1} where x_i ranges over bounds[i] = {lo, hi}.
nlohmann::json BoxConfig(const std::vector<std::pair<double, double>>& bounds);
// The same bounds [lo, hi] for each of x0..x{dims-1}.
nlohmann::json BoxConfig(int dims, double lo, double hi);

}  // namespace bbo::problems_internal

#endif  // BBO_PROBLEMS_INTERNAL_PARAMS_H_
