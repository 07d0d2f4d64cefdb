#include "scoring/plackett_luce/random_walk_model.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "Eigen/Dense"
#include "Eigen/Sparse"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scoring/plackett_luce/internal/helmert.h"
#include "scoring/plackett_luce/internal/pl_eval.h"
#include "scoring/plackett_luce/internal/random.h"
#include "scoring/plackett_luce/internal/parallel.h"

namespace bbo::scoring::pl {
namespace {

using internal::EvalTimepoint;
using internal::FlatStats;
using internal::Flatten;

using Eigen::MatrixXd;
using Eigen::VectorXd;
using SpMat = Eigen::SparseMatrix<double>;

// The model at a fixed sigma: log joint f(eta) = sum_t L_t(Q eta_t) - 1/2 eta^T P eta, with
// eta[t * m + q], m = n - 1, and P = R (x) I_m, R the random walk's tridiagonal precision.
class RandomWalkPosterior {
 public:
  RandomWalkPosterior(std::vector<FlatStats> stats, int n, std::vector<double> delta, double s0)
      : stats_(std::move(stats)),
        n_(n),
        m_(n - 1),
        T_(static_cast<int>(stats_.size())),
        delta_(std::move(delta)),
        s0_(s0),
        Q_(internal::Helmert(n)) {}

  int dim() const { return T_ * m_; }
  int T() const { return T_; }

  void SetSigma(double sigma) {
    sigma_ = sigma;
    diag_.assign(T_, 0);
    off_.assign(std::max(0, T_ - 1), 0);
    diag_[0] = 1 / (s0_ * s0_);
    log_det_R_ = -2 * std::log(s0_);
    for (int i = 0; i + 1 < T_; ++i) {
      const double prec = 1 / (sigma * sigma * delta_[i]);
      diag_[i] += prec;
      diag_[i + 1] += prec;
      off_[i] = -prec;
      log_det_R_ -= std::log(sigma * sigma * delta_[i]);
    }
  }

  // f(eta) and its gradient (if grad != nullptr); the negative Hessian's likelihood blocks
  // Q^T (-H_t) Q into `blocks` (if set).
  double Eval(const VectorXd& eta, VectorXd* grad, std::vector<MatrixXd>* blocks) const {
    std::vector<double> e(n_), p(n_), mu(n_), g(n_);
    MatrixXd nh(n_, n_);
    double f = 0;
    if (grad != nullptr) grad->setZero(dim());
    for (int t = 0; t < T_; ++t) {
      Eigen::Map<VectorXd> mu_v(mu.data(), n_);
      mu_v = Q_ * eta.segment(t * m_, m_);
      std::fill(g.begin(), g.end(), 0.0);
      if (blocks != nullptr) nh.setZero();
      f += EvalTimepoint(stats_[t], mu.data(), n_, g.data(), blocks ? &nh : nullptr, e, p);
      if (grad != nullptr)
        grad->segment(t * m_, m_) += Q_.transpose() * Eigen::Map<VectorXd>(g.data(), n_);
      if (blocks != nullptr) (*blocks)[t] = Q_.transpose() * nh * Q_;
    }
    // Prior: -1/2 sum_q eta_q^T R eta_q.
    for (int t = 0; t < T_; ++t) {
      for (int q = 0; q < m_; ++q) {
        double r = diag_[t] * eta[t * m_ + q];
        if (t > 0) r += off_[t - 1] * eta[(t - 1) * m_ + q];
        if (t + 1 < T_) r += off_[t] * eta[(t + 1) * m_ + q];
        f -= 0.5 * eta[t * m_ + q] * r;
        if (grad != nullptr) (*grad)[t * m_ + q] -= r;
      }
    }
    return f;
  }

  // A = P + blockdiag(blocks), in a fixed sparsity pattern.
  SpMat Precision(const std::vector<MatrixXd>& blocks) const {
    std::vector<Eigen::Triplet<double>> trip;
    trip.reserve(static_cast<size_t>(T_) * m_ * (m_ + 2));
    for (int t = 0; t < T_; ++t) {
      for (int a = 0; a < m_; ++a) {
        for (int b = 0; b < m_; ++b) {
          trip.emplace_back(t * m_ + a, t * m_ + b, blocks[t](a, b) + (a == b ? diag_[t] : 0.0));
        }
        if (t + 1 < T_) {
          trip.emplace_back(t * m_ + a, (t + 1) * m_ + a, off_[t]);
          trip.emplace_back((t + 1) * m_ + a, t * m_ + a, off_[t]);
        }
      }
    }
    SpMat A(dim(), dim());
    A.setFromTriplets(trip.begin(), trip.end());
    return A;
  }

