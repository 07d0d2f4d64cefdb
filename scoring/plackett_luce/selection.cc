#include "scoring/plackett_luce/selection.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace bbo::scoring::pl {
namespace {

std::vector<double> Trapezoid(const std::vector<double>& x) {
  const size_t T = x.size();
  std::vector<double> w(T, 0);
  for (size_t i = 0; i + 1 < T; ++i) {
    w[i] += 0.5 * (x[i + 1] - x[i]);
    w[i + 1] += 0.5 * (x[i + 1] - x[i]);
  }
  return w;
}

absl::StatusOr<std::vector<double>> Normalize(std::vector<double> w) {
  double sum = 0;
  for (double v : w) {
    if (!(v >= 0) || !std::isfinite(v)) {
      return absl::InvalidArgumentError("preference: weights must be finite and >= 0");
    }
    sum += v;
  }
  if (!(sum > 0)) return absl::InvalidArgumentError("preference: weights are all zero");
  for (double& v : w) v /= sum;
  return w;
}

absl::Status CheckCandidates(std::vector<int>& c, int n) {
  if (c.empty()) {
    for (int i = 0; i < n; ++i) c.push_back(i);
  }
  std::sort(c.begin(), c.end());
  for (size_t k = 0; k < c.size(); ++k) {
    if (c[k] < 0 || c[k] >= n) return absl::InvalidArgumentError("candidates: index out of range");
    if (k > 0 && c[k] == c[k - 1]) return absl::InvalidArgumentError("candidates: repeated index");
  }
  return absl::OkStatus();
}

absl::Status CheckPreference(const RatingPosterior& p, const std::vector<double>& weights,
                             const PreferenceFunctional& functional, const RiskProfile& risk) {
  if (weights.empty() == !functional) {
    return absl::InvalidArgumentError("preference: give exactly one of weights and functional");
  }
  if (!weights.empty() && static_cast<int>(weights.size()) != p.T()) {
    return absl::InvalidArgumentError("weights: one per timepoint");
  }
  if (risk.kind == RiskProfile::Kind::kLowerQuantile && !(risk.gamma > 0 && risk.gamma < 1)) {
    return absl::InvalidArgumentError("risk.gamma: must be in (0, 1)");
  }
  if (p.S() < 1) return absl::InvalidArgumentError("posterior: no draws");
  return absl::OkStatus();
}

// V of one option (a multiset of methods) for every draw.
std::vector<double> ValueDraws(const RatingPosterior& p, const std::vector<int>& members,
                               const std::vector<double>& weights,
                               const PreferenceFunctional& functional) {
  const int S = p.S(), T = p.T();
  std::vector<double> v(S, 0);
  if (!weights.empty()) {
    for (int t = 0; t < T; ++t) {
      if (weights[t] == 0) continue;
      for (int s = 0; s < S; ++s) {
        const double* th = p.Draw(t, s);
        double sum = 0;
        for (int i : members) sum += th[i];
        v[s] += weights[t] * sum;
      }
    }
    return v;
  }
  std::vector<double> traj(T);
  for (int s = 0; s < S; ++s) {
    for (int t = 0; t < T; ++t) {
      const double* th = p.Draw(t, s);
      double sum = 0;
      for (int i : members) sum += th[i];
      traj[t] = sum;
    }
    v[s] = functional(absl::MakeConstSpan(traj));
  }
  return v;
}

std::string Name(const RatingPosterior& p, const std::vector<int>& members) {
  std::vector<std::string> names;
  for (int i : members) names.push_back(p.methods[i]);
  return absl::StrJoin(names, "+");
}

SelectionResult Evaluate(const RatingPosterior& p, std::vector<std::vector<int>> options,
                         const std::vector<double>& weights, const PreferenceFunctional& functional,
                         const RiskProfile& risk) {
  SelectionResult r;
  const int S = p.S();
  const size_t m = options.size();
  std::vector<std::vector<double>> values(m);
  for (size_t o = 0; o < m; ++o) values[o] = ValueDraws(p, options[o], weights, functional);
  r.p_best.assign(m, 0);
  for (int s = 0; s < S; ++s) {
    double best = -INFINITY;
    for (size_t o = 0; o < m; ++o) best = std::max(best, values[o][s]);
    int ties = 0;
    for (size_t o = 0; o < m; ++o) ties += values[o][s] == best;
    for (size_t o = 0; o < m; ++o) {
      if (values[o][s] == best) r.p_best[o] += 1.0 / ties;
    }
  }
  for (size_t o = 0; o < m; ++o) {
    r.p_best[o] /= S;
    double sum = 0;
    for (double v : values[o]) sum += v;
    r.expected.push_back(sum / S);
    r.lower_quantile.push_back(SampleQuantile(values[o], risk.gamma));
    switch (risk.kind) {
      case RiskProfile::Kind::kProbabilityBest:
        r.score.push_back(r.p_best[o]);
        break;
      case RiskProfile::Kind::kExpected:
        r.score.push_back(r.expected[o]);
        break;
      case RiskProfile::Kind::kLowerQuantile:
        r.score.push_back(r.lower_quantile[o]);
        break;
    }
    r.options.push_back(Name(p, options[o]));
  }
  r.best =
      m == 0 ? -1
             : static_cast<int>(std::max_element(r.score.begin(), r.score.end()) - r.score.begin());
  r.members = std::move(options);
  return r;
}

// All non-decreasing sequences of length k over `c`.
void Multisets(const std::vector<int>& c, int k, size_t from, std::vector<int>& cur,
               std::vector<std::vector<int>>& out) {
  if (static_cast<int>(cur.size()) == k) {
    out.push_back(cur);
    return;
  }
  for (size_t x = from; x < c.size(); ++x) {
    cur.push_back(c[x]);
    Multisets(c, k, x, cur, out);
    cur.pop_back();
  }
}

}  // namespace

