#ifndef BBO_PROBLEMS_PRACTICE_SUITE_H_
#define BBO_PROBLEMS_PRACTICE_SUITE_H_

// The built-in practice suite: classic continuous test functions plus synthetic mixed-type
// problems that exercise every api_config feature (int, bool, cat, "values", and the log, logit
// and bilog warps). Every problem has a known global minimum.
//
// Problem names are stable identifiers stored with results; they are never renamed or reused.
// Thread safety: all functions are safe to call concurrently; each call returns new instances.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "problems/problem.h"

namespace bbo {

// Every practice problem, in the order of PracticeProblemNames().
std::vector<std::unique_ptr<Problem>> MakePracticeSuite();

// The practice problem called `name`; NotFound naming it when there is none.
absl::StatusOr<std::unique_ptr<Problem>> MakeProblem(std::string_view name);

// The names of the practice problems, in a stable order: branin, hartmann3, hartmann6, ackley5,
// rosenbrock4, rastrigin4, levy4, styblinski_tang4, six_hump_camel, goldstein_price,
// mixed_sphere, discrete_quadratic, warped_mix.
std::vector<std::string> PracticeProblemNames();

}  // namespace bbo

#endif  // BBO_PROBLEMS_PRACTICE_SUITE_H_
