#include "problems/internal/synthetic_suite.h"

#include <utility>

#include "problems/internal/synthetic_groups.h"

namespace bbo::problems_internal {

namespace {

using synthetic::Entry;

std::vector<Entry> BuildSuite(uint64_t seed) {
  synthetic::SuiteBuilder b(seed);
  synthetic::AddBbob(b);
  synthetic::AddClassic(b);
  synthetic::AddNoisy(b);
  synthetic::AddDiscreteValued(b);
  synthetic::AddMostlyBoring(b);
  synthetic::AddNonsmooth(b);
  synthetic::AddBoundaryOptimum(b);
  synthetic::AddMixedInteger(b);
  return b.Take();
}

}  // namespace

std::vector<std::unique_ptr<Problem>> MakeSyntheticSuite(uint64_t seed) {
  std::vector<std::unique_ptr<Problem>> out;
  for (Entry& e : BuildSuite(seed)) out.push_back(std::move(e.problem));
  return out;
}

std::vector<SyntheticInfo> SyntheticOptima(uint64_t seed) {
  std::vector<SyntheticInfo> out;
  for (Entry& e : BuildSuite(seed)) {
    out.push_back(SyntheticInfo{e.problem->name(), std::move(e.optimum_point),
                                e.problem->known_optimum().value_or(0.0), e.noisy});
  }
  return out;
}

}  // namespace bbo::problems_internal