absl::StatusOr<std::vector<double>> PreferenceWeights(const TimeGrid& grid,
                                                      const TimePreference& pref) {
  RETURN_IF_ERROR(ValidateGrid(grid));
  const int T = grid.size();
  using Kind = TimePreference::Kind;
  if (pref.kind == Kind::kCustom) {
    if (static_cast<int>(pref.weights.size()) != T) {
      return absl::InvalidArgumentError("preference.weights: one per timepoint");
    }
    return Normalize(pref.weights);
  }
  if (T == 1) return std::vector<double>{1.0};
  switch (pref.kind) {
    case Kind::kUniform:
      return Normalize(Trapezoid(grid.points));
    case Kind::kLogUniform: {
      if (!(grid.points[0] > 0)) {
        return absl::InvalidArgumentError("preference: log-uniform needs t_1 > 0");
      }
      std::vector<double> x;
      for (double t : grid.points) x.push_back(std::log(t));
      return Normalize(Trapezoid(x));
    }
    case Kind::kFinal: {
      std::vector<double> w(T, 0);
      w.back() = 1;
      return w;
    }
    case Kind::kBudget: {
      if (!pref.budget_cdf) return absl::InvalidArgumentError("preference.budget_cdf: missing");
      std::vector<double> F(T);
      for (int i = 0; i < T; ++i) {
        F[i] = pref.budget_cdf(grid.points[i]);
        if (!(F[i] >= 0 && F[i] <= 1) || (i > 0 && F[i] < F[i - 1])) {
          return absl::InvalidArgumentError(
              "preference.budget_cdf: must be non-decreasing with values in [0, 1]");
        }
      }
      std::vector<double> w(T);
      w[0] = F[1];
      for (int i = 1; i + 1 < T; ++i) w[i] = F[i + 1] - F[i];
      w[T - 1] = 1 - F[T - 1];
      return Normalize(w);
    }
    case Kind::kCustom:
      break;
  }
  return absl::InvalidArgumentError("preference.kind: unknown");
}

absl::StatusOr<SelectionResult> SelectMethod(const RatingPosterior& p,
                                             const std::vector<double>& weights,
                                             const PreferenceFunctional& functional,
                                             const RiskProfile& risk, std::vector<int> candidates) {
  RETURN_IF_ERROR(CheckPreference(p, weights, functional, risk));
  RETURN_IF_ERROR(CheckCandidates(candidates, p.n()));
  std::vector<std::vector<int>> options;
  for (int i : candidates) options.push_back({i});
  return Evaluate(p, std::move(options), weights, functional, risk);
}

absl::StatusOr<SelectionResult> SelectPortfolio(const RatingPosterior& p, int k,
                                                const std::vector<double>& weights,
                                                const PreferenceFunctional& functional,
                                                const RiskProfile& risk,
                                                std::vector<int> candidates, int max_enumerated) {
  RETURN_IF_ERROR(CheckPreference(p, weights, functional, risk));
  RETURN_IF_ERROR(CheckCandidates(candidates, p.n()));
  if (k < 1) return absl::InvalidArgumentError("k: must be >= 1");
  // C(m + k - 1, k), saturating.
  const int m = static_cast<int>(candidates.size());
  double count = 1;
  for (int j = 1; j <= k && count <= max_enumerated; ++j) count = count * (m + j - 1) / j;
  if (count <= max_enumerated) {
    std::vector<std::vector<int>> options;
    std::vector<int> cur;
    Multisets(candidates, k, 0, cur, options);
    return Evaluate(p, std::move(options), weights, functional, risk);
  }
  std::vector<int> base;
  SelectionResult r;
  for (int step = 0; step < k; ++step) {
    std::vector<std::vector<int>> options;
    for (int c : candidates) {
      std::vector<int> o = base;
      o.insert(std::upper_bound(o.begin(), o.end(), c), c);
      options.push_back(std::move(o));
    }
    r = Evaluate(p, std::move(options), weights, functional, risk);
    base = r.members[r.best];
  }
  return r;
}

}  // namespace bbo::scoring::pl
