#include "scoring/plackett_luce/diagnostics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "boost/math/distributions/normal.hpp"

namespace bbo::scoring::pl {
namespace {

// Splits every chain into its first and second half (the middle draw of an odd chain is dropped).
std::vector<double> SplitChains(const std::vector<double>& x, int chains, int n, int* half) {
  *half = n / 2;
  std::vector<double> out;
  out.reserve(static_cast<size_t>(chains) * 2 * *half);
  for (int c = 0; c < chains; ++c) {
    const double* chain = x.data() + static_cast<size_t>(c) * n;
    out.insert(out.end(), chain, chain + *half);
    out.insert(out.end(), chain + (n - *half), chain + n);
  }
  return out;
}

// z = Phi^{-1}((r - 3/8) / (S + 1/4)) with r the average rank among all draws (Vehtari et al.
// 2021 eq. 14, Blom's offset). Integer ranks come from a per-thread table (the quantile function
// dominates the cost otherwise).
double BlomScore(double rank, size_t S) {
  static const boost::math::normal_distribution<double> normal;
  return boost::math::quantile(normal, (rank - 0.375) / (static_cast<double>(S) + 0.25));
}

std::vector<double> RankNormalize(const std::vector<double>& x) {
  const size_t S = x.size();
  thread_local std::vector<double> table;
  if (table.size() != S) {
    table.resize(S);
    for (size_t r = 0; r < S; ++r) table[r] = BlomScore(static_cast<double>(r + 1), S);
  }
  std::vector<size_t> idx(S);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> z(S);
  for (size_t k = 0; k < S;) {
    size_t end = k;
    while (end < S && x[idx[end]] == x[idx[k]]) ++end;
    // Average of the ranks k + 1 .. end.
    const double v = end == k + 1 ? table[k] : BlomScore(0.5 * static_cast<double>(k + 1 + end), S);
    for (size_t j = k; j < end; ++j) z[idx[j]] = v;
    k = end;
  }
  return z;
}

bool Constant(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; });
}

}  // namespace

double SplitRhat(const std::vector<double>& draws, int chains, int draws_per_chain) {
  if (draws_per_chain < 4 || chains < 1) return NAN;
  int n = 0;
  const std::vector<double> x = SplitChains(draws, chains, draws_per_chain, &n);
  if (Constant(x)) return 1;
  const int m = 2 * chains;
  std::vector<double> mean(m), var(m);
  for (int c = 0; c < m; ++c) {
    const double* v = x.data() + static_cast<size_t>(c) * n;
    double s = 0;
    for (int k = 0; k < n; ++k) s += v[k];
    mean[c] = s / n;
    double ss = 0;
    for (int k = 0; k < n; ++k) ss += (v[k] - mean[c]) * (v[k] - mean[c]);
    var[c] = ss / (n - 1);
  }
  const double grand = std::accumulate(mean.begin(), mean.end(), 0.0) / m;
  double B = 0;
  for (double mc : mean) B += (mc - grand) * (mc - grand);
  B *= static_cast<double>(n) / (m - 1);
  const double W = std::accumulate(var.begin(), var.end(), 0.0) / m;
  const double var_plus = (n - 1.0) / n * W + B / n;
  return std::sqrt(var_plus / W);
}

double EffectiveSampleSize(const std::vector<double>& draws, int chains, int n) {
  if (n < 4 || chains < 1) return NAN;
  const double total = static_cast<double>(chains) * n;
  if (Constant(draws)) return total;
  std::vector<double> mean(chains), acov0(chains);
  for (int c = 0; c < chains; ++c) {
    const double* v = draws.data() + static_cast<size_t>(c) * n;
    mean[c] = std::accumulate(v, v + n, 0.0) / n;
  }
  // Biased autocovariance at `lag` averaged over chains (Stan divides by n as well).
  auto mean_acov = [&](int lag) {
    double s = 0;
    for (int c = 0; c < chains; ++c) {
      const double* v = draws.data() + static_cast<size_t>(c) * n;
      double a = 0;
      for (int k = 0; k + lag < n; ++k) a += (v[k] - mean[c]) * (v[k + lag] - mean[c]);
      s += a / n;
    }
    return s / chains;
  };
  const double mean_var = mean_acov(0) * n / (n - 1.0);
  double var_plus = mean_var * (n - 1.0) / n;
  if (chains > 1) {
    const double grand = std::accumulate(mean.begin(), mean.end(), 0.0) / chains;
    double b = 0;
    for (double mc : mean) b += (mc - grand) * (mc - grand);
    var_plus += b / (chains - 1);
  }
  auto rho = [&](int lag) { return 1 - (mean_var - mean_acov(lag)) / var_plus; };
  // Geyer's initial positive sequence over pairs (rho_{2k}, rho_{2k+1}), then made monotone.
  std::vector<double> r(n + 2, 0.0);
  r[0] = 1;
  double even = 1, odd = rho(1);
  r[1] = odd;
  int s = 1;
  while (s < n - 4 && even + odd > 0) {
    even = rho(s + 1);
    odd = rho(s + 2);
    if (even + odd >= 0) {
      r[s + 1] = even;
      r[s + 2] = odd;
    }
    s += 2;
  }
  const int max_s = s;
  if (even > 0) r[max_s + 1] = even;
  for (int k = 1; k <= max_s - 3; k += 2) {
    if (r[k + 1] + r[k + 2] > r[k - 1] + r[k]) {
      r[k + 1] = (r[k - 1] + r[k]) / 2;
      r[k + 2] = r[k + 1];
    }
  }
  double tau = -1 + r[max_s + 1];
  for (int k = 0; k < max_s; ++k) tau += 2 * r[k];
  return std::min(total / tau, total * std::log10(total));
}

ParameterDiagnostics Diagnose(const std::vector<double>& draws, int chains, int draws_per_chain) {
  if (draws_per_chain < 4 || chains < 1) return {NAN, NAN};
  int half = 0;
  std::vector<double> split = SplitChains(draws, chains, draws_per_chain, &half);
  if (Constant(split)) return {1.0, static_cast<double>(split.size())};
  const std::vector<double> z = RankNormalize(split);
  ParameterDiagnostics d;
  // z is already split: treat it as 2 x chains unsplit chains.
  {
    const int m = 2 * chains, n = half;
    std::vector<double> mean(m), var(m);
    for (int c = 0; c < m; ++c) {
      const double* v = z.data() + static_cast<size_t>(c) * n;
      mean[c] = std::accumulate(v, v + n, 0.0) / n;
      double ss = 0;
      for (int k = 0; k < n; ++k) ss += (v[k] - mean[c]) * (v[k] - mean[c]);
      var[c] = ss / (n - 1);
    }
    const double grand = std::accumulate(mean.begin(), mean.end(), 0.0) / m;
    double B = 0;
    for (double mc : mean) B += (mc - grand) * (mc - grand);
    B *= static_cast<double>(n) / (m - 1);
    const double W = std::accumulate(var.begin(), var.end(), 0.0) / m;
    d.rhat = W > 0 ? std::sqrt(((n - 1.0) / n * W + B / n) / W) : 1.0;
  }
  d.ess_bulk = EffectiveSampleSize(z, 2 * chains, half);
  return d;
}

}  // namespace bbo::scoring::pl
