#include "server/rpc/rate_limiter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bbo::rpc {

absl::Status RateLimiter::Take(const std::string& key, absl::Time now) {
  if (rate_ <= 0) return absl::OkStatus();
  absl::MutexLock l(&mu_);
  if (++calls_since_cleanup_ >= 10000) {
    calls_since_cleanup_ = 0;
    const absl::Duration full = absl::Seconds(burst_ / rate_);
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      it = now - it->second.last > full ? buckets_.erase(it) : std::next(it);
    }
  }
  auto [it, fresh] = buckets_.try_emplace(key);
  Bucket& b = it->second;
  if (fresh) {
    b.tokens = burst_;
  } else {
    b.tokens = std::min(burst_, b.tokens + rate_ * absl::ToDoubleSeconds(now - b.last));
  }
  b.last = now;
  if (b.tokens < 1) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "rate limit: at most %g calls per second (bursts of %g) for %s; slow down and retry",
        rate_, burst_, key));
  }
  b.tokens -= 1;
  return absl::OkStatus();
}

}  // namespace bbo::rpc
