#include "scoring/estimators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "boost/math/distributions/binomial.hpp"
#include "boost/math/distributions/students_t.hpp"

namespace bbo::scoring {
namespace {

absl::Status CheckSample(const std::vector<double>& X) {
  if (X.empty()) return absl::InvalidArgumentError("X: the sample is empty");
  for (double x : X) {
    if (std::isnan(x)) return absl::InvalidArgumentError("X: contains NaN");
  }
  return absl::OkStatus();
}

absl::Status CheckAlpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("alpha: ", alpha, " is not in (0, 1)"));
  }
  return absl::OkStatus();
}

// The smallest k in [0, n] with P(K <= k) >= p for K ~ Binomial(n, q).
long BinomialPpf(double p, long n, double q) {
  boost::math::binomial_distribution<double> dist(static_cast<double>(n), q);
  long lo = 0, hi = n;
  while (lo < hi) {  // P(K <= k) is nondecreasing in k
    long mid = lo + (hi - lo) / 2;
    if (boost::math::cdf(dist, static_cast<double>(mid)) >= p) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

namespace {

// The CI order-statistic indices for (n, q, alpha), memoized per thread (they depend on nothing
// else, and the binomial search is the expensive part).
std::pair<long, long> CiIndices(long n, double q, double alpha) {
  thread_local std::map<std::tuple<long, double, double>, std::pair<long, long>> memo;
  auto key = std::make_tuple(n, q, alpha);
  auto it = memo.find(key);
  if (it == memo.end()) {
    it = memo.emplace(key, std::make_pair(std::max(0L, BinomialPpf(alpha / 2, n, q)),
                                          std::max(0L, BinomialPpf(1 - alpha / 2, n, q)) + 1))
             .first;
  }
  return it->second;
}

// o[i] of the padded order statistics (o[0] = -inf, o[n+1] = +inf) of ascending `sorted`.
double PaddedOrderStat(const std::vector<double>& sorted, long i) {
  const long n = static_cast<long>(sorted.size());
  if (i <= 0) return -HUGE_VAL;
  if (i > n) return HUGE_VAL;
  return sorted[static_cast<size_t>(i - 1)];
}

}  // namespace

// (The report takes three order statistics from each of tens of thousands of samples: sorting
// each was a tenth of its time.)
void SelectOrderStats(std::vector<double>& v, std::vector<long> ks) {
  std::sort(ks.begin(), ks.end());
  auto from = v.begin();
  for (long k : ks) {
    if (k < 1 || k > static_cast<long>(v.size()) || v.begin() + (k - 1) < from) continue;
    std::nth_element(from, v.begin() + (k - 1), v.end());
    from = v.begin() + k;
  }
}

absl::StatusOr<QuantileWithCI> QuantileAndCI(const std::vector<double>& X, double q,
                                             double alpha) {
  if (absl::Status s = CheckSample(X); !s.ok()) return s;
  if (!(q > 0 && q < 1)) return absl::InvalidArgumentError(absl::StrCat("q: ", q, " is not in (0, 1)"));
  if (absl::Status s = CheckAlpha(alpha); !s.ok()) return s;
  std::vector<double> sorted = X;  // sorted at the three order statistics taken
  const long n = static_cast<long>(sorted.size());
  auto [lower, upper] = CiIndices(n, q, alpha);
  const long middle = static_cast<long>(std::ceil(n * q));
  SelectOrderStats(sorted, {lower, middle, upper});
  QuantileWithCI out;
  out.estimate = PaddedOrderStat(sorted, middle);
  out.ci = Interval{PaddedOrderStat(sorted, lower), PaddedOrderStat(sorted, upper)};
  return out;
}

absl::StatusOr<Interval> QuantileCI(const std::vector<double>& X, double q, double alpha) {
  absl::StatusOr<QuantileWithCI> r = QuantileAndCI(X, q, alpha);
  if (!r.ok()) return r.status();
  return r->ci;
}

absl::StatusOr<Interval> MinQuantileCI(const std::vector<double>& X, double q, int m,
                                       double alpha) {
  if (m < 1) return absl::InvalidArgumentError(absl::StrCat("m: ", m, " is below 1"));
  if (!(q > 0 && q < 1)) return absl::InvalidArgumentError(absl::StrCat("q: ", q, " is not in (0, 1)"));
  return QuantileCI(X, -std::expm1(std::log1p(-q) / m), alpha);
}

absl::StatusOr<double> StudentTErrorBar(const std::vector<double>& X, double alpha) {
  if (X.empty()) return absl::InvalidArgumentError("X: the sample is empty");
  if (absl::Status s = CheckAlpha(alpha); !s.ok()) return s;
  const size_t n = X.size();
  if (n <= 1) return HUGE_VAL;
  double mean = 0;
  for (double x : X) mean += x;
  mean /= static_cast<double>(n);
  double ss = 0;
  for (double x : X) ss += (x - mean) * (x - mean);
  const double sem = std::sqrt(ss / static_cast<double>(n - 1)) / std::sqrt(static_cast<double>(n));
  boost::math::students_t_distribution<double> t(static_cast<double>(n - 1));
  return sem * boost::math::quantile(t, 1 - alpha / 2);
}

absl::StatusOr<double> Quantile(const std::vector<double>& X, double q) {
  if (absl::Status s = CheckSample(X); !s.ok()) return s;
  if (!(q > 0 && q < 1)) return absl::InvalidArgumentError(absl::StrCat("q: ", q, " is not in (0, 1)"));
  std::vector<double> sorted = X;  // sorted at the order statistic taken
  const double n = static_cast<double>(sorted.size());
  const long idx = static_cast<long>(std::ceil(n * q));  // 1-based order statistic
  if (idx <= 0) return -std::numeric_limits<double>::infinity();
  const long k = std::min<long>(idx, static_cast<long>(sorted.size()));
  SelectOrderStats(sorted, {k});
  return sorted[static_cast<size_t>(k - 1)];
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
  return ExpectedMinSortedDesc(sorted, m);
}

double ExpectedMinSortedDesc(const std::vector<double>& desc, int m) {
  // Weights w_k = C(k-1, m-1) / C(n, m), k = m..n (1-based), built from the largest one (k = n,
  // set to 1) down through w_{k-1} / w_k = (k - m) / (k - 1) < 1: no overflow. Normalized at the
  // end. The weights only decrease, so once w times the number of weights left is below 2^-64
  // of their sum so far, the rest cannot move the result by more than 2^-64 of the values'
  // range: the loop stops there (for m in the hundreds that skips most of a large sample).
  const int n = static_cast<int>(desc.size());
  constexpr double kNegligible = 0x1p-64;
  double w = 1, z = 0, e = 0;
  for (int k = n; k >= m && w > 0; --k) {
    z += w;
    e += w * desc[k - 1];
    if (w * static_cast<double>(k - m) < kNegligible * z) break;
    if (k > m) w *= static_cast<double>(k - m) / (k - 1);
  }
  return e / z;
}

}  // namespace bbo::scoring
