#ifndef BBO_SCORING_PLACKETT_LUCE_INTERNAL_PL_EVAL_H_
#define BBO_SCORING_PLACKETT_LUCE_INTERNAL_PL_EVAL_H_

// The Plackett-Luce log-likelihood (*) of ranking_stats.h at log-ratings mu, with its gradient and
// negative Hessian, in the flat layout the optimizers and HMC use.

#include <vector>

#include "Eigen/Dense"
#include "scoring/plackett_luce/ranking_stats.h"

namespace bbo::scoring::pl::internal {

// One timepoint's stage statistics, flattened for the inner loops.
struct FlatStats {
  std::vector<double> wins;
  std::vector<int> members;
  std::vector<int> offsets;
  std::vector<double> weights;
  // Chains: orders, per-position stage weights (0 at the last position), offsets.
  std::vector<int> chain_order;
  std::vector<double> chain_weights;
  std::vector<int> chain_offsets;
};

FlatStats Flatten(const PlStats& st);

// Adds the Dirichlet(alpha) prior of theta = softmax(mu) as pseudo-data: in any linear
// sum-to-zero parameterization its log density is alpha sum_i log theta_i = sum_i alpha mu_i -
// n alpha log sum_j e^{mu_j} + const, i.e. every method wins alpha stages of a stage over all n
// methods of weight n alpha.
void AddDirichletPrior(FlatStats& st, int n, double alpha);

// (*) at mu (n values); its gradient is added to grad (n) and, if neg_hess is set, its negative
// Hessian sum_S W_S (diag(p_S) - p_S p_S^T) is added to it (n x n). e and p: scratch, size n.
double EvalTimepoint(const FlatStats& st, const double* mu, int n, double* grad,
                     Eigen::MatrixXd* neg_hess, std::vector<double>& e, std::vector<double>& p);

// (*) at mu only (no derivatives); the same value as EvalTimepoint. e: scratch, size n.
double EvalValue(const FlatStats& st, const double* mu, int n, std::vector<double>& e);

}  // namespace bbo::scoring::pl::internal

#endif  // BBO_SCORING_PLACKETT_LUCE_INTERNAL_PL_EVAL_H_
