#ifndef BBO_WORKER_OPTIMIZER_HOST_H_
#define BBO_WORKER_OPTIMIZER_HOST_H_

// OptimizerHost: the worker's side of the hosting protocol (docs/hosting-protocol.md) with one
// optimizer process: JSON lines over its stdin/stdout. It does not validate parameter values —
// the coordinator does — only the shape of the messages. Lines on stdout that are not JSON
// objects are skipped (and reported to the callback) without extending any deadline, up to
// kMaxStrayStdoutBytes per study: a reply after more is ResourceExhausted ("the optimizer wrote
// over 64 MiB to stdout outside the protocol; print to stderr or log less"). A line without a
// bracket is skipped without being parsed, at the speed of a memory scan.
//
// Nothing the optimizer prints is trusted ("Limits" in docs/hosting-protocol.md): a line longer
// than kMaxLineBytes or nested deeper than kMaxDepth is refused before it is parsed; a message is
// parsed keeping at most kMaxValues values and at most n + 1 points of a `suggestions` reply
// (the rest is discarded unread); every field read is type-checked, a wrong type being an
// InvalidArgument "invalid reply: field 'x' must be an array, got string"; the optimizer's text
// (error messages, its stderr tail) is cut on a UTF-8 boundary and made valid UTF-8. No
// exception leaves this class.
//
// Not thread-safe: one host per study, driven by one thread.

#include <cstdint>
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

// Limits on what an optimizer prints (documented in docs/hosting-protocol.md, "Limits").
// Longest stdout line, bytes: a longer one means the optimizer is treated as dead (the line
// reader cannot resynchronise). The sandbox sets ProcessSpec::max_line_bytes to it.
inline constexpr size_t kMaxLineBytes = 16u << 20;
// Deepest nesting of arrays and objects in one line.
inline constexpr int kMaxDepth = 64;
// Most JSON values (scalars and containers) kept from one message.
inline constexpr size_t kMaxValues = 100000;
// Longest optimizer-supplied text (an `error` message, a string in a point) kept, bytes.
inline constexpr size_t kMaxMessageBytes = 4u << 10;
// Most a study may print on stdout outside the protocol (lines that are not JSON objects, each
// newline counted), bytes: past it the optimizer is treated as dead and told why (the flood
// would otherwise be read on the study's clock).
inline constexpr uint64_t kMaxStrayStdoutBytes = 64u << 20;
// How much of the optimizer's stderr tail a failure message quotes, bytes.
inline constexpr size_t kQuotedStderrBytes = 2u << 10;

struct StartInfo {
  nlohmann::json api_config;
  StudyBudget budget;
  double remaining_s = 640;
  // Time allowed to answer `start` with `ready` (the start-up budget; not charged to batch 0).
  absl::Duration startup_timeout = absl::Seconds(60);
};

class OptimizerHost {
 public:
  // `env` (not owned; null = Env::Default()) is the clock deadlines and timings use.
  explicit OptimizerHost(std::unique_ptr<ChildProcess> child,
                         LineCallback on_stray_stdout = nullptr, Env* env = nullptr);
  ~OptimizerHost();

  // Sends `start`, waits for `ready`. DeadlineExceeded / Unavailable (with the stderr tail) /
  // InvalidArgument (a reply other than `ready`) / ResourceExhausted (a line over
  // kMaxLineBytes, or over kMaxStrayStdoutBytes printed outside the protocol; so for Suggest
  // and Observe).
  absl::Status Start(const StartInfo& info);
  // Sends `suggest`, returns the raw points of the `suggestions` reply: at most n + 1 of them
  // (one more than asked, so the coordinator records that there were extras), each as printed
  // except that strings are cut to kMaxMessageBytes. Points are not checked here: a point that
  // is not an object, or a value that is not a bool, number or string, is the coordinator's to
  // report and replace. Aborted with the optimizer's message (cut to kMaxMessageBytes) for an
  // `error` reply; DeadlineExceeded; Unavailable (process gone); ResourceExhausted (a line over
  // kMaxLineBytes: treat the optimizer as dead); InvalidArgument (a malformed reply: a wrong
  // type, too deep, too many values, another message type).
  absl::StatusOr<std::vector<nlohmann::json>> Suggest(int batch, int n, double remaining_s,
                                                      absl::Duration deadline);
  // Sends `observe` (y encoded with "inf" for crashes), waits for `observed`. Same errors.
  // Unlike the others, Observe is not bounded by the optimizer's output: the worker's own
  // message (up to n points) is written whole.
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
  // Reads lines until a JSON object arrives or the deadline passes. Keeps at most
  // `max_points` elements of a top-level `x` array. The returned object has a string `type`.
  absl::StatusOr<nlohmann::json> ReadMessage(absl::Time deadline, size_t max_points = 0);
  // Counts `line` (not a protocol message) against kMaxStrayStdoutBytes and reports it to the
  // callback; ResourceExhausted past the bound.
  absl::Status CountStray(const std::string& line);
  // The stderr tail for a failure message: its last kQuotedStderrBytes, valid UTF-8.
  std::string QuotedStderr();
  absl::Status Send(const nlohmann::json& msg);

  std::unique_ptr<ChildProcess> child_;
  LineCallback on_stray_stdout_;
  Env* env_;
  bool ended_ = false;
  double last_suggest_s_ = 0;
  double last_observe_s_ = 0;
  // Bytes printed outside the protocol so far (see kMaxStrayStdoutBytes).
  uint64_t stray_bytes_ = 0;
};

}  // namespace bbo

#endif  // BBO_WORKER_OPTIMIZER_HOST_H_
