#ifndef BBO_WORKER_STOP_SIGNALS_H_
#define BBO_WORKER_STOP_SIGNALS_H_

// StopSignals: what the signals a worker receives ask of it, read synchronously (sigtimedwait)
// on the main thread.
//
//   SIGUSR1                 start a drain: take no new job, let the running studies finish.
//   SIGTERM, SIGINT         with SigtermMeaning::kDrain (the default: Kubernetes, HTCondor,
//                           docker stop send one SIGTERM): the first starts a drain, the next
//                           one ends it. With kHandBack: hand every study back at once.
//   SIGUSR2                 the worker's own wake-up: every job loop has exited.
//
// Why two signals and not "a second SIGTERM": a standard signal is pending at most once, so two
// SIGTERMs that arrive before the first is taken (Slurm's plain `scancel` signals every process
// of the job, the worker and its batch shell that forwards it, milliseconds apart) are one. A
// SIGUSR1 and a SIGTERM never merge: the Slurm script forwards its shell's SIGTERM as SIGUSR1
// and runs the worker with kHandBack, so a SIGTERM straight from Slurm (plain scancel, the time
// limit) hands back, whatever the order of the two, and one through the shell
// (`scancel --batch --signal=TERM`, `--signal=B:TERM@N`) drains.
//
// Not thread-safe: one instance, used by the main thread. Block() must run before any other
// thread starts (threads inherit the mask, and a signal not blocked in some thread may be
// delivered there and kill the process).

#include <csignal>

#include "absl/time/time.h"

namespace bbo {

enum class SigtermMeaning { kDrain, kHandBack };

enum class StopRequest {
  kNone,       // the deadline passed
  kDrain,      // start a drain
  kHandBack,   // hand the studies back now (or end the drain)
  kSlotsDone,  // every job loop has exited
};

class StopSignals {
 public:
  // Blocks SIGTERM, SIGINT, SIGUSR1 and SIGUSR2 in the calling thread.
  static void Block();
  // Wakes Wait (SIGUSR2 to this process); async-signal-safe, callable from any thread.
  static void NotifySlotsDone();

  explicit StopSignals(SigtermMeaning sigterm) : sigterm_(sigterm) {}

  // The next request, waiting until `deadline` (kNone then). A drain asked for while draining
  // is not repeated (the wait goes on).
  StopRequest Wait(absl::Time deadline);

  bool draining() const { return draining_; }

 private:
  // What signal `sig` asks now; kNone when nothing new.
  StopRequest Classify(int sig);

  SigtermMeaning sigterm_;
  bool draining_ = false;
};

}  // namespace bbo

#endif  // BBO_WORKER_STOP_SIGNALS_H_
