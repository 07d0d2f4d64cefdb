#ifndef BBO_SERVER_METRICS_H_
#define BBO_SERVER_METRICS_H_

// The coordinator's operational metrics, rendered in the Prometheus text exposition format
// (version 0.0.4) for `bbo-server --metrics_listen`: RPC latency histograms per method, study
// ends by state and reason (the sandbox's limit kills among them), submissions by event, plus
// gauges read at scrape time (queue depth, leases, running studies, workers, epoch).
// (No Prometheus client library is packaged in Debian 12; the text format is small and fixed.)
//
// Thread-safe.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace bbo {

// Values read when /metrics is scraped.
struct MetricsGauges {
  int64_t jobs_queued = 0;
  int64_t jobs_leased = 0;
  int64_t jobs_done = 0;
  int64_t jobs_failed = 0;  // lost to the platform (not withdrawn)
  int64_t jobs_withdrawn = 0;
  int64_t running_studies = 0;
  int64_t workers = 0;  // registered with this coordinator since it started
  int64_t epoch = 0;
  // Notifications (server/notifications.h) by channel ("email", "webhook"): deliveries sent,
  // and failed after every attempt or refused. Empty when notifications are off.
  struct Deliveries {
    int64_t sent = 0;
    int64_t failed = 0;
  };
  std::map<std::string, Deliveries> notifications;
};

class Metrics {
 public:
  // Upper bounds of the latency buckets, seconds (plus +Inf).
  static constexpr std::array<double, 14> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  // One call of RPC `method` took `seconds`.
  void ObserveRpc(absl::string_view method, double seconds);
  // A study ended in `state` ("completed", "cut_off", "failed", "abandoned") for `reason`
  // (classified by ReasonClass).
  void CountStudyEnd(absl::string_view state, absl::string_view reason);
  // A submission event: "accepted", "refused", or the state it ended in: "finished", "partial",
  // "failed", "withdrawn" (server/submission_state.h).
  void CountSubmission(absl::string_view event);

  // The exposition text.
  std::string Render(const MetricsGauges& gauges);
  // The notification counters of `gauges` (none when notifications are off).
  static std::string RenderNotifications(const MetricsGauges& gauges);

  // A study end's reason as a label: "memory_limit", "task_limit", "optimizer_died",
  // "start_failed", "time_budget", "coordinator_restarted", "worker_lost", "done" or "other".
  static std::string ReasonClass(absl::string_view state, absl::string_view reason);

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};  // cumulative at render time
    uint64_t count = 0;
    double sum = 0;
  };
  absl::Mutex mu_;
  std::map<std::string, Histogram> rpc_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, uint64_t> study_ends_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> submissions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bbo

#endif  // BBO_SERVER_METRICS_H_
