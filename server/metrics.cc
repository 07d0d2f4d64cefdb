#include "server/metrics.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bbo {

void Metrics::ObserveRpc(absl::string_view method, double seconds) {
  absl::MutexLock l(&mu_);
  Histogram& h = rpc_[std::string(method)];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++h.buckets[i];
      break;
    }
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::CountStudyEnd(absl::string_view state, absl::string_view reason) {
  absl::MutexLock l(&mu_);
  ++study_ends_[{std::string(state), ReasonClass(state, reason)}];
}

void Metrics::CountSubmission(absl::string_view event) {
  absl::MutexLock l(&mu_);
  ++submissions_[std::string(event)];
}

std::string Metrics::ReasonClass(absl::string_view state, absl::string_view reason) {
  if (absl::StrContains(reason, "memory limit")) return "memory_limit";
  if (absl::StrContains(reason, "-process limit") || absl::StrContains(reason, "task limit")) {
    return "task_limit";
  }
  if (absl::StrContains(reason, "failed to start")) return "start_failed";
  if (absl::StrContains(reason, "optimizer died")) return "optimizer_died";
  if (reason == "coordinator restarted") return "coordinator_restarted";
  if (absl::StrContains(reason, "lease expired") || absl::StrContains(reason, "host error")) {
    return "worker_lost";
  }
  if (state == "cut_off") return "time_budget";
  if (state == "completed") return "done";
  return "other";
}

std::string Metrics::RenderNotifications(const MetricsGauges& g) {
  if (g.notifications.empty()) return "";
  std::string out;
  auto counter = [&](const char* name, const char* help, int64_t MetricsGauges::Deliveries::*v) {
    absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " counter\n");
    for (const auto& [channel, d] : g.notifications) {
      absl::StrAppend(&out, name, "{channel=\"", channel, "\"} ", d.*v, "\n");
    }
  };
  counter("bbo_notifications_sent_total", "Notifications delivered to teams, by channel.",
          &MetricsGauges::Deliveries::sent);
  counter("bbo_notifications_failed_total",
          "Notifications not delivered (after every attempt, or refused), by channel.",
          &MetricsGauges::Deliveries::failed);
  return out;
}

std::string Metrics::Render(const MetricsGauges& g) {
  std::string out;
  auto gauge = [&](const char* name, const char* help, int64_t v) {
    absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " gauge\n", name, " ", v,
                    "\n");
  };
  gauge("bbo_jobs_queued", "Jobs waiting for a worker.", g.jobs_queued);
  gauge("bbo_jobs_leased", "Jobs leased by a worker (their studies run).", g.jobs_leased);
  gauge("bbo_jobs_done", "Jobs with their final study.", g.jobs_done);
  gauge("bbo_jobs_failed",
        "Jobs lost to the platform without a final study (organizers can requeue them).",
        g.jobs_failed);
  gauge("bbo_jobs_withdrawn", "Jobs cancelled because their submission was withdrawn.",
        g.jobs_withdrawn);
  gauge("bbo_running_studies", "Studies running on this coordinator.", g.running_studies);
  gauge("bbo_workers", "Workers registered with this coordinator since it started.", g.workers);
  gauge("bbo_coordinator_epoch", "Starts of the coordinator on this database.", g.epoch);
  absl::StrAppend(&out, RenderNotifications(g));

  absl::MutexLock l(&mu_);
  absl::StrAppend(&out,
                  "# HELP bbo_rpc_duration_seconds Time to answer a gRPC call, by method.\n"
                  "# TYPE bbo_rpc_duration_seconds histogram\n");
  for (const auto& [method, h] : rpc_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      absl::StrAppend(&out, "bbo_rpc_duration_seconds_bucket{method=\"", method, "\",le=\"",
                      absl::StrFormat("%g", kBuckets[i]), "\"} ", cumulative, "\n");
    }
    absl::StrAppend(&out, "bbo_rpc_duration_seconds_bucket{method=\"", method, "\",le=\"+Inf\"} ",
                    h.count, "\n");
    absl::StrAppend(&out, "bbo_rpc_duration_seconds_sum{method=\"", method, "\"} ",
                    absl::StrFormat("%.9g", h.sum), "\n");
    absl::StrAppend(&out, "bbo_rpc_duration_seconds_count{method=\"", method, "\"} ", h.count,
                    "\n");
  }
  absl::StrAppend(&out,
                  "# HELP bbo_study_ends_total Studies ended, by state and reason (the "
                  "sandbox's memory and task limit kills among them).\n"
                  "# TYPE bbo_study_ends_total counter\n");
  for (const auto& [key, n] : study_ends_) {
    absl::StrAppend(&out, "bbo_study_ends_total{state=\"", key.first, "\",reason=\"", key.second,
                    "\"} ", n, "\n");
  }
  absl::StrAppend(&out,
                  "# HELP bbo_submissions_total Submissions accepted, refused, finished "
                  "(every job with its final study) or incomplete (some jobs failed).\n"
                  "# TYPE bbo_submissions_total counter\n");
  for (const auto& [event, n] : submissions_) {
    absl::StrAppend(&out, "bbo_submissions_total{event=\"", event, "\"} ", n, "\n");
  }
  return out;
}

}  // namespace bbo
