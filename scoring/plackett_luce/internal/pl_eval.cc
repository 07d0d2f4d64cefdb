#include "scoring/plackett_luce/internal/pl_eval.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace bbo::scoring::pl::internal {
namespace {

using Eigen::MatrixXd;

// One stage term -w log sum_{j in m} e^{mu_j} of (*): value, gradient and negative Hessian, with
// its own shift (used when the members are far below the overall maximum).
double StageTerm(const int* m, int size, double w, const double* mu, double* grad,
                 Eigen::MatrixXd* neg_hess, std::vector<double>& p) {
  double lm = -INFINITY;
  for (int k = 0; k < size; ++k) lm = std::max(lm, mu[m[k]]);
  double ls = 0;
  for (int k = 0; k < size; ++k) ls += p[k] = std::exp(mu[m[k]] - lm);
  for (int k = 0; k < size; ++k) p[k] /= ls;
  for (int k = 0; k < size; ++k) grad[m[k]] -= w * p[k];
  if (neg_hess != nullptr) {
    for (int a = 0; a < size; ++a) {
      (*neg_hess)(m[a], m[a]) += w * p[a];
      for (int b = 0; b < size; ++b) (*neg_hess)(m[a], m[b]) -= w * p[a] * p[b];
    }
  }
  return -w * (lm + std::log(ls));
}

// sum_{k: w_k > 0} w_k log L_k, with one logarithm per run of up to four equal weights (a ranking's
// stages all weigh the same): log(L_a L_b L_c L_d) where the product stays in range, else one per
// term.
double WeightedLogSum(const double* L, const double* w, int len) {
  double s = 0;
  for (int k = 0; k < len;) {
    if (!(w[k] > 0)) {
      ++k;
      continue;
    }
    double prod = L[k];
    int j = k + 1;
    for (; j < len && j < k + 4 && w[j] == w[k]; ++j) prod *= L[j];
    if (prod > 1e-300 && prod < 1e300) {
      s += w[k] * std::log(prod);
    } else {
      for (int i = k; i < j; ++i) s += w[k] * std::log(L[i]);
    }
    k = j;
  }
  return s;
}

// sum_i min(x_i, y_i) with AVX2, four lanes and two accumulators.
__attribute__((target("avx2"))) double MinSumAvx2(const double* x, const double* y, int count) {
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
  int i = 0;
  for (; i + 8 <= count; i += 8) {
    s0 = _mm256_add_pd(s0, _mm256_min_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
    s1 = _mm256_add_pd(s1, _mm256_min_pd(_mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4)));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, _mm256_add_pd(s0, s1));
  double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < count; ++i) s += std::min(x[i], y[i]);
  return s;
}

// sum_i min(x_i, y_i), four independent sums.
double MinSumPortable(const double* x, const double* y, int count) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= count; i += 4) {
    s0 += std::min(x[i], y[i]);
    s1 += std::min(x[i + 1], y[i + 1]);
    s2 += std::min(x[i + 2], y[i + 2]);
    s3 += std::min(x[i + 3], y[i + 3]);
  }
  for (; i < count; ++i) s0 += std::min(x[i], y[i]);
  return (s0 + s1) + (s2 + s3);
}

double MinSum(const double* x, const double* y, int count) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? MinSumAvx2(x, y, count) : MinSumPortable(x, y, count);
}

// The chains' off-diagonal Hessian terms: neg_hess(a, b) -= e_a e_b sum_c min(beta_c(a),
// beta_c(b)), with beta row-major per method (n rows of `chains`). Rows of methods in no chain are
// skipped. The chains are taken in blocks whose rows fit in cache, so beta is read once per block
// rather than once per pair.
void AddChainCrossTerms(const double* beta, int chains, int n, const double* e,
                        Eigen::MatrixXd* neg_hess) {
  constexpr int kBlock = 512;
  std::vector<int> present;
  for (int i = 0; i < n; ++i) {
    const double* row = beta + static_cast<size_t>(i) * chains;
    if (std::any_of(row, row + chains, [](double v) { return v != 0; })) present.push_back(i);
  }
  const int m = static_cast<int>(present.size());
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(m, m);
  for (int c0 = 0; c0 < chains; c0 += kBlock) {
    const int len = std::min(kBlock, chains - c0);
    for (int x = 0; x < m; ++x) {
      const double* ra = beta + static_cast<size_t>(present[x]) * chains + c0;
      for (int y = x; y < m; ++y) {
        sums(x, y) += MinSum(ra, beta + static_cast<size_t>(present[y]) * chains + c0, len);
      }
    }
  }
  for (int x = 0; x < m; ++x) {
    for (int y = x; y < m; ++y) {
      const int a = present[x], b = present[y];
      const double v = e[a] * e[b] * sums(x, y);
      (*neg_hess)(a, b) -= v;
      if (a != b) (*neg_hess)(b, a) -= v;
    }
  }
}

}  // namespace

