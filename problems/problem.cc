#include "problems/problem.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace bbo {
namespace {

// Built-in configs are compiled in, so a parse failure is a bug in this folder; failing loudly
// at start-up beats serving a problem whose space silently differs from its objective.
SearchSpace ParseBuiltinOrDie(const std::string& name, const nlohmann::json& api_config) {
  absl::StatusOr<SearchSpace> space = SearchSpace::FromJson(api_config);
  if (!space.ok()) {
    std::fprintf(stderr, "FATAL: built-in problem \"%s\" has an invalid api_config: %s\n",
                 name.c_str(), std::string(space.status().message()).c_str());
    std::abort();
  }
  return *std::move(space);
}

}  // namespace

Problem::~Problem() = default;

BuiltinProblem::BuiltinProblem(std::string name, std::string description,
                               const nlohmann::json& api_config,
                               std::optional<double> known_optimum)
    : name_(std::move(name)),
      description_(std::move(description)),
      space_(ParseBuiltinOrDie(name_, api_config)),
      known_optimum_(known_optimum) {}

}  // namespace bbo
