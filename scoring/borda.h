#ifndef BBO_SCORING_BORDA_H_
#define BBO_SCORING_BORDA_H_

// Nonparametric ranking of optimizers (Dewancker et al. (2016) §2.2): on each problem, pairwise
// two-sided Mann-Whitney tests on Best Found give a partial ranking by number of losses; methods
// tied on that are separated by the same test on the Area Under Curve of the best-seen trace;
// remaining ties stay. Each problem's ranking is a ballot; ballots are aggregated with Borda
// counts, the number of first places and the number of top-three places (ties credited to everyone
// tied). Lower values are better throughout (minimization). Pure functions; thread-safe.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

// One method's trials on one problem.
struct MethodTrials {
  std::string method;
  // Best Found: the final best-so-far value of each trial.
  std::vector<double> best_found;
  // Area Under Curve of each trial's best-seen trace (sum over batches of S_t).
  std::vector<double> auc;
};

struct Ballot {
  // Methods in ballot order (best first).
  std::vector<std::string> methods;
  // 1-based position: 1 + the number of methods strictly ahead (ties share a position).
  std::vector<int> position;
  // Borda points: the number of methods strictly behind.
  std::vector<int> borda;
};

// Ranks the methods of one problem; `alpha` is the per-test significance (see PairwiseAlpha).
// InvalidArgument: fewer than one method, or a method without trials.
absl::StatusOr<Ballot> RankProblem(const std::vector<MethodTrials>& methods, double alpha);

struct BordaRow {
  std::string method;
  int borda = 0;      // sum of Borda points over ballots
  int firsts = 0;     // ballots where the method has position 1
  int top_three = 0;  // ballots where the method has position <= 3
};

// Aggregates ballots; rows sorted by Borda, then firsts, then top three (descending), then name.
std::vector<BordaRow> AggregateBallots(const std::vector<Ballot>& ballots);

struct ProblemBallot {
  std::string problem;
  Ballot ballot;
};

struct NonparametricRanking {
  double familywise_alpha = 0.05;
  double pairwise_alpha = 0;
  std::vector<ProblemBallot> ballots;
  std::vector<BordaRow> rows;
};

// Ranks every method of `input` on every problem (Best Found = S at the last batch, AUC = sum of
// S over batches) with per-test significance PairwiseAlpha(familywise_alpha, k), k the number of
// methods, and aggregates the ballots.
absl::StatusOr<NonparametricRanking> RankMethods(const ScoringInput& input,
                                                 double familywise_alpha);

// The AUC of a best-seen trace: the sum of its values (a rectangle rule with unit batches).
double TraceAuc(const std::vector<double>& best_so_far);

}  // namespace bbo::scoring

#endif  // BBO_SCORING_BORDA_H_