FlatStats Flatten(const PlStats& st) {
  FlatStats f;
  f.wins = st.wins;
  for (const StageSet& s : st.stages) {
    f.offsets.push_back(static_cast<int>(f.members.size()));
    f.members.insert(f.members.end(), s.members.begin(), s.members.end());
    f.weights.push_back(s.weight);
  }
  f.offsets.push_back(static_cast<int>(f.members.size()));
  for (const StageChain& c : st.chains) {
    f.chain_offsets.push_back(static_cast<int>(f.chain_order.size()));
    f.chain_order.insert(f.chain_order.end(), c.order.begin(), c.order.end());
    f.chain_weights.insert(f.chain_weights.end(), c.weights.begin(), c.weights.end());
    f.chain_weights.push_back(0);
  }
  f.chain_offsets.push_back(static_cast<int>(f.chain_order.size()));
  return f;
}

void AddDirichletPrior(FlatStats& st, int n, double alpha) {
  for (int i = 0; i < n; ++i) {
    st.wins[i] += alpha;
    st.members.push_back(i);
  }
  st.weights.push_back(n * alpha);
  st.offsets.push_back(static_cast<int>(st.members.size()));
}

// L_t(mu) of ranking_stats.h (*), its gradient added to `grad` and, if `neg_hess` is set, its
// negative Hessian sum_S W_S (diag(p_S) - p_S p_S^T) added to it (n x n). `e` is scratch (n).
namespace {

// The stage sets' terms of (*), as EvalTimepoint (e_i = exp(mu_i - mx)).
double StageSetTerms(const FlatStats& st, const double* mu, double mx, const std::vector<double>& e,
                     double* grad, Eigen::MatrixXd* neg_hess, std::vector<double>& p) {
  double ll = 0;
  const int stages = static_cast<int>(st.weights.size());
  for (int s = 0; s < stages; ++s) {
    const int* m = st.members.data() + st.offsets[s];
    const int size = st.offsets[s + 1] - st.offsets[s];
    const double w = st.weights[s];
    double sum = 0;
    for (int k = 0; k < size; ++k) sum += e[m[k]];
    double lse;
    if (sum > 1e-280) {
      lse = mx + std::log(sum);
      for (int k = 0; k < size; ++k) p[k] = e[m[k]] / sum;
    } else {  // every member far below the overall maximum: its own shift
      double lm = -INFINITY;
      for (int k = 0; k < size; ++k) lm = std::max(lm, mu[m[k]]);
      double ls = 0;
      for (int k = 0; k < size; ++k) ls += p[k] = std::exp(mu[m[k]] - lm);
      for (int k = 0; k < size; ++k) p[k] /= ls;
      lse = lm + std::log(ls);
    }
    ll -= w * lse;
    for (int k = 0; k < size; ++k) grad[m[k]] -= w * p[k];
    if (neg_hess != nullptr) {
      for (int a = 0; a < size; ++a) {
        (*neg_hess)(m[a], m[a]) += w * p[a];
        for (int b = 0; b < size; ++b) (*neg_hess)(m[a], m[b]) -= w * p[a] * p[b];
      }
    }
  }
  return ll;
}

// The chains' terms of (*), as EvalTimepoint (e_i = exp(mu_i - mx)).
double ChainTerms(const FlatStats& st, const double* mu, int n, double mx, std::vector<double>& e,
                  double* grad, Eigen::MatrixXd* neg_hess, std::vector<double>& p) {
  double ll = 0;
  // Chains in O(len): with suffix sums L_k of e, position j gets gradient -e_j A_j,
  // A_j = sum_{k <= j} w_k / L_k, and the negative Hessian diag(e_j A_j) - [e_a e_b B_{min(a, b)}],
  // B_j = sum_{k <= j} w_k / L_k^2. B is nondecreasing along a chain, so B_{min(a, b)} =
  // min(B_a, B_b): over all chains the off-diagonal part is -e_a e_b sum_c min(beta_c(a),
  // beta_c(b)), beta_c(i) = B at i's position in chain c (0 when i is not in it), summed below
  // over contiguous rows of beta (O(n^2 x chains) without the scattered updates).
  const int chains = static_cast<int>(st.chain_offsets.size()) - 1;
  thread_local std::vector<double> L, A, B, beta;
  if (neg_hess != nullptr && chains > 0) beta.assign(static_cast<size_t>(n) * chains, 0.0);
  bool any_beta = false;
  for (int c = 0; c < chains; ++c) {
    const int* o = st.chain_order.data() + st.chain_offsets[c];
    const double* w = st.chain_weights.data() + st.chain_offsets[c];
    const int len = st.chain_offsets[c + 1] - st.chain_offsets[c];
    L.resize(len);
    A.resize(len);
    B.resize(len);
    double sum = 0;
    for (int k = len - 1; k >= 0; --k) L[k] = sum += e[o[k]];
    if (L[len - 1] < 1e-280) {  // the tail underflows against the maximum: stage by stage
      for (int k = 0; k + 1 < len; ++k) {
        if (w[k] > 0) ll += StageTerm(o + k, len - k, w[k], mu, grad, neg_hess, p);
      }
      continue;
    }
    ll -= WeightedLogSum(L.data(), w, len);
    double a = 0, b = 0;
    for (int k = 0; k < len; ++k) {
      if (w[k] > 0) {
        const double inv = 1 / L[k];
        ll -= w[k] * mx;
        a += w[k] * inv;
        b += w[k] * inv * inv;
      }
      A[k] = a;
      B[k] = b;
      grad[o[k]] -= e[o[k]] * a;
    }
    if (neg_hess != nullptr) {
      for (int x = 0; x < len; ++x) {
        (*neg_hess)(o[x], o[x]) += e[o[x]] * A[x];
        beta[static_cast<size_t>(o[x]) * chains + c] = B[x];
      }
      any_beta = true;
    }
  }
  if (any_beta) AddChainCrossTerms(beta.data(), chains, n, e.data(), neg_hess);
  return ll;
}

}  // namespace

