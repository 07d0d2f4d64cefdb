#ifndef BBO_PROBLEMS_SIGNATURE_H_
#define BBO_PROBLEMS_SIGNATURE_H_

// A problem's signature: its values at a few fixed probe points of its search space, plus a
// digest of the api_config. Stored with every study, so that a problem whose definition changed
// between runs (different data, code, seed) is detected before its results are mixed with the
// old ones (Bayesmark records signatures for the same reason). Deterministic: the probe points
// depend only on the search space.

#include <string>

#include "problems/problem.h"

namespace bbo {

inline constexpr int kSignatureProbes = 5;

// "v1:<api_config digest>:<value>,<value>,..." with values printed to 17 significant digits
// (an evaluation that throws or returns NaN prints as "nan"). Evaluates the problem
// kSignatureProbes times.
std::string ProblemSignature(const Problem& problem);

}  // namespace bbo

#endif  // BBO_PROBLEMS_SIGNATURE_H_
