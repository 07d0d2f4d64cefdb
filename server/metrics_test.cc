#include "server/metrics.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Latencies land in the first bucket whose bound they do not exceed; the rendered buckets are
// cumulative, +Inf equals the count and the sum is the total (values worked out by hand).
TEST(MetricsTest, RpcHistogramsAreCumulativeWithSumAndCount) {
  Metrics m;
  m.ObserveRpc("SubmitBatch", 0.0004);  // <= 0.0005
  m.ObserveRpc("SubmitBatch", 0.0005);  // <= 0.0005 (bounds are inclusive)
  m.ObserveRpc("SubmitBatch", 0.003);   // <= 0.005
  m.ObserveRpc("SubmitBatch", 60);      // only +Inf
  const std::string text = m.Render({});
  EXPECT_THAT(text, HasSubstr("# TYPE bbo_rpc_duration_seconds histogram\n"));
  EXPECT_THAT(
      text, HasSubstr("bbo_rpc_duration_seconds_bucket{method=\"SubmitBatch\",le=\"0.0005\"} 2\n"));
  EXPECT_THAT(
      text, HasSubstr("bbo_rpc_duration_seconds_bucket{method=\"SubmitBatch\",le=\"0.0025\"} 2\n"));
  EXPECT_THAT(
      text, HasSubstr("bbo_rpc_duration_seconds_bucket{method=\"SubmitBatch\",le=\"0.005\"} 3\n"));
  EXPECT_THAT(text,
              HasSubstr("bbo_rpc_duration_seconds_bucket{method=\"SubmitBatch\",le=\"10\"} 3\n"));
  EXPECT_THAT(text,
              HasSubstr("bbo_rpc_duration_seconds_bucket{method=\"SubmitBatch\",le=\"+Inf\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("bbo_rpc_duration_seconds_sum{method=\"SubmitBatch\"} 60.0039\n"));
  EXPECT_THAT(text, HasSubstr("bbo_rpc_duration_seconds_count{method=\"SubmitBatch\"} 4\n"));
}

TEST(MetricsTest, GaugesStudyEndsAndSubmissionsAreRendered) {
  Metrics m;
  m.CountStudyEnd("failed", "batch 3: optimizer exceeded its 4 GiB memory limit (killed)");
  m.CountStudyEnd("failed", "batch 3: optimizer exceeded its 4 GiB memory limit (killed)");
  m.CountStudyEnd("failed", "batch 1: optimizer reached its 256-process limit");
  m.CountStudyEnd("cut_off", "batch 2 took 41 s of its 40 s");
  m.CountStudyEnd("abandoned", "coordinator restarted");
  m.CountSubmission("accepted");
  MetricsGauges g;
  g.jobs_queued = 7;
  g.epoch = 3;
  const std::string text = m.Render(g);
  EXPECT_THAT(text, HasSubstr("# TYPE bbo_jobs_queued gauge\nbbo_jobs_queued 7\n"));
  EXPECT_THAT(text, HasSubstr("bbo_coordinator_epoch 3\n"));
  EXPECT_THAT(text,
              HasSubstr("bbo_study_ends_total{state=\"failed\",reason=\"memory_limit\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("bbo_study_ends_total{state=\"failed\",reason=\"task_limit\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("bbo_study_ends_total{state=\"cut_off\",reason=\"time_budget\"} 1\n"));
  EXPECT_THAT(
      text,
      HasSubstr("bbo_study_ends_total{state=\"abandoned\",reason=\"coordinator_restarted\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bbo_submissions_total{event=\"accepted\"} 1\n"));
  // Labels never carry the free text of a reason.
  EXPECT_THAT(text, Not(HasSubstr("GiB")));
}

}  // namespace
}  // namespace bbo
