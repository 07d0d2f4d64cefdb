#include "scoring/plackett_luce/posterior.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "scoring/plackett_luce/diagnostics.h"
#include "scoring/plackett_luce/internal/parallel.h"

namespace bbo::scoring::pl {
namespace {

double SortedQuantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  const double h = q * (static_cast<double>(sorted.size()) - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double SampleQuantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  return SortedQuantile(x, q);
}

RatingSummary Summarize(const RatingPosterior& p, double lower_q, double upper_q) {
  const int n = p.n(), T = p.T(), S = p.S();
  RatingSummary out;
  out.mean.assign(static_cast<size_t>(T) * n, 0);
  out.lower.assign(out.mean.size(), 0);
  out.upper.assign(out.mean.size(), 0);
  // Timepoints are independent: summarized on every core.
  internal::ParallelFor(T, 0, [&](int t) {
    std::vector<double> x(S);
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int s = 0; s < S; ++s) sum += x[s] = p.Theta(t, s, i);
      std::sort(x.begin(), x.end());
      out.mean[t * n + i] = sum / S;
      out.lower[t * n + i] = SortedQuantile(x, lower_q);
      out.upper[t * n + i] = SortedQuantile(x, upper_q);
    }
  });
  return out;
}

void ComputeDiagnostics(RatingPosterior& p, int threads) {
  const int n = p.n(), T = p.T(), S = p.S();
  const int params = n * T;
  ModelDiagnostics& d = p.diagnostics;
  d.rhat.assign(params, 1);
  d.ess_bulk.assign(params, S);
  std::atomic<int> next{0};
  auto work = [&] {
    std::vector<double> x(S);
    for (int k; (k = next.fetch_add(1)) < params;) {
      const int t = k / n, i = k % n;
      for (int s = 0; s < S; ++s) x[s] = p.Theta(t, s, i);
      const ParameterDiagnostics pd = Diagnose(x, p.chains, p.draws_per_chain);
      d.rhat[k] = pd.rhat;
      d.ess_bulk[k] = pd.ess_bulk;
    }
  };
  const int nt = internal::ThreadCount(threads, params);
  std::vector<std::thread> pool;
  for (int k = 1; k < nt; ++k) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  d.max_rhat = params > 0 ? *std::max_element(d.rhat.begin(), d.rhat.end()) : 1;
  d.min_ess_bulk = params > 0 ? *std::min_element(d.ess_bulk.begin(), d.ess_bulk.end()) : 0;
  if (!p.hyper.empty()) {
    const ParameterDiagnostics h = Diagnose(p.hyper, p.chains, p.draws_per_chain);
    d.hyper_rhat = h.rhat;
    d.hyper_ess_bulk = h.ess_bulk;
    if (!std::isnan(h.rhat)) d.max_rhat = std::max(d.max_rhat, h.rhat);
    if (!std::isnan(h.ess_bulk)) d.min_ess_bulk = std::min(d.min_ess_bulk, h.ess_bulk);
  }
}

}  // namespace bbo::scoring::pl
