#include "scoring/mann_whitney.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "boost/math/distributions/normal.hpp"

namespace bbo::scoring {
namespace {

// Number of arrangements of n1 x's and n2 y's with U = u, for all u, as probabilities.
std::vector<double> ExactUDistribution(int n1, int n2) {
  // f[a][b][u] via the recursion f(a, b, u) = f(a - 1, b, u - b) + f(a, b - 1, u), kept as
  // probabilities: p(a, b, u) = a/(a+b) p(a-1, b, u-b) + b/(a+b) p(a, b-1, u).
  const int max_u = n1 * n2;
  std::vector<std::vector<std::vector<double>>> p(
      n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (int a = 0; a <= n1; ++a) {
    for (int b = 0; b <= n2; ++b) {
      p[a][b].assign(a * b + 1, 0.0);
      if (a == 0 || b == 0) {
        p[a][b][0] = 1.0;
        continue;
      }
      const double wa = static_cast<double>(a) / (a + b), wb = static_cast<double>(b) / (a + b);
      for (int u = 0; u <= a * b; ++u) {
        double v = 0;
        if (u - b >= 0 && u - b <= (a - 1) * b) v += wa * p[a - 1][b][u - b];
        if (u <= a * (b - 1)) v += wb * p[a][b - 1][u];
        p[a][b][u] = v;
      }
    }
  }
  std::vector<double> out = p[n1][n2];
  out.resize(max_u + 1, 0.0);
  return out;
}

// Whether ascending `v` holds a value twice.
bool HasTie(const std::vector<double>& v) {
  bool tie = false;
  for (size_t i = 1; i < v.size(); ++i) tie |= v[i] == v[i - 1];
  return tie;
}

}  // namespace

absl::StatusOr<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x,
                                               const std::vector<double>& y, int exact_max) {
  std::vector<double> xs = x, ys = y;
  for (double v : xs) {
    if (std::isnan(v)) return absl::InvalidArgumentError("x: contains NaN");
  }
  for (double v : ys) {
    if (std::isnan(v)) return absl::InvalidArgumentError("y: contains NaN");
  }
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  return MannWhitneyUSorted(xs, ys, exact_max);
}

absl::StatusOr<MannWhitneyResult> MannWhitneyUSorted(const std::vector<double>& x,
                                                     const std::vector<double>& y,
                                                     int exact_max) {
  if (x.empty() || y.empty()) return absl::InvalidArgumentError("x, y: samples must not be empty");
  if (!std::is_sorted(x.begin(), x.end()) || !std::is_sorted(y.begin(), y.end())) {
    return absl::InvalidArgumentError("x, y: samples must be sorted (or contain NaN)");
  }
  const int n1 = static_cast<int>(x.size()), n2 = static_cast<int>(y.size());
  const int n = n1 + n2;
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  size_t i = 0, j = 0;
  int pos = 0;
  if (!HasTie(x) && !HasTie(y)) {
    // Without ties U_x is the number of pairs with y < x, an integer: counted by a merge without
    // branches (the loop below mispredicts about once per value). A tie between the samples
    // sends the count to the loop below, which gives the same value when there is none.
    int64_t u_x = 0;
    bool cross_tie = false;
    while (i < x.size() && j < y.size()) {
      const bool take_y = y[j] < x[i];
      cross_tie |= y[j] == x[i];
      u_x += take_y ? 0 : static_cast<int64_t>(j);
      i += take_y ? 0 : 1;
      j += take_y ? 1 : 0;
    }
    u_x += static_cast<int64_t>(x.size() - i) * static_cast<int64_t>(y.size());
    if (!cross_tie) {
      rank_sum_x = static_cast<double>(u_x) + n1 * (n1 + 1) / 2.0;
      i = x.size();
      j = y.size();
    } else {
      i = j = 0;
    }
  }
  // Midranks by merging the two sorted samples.
  while (i < x.size() || j < y.size()) {
    double v = j >= y.size() || (i < x.size() && x[i] <= y[j]) ? x[i] : y[j];
    int cx = 0, cy = 0;
    while (i < x.size() && x[i] == v) ++i, ++cx;
    while (j < y.size() && y[j] == v) ++j, ++cy;
    const double t = cx + cy;
    rank_sum_x += cx * (pos + (t + 1) / 2.0);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    pos += cx + cy;
  }
  MannWhitneyResult r;
  r.u_x = rank_sum_x - n1 * (n1 + 1) / 2.0;
  const double u_y = static_cast<double>(n1) * n2 - r.u_x;
  const double u = std::max(r.u_x, u_y);
  if (!ties && n1 <= exact_max && n2 <= exact_max) {
    std::vector<double> pmf = ExactUDistribution(n1, n2);
    double sf = 0;
    for (int k = static_cast<int>(std::lround(u)); k <= n1 * n2; ++k) sf += pmf[k];
    r.p_value = std::min(1.0, 2 * sf);
    r.exact = true;
    return r;
  }
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * static_cast<double>(n2) / 12.0 *
                     ((n + 1) - tie_term / (static_cast<double>(n) * (n - 1)));
  if (var <= 0) {  // every value equal
    r.p_value = 1;
    return r;
  }
  const double z = (u - mu - 0.5) / std::sqrt(var);
  boost::math::normal_distribution<double> normal;
  r.p_value = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(normal, z)));
  return r;
}

double PairwiseAlpha(double familywise, int k) {
  const double tests = k * (k - 1) / 2.0;
  if (tests <= 0) return familywise;
  return -std::expm1(std::log1p(-familywise) / tests);
}

}  // namespace bbo::scoring
