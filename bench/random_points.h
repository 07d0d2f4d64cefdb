// Random valid points from a Bayesmark api_config (the benchmarks' stand-in optimizer).
#ifndef BBO_BENCH_RANDOM_POINTS_H_
#define BBO_BENCH_RANDOM_POINTS_H_

#include <random>
#include <string>
#include <vector>

#include "bbo/v1/common.pb.h"

namespace bbo::bench {

struct Param {
  std::string name;
  std::string type;  // real, int, bool, cat
  bool log = false;
  double lo = 0, hi = 0;
  std::vector<double> numeric_values;  // real/int given by "values"
  std::vector<std::string> cat_values;
};

// The parameters of an api_config JSON object; throws on a type it does not know.
std::vector<Param> ParseApiConfig(const std::string& json);

// One point drawn uniformly (log-uniformly on a log scale) from `space`.
void RandomPoint(const std::vector<Param>& space, std::mt19937_64& rng, bbo::v1::Suggestion* s);

}  // namespace bbo::bench

#endif  // BBO_BENCH_RANDOM_POINTS_H_
