#ifndef BBO_WORKER_OPTIMIZER_HOST_H_
#define BBO_WORKER_OPTIMIZER_HOST_H_

// OptimizerHost: the worker's side of the hosting protocol (docs/hosting-protocol.md) with one
// optimizer process: JSON lines over its stdin/stdout. It does not validate parameter values —
// the coordinator does — only the shape of the messages. Lines on stdout that are not JSON
// objects are skipped (and reported to the callback) without extending any deadline.
//
// Not thread-safe: one host per study, driven by one thread.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/study_budget.h"
#include "nlohmann/json.hpp"
#include "common/child_process.h"
#include "worker/env.h"

namespace bbo {

struct StartInfo {
  nlohmann::json api_config;
  StudyBudget budget;
  double remaining_s = 640;
  // Time allowed to answer `start` with `ready`.
  absl::Duration startup_timeout = absl::Seconds(60);
};

class OptimizerHost {
 public:
  // `env` (not owned; null = Env::Default()) is the clock deadlines and timings use.
  explicit OptimizerHost(std::unique_ptr<ChildProcess> child,
                         LineCallback on_stray_stdout = nullptr, Env* env = nullptr);
  ~OptimizerHost();

  // Sends `start`, waits for `ready`. DeadlineExceeded / Unavailable (with the stderr tail) /
  // InvalidArgument (a reply other than `ready`).
  absl::Status Start(const StartInfo& info);
  // Sends `suggest`, returns the raw points of the `suggestions` reply. Aborted with the
  // optimizer's message for an `error` reply; DeadlineExceeded; Unavailable (process gone);
  // InvalidArgument (malformed reply).
  absl::StatusOr<std::vector<nlohmann::json>> Suggest(int batch, int n, double remaining_s,
                                                      absl::Duration deadline);
  // Sends `observe` (y encoded with "inf" for crashes), waits for `observed`. Same errors.
  absl::Status Observe(int batch, const std::vector<nlohmann::json>& x,
                       const std::vector<double>& y, absl::Duration deadline);
  // Sends `end`, waits up to 2 s for the process to exit, then kills it. Idempotent.
  void End(const std::string& reason);
  // Kills the process now.
  void Kill();

  // Wall time of the last Suggest / Observe as measured here, seconds.
  double last_suggest_seconds() const { return last_suggest_s_; }
  double last_observe_seconds() const { return last_observe_s_; }
  ChildProcess& child() { return *child_; }

 private:
  // Reads lines until a JSON object arrives or the deadline passes.
  absl::StatusOr<nlohmann::json> ReadMessage(absl::Time deadline);
  absl::Status Send(const nlohmann::json& msg);

  std::unique_ptr<ChildProcess> child_;
  LineCallback on_stray_stdout_;
  Env* env_;
  bool ended_ = false;
  double last_suggest_s_ = 0;
  double last_observe_s_ = 0;
};

}  // namespace bbo

#endif  // BBO_WORKER_OPTIMIZER_HOST_H_
