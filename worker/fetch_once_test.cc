#include "worker/fetch_once.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

TEST(FetchOnceTest, ConcurrentCallersOfOneKeyShareOneFetch) {
  FetchOnce once;
  std::atomic<int> fetches{0};
  absl::Notification started, release;
  auto fetch = [&]() -> absl::StatusOr<std::string> {
    ++fetches;
    started.Notify();
    release.WaitForNotificationWithTimeout(absl::Seconds(30));
    return std::string("dir");
  };
  absl::StatusOr<std::string> a, b;
  std::thread ta([&] { a = once.Get("k", fetch); });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  std::thread tb([&] { b = once.Get("k", fetch); });
  absl::SleepFor(absl::Milliseconds(100));
  release.Notify();
  ta.join();
  tb.join();
  EXPECT_EQ(fetches.load(), 1);
  EXPECT_EQ(*a, "dir");
  EXPECT_EQ(*b, "dir");
}

TEST(FetchOnceTest, OtherKeysDoNotWaitForAStuckFetch) {
  FetchOnce once;
  absl::Notification started, release;
  std::thread stuck([&] {
    once.Get("a", [&]() -> absl::StatusOr<std::string> {
          started.Notify();
          release.WaitForNotificationWithTimeout(absl::Seconds(30));
          return std::string("a");
        }).IgnoreError();
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::StatusOr<std::string> b = once.Get("b", [] { return absl::StatusOr<std::string>("b"); });
  release.Notify();
  stuck.join();
  EXPECT_EQ(*b, "b");
}

// A failed fetch is not handed to its waiters as theirs: each then fetches itself.
TEST(FetchOnceTest, WaitersOfAFailedFetchFetchThemselves) {
  FetchOnce once;
  absl::Notification started, release;
  absl::StatusOr<std::string> failed;
  std::thread first([&] {
    failed = once.Get("k", [&]() -> absl::StatusOr<std::string> {
      started.Notify();
      release.WaitForNotificationWithTimeout(absl::Seconds(30));
      return absl::FailedPreconditionError("the first caller's lease is gone");
    });
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::StatusOr<std::string> second;
  std::thread waiter([&] {
    second = once.Get("k", [] { return absl::StatusOr<std::string>("dir"); });
  });
  absl::SleepFor(absl::Milliseconds(100));
  release.Notify();
  first.join();
  waiter.join();
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, "dir");
}

}  // namespace
}  // namespace bbo
