#include "worker/stop_signals.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

// The requests that `signals`, all sent before the first Wait (so a second SIGTERM merges with
// the first, as on a busy host), turn into; the last is kNone (the 200 ms wait ran out).
std::vector<StopRequest> Requests(SigtermMeaning meaning, const std::vector<int>& signals) {
  StopSignals::Block();
  for (int sig : signals) kill(getpid(), sig);
  StopSignals stop(meaning);
  std::vector<StopRequest> out;
  for (int i = 0; i < 4; ++i) {
    out.push_back(stop.Wait(absl::Now() + absl::Milliseconds(200)));
    if (out.back() == StopRequest::kNone) break;
  }
  return out;
}

// Slurm's plain scancel (and its time limit): SIGTERM from slurmstepd to the worker and to its
// batch shell, which forwards it as SIGUSR1. Both pending at once, in either order.
TEST(StopSignalsTest, PlainScancelHandsBackWhateverTheOrder) {
  for (const std::vector<int>& order :
       {std::vector<int>{SIGTERM, SIGUSR1}, std::vector<int>{SIGUSR1, SIGTERM},
        std::vector<int>{SIGTERM, SIGTERM, SIGUSR1}}) {
    std::vector<StopRequest> got = Requests(SigtermMeaning::kHandBack, order);
    EXPECT_NE(std::find(got.begin(), got.end(), StopRequest::kHandBack), got.end());
  }
}

// Why counting SIGTERMs cannot tell a plain scancel: two sent before the first is taken are one.
TEST(StopSignalsTest, TwoSigtermsSentTogetherAreOne) {
  EXPECT_EQ(Requests(SigtermMeaning::kDrain, {SIGTERM, SIGTERM}),
            (std::vector<StopRequest>{StopRequest::kDrain, StopRequest::kNone}));
}

// `scancel --batch --signal=TERM` and `--signal=B:TERM@N`: only the shell's forwarded SIGUSR1.
TEST(StopSignalsTest, ForwardedSignalDrainsWithoutHandingBack) {
  EXPECT_EQ(Requests(SigtermMeaning::kHandBack, {SIGUSR1}),
            (std::vector<StopRequest>{StopRequest::kDrain, StopRequest::kNone}));
  // A second forwarded one changes nothing.
  EXPECT_EQ(Requests(SigtermMeaning::kHandBack, {SIGUSR1, SIGUSR1}),
            (std::vector<StopRequest>{StopRequest::kDrain, StopRequest::kNone}));
}

// The default (Kubernetes, HTCondor): SIGTERM drains, a later one ends the drain.
TEST(StopSignalsTest, DefaultSigtermDrainsAndASecondOneEndsIt) {
  StopSignals::Block();
  StopSignals stop(SigtermMeaning::kDrain);
  kill(getpid(), SIGTERM);
  EXPECT_EQ(stop.Wait(absl::Now() + absl::Seconds(5)), StopRequest::kDrain);
  EXPECT_EQ(stop.Wait(absl::Now() + absl::Milliseconds(100)), StopRequest::kNone);
  std::thread later([] {
    absl::SleepFor(absl::Milliseconds(50));
    kill(getpid(), SIGTERM);
  });
  EXPECT_EQ(stop.Wait(absl::Now() + absl::Seconds(5)), StopRequest::kHandBack);
  later.join();
  // SIGINT is a SIGTERM.
  StopSignals interrupted(SigtermMeaning::kHandBack);
  kill(getpid(), SIGINT);
  EXPECT_EQ(interrupted.Wait(absl::Now() + absl::Seconds(5)), StopRequest::kHandBack);
}

TEST(StopSignalsTest, SlotsDoneWakesTheWaitFromAnotherThread) {
  StopSignals::Block();
  StopSignals stop(SigtermMeaning::kDrain);
  std::thread slot([] {
    absl::SleepFor(absl::Milliseconds(50));
    StopSignals::NotifySlotsDone();
  });
  const absl::Time start = absl::Now();
  EXPECT_EQ(stop.Wait(absl::Now() + absl::Seconds(10)), StopRequest::kSlotsDone);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  slot.join();
}

}  // namespace
}  // namespace bbo
