#include "examples/cma-es-cpp/cma_es.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bbo_examples {

CmaEs::CmaEs(int dims, int lambda, double sigma0, uint64_t seed)
    : n_(std::max(1, dims)), lambda_(std::max(2, lambda)), sigma0_(sigma0), rng_(seed) {
  mu_ = lambda_ / 2;
  // Tutorial defaults (Hansen 2016, Table 1).
  for (int i = 0; i < mu_; ++i) weights_.push_back(std::log(mu_ + 0.5) - std::log(i + 1.0));
  double sum = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  for (double& w : weights_) w /= sum;
  double sum_sq = 0;
  for (double w : weights_) sum_sq += w * w;
  mu_eff_ = 1.0 / sum_sq;
  const double n = n_;
  c_sigma_ = (mu_eff_ + 2) / (n + mu_eff_ + 5);
  d_sigma_ = 1 + 2 * std::max(0.0, std::sqrt((mu_eff_ - 1) / (n + 1)) - 1) + c_sigma_;
  c_c_ = (4 + mu_eff_ / n) / (n + 4 + 2 * mu_eff_ / n);
  c_1_ = 2 / ((n + 1.3) * (n + 1.3) + mu_eff_);
  c_mu_ = std::min(1 - c_1_, 2 * (mu_eff_ - 2 + 1 / mu_eff_) / ((n + 2) * (n + 2) + mu_eff_));
  chi_n_ = std::sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n));
  mean_ = Eigen::VectorXd::Constant(n_, 0.5);
  Restart();
}

void CmaEs::Restart() {
  p_sigma_ = Eigen::VectorXd::Zero(n_);
  p_c_ = Eigen::VectorXd::Zero(n_);
  C_ = Eigen::MatrixXd::Identity(n_, n_);
  sigma_ = sigma0_;
}

std::vector<Eigen::VectorXd> CmaEs::Ask() {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(C_);
  Eigen::VectorXd d = eig.eigenvalues().cwiseMax(1e-20).cwiseSqrt();
  std::normal_distribution<double> normal(0, 1);
  std::vector<Eigen::VectorXd> out;
  for (int k = 0; k < lambda_; ++k) {
    Eigen::VectorXd z(n_);
    for (int i = 0; i < n_; ++i) z[i] = normal(rng_);
    Eigen::VectorXd x = mean_ + sigma_ * (eig.eigenvectors() * d.asDiagonal() * z);
    out.push_back(x.cwiseMax(0.0).cwiseMin(1.0));
  }
  return out;
}

void CmaEs::Tell(const std::vector<Eigen::VectorXd>& x, const std::vector<double>& f) {
  const int m = static_cast<int>(std::min(x.size(), f.size()));
  if (m < mu_) return;
  std::vector<int> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    // NaN and +inf rank last.
    double fa = std::isnan(f[a]) ? HUGE_VAL : f[a], fb = std::isnan(f[b]) ? HUGE_VAL : f[b];
    return fa < fb;
  });
  Eigen::VectorXd old_mean = mean_;
  Eigen::VectorXd y_w = Eigen::VectorXd::Zero(n_);
  std::vector<Eigen::VectorXd> y(mu_);
  for (int i = 0; i < mu_; ++i) {
    y[i] = (x[order[i]] - old_mean) / sigma_;
    y_w += weights_[i] * y[i];
  }
  mean_ = old_mean + sigma_ * y_w;

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(C_);
  Eigen::VectorXd inv_d = eig.eigenvalues().cwiseMax(1e-20).cwiseSqrt().cwiseInverse();
  Eigen::MatrixXd C_inv_sqrt = eig.eigenvectors() * inv_d.asDiagonal() *
                               eig.eigenvectors().transpose();
  p_sigma_ = (1 - c_sigma_) * p_sigma_ +
             std::sqrt(c_sigma_ * (2 - c_sigma_) * mu_eff_) * (C_inv_sqrt * y_w);
  ++generation_;
  const double ps_norm = p_sigma_.norm();
  const bool h_sigma =
      ps_norm / std::sqrt(1 - std::pow(1 - c_sigma_, 2.0 * generation_)) <
      (1.4 + 2 / (n_ + 1.0)) * chi_n_;
  p_c_ = (1 - c_c_) * p_c_ +
         (h_sigma ? std::sqrt(c_c_ * (2 - c_c_) * mu_eff_) : 0.0) * y_w;
  Eigen::MatrixXd rank_mu = Eigen::MatrixXd::Zero(n_, n_);
  for (int i = 0; i < mu_; ++i) rank_mu += weights_[i] * y[i] * y[i].transpose();
  const double delta_h = h_sigma ? 0.0 : c_c_ * (2 - c_c_);
  C_ = (1 - c_1_ - c_mu_) * C_ + c_1_ * (p_c_ * p_c_.transpose() + delta_h * C_) +
       c_mu_ * rank_mu;
  sigma_ *= std::exp((c_sigma_ / d_sigma_) * (ps_norm / chi_n_ - 1));
  sigma_ = std::min(sigma_, 1.0);
  // A collapsed or degenerate distribution restarts around the current mean.
  if (!(sigma_ > 1e-10) || !C_.allFinite()) Restart();
}

}  // namespace bbo_examples
