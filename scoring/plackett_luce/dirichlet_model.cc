#include "scoring/plackett_luce/dirichlet_model.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scoring/plackett_luce/internal/helmert.h"
#include "scoring/plackett_luce/internal/pl_eval.h"
#include "scoring/plackett_luce/internal/random.h"
#include "scoring/plackett_luce/internal/parallel.h"

namespace bbo::scoring::pl {
namespace {

// Ratings are kept in [kTiny, kHuge]: a Gamma variate of a tiny shape can underflow, and a zero
// rating would make a stage rate zero. Far below any decision-relevant theta.
constexpr double kTiny = 1e-300;
constexpr double kHuge = 1e300;
constexpr double kKappaMin = 1e-3, kKappaMax = 1e4;

double Clamp(double x) { return std::min(kHuge, std::max(kTiny, x)); }

// One timepoint's Caron-Doucet sweep over the stage statistics (see the header).
class GibbsKernel {
 public:
  explicit GibbsKernel(const PlStats& st) : n_(st.n_methods), wins_(st.wins), rate_(st.n_methods) {
    for (const StageSet& s : st.stages) {
      offsets_.push_back(static_cast<int>(members_.size()));
      members_.insert(members_.end(), s.members.begin(), s.members.end());
      weights_.push_back(s.weight);
    }
    offsets_.push_back(static_cast<int>(members_.size()));
    size_t longest = 0;
    for (const StageChain& c : st.chains) {
      chain_offsets_.push_back(static_cast<int>(chain_order_.size()));
      chain_order_.insert(chain_order_.end(), c.order.begin(), c.order.end());
      chain_weights_.insert(chain_weights_.end(), c.weights.begin(), c.weights.end());
      chain_weights_.push_back(0);  // the last position is no stage
      longest = std::max(longest, c.order.size());
    }
    chain_offsets_.push_back(static_cast<int>(chain_order_.size()));
    suffix_.resize(longest);
  }

  void InitFromPrior(internal::Rng& rng, double a, double* lambda) const {
    for (int i = 0; i < n_; ++i) lambda[i] = Clamp(rng.Gamma(a));
  }

  void Sweep(internal::Rng& rng, double a, double* lambda) {
    std::fill(rate_.begin(), rate_.end(), 1.0);
    const int stages = static_cast<int>(weights_.size());
    for (int s = 0; s < stages; ++s) {
      const int* m = members_.data() + offsets_[s];
      const int size = offsets_[s + 1] - offsets_[s];
      double total = 0;
      for (int k = 0; k < size; ++k) total += lambda[m[k]];
      const double z = rng.Gamma(weights_[s]) / total;
      for (int k = 0; k < size; ++k) rate_[m[k]] += z;
    }
    // Chains: Z_k ~ Gamma(w_k, lambda(suffix k)); the method at position j is in suffixes 0..j.
    const int chains = static_cast<int>(chain_offsets_.size()) - 1;
    for (int c = 0; c < chains; ++c) {
      const int* o = chain_order_.data() + chain_offsets_[c];
      const double* w = chain_weights_.data() + chain_offsets_[c];
      const int len = chain_offsets_[c + 1] - chain_offsets_[c];
      double sum = 0;
      for (int k = len - 1; k >= 0; --k) suffix_[k] = sum += lambda[o[k]];
      double acc = 0;
      for (int k = 0; k < len; ++k) {
        if (w[k] > 0) acc += rng.Gamma(w[k]) / suffix_[k];
        rate_[o[k]] += acc;
      }
    }
    for (int i = 0; i < n_; ++i) {
      lambda[i] = Clamp(rng.Gamma(a + wins_[i]) / rate_[i]);
    }
    Rescale(rng, a * n_, lambda);
  }

  // lambda <- lambda * Lambda / sum(lambda), Lambda ~ Gamma(total_shape, 1).
  void Rescale(internal::Rng& rng, double total_shape, double* lambda) const {
    double sum = 0;
    for (int i = 0; i < n_; ++i) sum += lambda[i];
    const double f = rng.Gamma(total_shape) / sum;
    for (int i = 0; i < n_; ++i) lambda[i] = Clamp(lambda[i] * f);
  }

