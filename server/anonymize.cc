#include "server/anonymize.h"

#include <algorithm>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/digest.h"

namespace bbo {

absl::StatusOr<Anonymization> Anonymize(const SearchSpace& space, const std::string& problem,
                                        uint64_t seed) {
  std::vector<std::string> names;
  for (const auto& [name, unused] : space.api_config().items()) names.push_back(name);
  std::sort(names.begin(), names.end());
  // The shuffle's seed mixes the problem name in (FNV-1a), so problems differ.
  const uint64_t h = Fnv1a64(problem, 1469598103934665603ull ^ seed);
  std::vector<int> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::mt19937_64 rng(h);
  std::shuffle(order.begin(), order.end(), rng);
  Anonymization out;
  nlohmann::json config = nlohmann::json::object();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string opaque = absl::StrCat("p", order[i]);
    out.to_opaque[names[i]] = opaque;
    out.to_real[opaque] = names[i];
    config[opaque] = space.api_config()[names[i]];
  }
  auto parsed = SearchSpace::FromJson(config);
  if (!parsed.ok()) return parsed.status();
  out.space = std::make_shared<const SearchSpace>(*std::move(parsed));
  return out;
}

Point RenameKeys(const Point& p, const std::map<std::string, std::string>& names) {
  Point out;
  for (const auto& [key, value] : p) {
    auto it = names.find(key);
    out[it == names.end() ? key : it->second] = value;
  }
  return out;
}

}  // namespace bbo
