#ifndef BBO_PROBLEMS_INTERNAL_CLASSIC_PROBLEMS_H_
#define BBO_PROBLEMS_INTERNAL_CLASSIC_PROBLEMS_H_

// The classic continuous test functions of benchmark_functions.h as Problems over linear real
// boxes with parameters x0, x1, ... Objective values are the functions' raw values.

#include <memory>
#include <vector>

#include "problems/problem.h"

namespace bbo::problems_internal {

// In this stable order: branin, hartmann3, hartmann6, ackley5, rosenbrock4, rastrigin4, levy4,
// styblinski_tang4, six_hump_camel, goldstein_price.
std::vector<std::unique_ptr<Problem>> MakeClassicProblems();

}  // namespace bbo::problems_internal

#endif  // BBO_PROBLEMS_INTERNAL_CLASSIC_PROBLEMS_H_
