#ifndef BBO_PROBLEMS_EXTERNAL_PROBLEM_H_
#define BBO_PROBLEMS_EXTERNAL_PROBLEM_H_

// ExternalProblem: a Problem computed by an organizer's executable that speaks the JSON-lines
// protocol "bbo-problem/1" (docs/external-problems.md) on its stdin/stdout. The executable is
// organizer code: it runs outside the participants' sandbox, in its own process group, with a
// time limit per request.
//
// Containment. An evaluation never throws and never blocks longer than its time limit (plus the
// time to kill and reap the process group). Every point of a failed request gets +inf and one
// error is recorded (errors(), and spdlog::error):
//   - the process exits or is killed mid-request: the process is discarded and a new one is
//     started (describe handshake again) by the next request;
//   - no complete reply within the time limit: the whole process group is SIGKILLed, restarted
//     by the next request;
//   - garbage (not JSON, not an object, wrong number of values, a value that is not a number,
//     "inf" or "nan", a mismatched "id"): the error names what was wrong; the process is
//     discarded and restarted by the next request (its stdout can no longer be trusted);
//   - an {"error": "..."} reply: the problem itself reports a failure; the process is kept.
// A restarted process must describe the same name and api_config, else it counts as a failed
// start. After `max_consecutive_start_failures` failed starts in a row the problem is "broken":
// later evaluations return +inf at once, without starting processes.
// The child's stderr is drained continuously by a thread (it can never fill a pipe); its last
// 4 KiB go into crash errors, and optionally everything up to a byte cap into a log file.
//
// Lifetime. Every process dies with the process that hosts the ExternalProblem, even when that
// host is SIGKILLed (ProcessSpec::die_with_host); an idle process stays alive after the thread
// that started it has ended.
//
// Thread safety: thread-safe. Up to `max_processes` requests run at once, each on its own child
// process (started on demand); further callers wait for a free process. The internal mutex only
// guards the pool of idle processes and the error list: it is never held while a child computes.
// The destructor must not run concurrently with an evaluation.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "common/child_process.h"
#include "problems/external/protocol.h"
#include "problems/problem.h"

namespace bbo {

namespace external {
class ProblemProcess;
class StderrLog;
}  // namespace external

struct ExternalProblemOptions {
  // The command. argv[0] is an absolute path, a path containing '/' (relative to `working_dir`),
  // or a bare name searched on the PATH given in `env`. Required.
  std::vector<std::string> argv;
  // Working directory of the child. Default: empty = the coordinator's.
  std::string working_dir;
  // The child's complete environment, "KEY=value"; nothing is inherited from the coordinator.
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8",
                                  "PYTHONDONTWRITEBYTECODE=1"};
  // From exec to the describe reply, for the first start and for every restart. Default 30 s.
  absl::Duration startup_time_limit = absl::Seconds(30);
  // Time limit of an evaluate request, per point: a request with n points may take n times
  // this before the process group is killed. Default 60 s.
  absl::Duration evaluate_time_limit = absl::Seconds(60);
  // Child processes alive at once (>= 1), started on demand, idle ones kept. Concurrent calls
  // beyond it wait. Default 1.
  int max_processes = 1;
  // Failed (re)starts in a row after which the problem is marked broken (>= 1). Default 3.
  int max_consecutive_start_failures = 3;
  // If not empty, the children's stderr is appended to this file, at most
  // `stderr_log_limit_bytes` bytes over the problem's lifetime; the rest is dropped.
  std::string stderr_log_path;
  uint64_t stderr_log_limit_bytes = 16ull << 20;
  // RLIMIT_AS of the child, bytes. Default 0 = unchanged.
  uint64_t address_space_bytes = 0;
  // How many of the latest errors errors() keeps. Default 100.
  size_t max_recorded_errors = 100;
  // Starts the processes (not owned; the seam for fault injection). Default null = the real
  // PosixProcessLauncher.
  ProcessLauncher* launcher = nullptr;
};

