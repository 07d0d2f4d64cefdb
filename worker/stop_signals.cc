#include "worker/stop_signals.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <ctime>

#include "absl/time/clock.h"

namespace bbo {
namespace {

sigset_t StopSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2}) sigaddset(&set, sig);
  return set;
}

}  // namespace

void StopSignals::Block() {
  const sigset_t set = StopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void StopSignals::NotifySlotsDone() { kill(getpid(), SIGUSR2); }

StopRequest StopSignals::Classify(int sig) {
  switch (sig) {
    case SIGUSR2:
      return StopRequest::kSlotsDone;
    case SIGUSR1:
      if (draining_) return StopRequest::kNone;
      draining_ = true;
      return StopRequest::kDrain;
    case SIGTERM:
    case SIGINT:
      if (sigterm_ == SigtermMeaning::kHandBack || draining_) return StopRequest::kHandBack;
      draining_ = true;
      return StopRequest::kDrain;
    default:
      return StopRequest::kNone;
  }
}

StopRequest StopSignals::Wait(absl::Time deadline) {
  const sigset_t set = StopSet();
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return StopRequest::kNone;
    const timespec ts = absl::ToTimespec(std::min(left, absl::Hours(1)));
    const int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig < 0) continue;  // EAGAIN at the timeout, EINTR: the loop checks the deadline
    const StopRequest request = Classify(sig);
    if (request != StopRequest::kNone) return request;
  }
}

}  // namespace bbo
