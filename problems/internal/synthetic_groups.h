#ifndef BBO_PROBLEMS_INTERNAL_SYNTHETIC_GROUPS_H_
#define BBO_PROBLEMS_INTERNAL_SYNTHETIC_GROUPS_H_

// The groups of the synthetic suite (synthetic_suite.h), by the attribute they are built around.
// Each adds its problems to the builder in a fixed order; synthetic_suite.cc calls them in the
// order below, which is the suite's order. Internal to the suite.

#include "problems/internal/synthetic_builder.h"

namespace bbo::problems_internal::synthetic {

// synthetic_continuous_groups.cc
// 21 BBOB functions wrapped from bbob.h (family "bbob").
void AddBbob(SuiteBuilder& b);
// Classic test functions, shifted (and rotated) or translated with their box.
void AddClassic(SuiteBuilder& b);
// "noisy": deterministic multiplicative log-normal noise.
void AddNoisy(SuiteBuilder& b);
// "discrete valued": objectives rounded down to a grid of values.
void AddDiscreteValued(SuiteBuilder& b);

// synthetic_landscape_groups.cc
// "mostly boring": flat almost everywhere.
void AddMostlyBoring(SuiteBuilder& b);
// "nonsmooth": kinks in the objective.
void AddNonsmooth(SuiteBuilder& b);
// "boundary optimum": optima on a face or corner of an off-grid box.
void AddBoundaryOptimum(SuiteBuilder& b);

// synthetic_mixed_groups.cc
// "mixed integer": integer, boolean and categorical parameters next to reals.
void AddMixedInteger(SuiteBuilder& b);

}  // namespace bbo::problems_internal::synthetic

#endif  // BBO_PROBLEMS_INTERNAL_SYNTHETIC_GROUPS_H_