  double log_det_prior() const { return m_ * log_det_R_; }
  double sigma() const { return sigma_; }

  // theta(t) = softmax(Q eta_t) into out[t * n + i].
  void Theta(const VectorXd& eta, double* out, int t) const {
    VectorXd mu = Q_ * eta.segment(t * m_, m_);
    const double mx = mu.maxCoeff();
    double s = 0;
    for (int i = 0; i < n_; ++i) s += out[i] = std::exp(mu[i] - mx);
    for (int i = 0; i < n_; ++i) out[i] /= s;
  }

 private:
  std::vector<FlatStats> stats_;
  int n_, m_, T_;
  std::vector<double> delta_;
  double s0_;
  MatrixXd Q_;
  double sigma_ = 1;
  std::vector<double> diag_, off_;
  double log_det_R_ = 0;
};

struct Mode {
  VectorXd eta;
  double f = 0;
  double log_evidence = 0;
  std::unique_ptr<Eigen::SimplicialLLT<SpMat>> llt;
};

// Newton's method with backtracking from `start`; the Cholesky factor of A at the mode.
absl::StatusOr<Mode> FindMode(const RandomWalkPosterior& post, VectorXd start, double tol) {
  Mode mode;
  mode.eta = std::move(start);
  std::vector<MatrixXd> blocks(post.T());
  VectorXd grad;
  mode.llt = std::make_unique<Eigen::SimplicialLLT<SpMat>>();
  bool analyzed = false;
  for (int iter = 0; iter < 200; ++iter) {
    mode.f = post.Eval(mode.eta, &grad, &blocks);
    SpMat A = post.Precision(blocks);
    if (!analyzed) {
      mode.llt->analyzePattern(A);
      analyzed = true;
    }
    mode.llt->factorize(A);
    if (mode.llt->info() != Eigen::Success) {
      return absl::InternalError("random walk: Cholesky of the negative Hessian failed");
    }
    const VectorXd delta = mode.llt->solve(grad);
    const double slope = grad.dot(delta);
    double step = 1;
    double f_new = post.Eval(mode.eta + delta, nullptr, nullptr);
    for (int h = 0; h < 50 && !(f_new >= mode.f + 1e-4 * step * slope); ++h) {
      step /= 2;
      f_new = post.Eval(mode.eta + step * delta, nullptr, nullptr);
    }
    mode.eta += step * delta;
    if ((step * delta).lpNorm<Eigen::Infinity>() < tol || std::abs(f_new - mode.f) < 1e-13) {
      mode.f = post.Eval(mode.eta, &grad, &blocks);
      mode.llt->factorize(post.Precision(blocks));
      if (mode.llt->info() != Eigen::Success) {
        return absl::InternalError("random walk: Cholesky at the mode failed");
      }
      double log_det_A = 0;
      const auto& L = mode.llt->matrixL();
      SpMat Lm = L;
      for (int k = 0; k < Lm.outerSize(); ++k) log_det_A += 2 * std::log(Lm.coeff(k, k));
      mode.log_evidence = mode.f + 0.5 * post.log_det_prior() - 0.5 * log_det_A;
      return mode;
    }
  }
  return absl::InternalError("random walk: Newton did not converge in 200 iterations");
}

absl::Status Check(const RandomWalkOptions& o) {
  auto positive = [](double v) { return v > 0 && std::isfinite(v); };
  if (!positive(o.initial_scale)) return absl::InvalidArgumentError("initial_scale: must be > 0");
  if (!positive(o.sigma_prior_median)) {
    return absl::InvalidArgumentError("sigma_prior_median: must be > 0");
  }
  if (!positive(o.sigma_prior_log_sd)) {
    return absl::InvalidArgumentError("sigma_prior_log_sd: must be > 0");
  }
  if (o.sigma < 0 || !std::isfinite(o.sigma)) {
    return absl::InvalidArgumentError("sigma: must be >= 0 (0 = estimate)");
  }
  if (o.chains < 1) return absl::InvalidArgumentError("chains: must be >= 1");
  if (o.warmup < 0) return absl::InvalidArgumentError("warmup: must be >= 0");
  if (o.draws_per_chain < 4) return absl::InvalidArgumentError("draws_per_chain: must be >= 4");
  if (!(o.target_accept > 0 && o.target_accept < 1)) {
    return absl::InvalidArgumentError("target_accept: must be in (0, 1)");
  }
  if (!positive(o.trajectory_length)) {
    return absl::InvalidArgumentError("trajectory_length: must be > 0");
  }
  if (o.threads < 0) return absl::InvalidArgumentError("threads: must be >= 0");
  if (!positive(o.newton_tolerance)) {
    return absl::InvalidArgumentError("newton_tolerance: must be > 0");
  }
  return absl::OkStatus();
}

// Grid steps on the grid's own axis, rescaled to sum to 1.
std::vector<double> Deltas(const TimeGrid& grid) {
  std::vector<double> d;
  for (int i = 0; i + 1 < grid.size(); ++i) {
    const double a = grid.points[i], b = grid.points[i + 1];
    d.push_back(grid.spacing == GridSpacing::kLog ? std::log(b) - std::log(a) : b - a);
  }
  double total = 0;
  for (double v : d) total += v;
  for (double& v : d) v /= total;
  return d;
}

using internal::ParallelFor;

// The log evidence of sigma = exp(u) plus its log-normal prior, remembering the best u scored
// so far; each mode search starts from the previous one's mode.
class LogSigmaScore {
 public:
  LogSigmaScore(RandomWalkPosterior& post, const RandomWalkOptions& o)
      : post_(post),
        o_(o),
        c_(std::log(o.sigma_prior_median)),
        sd_(o.sigma_prior_log_sd),
        warm_(VectorXd::Zero(post.dim())),
        best_u_(c_) {}

