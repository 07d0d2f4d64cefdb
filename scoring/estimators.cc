#include "scoring/estimators.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace bbo::scoring {
namespace {

absl::Status CheckSample(const std::vector<double>& X) {
  if (X.empty()) return absl::InvalidArgumentError("X: the sample is empty");
  for (double x : X) {
    if (std::isnan(x)) return absl::InvalidArgumentError("X: contains NaN");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<double> Quantile(const std::vector<double>& X, double q) {
  if (absl::Status s = CheckSample(X); !s.ok()) return s;
  if (!(q > 0 && q < 1)) return absl::InvalidArgumentError(absl::StrCat("q: ", q, " is not in (0, 1)"));
  std::vector<double> sorted = X;
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  const long idx = static_cast<long>(std::ceil(n * q));  // 1-based order statistic
  if (idx <= 0) return -std::numeric_limits<double>::infinity();
  return sorted[static_cast<size_t>(std::min<long>(idx, static_cast<long>(sorted.size())) - 1)];
}

absl::StatusOr<double> MinQuantile(const std::vector<double>& X, double q, int m) {
  if (m < 1) return absl::InvalidArgumentError(absl::StrCat("m: ", m, " is below 1"));
  if (!(q > 0 && q < 1)) return absl::InvalidArgumentError(absl::StrCat("q: ", q, " is not in (0, 1)"));
  // q' = 1 - (1 - q)^(1/m), computed as -expm1(log1p(-q) / m) for accuracy at small q'.
  const double q_min = -std::expm1(std::log1p(-q) / m);
  return Quantile(X, q_min);
}

absl::StatusOr<double> ExpectedMin(const std::vector<double>& X, int m) {
  if (absl::Status s = CheckSample(X); !s.ok()) return s;
  const int n = static_cast<int>(X.size());
  if (m < 1) return absl::InvalidArgumentError(absl::StrCat("m: ", m, " is below 1"));
  if (m > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "m: the expected minimum of ", m, " draws needs at least ", m, " samples, got ", n));
  }
  // Descending order: the minimum of a subset is its element with the largest index here.
  std::vector<double> sorted = X;
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  // log w_k = lgamma(k) - lgamma(k - m + 1) (+ const), k = m..n (1-based).
  std::vector<double> lw(n, -std::numeric_limits<double>::infinity());
  double max_lw = -std::numeric_limits<double>::infinity();
  for (int k = m; k <= n; ++k) {
    lw[k - 1] = std::lgamma(static_cast<double>(k)) - std::lgamma(static_cast<double>(k - m + 1));
    max_lw = std::max(max_lw, lw[k - 1]);
  }
  double z = 0;
  for (int k = m; k <= n; ++k) z += std::exp(lw[k - 1] - max_lw);
  const double log_z = max_lw + std::log(z);
  double e = 0;
  for (int k = m; k <= n; ++k) {
    const double w = std::exp(lw[k - 1] - log_z);
    if (w == 0) continue;
    e += w * sorted[k - 1];
  }
  return e;
}

}  // namespace bbo::scoring
