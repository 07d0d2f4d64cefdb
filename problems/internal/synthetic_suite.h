#ifndef BBO_PROBLEMS_INTERNAL_SYNTHETIC_SUITE_H_
#define BBO_PROBLEMS_INTERNAL_SYNTHETIC_SUITE_H_

// The attribute-tagged synthetic suite of Dewancker et al. (2016) §3: closed-form problems with
// known optima, each tagged with the attributes reports break rankings down by
// (kSyntheticAttributes).
//
// Every problem is instantiated from the suite seed: a fixed random shift of the optimum (and a
// random rotation for the non-separable ones), drawn per problem from a generator seeded by
// (seed, problem name), so adding a problem never moves the others. Following Dewancker et al.
// (2016)'s warning, no optimum sits at the centre of its domain or on integer coordinates: real
// coordinates of the optima have a fractional part in [0.05, 0.95], and box bounds that carry an
// optimum ("boundary optimum" problems) are non-integers too. Names do not depend on the seed.
//
// Families: "bbob" for BBOB functions wrapped from bbob.h ("syn_bbob_f15_d10"; instance drawn from
// the seed), "synthetic" for the rest ("syn_rastrigin_rot_d10").
//
// Noise: "noisy" problems return f* + (f(x) - f*) exp(beta N), where f is the noise-free
// objective, f* its minimum and N a standard normal variate computed from a hash of the point's
// bits and a per-problem noise seed. Re-evaluating the same point therefore returns the same value
// (studies replay exactly), the minimum f* is unchanged and still a lower bound, and the noise
// grows with the distance to the optimum (BBOB's multiplicative Gaussian noise model).
//
// Thread safety: the problems are immutable; Evaluate is const and reentrant. The functions here
// are pure.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/search_space.h"
#include "problems/problem.h"

namespace bbo::problems_internal {

// The attribute vocabulary of Dewancker et al. (2016) §3 (plus "separable" and "ill-conditioned").
// Every suite problem carries at least one of them; some also carry BBOB group names such as
// "moderate conditioning".
inline constexpr const char* kSyntheticAttributes[] = {
    "noisy",           "oscillatory",     "unimodal",      "multimodal", "boundary optimum",
    "mixed integer",   "discrete valued", "mostly boring", "nonsmooth",  "separable",
    "ill-conditioned",
};

// The suite for `seed`, in a stable order (the same for every seed). Dimensions range from 2 to
// 20; every problem has a known optimum.
std::vector<std::unique_ptr<Problem>> MakeSyntheticSuite(uint64_t seed);

// Where each suite problem attains its known optimum, in MakeSyntheticSuite's order.
struct SyntheticInfo {
  std::string name;
  // A canonical point of the problem's space (reals double, ints int64_t, bools bool, cats
  // string) at which Evaluate returns optimum_value (to rounding).
  Point optimum_point;
  // Equal to the problem's known_optimum().
  double optimum_value = 0.0;
  bool noisy = false;
};
std::vector<SyntheticInfo> SyntheticOptima(uint64_t seed);

}  // namespace bbo::problems_internal

#endif  // BBO_PROBLEMS_INTERNAL_SYNTHETIC_SUITE_H_