  absl::StatusOr<double> operator()(double u) {
    post_.SetSigma(std::exp(u));
    ASSIGN_OR_RETURN(Mode m, FindMode(post_, warm_, o_.newton_tolerance));
    warm_ = m.eta;
    const double v = m.log_evidence - 0.5 * (u - c_) * (u - c_) / (sd_ * sd_);
    if (v > best_) {
      best_ = v;
      best_u_ = u;
    }
    return v;
  }

  double best_u() const { return best_u_; }
  const VectorXd& warm() const { return warm_; }

 private:
  RandomWalkPosterior& post_;
  const RandomWalkOptions& o_;
  const double c_, sd_;
  VectorXd warm_;
  double best_u_;
  double best_ = -INFINITY;
};

// Maximizes `score` over log sigma: a grid of 13 points over the prior's +-3 sd, then golden
// section on [best - step, best + step] (the objective is smooth in log sigma).
absl::Status MaximizeLogSigma(const RandomWalkOptions& o, LogSigmaScore& score) {
  const double c = std::log(o.sigma_prior_median), sd = o.sigma_prior_log_sd;
  constexpr int kGrid = 13;
  for (int k = 0; k < kGrid; ++k) {
    RETURN_IF_ERROR(score(c - 3 * sd + 6 * sd * k / (kGrid - 1)).status());
  }
  const double step = 6 * sd / (kGrid - 1);
  double a = score.best_u() - step, b = score.best_u() + step;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  ASSIGN_OR_RETURN(double f1, score(x1));
  ASSIGN_OR_RETURN(double f2, score(x2));
  for (int it = 0; it < 12; ++it) {
    if (f1 > f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      ASSIGN_OR_RETURN(f1, score(x1));
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      ASSIGN_OR_RETURN(f2, score(x2));
    }
  }
  return absl::OkStatus();
}

// Sets sigma (the given one, the prior median when T = 1, else the one maximizing the log
// evidence plus prior) and returns the mode of eta | sigma.
absl::StatusOr<Mode> FitSigma(RandomWalkPosterior& post, const RandomWalkOptions& o, int T) {
  if (o.sigma > 0 || T == 1) {
    post.SetSigma(o.sigma > 0 ? o.sigma : o.sigma_prior_median);
    return FindMode(post, VectorXd::Zero(post.dim()), o.newton_tolerance);
  }
  LogSigmaScore score(post, o);
  RETURN_IF_ERROR(MaximizeLogSigma(o, score));
  post.SetSigma(std::exp(score.best_u()));
  return FindMode(post, score.warm(), o.newton_tolerance);
}

// HMC step-size adaptation by dual averaging (Hoffman & Gelman 2014, Algorithm 5: gamma 0.05,
// t0 10, kappa 0.75).
struct DualAveraging {
  explicit DualAveraging(double eps0) : eps(eps0), mu(std::log(10 * eps0)) {}