double EvalTimepoint(const FlatStats& st, const double* mu, int n, double* grad,
                     Eigen::MatrixXd* neg_hess, std::vector<double>& e, std::vector<double>& p) {
  double mx = -INFINITY;
  for (int i = 0; i < n; ++i) mx = std::max(mx, mu[i]);
  for (int i = 0; i < n; ++i) e[i] = std::exp(mu[i] - mx);
  double ll = 0;
  for (int i = 0; i < n; ++i) {
    ll += st.wins[i] * mu[i];
    grad[i] += st.wins[i];
  }
  ll += StageSetTerms(st, mu, mx, e, grad, neg_hess, p);
  ll += ChainTerms(st, mu, n, mx, e, grad, neg_hess, p);
  return ll;
}

double EvalValue(const FlatStats& st, const double* mu, int n, std::vector<double>& e) {
  double mx = -INFINITY;
  for (int i = 0; i < n; ++i) mx = std::max(mx, mu[i]);
  for (int i = 0; i < n; ++i) e[i] = std::exp(mu[i] - mx);
  double ll = 0;
  for (int i = 0; i < n; ++i) ll += st.wins[i] * mu[i];
  auto shifted_lse = [&](const int* m, int size) {
    double lm = -INFINITY;
    for (int k = 0; k < size; ++k) lm = std::max(lm, mu[m[k]]);
    double ls = 0;
    for (int k = 0; k < size; ++k) ls += std::exp(mu[m[k]] - lm);
    return lm + std::log(ls);
  };
  const int stages = static_cast<int>(st.weights.size());
  for (int s = 0; s < stages; ++s) {
    const int* m = st.members.data() + st.offsets[s];
    const int size = st.offsets[s + 1] - st.offsets[s];
    double sum = 0;
    for (int k = 0; k < size; ++k) sum += e[m[k]];
    ll -= st.weights[s] * (sum > 1e-280 ? mx + std::log(sum) : shifted_lse(m, size));
  }
  const int chains = static_cast<int>(st.chain_offsets.size()) - 1;
  thread_local std::vector<double> L;
  for (int c = 0; c < chains; ++c) {
    const int* o = st.chain_order.data() + st.chain_offsets[c];
    const double* w = st.chain_weights.data() + st.chain_offsets[c];
    const int len = st.chain_offsets[c + 1] - st.chain_offsets[c];
    L.resize(len);
    double sum = 0;
    for (int k = len - 1; k >= 0; --k) L[k] = sum += e[o[k]];
    if (L[len - 1] > 1e-280) {
      ll -= WeightedLogSum(L.data(), w, len);
      for (int k = 0; k < len; ++k) ll -= w[k] > 0 ? w[k] * mx : 0;
      continue;
    }
    for (int k = 0; k < len; ++k) {
      if (w[k] > 0) ll -= w[k] * (L[k] > 1e-280 ? mx + std::log(L[k]) : shifted_lse(o + k, len - k));
    }
  }
  return ll;
}

}  // namespace bbo::scoring::pl::internal
