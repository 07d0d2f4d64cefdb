#ifndef BBO_SCORING_PLACKETT_LUCE_DECISIONS_H_
#define BBO_SCORING_PLACKETT_LUCE_DECISIONS_H_

// Confidence-based relations between methods and the anytime Pareto set (Wurth et al.,
// "Pareto-Optimal Anytime Algorithms via Bayesian Racing" (PolarBear) §2 eqs. 3-4, §4.1-4.2
// eqs. 22-31). Every probability is the proportion of posterior draws satisfying the event:
//
//   alpha-dominance at t (eq. 22):   P(theta_A(t) > theta_B(t) | R) >= alpha
//   anytime alpha-dominance (eq. 24): P(theta_A(t) > theta_B(t) for all t | R) >= alpha
//   (eps, alpha)-equivalence (eq. 26): P(theta_A / (theta_A + theta_B) in [1/2 - eps, 1/2 + eps])
//                                      >= alpha
//   dominance takes precedence over equivalence (§4.1).
//
// Elimination (§4.2): pointwise (eq. 27: some B alpha-dominates A at every t separately) or joint
// (eq. 28: some B anytime-alpha-dominates A). Candidates are eliminated simultaneously against the
// candidate set given (the paper's loop removes them one by one; with alpha > 1/2 no two methods
// can eliminate each other, and the simultaneous rule does not depend on the order of methods).
// Resolution (eq. 29-31): a pair is resolved at t when one dominates or they are equivalent at t
// (strict); in crossing mode a pair is resolved at every t once each method dominates-or-ties at
// some timepoint with at least one strict dominance (eq. 31). Pairs with an eliminated method are
// resolved.
//
// Pure functions of a posterior; thread-safe.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/plackett_luce/posterior.h"

namespace bbo::scoring::pl {

enum class Elimination { kPointwise, kJoint };
enum class Resolution { kStrict, kCrossing };

struct DecisionOptions {
  // Decision threshold alpha in (0.5, 1]. PolarBear's case studies use 0.99 (§5).
  double alpha = 0.99;
  // ROPE half-width epsilon in [0, 0.5) around even odds (§4.1; 0.05 in §5).
  double epsilon = 0.05;
  Elimination elimination = Elimination::kPointwise;
  Resolution resolution = Resolution::kStrict;
};

enum class Relation {
  kUnresolved,
  kFirstDominates,   // a alpha-dominates b at t
  kSecondDominates,  // b alpha-dominates a at t
  kEquivalent,       // (epsilon, alpha)-equivalent at t, neither dominates
};

// One pair a < b (method indices of the posterior) over the grid.
struct PairDecision {
  int a = 0;
  int b = 0;
  // P(theta_a(t) > theta_b(t)) per timepoint (eq. 22); P(theta_b > theta_a) = 1 - this.
  std::vector<double> p_a_better;
  // P(theta_a / (theta_a + theta_b) within epsilon of 1/2) per timepoint (eq. 26).
  std::vector<double> p_equivalent;
  // P(theta_a(t) > theta_b(t) for all t) and the converse (eq. 24).
  double p_a_dominates = 0;
  double p_b_dominates = 0;
  std::vector<Relation> relation;
  // Eq. 31 holds.
  bool crossing = false;
  // C(t, {a, b}) from this posterior alone (eqs. 29-31; true everywhere when a or b is
  // eliminated).
  std::vector<bool> resolved_at;
  bool resolved() const;
};

struct Decisions {
  DecisionOptions options;
  std::vector<std::string> methods;
  // Method indices considered (ascending).
  std::vector<int> candidates;
  // All pairs of candidates, a < b, in lexicographic order.
  std::vector<PairDecision> pairs;
  // Per method index: the candidate that eliminates it (eq. 27 or 28), -1 if none (or not a
  // candidate). When several do, the one with the highest dominance probability.
  std::vector<int> dominated_by;
  // The candidate anytime Pareto set P^ (eq. 4 estimated): candidates not eliminated.
  std::vector<int> pareto_set;
  // Per method index: all pairs with other candidates resolved at every t (eq. 29); eliminated
  // methods are resolved, non-candidates false.
  std::vector<bool> resolved;
  // Per method index: tau_A, the largest timepoint index with an unresolved pair among the
  // surviving candidates (eq. 32); -1 when none (or not a surviving candidate).
  std::vector<int> tau;
  // Per method index: the posterior probability that it is not anytime-dominated by another
  // candidate (proportion of joint draws in which no candidate beats it at every t); 0 for
  // non-candidates.
  std::vector<double> p_pareto;

  const PairDecision* Pair(int a, int b) const;
};

// The decisions among `candidates` (method indices of `posterior`; empty = all). InvalidArgument:
// alpha outside (0.5, 1], epsilon outside [0, 0.5), a candidate out of range or repeated, or joint
// elimination on a posterior whose draws are not joint over time.
absl::StatusOr<Decisions> Decide(const RatingPosterior& posterior, const DecisionOptions& options,
                                 std::vector<int> candidates = {});

// The anytime Pareto set (eq. 4) of the posterior mean ratings: methods (all of them) that no
// other method beats at every timepoint. A point estimate, for display.
std::vector<int> PosteriorMeanParetoSet(const RatingPosterior& posterior);

}  // namespace bbo::scoring::pl

#endif  // BBO_SCORING_PLACKETT_LUCE_DECISIONS_H_
