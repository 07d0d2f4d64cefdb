#ifndef BBO_PROBLEMS_PROBLEM_H_
#define BBO_PROBLEMS_PROBLEM_H_

// Problem: one objective function an optimizer is scored on, together with the search space
// (a Bayesmark api_config) the optimizer is given.
//
// BuiltinProblem: a convenience base for problems compiled into the server. It owns the name,
// description, known optimum and the SearchSpace parsed from a JSON api_config; subclasses only
// implement Evaluate().
//
// Thread safety: a Problem is immutable after construction; every method is const and
// reentrant, so one instance may be evaluated from many threads at once.

#include <optional>
#include <string>
#include <vector>

#include "common/search_space.h"
#include "nlohmann/json.hpp"

namespace bbo {

// One evaluation with the problem's held-out loss.
struct ProblemEvaluation {
  double value = 0;
  // Bayesmark's "generalization": the loss of the same point on data the objective does not
  // use (a refit scored on a held-out test part). Unset for problems without one.
  std::optional<double> generalization;
};

class Problem {
 public:
  virtual ~Problem();

  // Stable identifier, e.g. "branin". Stored with results; never renamed.
  virtual const std::string& name() const = 0;
  // The search space the optimizer sees.
  virtual const SearchSpace& space() const = 0;
  // The best known global minimum of Evaluate() over space(), if known. It is a lower bound of
  // every value Evaluate() returns (up to the literature's precision).
  virtual std::optional<double> known_optimum() const = 0;
  // One human-readable line.
  virtual std::string description() const = 0;
  // What makes the problem hard, as Dewancker et al. (2016) §3 tags test functions ("unimodal",
  // "multimodal", "noisy", "oscillatory", "boundary optimum", "mixed integer", "discrete valued",
  // "nonsmooth",
  // ...); reports break rankings down by these tags.
  virtual std::vector<std::string> attributes() const { return {}; }
  // Where the problem comes from, for listings and reports: "classic", "mixed", "bbob",
  // "synthetic", "ml", "sklearn", "external", "generated", ...
  virtual std::string family() const { return "builtin"; }
  // The objective to MINIMIZE at `canonical_point`, which the caller has validated and
  // canonicalized with space().Canonicalize() (ints are int64_t, bools bool, cats std::string,
  // reals double). May throw or return NaN; callers map either to +inf.
  virtual double Evaluate(const Point& canonical_point) const = 0;
  // Evaluate() plus the held-out loss, for problems that have one (the coordinator records both;
  // the optimizer only ever sees the value). Same preconditions and failure modes as Evaluate.
  // Default: Evaluate() without a held-out loss.
  virtual ProblemEvaluation EvaluateWithHeldOut(const Point& canonical_point) const {
    return {Evaluate(canonical_point), std::nullopt};
  }
};

// Base class for built-in problems. Subclasses pass their metadata to the constructor and
// implement Evaluate().
class BuiltinProblem : public Problem {
 public:
  // Parses `api_config` with SearchSpace::FromJson. An invalid config is a programmer error:
  // the constructor prints the parse error to stderr and aborts the process.
  BuiltinProblem(std::string name, std::string description, const nlohmann::json& api_config,
                 std::optional<double> known_optimum);

  const std::string& name() const override { return name_; }
  const SearchSpace& space() const override { return space_; }
  std::optional<double> known_optimum() const override { return known_optimum_; }
  std::string description() const override { return description_; }

 private:
  std::string name_;
  std::string description_;
  SearchSpace space_;
  std::optional<double> known_optimum_;
};

}  // namespace bbo

#endif  // BBO_PROBLEMS_PROBLEM_H_
