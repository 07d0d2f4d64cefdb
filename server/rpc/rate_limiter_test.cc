#include "server/rpc/rate_limiter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::rpc {
namespace {

TEST(RateLimiterTest, ABurstThenTheRefillRatePerCaller) {
  RateLimiter limiter(/*per_second=*/10, /*burst=*/5);
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.Take("team:a", t0).ok()) << i;
  absl::Status sixth = limiter.Take("team:a", t0);
  EXPECT_TRUE(absl::IsResourceExhausted(sixth));
  EXPECT_THAT(sixth.message(), ::testing::HasSubstr("at most 10 calls per second"));
  EXPECT_THAT(sixth.message(), ::testing::HasSubstr("team:a"));
  // Another caller has its own bucket.
  EXPECT_TRUE(limiter.Take("team:b", t0).ok());
  // 0.1 s later one token is back (10 per second), not two.
  EXPECT_TRUE(limiter.Take("team:a", t0 + absl::Milliseconds(100)).ok());
  EXPECT_FALSE(limiter.Take("team:a", t0 + absl::Milliseconds(100)).ok());
  // Idle for long, the bucket is full again but never above the burst.
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.Take("team:a", t0 + absl::Seconds(60)).ok());
  EXPECT_FALSE(limiter.Take("team:a", t0 + absl::Seconds(60)).ok());
}

TEST(RateLimiterTest, ZeroRateMeansNoLimit) {
  RateLimiter limiter(0, 0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.Take("x", absl::UnixEpoch()).ok());
}

}  // namespace
}  // namespace bbo::rpc
