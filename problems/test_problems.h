#ifndef BBO_PROBLEMS_TEST_PROBLEMS_H_
#define BBO_PROBLEMS_TEST_PROBLEMS_H_

// Problems with deliberate faults or costs, for tests and benchmarks only (target
// bbo_test_problems); never part of the practice suite. Unless stated otherwise each is over one
// linear real x0 in [0, 1].
//
// Thread safety: like every Problem, immutable and safe to evaluate concurrently.

#include <memory>

#include "absl/time/time.h"
#include "problems/problem.h"

namespace bbo {

// "test_crashing": throws std::runtime_error when x0 > 1 - crash_fraction, else (x0 - 0.3)^2.
// Precondition: 0 <= crash_fraction <= 1 (aborts otherwise). Known optimum: the minimum over the
// non-crashing region, 0 when crash_fraction <= 0.7 and (0.7 - crash_fraction)^2 above that.
std::unique_ptr<Problem> MakeCrashingProblem(double crash_fraction);

// "test_nan": NaN when x0 > 0.5, else (x0 - 0.3)^2. Known optimum 0.
std::unique_ptr<Problem> MakeNanProblem();

// "test_slow": sleeps `delay` (absl::SleepFor, so concurrent calls overlap) then returns x0.
// Known optimum 0.
std::unique_ptr<Problem> MakeSlowProblem(absl::Duration delay);

// "test_sphere": sum of x_i^2 over linear reals x0..x{dims-1} in [-5, 5]; known optimum 0.
// Precondition: 1 <= dims <= 10 (aborts otherwise).
std::unique_ptr<Problem> MakeTrivialProblem(int dims = 2);

}  // namespace bbo

#endif  // BBO_PROBLEMS_TEST_PROBLEMS_H_