  // After warmup iteration `it` with acceptance probability `accept`.
  void Update(int it, double accept, double target_accept) {
    const double m = it + 1;
    h_bar = (1 - 1 / (m + 10)) * h_bar + (target_accept - accept) / (m + 10);
    const double log_eps = mu - std::sqrt(m) / 0.05 * h_bar;
    const double w = std::pow(m, -0.75);
    log_eps_bar = w * log_eps + (1 - w) * log_eps_bar;
    eps = std::exp(log_eps);
  }

  double eps;
  const double mu;
  double h_bar = 0, log_eps_bar = 0;
};

// Draws eta | sigma in whitened coordinates u around the mode, eta = eta^ + P^T L^-T u: u ~ N(0,
// I) (Laplace), or u sampled by HMC on the exact posterior. Chains write disjoint draws of
// p->theta, so Run may be called for different chains concurrently.
class ChainSampler {
 public:
  ChainSampler(const RandomWalkPosterior& post, const Mode& mode, const RandomWalkOptions& o,
               RatingPosterior* p)
      : post_(post), mode_(mode), llt_(*mode.llt), o_(o), p_(p), d_(post.dim()) {}

  // Runs chain c; returns its acceptance rate and counts its divergent transitions.
  double Run(int c, int* divergent) const {
    internal::Rng rng(o_.seed, 0x726e64776c6bULL, c);
    if (o_.inference == TemporalInference::kLaplace) {
      for (int k = 0; k < o_.draws_per_chain; ++k) {
        Write(ToEta(NormalVector(rng, 1.0)), c * o_.draws_per_chain + k);
      }
      return 1;
    }
    return RunHmc(c, rng, divergent);
  }

 private:
  struct State {
    VectorXd u, grad;
    double U;
  };

  VectorXd ToEta(const VectorXd& u) const {
    VectorXd y = llt_.matrixU().solve(u);
    return mode_.eta + llt_.permutationPinv() * y;
  }

  void Write(const VectorXd& eta, int s) const {
    const int n = p_->n(), T = p_->T(), S = p_->S();
    std::vector<double> th(n);
    for (int t = 0; t < T; ++t) {
      post_.Theta(eta, th.data(), t);
      std::copy(th.begin(), th.end(), p_->theta.begin() + (static_cast<size_t>(t) * S + s) * n);
    }
  }

  VectorXd NormalVector(internal::Rng& rng, double scale) const {
    VectorXd z(d_);
    for (int k = 0; k < d_; ++k) z[k] = scale * rng.Normal();
    return z;
  }

  // U(u) = -f(eta(u)); grad_u U = -L^-1 P grad_eta f.
  double Potential(const VectorXd& u, VectorXd& grad_u) const {
    VectorXd g;
    const double f = post_.Eval(ToEta(u), &g, nullptr);
    grad_u = -llt_.matrixL().solve(llt_.permutationP() * g);
    return -f;
  }

  // One HMC transition with leapfrog steps of size e and a jittered trajectory length; returns
  // the acceptance probability. `diverged`: the energy error is not finite or over 1000.
  double Transition(internal::Rng& rng, double e, State* s, bool* diverged) const {
    const double jitter = 0.5 + rng.Uniform01();
    const int steps = std::max(1, static_cast<int>(std::lround(o_.trajectory_length * jitter / e)));
    VectorXd r = NormalVector(rng, 1.0);
    const double H0 = s->U + 0.5 * r.squaredNorm();
    VectorXd u1 = s->u, g1 = s->grad;
    double U1 = s->U;
    r -= 0.5 * e * g1;
    for (int l = 0; l < steps; ++l) {
      u1 += e * r;
      U1 = Potential(u1, g1);
      if (!std::isfinite(U1)) break;
      if (l + 1 < steps) r -= e * g1;
    }
    r -= 0.5 * e * g1;
    const double H1 = U1 + 0.5 * r.squaredNorm();
    double a = std::isfinite(H1) ? std::min(1.0, std::exp(H0 - H1)) : 0.0;
    *diverged = !std::isfinite(H1) || H1 - H0 > 1000;
    if (rng.Uniform01() < a) {
      s->u = u1;
      s->U = U1;
      s->grad = g1;
    }
    return a;
  }

