#include "problems/practice_suite.h"

#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "problems/internal/classic_problems.h"
#include "problems/internal/mixed_problems.h"

namespace bbo {
namespace {

// Adds Dewancker et al. (2016) §3 attribute tags to a problem without touching its implementation.
class TaggedProblem : public Problem {
 public:
  TaggedProblem(std::unique_ptr<Problem> inner, std::vector<std::string> attributes,
                std::string family)
      : inner_(std::move(inner)), attributes_(std::move(attributes)), family_(std::move(family)) {}
  const std::string& name() const override { return inner_->name(); }
  const SearchSpace& space() const override { return inner_->space(); }
  std::optional<double> known_optimum() const override { return inner_->known_optimum(); }
  std::string description() const override { return inner_->description(); }
  std::vector<std::string> attributes() const override { return attributes_; }
  std::string family() const override { return family_; }
  double Evaluate(const Point& p) const override { return inner_->Evaluate(p); }

 private:
  std::unique_ptr<Problem> inner_;
  std::vector<std::string> attributes_;
  std::string family_;
};

// The tags of the practice problems, from the functions' known landscapes.
const std::map<std::string, std::vector<std::string>>& PracticeAttributes() {
  static const auto* kTags = new std::map<std::string, std::vector<std::string>>{
      {"branin", {"multimodal", "smooth"}},
      {"hartmann3", {"multimodal", "smooth"}},
      {"hartmann6", {"multimodal", "smooth"}},
      {"ackley5", {"multimodal", "oscillatory", "mostly boring"}},
      {"rosenbrock4", {"unimodal", "smooth", "ill-conditioned"}},
      {"rastrigin4", {"multimodal", "oscillatory"}},
      {"levy4", {"multimodal", "oscillatory"}},
      {"styblinski_tang4", {"multimodal", "smooth"}},
      {"six_hump_camel", {"multimodal", "smooth"}},
      {"goldstein_price", {"multimodal", "heavy-tailed values"}},
      {"mixed_sphere", {"mixed integer", "categorical", "unimodal"}},
      {"discrete_quadratic", {"discrete valued", "mixed integer"}},
      {"warped_mix", {"mixed integer", "categorical", "log-scaled"}},
  };
  return *kTags;
}

}  // namespace

std::vector<std::unique_ptr<Problem>> MakePracticeSuite() {
  std::vector<std::unique_ptr<Problem>> suite = problems_internal::MakeClassicProblems();
  suite.push_back(problems_internal::MakeMixedSphere());
  suite.push_back(problems_internal::MakeDiscreteQuadratic());
  suite.push_back(problems_internal::MakeWarpedMix());
  for (auto& problem : suite) {
    auto it = PracticeAttributes().find(problem->name());
    if (it != PracticeAttributes().end()) {
      const bool mixed = problem->space().api_config().dump().find("\"cat\"") !=
                             std::string::npos ||
                         problem->name() == "discrete_quadratic";
      problem = std::make_unique<TaggedProblem>(std::move(problem), it->second,
                                                mixed ? "mixed" : "classic");
    }
  }
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
