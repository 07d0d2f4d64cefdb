#ifndef BBO_SERVER_RPC_RATE_LIMITER_H_
#define BBO_SERVER_RPC_RATE_LIMITER_H_

// RateLimiter: a token bucket per caller (an identity, or an anonymous caller's address), so
// that no one caller can flood the coordinator: each call takes one token; a bucket holds at
// most `burst` tokens and refills at `per_second`. Buckets idle long enough to be full again are
// forgotten. Thread-safe.

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace bbo::rpc {

class RateLimiter {
 public:
  // `per_second` <= 0: no limit.
  RateLimiter(double per_second, double burst) : rate_(per_second), burst_(burst) {}

  // OK, or ResourceExhausted naming the limit and the caller, for a call by `key` at `now`.
  absl::Status Take(const std::string& key, absl::Time now);

 private:
  struct Bucket {
    double tokens = 0;
    absl::Time last;
  };
  const double rate_;
  const double burst_;
  absl::Mutex mu_;
  std::map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
  int calls_since_cleanup_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_RATE_LIMITER_H_