  double RunHmc(int c, internal::Rng& rng, int* divergent) const {
    State s;
    s.u = NormalVector(rng, 1.5);
    s.U = Potential(s.u, s.grad);
    DualAveraging step(std::min(1.0, 1.5 * std::pow(static_cast<double>(d_), -0.25)));
    double acc_sum = 0;
    for (int it = 0; it < o_.warmup + o_.draws_per_chain; ++it) {
      const bool warm_phase = it < o_.warmup;
      const double e = warm_phase || o_.warmup == 0 ? step.eps : std::exp(step.log_eps_bar);
      bool diverged = false;
      const double a = Transition(rng, e, &s, &diverged);
      if (!warm_phase && diverged) ++*divergent;
      if (warm_phase) {
        step.Update(it, a, o_.target_accept);
      } else {
        acc_sum += a;
        Write(ToEta(s.u), c * o_.draws_per_chain + (it - o_.warmup));
      }
    }
    return acc_sum / o_.draws_per_chain;
  }

  const RandomWalkPosterior& post_;
  const Mode& mode_;
  const Eigen::SimplicialLLT<SpMat>& llt_;
  const RandomWalkOptions& o_;
  RatingPosterior* p_;
  const int d_;
};

// The posterior's description, before any draw.
RatingPosterior EmptyPosterior(const RankingSet& rankings, const RandomWalkOptions& o) {
  RatingPosterior p;
  p.model = "random_walk";
  p.inference = o.inference == TemporalInference::kHmc ? "hmc" : "laplace";
  p.methods = rankings.methods;
  p.grid = rankings.grid;
  p.chains = o.chains;
  p.draws_per_chain = o.draws_per_chain;
  p.hyper_name = "sigma";
  return p;
}

}  // namespace

absl::StatusOr<RatingPosterior> FitRandomWalk(const RankingSet& rankings,
                                              const RandomWalkOptions& o) {
  RETURN_IF_ERROR(Check(o));
  RETURN_IF_ERROR(ValidateGrid(rankings.grid));
  if (rankings.methods.empty()) return absl::InvalidArgumentError("rankings.methods: empty");
  ASSIGN_OR_RETURN(std::vector<PlStats> stats, ComputePlStats(rankings, o.stats));
  const auto start = std::chrono::steady_clock::now();
  RatingPosterior p = EmptyPosterior(rankings, o);
  const int n = p.n(), T = p.T(), S = p.S();
  p.theta.assign(static_cast<size_t>(T) * S * n, 1.0);
  if (n == 1) {  // theta = 1: nothing to infer
    p.hyper.assign(S, o.sigma > 0 ? o.sigma : o.sigma_prior_median);
    ComputeDiagnostics(p, o.threads);
    return p;
  }
  std::vector<FlatStats> flat;
  for (const PlStats& st : stats) flat.push_back(Flatten(st));
  RandomWalkPosterior post(std::move(flat), n, Deltas(rankings.grid), o.initial_scale);

  // 1. sigma.
  ASSIGN_OR_RETURN(Mode mode, FitSigma(post, o, T));
  p.hyper.assign(S, post.sigma());

  // 2. eta | sigma.
  std::vector<double> accept(o.chains, 0);
  std::vector<int> divergent(o.chains, 0);
  const ChainSampler sampler(post, mode, o, &p);
  ParallelFor(o.chains, o.threads, [&](int c) { accept[c] = sampler.Run(c, &divergent[c]); });
  double acc = 0;
  for (double a : accept) acc += a;
  p.diagnostics.acceptance_rate = acc / o.chains;
  for (int dv : divergent) p.diagnostics.divergences += dv;
  p.diagnostics.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::vector<double> sigma_draws = p.hyper;
  p.hyper.clear();  // constant: not a sampled parameter for the diagnostics
  ComputeDiagnostics(p, o.threads);
  p.hyper = sigma_draws;
  return p;
}

}  // namespace bbo::scoring::pl