 private:
  int n_;
  std::vector<double> wins_;
  std::vector<int> members_;
  std::vector<int> offsets_;
  std::vector<double> weights_;
  std::vector<int> chain_order_;
  std::vector<int> chain_offsets_;
  std::vector<double> chain_weights_;
  std::vector<double> suffix_;
  std::vector<double> rate_;
};

void WriteTheta(const double* lambda, int n, double* theta) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += lambda[i];
  for (int i = 0; i < n; ++i) theta[i] = lambda[i] / sum;
}

absl::Status CheckGibbs(const DirichletOptions& o, bool need_alpha) {
  if (need_alpha && (!(o.alpha > 0) || !std::isfinite(o.alpha))) {
    return absl::InvalidArgumentError("alpha: must be > 0 and finite");
  }
  if (!(o.max_gibbs_cost >= 0)) return absl::InvalidArgumentError("max_gibbs_cost: must be >= 0");
  if (o.chains < 1) return absl::InvalidArgumentError("chains: must be >= 1");
  if (o.warmup < 0) return absl::InvalidArgumentError("warmup: must be >= 0");
  if (o.draws_per_chain < 4) return absl::InvalidArgumentError("draws_per_chain: must be >= 4");
  if (o.thin < 1) return absl::InvalidArgumentError("thin: must be >= 1");
  if (o.threads < 0) return absl::InvalidArgumentError("threads: must be >= 0");
  return absl::OkStatus();
}

using internal::ParallelFor;

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Consecutive timepoints whose Laplace fits run on one thread, each starting at the last mode.
constexpr int kLaplaceBlock = 2;

// Estimated Gibbs cost of one sweep at one timepoint, in additions.
double SweepCost(const PlStats& st) {
  constexpr double kVariate = 8;
  double c = st.n_methods * kVariate;
  for (const StageSet& s : st.stages) c += s.members.size() + kVariate;
  for (const StageChain& ch : st.chains) {
    c += 2.0 * ch.order.size();
    for (double w : ch.weights) c += w > 0 ? kVariate : 0;
  }
  return c;
}

// The Laplace approximation of one timepoint's posterior in Helmert coordinates (see the header):
// the mode eta^ and the upper Cholesky factor U of the negative Hessian (A = U^T U).
struct LaplaceFit {
  int n = 0;
  Eigen::MatrixXd Q;
  internal::FlatStats fs;  // with the Dirichlet prior as pseudo-data
  Eigen::VectorXd eta;
  Eigen::MatrixXd U;
  // log posterior density in eta (up to a constant); scratch below.
  double LogDensity(const Eigen::VectorXd& x) {
    mu.noalias() = Q * x;
    return internal::EvalValue(fs, mu.data(), n, e);
  }
  Eigen::VectorXd mu;
  std::vector<double> grad, e, p;
};

// `start` (optional): where Newton's method starts (eta, n - 1 values), e.g. the previous
// timepoint's mode; zero (theta uniform) otherwise.
absl::StatusOr<LaplaceFit> FitLaplace(const PlStats& st, double alpha,
                                      const Eigen::VectorXd* start = nullptr) {
  LaplaceFit fit;
  const int n = st.n_methods, m = n - 1;
  fit.n = n;
  fit.Q = internal::Helmert(n);
  fit.fs = internal::Flatten(st);
  internal::AddDirichletPrior(fit.fs, n, alpha);
  fit.mu.resize(n);
  fit.grad.resize(n);
  fit.e.resize(n);
  fit.p.resize(n);
  Eigen::MatrixXd nh(n, n);
  auto eval = [&](const Eigen::VectorXd& eta, Eigen::VectorXd* g, Eigen::MatrixXd* A) {
    fit.mu = fit.Q * eta;
    std::fill(fit.grad.begin(), fit.grad.end(), 0.0);
    if (A != nullptr) nh.setZero();
    const double f = internal::EvalTimepoint(fit.fs, fit.mu.data(), n, fit.grad.data(),
                                             A ? &nh : nullptr, fit.e, fit.p);
    if (g != nullptr) *g = fit.Q.transpose() * Eigen::Map<Eigen::VectorXd>(fit.grad.data(), n);
    if (A != nullptr) *A = fit.Q.transpose() * nh * fit.Q;
    return f;
  };
  Eigen::VectorXd eta = start != nullptr && start->size() == m ? *start : Eigen::VectorXd::Zero(m);
  // Newton's method with a backtracking (Armijo) line search. The full step is evaluated with its
  // derivatives, which the next iteration (or, at the mode, the Laplace scale) then uses: one
  // evaluation per iteration when the full step is taken, as it is near the mode.
  Eigen::VectorXd g, g_new;
  Eigen::MatrixXd A, A_new;
  Eigen::LLT<Eigen::MatrixXd> llt;
  double f = eval(eta, &g, &A);
  bool converged = false;
  for (int iter = 0; iter < 200 && !converged; ++iter) {
    llt.compute(A);
    if (llt.info() != Eigen::Success) {
      return absl::InternalError("laplace: Cholesky of the negative Hessian failed");
    }
    const Eigen::VectorXd delta = llt.solve(g);
    const double slope = g.dot(delta);
    // The Newton decrement g' A^-1 g is twice the log density still to gain: below 1e-12 the
    // mode is found to far better than the posterior's scale, and A is its Hessian.
    if (slope < 1e-12) {
      converged = true;
      break;
    }
    double step = 1, f_new = eval(eta + delta, &g_new, &A_new);
    if (!(f_new >= f + 1e-4 * slope)) {
      for (int h = 0; h < 50 && !(f_new >= f + 1e-4 * step * slope); ++h) {
        step /= 2;
        f_new = eval(eta + step * delta, nullptr, nullptr);
      }
      f_new = eval(eta + step * delta, &g_new, &A_new);
    }
    eta += step * delta;
    converged = (step * delta).lpNorm<Eigen::Infinity>() < 1e-10 || std::abs(f_new - f) < 1e-13;
    f = f_new;
    g.swap(g_new);
    A.swap(A_new);
  }
  if (!converged) return absl::InternalError("laplace: Newton did not converge in 200 iterations");
  llt.compute(A);
  if (llt.info() != Eigen::Success) return absl::InternalError("laplace: Cholesky at the mode");
  fit.eta = eta;
  fit.U = llt.matrixU();
  return fit;
}

template <typename Vector>
void WriteSoftmax(const Vector& mu, double* th) {
  const double mx = mu.maxCoeff();
  double sum = 0;
  for (int i = 0; i < mu.size(); ++i) sum += th[i] = std::exp(mu[i] - mx);
  for (int i = 0; i < mu.size(); ++i) th[i] /= sum;
}

// The Laplace approximation at one timepoint (see the header): draws into p.theta. `start`
// (optional): where to look for the mode; set to the mode found.
absl::Status LaplaceTimepoint(const PlStats& st, int t, const DirichletOptions& o,
                              RatingPosterior& p, Eigen::VectorXd* start = nullptr) {
  const int n = p.n(), m = n - 1, S = p.S();
  double* out = p.theta.data() + static_cast<size_t>(t) * S * n;
  if (n == 1) {
    std::fill(out, out + S, 1.0);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(LaplaceFit fit, FitLaplace(st, o.alpha, start));
  if (start != nullptr) *start = fit.eta;
  // mu = Q (eta^ + U^-1 z) for every draw at once: W = Q U^-1 once, then one matrix product.
  const Eigen::MatrixXd W =
      fit.U.transpose().triangularView<Eigen::Lower>().solve(fit.Q.transpose()).transpose();
  const Eigen::VectorXd mu0 = fit.Q * fit.eta;
  Eigen::MatrixXd Z(m, S);
  for (int c = 0; c < o.chains; ++c) {
    internal::Rng rng(o.seed, t, c);
    for (int k = 0; k < o.draws_per_chain; ++k) {
      for (int j = 0; j < m; ++j) Z(j, c * o.draws_per_chain + k) = rng.Normal();
    }
  }
  Eigen::MatrixXd MU = W * Z;
  MU.colwise() += mu0;
  for (int s = 0; s < S; ++s) WriteSoftmax(MU.col(s), out + static_cast<size_t>(s) * n);
  return absl::OkStatus();
}

// Every timepoint's Laplace approximation, in fixed blocks of kLaplaceBlock timepoints, each block
// on one thread: a timepoint's mode search starts from the previous one's mode (the rankings of
// neighbouring timepoints are alike), and the blocks do not depend on the number of threads.
absl::Status LaplaceTimepoints(const std::vector<PlStats>& stats, const DirichletOptions& o,
                               RatingPosterior& p) {
  const int T = static_cast<int>(stats.size());
  std::vector<absl::Status> status(T);
  const int blocks = (T + kLaplaceBlock - 1) / kLaplaceBlock;
  ParallelFor(blocks, o.threads, [&](int block) {
    Eigen::VectorXd mode;
    for (int t = block * kLaplaceBlock; t < std::min(T, (block + 1) * kLaplaceBlock); ++t) {
      status[t] = LaplaceTimepoint(stats[t], t, o, p, &mode);
    }
  });
  for (const absl::Status& s : status) RETURN_IF_ERROR(s);
  return absl::OkStatus();
}

// Independence Metropolis-Hastings on theta with a multivariate-t (nu = 7) proposal centred at the
// Laplace mode with its scale: exact (it leaves the posterior invariant) and, where the posterior
// is near-Gaussian, close to an independent draw. lambda keeps its total (theta and the total are
// independent a posteriori). Returns whether the move was accepted.
class IndependenceStep {
 public:
  static constexpr double kNu = 7;

  explicit IndependenceStep(LaplaceFit fit)
      : fit_(std::move(fit)),
        n_(fit_.n),
        m_(fit_.n - 1),
        mu_(n_),
        x_(m_),
        z_(m_),
        prop_(m_),
        diff_(m_) {}

  bool Step(internal::Rng& rng, double* lambda) {
    // Current state in eta: mu = log theta centred (sum zero), eta = Q^T mu.
    double mean = 0, total = 0;
    for (int i = 0; i < n_; ++i) {
      mu_[i] = std::log(lambda[i]);
      mean += mu_[i];
      total += lambda[i];
    }
    mu_.array() -= mean / n_;
    x_.noalias() = fit_.Q.transpose() * mu_;
    const double log_w_cur = fit_.LogDensity(x_) - LogProposal(x_);
    // Proposal: eta^ + U^-1 z, z ~ t_nu.
    for (int j = 0; j < m_; ++j) z_[j] = rng.Normal();
    z_ *= 1 / std::sqrt(2 * rng.Gamma(kNu / 2) / kNu);
    fit_.U.triangularView<Eigen::Upper>().solveInPlace(z_);
    prop_ = fit_.eta + z_;
    const double log_w_prop = fit_.LogDensity(prop_) - LogProposal(prop_);
    if (!(std::log(rng.Uniform01()) < log_w_prop - log_w_cur)) return false;
    // LogDensity(prop_) left Q prop_ in fit_.mu.
    const double mx = fit_.mu.maxCoeff();
    double sum = 0;
    for (int i = 0; i < n_; ++i) sum += lambda[i] = std::exp(fit_.mu[i] - mx);
    for (int i = 0; i < n_; ++i) lambda[i] = Clamp(lambda[i] / sum * total);
    return true;
  }

 private:
  // log of the t density up to a constant: -(nu + m) / 2 log(1 + |U (x - eta^)|^2 / nu).
  double LogProposal(const Eigen::VectorXd& x) {
    diff_ = x - fit_.eta;
    diff_ = fit_.U.triangularView<Eigen::Upper>() * diff_;
    return -0.5 * (kNu + m_) * std::log1p(diff_.squaredNorm() / kNu);
  }

  LaplaceFit fit_;
  int n_, m_;
  Eigen::VectorXd mu_, x_, z_, prop_, diff_;
};

}  // namespace

absl::StatusOr<RatingPosterior> FitIndependentDirichlet(const std::vector<PlStats>& stats,
                                                        const std::vector<std::string>& methods,
                                                        const TimeGrid& grid,
                                                        const DirichletOptions& o) {
  RETURN_IF_ERROR(CheckGibbs(o, /*need_alpha=*/true));
  RETURN_IF_ERROR(ValidateGrid(grid));
  if (methods.empty()) return absl::InvalidArgumentError("methods: empty");
  if (static_cast<int>(stats.size()) != grid.size()) {
    return absl::InvalidArgumentError("stats: one per timepoint of the grid");
  }
  const auto start = std::chrono::steady_clock::now();
  RatingPosterior p;
  p.model = "independent_dirichlet";
  p.methods = methods;
  p.grid = grid;
  p.chains = o.chains;
  p.draws_per_chain = o.draws_per_chain;
  const int n = p.n(), T = p.T(), S = p.S();
  for (const PlStats& st : stats) {
    if (st.n_methods != n) return absl::InvalidArgumentError("stats: n_methods != methods.size()");
  }
  p.theta.assign(static_cast<size_t>(T) * S * n, 0);
  double cost = 0;
  for (const PlStats& st : stats) {
    cost += SweepCost(st) * o.chains * (o.warmup + static_cast<double>(o.draws_per_chain) * o.thin);
  }
  const bool laplace = o.inference == DirichletInference::kLaplace ||
                       (o.inference == DirichletInference::kAuto && cost > o.max_gibbs_cost);
  p.inference = laplace ? "laplace" : "gibbs";
  if (laplace) {
    RETURN_IF_ERROR(LaplaceTimepoints(stats, o, p));
    p.diagnostics.seconds = Seconds(start);
    // Laplace draws are independent by construction: R-hat and ESS diagnose MCMC, and say
    // nothing about the approximation, so they are not computed (NaN, null in JSON).
    p.diagnostics.max_rhat = NAN;
    p.diagnostics.min_ess_bulk = NAN;
    return p;
  }
  std::vector<int> accepted(T, 0);
  ParallelFor(T, o.threads, [&](int t) {
    GibbsKernel kernel(stats[t]);
    std::unique_ptr<IndependenceStep> mh;
    if (o.independence_mh && n > 1) {
      absl::StatusOr<LaplaceFit> fit = FitLaplace(stats[t], o.alpha);
      // Without a Laplace fit the Gibbs sweeps alone are still exact.
      if (fit.ok()) mh = std::make_unique<IndependenceStep>(*std::move(fit));
    }
    std::vector<double> lambda(n);
    auto iterate = [&](internal::Rng& rng) {
      kernel.Sweep(rng, o.alpha, lambda.data());
      return mh != nullptr && mh->Step(rng, lambda.data());
    };
    for (int c = 0; c < o.chains; ++c) {
      internal::Rng rng(o.seed, t, c);
      kernel.InitFromPrior(rng, o.alpha, lambda.data());
      for (int w = 0; w < o.warmup; ++w) iterate(rng);
      for (int k = 0; k < o.draws_per_chain; ++k) {
        for (int j = 0; j < o.thin; ++j) accepted[t] += iterate(rng);
        const int s = c * o.draws_per_chain + k;
        WriteTheta(lambda.data(), n, p.theta.data() + (static_cast<size_t>(t) * S + s) * n);
      }
    }
  });
  if (o.independence_mh && n > 1) {
    double acc = 0;
    for (int a : accepted) acc += a;
    p.diagnostics.acceptance_rate =
        acc / (static_cast<double>(T) * o.chains * o.draws_per_chain * o.thin);
  }
  p.diagnostics.seconds = Seconds(start);
  ComputeDiagnostics(p, o.threads);
  return p;
}

absl::StatusOr<RatingPosterior> FitIndependentDirichlet(const RankingSet& rankings,
                                                        const DirichletOptions& o) {
  RETURN_IF_ERROR(CheckGibbs(o, /*need_alpha=*/true));
  ASSIGN_OR_RETURN(std::vector<PlStats> stats, ComputePlStats(rankings, o.stats));
  return FitIndependentDirichlet(stats, rankings.methods, rankings.grid, o);
}

namespace {

// log p(log kappa = u | theta) up to a constant: Exponential(rate) prior, Jacobian e^u, and
// prod_t Dirichlet(theta(t); kappa / n) with sum_log_theta = sum_t sum_i log theta_i(t).
double LogKappaTarget(double u, double rate, int n, int T, double sum_log_theta) {
  const double kappa = std::exp(u);
  if (!(kappa >= kKappaMin && kappa <= kKappaMax)) return -INFINITY;
  return -rate * kappa + u + T * (std::lgamma(kappa) - n * std::lgamma(kappa / n)) +
         (kappa / n - 1) * sum_log_theta;
}

// One slice-sampling update of u (Neal 2003, "Slice sampling", Fig. 3 stepping out, Fig. 5
// shrinkage).
template <typename F>
double SliceStep(internal::Rng& rng, double u, F&& logf, double width = 1.0, int max_steps = 32) {
  const double level = logf(u) + std::log(rng.Uniform01());
  double lo = u - width * rng.Uniform01(), hi = lo + width;
  int j = static_cast<int>(max_steps * rng.Uniform01()), k = max_steps - 1 - j;
  while (j-- > 0 && logf(lo) > level) lo -= width;
  while (k-- > 0 && logf(hi) > level) hi += width;
  while (true) {
    const double x = lo + (hi - lo) * rng.Uniform01();
    if (logf(x) > level) return x;
    (x < u ? lo : hi) = x;
  }
}

}  // namespace

absl::StatusOr<RatingPosterior> FitHierarchicalDirichlet(const RankingSet& rankings,
                                                         const HierarchicalOptions& ho) {
  const DirichletOptions& o = ho.gibbs;
  RETURN_IF_ERROR(CheckGibbs(o, /*need_alpha=*/false));
  if (ho.kappa_rate < 0 || !std::isfinite(ho.kappa_rate)) {
    return absl::InvalidArgumentError("kappa_rate: must be >= 0 and finite");
  }
  if (rankings.methods.empty()) return absl::InvalidArgumentError("rankings.methods: empty");
  ASSIGN_OR_RETURN(std::vector<PlStats> stats, ComputePlStats(rankings, o.stats));
  const auto start = std::chrono::steady_clock::now();
  RatingPosterior p;
  p.model = "hierarchical_dirichlet";
  p.inference = "gibbs";
  p.methods = rankings.methods;
  p.grid = rankings.grid;
  p.chains = o.chains;
  p.draws_per_chain = o.draws_per_chain;
  p.hyper_name = "kappa";
  const int n = p.n(), T = p.T(), S = p.S();
  const double rate = ho.kappa_rate > 0 ? ho.kappa_rate : 1.0 / n;
  p.theta.assign(static_cast<size_t>(T) * S * n, 0);
  p.hyper.assign(S, 0);
  ParallelFor(o.chains, o.threads, [&](int c) {
    std::vector<GibbsKernel> kernels;
    for (const PlStats& st : stats) kernels.emplace_back(st);
    internal::Rng rng(o.seed, 0x6869657261726368ULL, c);
    double kappa = std::clamp(-std::log(rng.Uniform01()) / rate, kKappaMin, kKappaMax);
    std::vector<double> lambda(static_cast<size_t>(T) * n);
    for (int t = 0; t < T; ++t) kernels[t].InitFromPrior(rng, kappa / n, &lambda[t * n]);
    auto sweep = [&] {
      double sum_log_theta = 0;
      for (int t = 0; t < T; ++t) {
        double* l = &lambda[t * n];
        kernels[t].Sweep(rng, kappa / n, l);
        double sum = 0;
        for (int i = 0; i < n; ++i) sum += l[i];
        for (int i = 0; i < n; ++i) sum_log_theta += std::log(l[i] / sum);
      }
      if (n > 1) {
        auto logf = [&](double u) { return LogKappaTarget(u, rate, n, T, sum_log_theta); };
        kappa = std::exp(SliceStep(rng, std::log(kappa), logf));
      } else {
        kappa = std::clamp(-std::log(rng.Uniform01()) / rate, kKappaMin, kKappaMax);
      }
      for (int t = 0; t < T; ++t) kernels[t].Rescale(rng, kappa, &lambda[t * n]);
    };
    for (int w = 0; w < o.warmup; ++w) sweep();
    for (int k = 0; k < o.draws_per_chain; ++k) {
      for (int j = 0; j < o.thin; ++j) sweep();
      const int s = c * o.draws_per_chain + k;
      p.hyper[s] = kappa;
      for (int t = 0; t < T; ++t) {
        WriteTheta(&lambda[t * n], n, p.theta.data() + (static_cast<size_t>(t) * S + s) * n);
      }
    }
  });
  p.diagnostics.seconds = Seconds(start);
  ComputeDiagnostics(p, o.threads);
  return p;
}

}  // namespace bbo::scoring::pl
