#include "scoring/plackett_luce/internal/pl_eval.h"

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
  // Chains in O(len) (O(len^2) with the Hessian): with suffix sums L_k of e, position j gets
  // gradient -e_j A_j, A_j = sum_{k <= j} w_k / L_k, and the negative Hessian is
  // diag(e_j A_j) - [e_a e_b B_{min(a, b)}], B_j = sum_{k <= j} w_k / L_k^2.
  const int chains = static_cast<int>(st.chain_offsets.size()) - 1;
  std::vector<double> L, A, B;
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
    double a = 0, b = 0;
    for (int k = 0; k < len; ++k) {
      if (w[k] > 0) {
        ll -= w[k] * (mx + std::log(L[k]));
        a += w[k] / L[k];
        b += w[k] / (L[k] * L[k]);
      }
      A[k] = a;
      B[k] = b;
      grad[o[k]] -= e[o[k]] * a;
    }
    if (neg_hess != nullptr) {
      for (int x = 0; x < len; ++x) {
        (*neg_hess)(o[x], o[x]) += e[o[x]] * A[x];
        for (int y = 0; y < len; ++y) {
          (*neg_hess)(o[x], o[y]) -= e[o[x]] * e[o[y]] * B[std::min(x, y)];
        }
      }
    }
  }
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
  for (int c = 0; c < chains; ++c) {
    const int* o = st.chain_order.data() + st.chain_offsets[c];
    const double* w = st.chain_weights.data() + st.chain_offsets[c];
    const int len = st.chain_offsets[c + 1] - st.chain_offsets[c];
    double sum = 0;
    for (int k = len - 1; k >= 0; --k) {
      sum += e[o[k]];
      if (w[k] > 0) ll -= w[k] * (sum > 1e-280 ? mx + std::log(sum) : shifted_lse(o + k, len - k));
    }
  }
  return ll;
}

}  // namespace bbo::scoring::pl::internal
