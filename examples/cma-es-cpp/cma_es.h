#ifndef BBO_EXAMPLES_CMA_ES_CPP_CMA_ES_H_
#define BBO_EXAMPLES_CMA_ES_CPP_CMA_ES_H_

// A (mu/mu_w, lambda)-CMA-ES (Hansen, "The CMA Evolution Strategy: A Tutorial", 2016) on the
// unit cube, in ask/tell form: rank-one and rank-mu covariance updates, cumulative step-size
// adaptation, samples clipped into [0, 1]^d. Not thread-safe.

#include <random>
#include <vector>

#include "Eigen/Dense"

namespace bbo_examples {

class CmaEs {
 public:
  // `dims` >= 1, `lambda` >= 2 (population = batch size), `sigma0` in the unit cube's scale.
  CmaEs(int dims, int lambda, double sigma0, uint64_t seed);

  // `lambda` candidates in [0, 1]^d.
  std::vector<Eigen::VectorXd> Ask();
  // Updates the distribution from the candidates and their values (lower is better; +inf for
  // failed evaluations). The candidates need not be the ones Ask returned.
  void Tell(const std::vector<Eigen::VectorXd>& x, const std::vector<double>& f);

  double sigma() const { return sigma_; }
  const Eigen::VectorXd& mean() const { return mean_; }

 private:
  void Restart();

  int n_, lambda_, mu_;
  double sigma0_;
  std::vector<double> weights_;
  double mu_eff_, c_sigma_, d_sigma_, c_c_, c_1_, c_mu_, chi_n_;
  Eigen::VectorXd mean_, p_sigma_, p_c_;
  Eigen::MatrixXd C_;
  double sigma_;
  int generation_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace bbo_examples

#endif  // BBO_EXAMPLES_CMA_ES_CPP_CMA_ES_H_
