#include "problems/signature.h"

#include <cmath>
#include <cstdint>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/digest.h"

namespace bbo {
std::string ProblemSignature(const Problem& problem) {
  // nlohmann::json objects are ordered by key: dump() is canonical.
  std::string out = absl::StrCat("v1:", Fnv1a64Hex(problem.space().api_config().dump()), ":");
  std::mt19937_64 rng(0x5167a7u);  // fixed: the probes depend only on the space
  for (int i = 0; i < kSignatureProbes; ++i) {
    const Point p = problem.space().SampleRandom(rng);
    double v = NAN;
    try {
      auto canonical = problem.space().Canonicalize(p);
      if (canonical.ok()) v = problem.Evaluate(*canonical);
    } catch (...) {
      v = NAN;
    }
    if (i > 0) out += ",";
    out += std::isnan(v) ? std::string("nan") : absl::StrFormat("%.17g", v);
  }
  return out;
}

}  // namespace bbo
