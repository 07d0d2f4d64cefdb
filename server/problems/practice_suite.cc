#include "server/problems/practice_suite.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/problems/internal/classic_problems.h"
#include "server/problems/internal/mixed_problems.h"

namespace bbo {

std::vector<std::unique_ptr<Problem>> MakePracticeSuite() {
  std::vector<std::unique_ptr<Problem>> suite = problems_internal::MakeClassicProblems();
  suite.push_back(problems_internal::MakeMixedSphere());
  suite.push_back(problems_internal::MakeDiscreteQuadratic());
  suite.push_back(problems_internal::MakeWarpedMix());
  return suite;
}

// Building the whole suite to fetch one problem costs a few microseconds per problem and keeps
// a single list of problems to maintain.
absl::StatusOr<std::unique_ptr<Problem>> MakeProblem(std::string_view name) {
  for (std::unique_ptr<Problem>& problem : MakePracticeSuite()) {
    if (problem->name() == name) return std::move(problem);
  }
  return absl::NotFoundError(absl::StrCat("unknown practice problem \"", std::string(name), "\""));
}

std::vector<std::string> PracticeProblemNames() {
  std::vector<std::string> names;
  for (const std::unique_ptr<Problem>& problem : MakePracticeSuite()) {
    names.push_back(problem->name());
  }
  return names;
}

}  // namespace bbo
