#ifndef BBO_SERVER_ANONYMIZE_H_
#define BBO_SERVER_ANONYMIZE_H_

// Final-phase anonymization (PROTOCOL.md): in hidden phases an optimizer sees opaque parameter
// names p0, p1, ... in a shuffled order fixed per problem, so names cannot be used to warm
// start. The coordinator keeps the mapping; it stores and evaluates points under the real names.

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/search_space.h"

namespace bbo {

struct Anonymization {
  // The api_config with opaque names (same types, ranges, warps, values).
  std::shared_ptr<const SearchSpace> space;
  std::map<std::string, std::string> to_real;  // opaque -> real
  std::map<std::string, std::string> to_opaque;  // real -> opaque
};

// Deterministic in (space, problem, seed): the same problem gets the same names in every study
// of a competition, and different competitions (seeds) shuffle differently.
absl::StatusOr<Anonymization> Anonymize(const SearchSpace& space, const std::string& problem,
                                        uint64_t seed);

// `p` with its keys renamed through `names`; keys without an entry are kept (so a suggestion
// with an unknown name still fails validation with that name).
Point RenameKeys(const Point& p, const std::map<std::string, std::string>& names);

}  // namespace bbo

#endif  // BBO_SERVER_ANONYMIZE_H_
