#ifndef BBO_COMMON_CLOCK_H_
#define BBO_COMMON_CLOCK_H_

// The coordinator's clock, behind an interface so tests can stall or advance time (the seam for
// budget tests). Thread-safe.

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace bbo {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
  // Seconds since the Unix epoch.
  double NowSeconds() { return absl::ToDoubleSeconds(Now() - absl::UnixEpoch()); }
};

class RealClock : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
};

// A clock that only moves when told to.
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'700'000'000)) : now_(start) {}
  absl::Time Now() override {
    absl::MutexLock l(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock l(&mu_);
    now_ += d;
  }

 private:
  absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bbo

#endif  // BBO_COMMON_CLOCK_H_