class ExternalProblem : public Problem {
 public:
  // Starts the first process and runs the describe handshake. Errors:
  //   InvalidArgument: empty argv, argv[0] not found or not executable, a describe reply that
  //     is not valid (the message names the field and why), an unsupported protocol version;
  //   DeadlineExceeded: no describe reply within startup_time_limit;
  //   Unavailable: the process exited before answering (the message has its stderr tail);
  //   ResourceExhausted: fork/pipe failed.
  static absl::StatusOr<std::unique_ptr<ExternalProblem>> Start(ExternalProblemOptions options);

  // Asks every idle process to exit, then kills the process groups still alive after 2 s.
  ~ExternalProblem() override;

  ExternalProblem(const ExternalProblem&) = delete;
  ExternalProblem& operator=(const ExternalProblem&) = delete;

  // From the describe reply.
  const std::string& name() const override { return name_; }
  const SearchSpace& space() const override { return space_; }
  std::optional<double> known_optimum() const override { return known_optimum_; }
  std::string description() const override { return description_; }
  std::vector<std::string> attributes() const override { return attributes_; }
  // "family" of the describe reply; "external" when it has none.
  std::string family() const override { return family_; }

  // One point, one request. Never throws; +inf on failure (see the file comment).
  double Evaluate(const Point& canonical_point) const override;
  // One point, one request, with the "generalization" of the reply when it has one.
  ProblemEvaluation EvaluateWithHeldOut(const Point& canonical_point) const override;
  // All points in one request (same preconditions as Evaluate); values in order.
  std::vector<double> EvaluateBatch(const std::vector<Point>& canonical_points) const;
  // As EvaluateBatch, with the generalization losses.
  std::vector<ExternalEvaluation> EvaluateDetailed(
      const std::vector<Point>& canonical_points) const;

  // The latest errors (at most max_recorded_errors), oldest first. Organizer-facing: they may
  // quote the child's stderr.
  std::vector<std::string> errors() const;
  // All errors recorded so far, including those errors() no longer keeps.
  int64_t error_count() const;
  // Processes started after the first one.
  int64_t restarts() const;
  // True once max_consecutive_start_failures starts failed in a row.
  bool broken() const;

 private:
  using ProcessPtr = std::unique_ptr<external::ProblemProcess>;

  ExternalProblem(ExternalProblemOptions options, std::string resolved_program,
                  std::shared_ptr<external::StderrLog> log);

  // Launches a process and checks its describe reply. `expected` (if set) is the name and
  // api_config of the first process, which a restart must repeat; `describe` (if set) receives
  // the whole reply.
  absl::StatusOr<ProcessPtr> Launch(const nlohmann::json* expected, nlohmann::json* describe) const;
  // Takes an idle process, or starts one (nullptr + error recorded when that fails, or when the
  // problem is broken).
  ProcessPtr Acquire() const;
  void Release(ProcessPtr process, bool healthy) const;
  void RecordError(const std::string& message) const;

  const ExternalProblemOptions options_;
  const std::string program_;  // argv[0] resolved before fork
  const std::shared_ptr<external::StderrLog> log_;

  // Set by Start, immutable afterwards.
  std::string name_;
  SearchSpace space_;
  std::optional<double> known_optimum_;
  std::string description_;
  std::vector<std::string> attributes_;
  std::string family_;
  nlohmann::json describe_;  // {"name", "api_config"} every restart must repeat

  mutable absl::Mutex mu_;
  mutable std::vector<ProcessPtr> idle_ ABSL_GUARDED_BY(mu_);
  mutable int live_ ABSL_GUARDED_BY(mu_) = 0;  // idle + in use + starting
  mutable int consecutive_start_failures_ ABSL_GUARDED_BY(mu_) = 0;
  mutable bool broken_ ABSL_GUARDED_BY(mu_) = false;
  mutable int64_t restarts_ ABSL_GUARDED_BY(mu_) = 0;
  mutable int64_t next_request_id_ ABSL_GUARDED_BY(mu_) = 1;
  mutable std::vector<std::string> errors_ ABSL_GUARDED_BY(mu_);
  mutable int64_t error_count_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace bbo

#endif  // BBO_PROBLEMS_EXTERNAL_PROBLEM_H_
