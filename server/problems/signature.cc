#include "server/problems/signature.h"

#include <cmath>
#include <cstdint>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bbo {
namespace {

// FNV-1a 64 of the canonical api_config text: a content fingerprint, not a security boundary.
std::string Digest(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", h);
}

}  // namespace

std::string ProblemSignature(const Problem& problem) {
  // nlohmann::json objects are ordered by key: dump() is canonical.
  std::string out = absl::StrCat("v1:", Digest(problem.space().api_config().dump()), ":");
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
