#ifndef BBO_WORKER_COORDINATOR_CLIENT_H_
#define BBO_WORKER_COORDINATOR_CLIENT_H_

// CoordinatorClient: what a worker needs from the coordinator, as an interface (the seam for
// fault injection: tests can drop or delay calls). GrpcCoordinatorClient is the real one.
// Implementations are thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/batch_figures.h"
#include "common/opened_study.h"
#include "common/tls_files.h"
#include "nlohmann/json.hpp"
#include "problems/definition.h"
#include "problems/evaluator.h"

namespace bbo {

struct WorkerIdentity {
  std::string worker_id;
  double lease_ttl_s = 30;
  double heartbeat_interval_s = 5;
  // The coordinator's epoch at registration (0 = a coordinator that does not say).
  int64_t epoch = 0;
};

enum class HostedKind { kPython, kExecutable };

struct JobLease {
  int64_t job_id = 0;
  int64_t submission_id = 0;
  HostedKind kind = HostedKind::kPython;
  std::string digest;
  int trial = 0;
  int64_t seed = 0;
  int64_t epoch = 0;  // the coordinator's epoch the lease belongs to (0 = not said)
  // Set when this worker evaluates the job's objective: how to build its problem.
  std::optional<ProblemDefinition> problem;
};

struct BatchValues {
  std::vector<nlohmann::json> evaluated;  // points as JSON objects
  // A study this worker evaluates: the points to evaluate (real names); `values` is then empty
  // until ReportValues.
  std::vector<nlohmann::json> to_evaluate;
  std::vector<double> values;
  std::vector<std::string> errors;
  bool study_done = false;
  double remaining_s = 0;
};

class CoordinatorClient {
 public:
  virtual ~CoordinatorClient() = default;
  virtual absl::StatusOr<WorkerIdentity> Register(const std::string& hostname, int slots) = 0;
  // The coordinator's epoch (0 = a coordinator that does not say): a change means it restarted
  // and the work leased before is void.
  virtual absl::StatusOr<int64_t> Heartbeat(const std::string& worker_id) = 0;
  // The next job, or nullopt after waiting up to `wait_s` seconds for one (a long poll: a job
  // queued meanwhile is answered at once).
  virtual absl::StatusOr<std::optional<JobLease>> Lease(const std::string& worker_id,
                                                        double wait_s) = 0;
  // Ends every Lease waiting now (they answer CANCELLED): for a prompt Stop.
  virtual void CancelWaits() {}
  // The worker is stopping: calls that fail are no longer retried (a coordinator that is gone
  // does not hold the worker's exit up; its leases expire and the jobs run again).
  virtual void StopRetrying() {}
  virtual absl::Status Finish(const std::string& worker_id, int64_t job_id,
                              const std::string& error) = 0;
  // Gives a job back unfinished for the worker's own reason (shutting down, draining): queued
  // again without the attempt counting. A client that cannot say so finishes it with `reason`.
  virtual absl::Status HandBack(const std::string& worker_id, int64_t job_id,
                                const std::string& reason) {
    return Finish(worker_id, job_id, reason);
  }
  // The submission folder as a tar archive.
  // (Only the worker holding the current lease of `job_id` may fetch its submission.)
  virtual absl::StatusOr<std::string> Fetch(int64_t submission_id, int64_t job_id,
                                            const std::string& worker_id) = 0;
  // `problem_signature` ("" = none): the signature of the problem this worker built from the
  // lease's definition; the worker then evaluates the study (ReportValues). FailedPrecondition
  // when it is not the coordinator's (the job then goes to another worker).
  // The file of a leased job's problem (ProblemDefinition::files_digest); see
  // WorkerService.FetchProblemFiles.
  virtual absl::StatusOr<std::string> FetchProblemFiles(int64_t /*job_id*/,
                                                        const std::string& /*worker_id*/) {
    return absl::UnimplementedError("FetchProblemFiles");
  }
  virtual absl::StatusOr<OpenedStudy> OpenStudy(int64_t job_id, const std::string& worker_id,
                                                const std::string& problem_signature) = 0;
  // Suggestions are JSON objects as the optimizer printed them; values that are not a bool,
  // number or string travel unset and are reported by the coordinator.
  virtual absl::StatusOr<BatchValues> SubmitBatch(int64_t study_id, int batch,
                                                  const std::vector<nlohmann::json>& suggestions,
                                                  const TurnReport& turn) = 0;
  virtual absl::StatusOr<BatchValues> ReportSuggestFailure(int64_t study_id, int batch,
                                                           const std::string& message,
                                                           bool optimizer_dead) = 0;
  // The values of a batch this worker evaluated (one per point of to_evaluate); `eval_s` the
  // batch's wall time. Answers study_done and remaining_s (evaluated and values stay empty).
  virtual absl::StatusOr<BatchValues> ReportValues(int64_t /*study_id*/, int /*batch*/,
                                                   const std::vector<EvaluatedPoint>& /*values*/,
                                                   double /*eval_s*/) {
    return absl::UnimplementedError("ReportValues");
  }
  virtual absl::Status EndStudy(int64_t study_id, const std::string& reason) = 0;
  // The host gives up on the study for a reason of its own (not the optimizer's): the
  // coordinator abandons it and the job runs again. A coordinator client that cannot say so
  // ends it as EndStudy does.
  virtual absl::Status GiveUpStudy(int64_t study_id, const std::string& reason) {
    return EndStudy(study_id, reason);
  }
  // The study's optimizer answered `start` with `ready`: the coordinator starts batch 0's turn
  // clock now, so start-up is not charged (it has its own budget, enforced by the worker).
  // Unimplemented by a coordinator that does not know the call; batch 0 then includes start-up.
  virtual absl::Status OptimizerReady(int64_t /*study_id*/) {
    return absl::UnimplementedError("OptimizerReady");
  }
};

// Connects to `target` (host:port): plaintext, or TLS when `tls` has a CA (plus this worker's
// certificate for coordinators that require one). Every call has a deadline of `call_timeout`
// (a TLS mismatch with the coordinator fails calls with Unavailable, well within it), except
// SubmitBatch, ReportSuggestFailure and OpenStudy with a problem signature, which may wait on
// the coordinator evaluating (a batch, the problem's signature) however long that takes: they
// have no deadline, and keepalive pings (every 20 s, 20 s to
// answer) detect a coordinator that is gone. Every call carries
// `token` (a worker token from `bbo admin worker add`) as `authorization: Bearer`.
// A lost connection is retried within 0.1-1 s. The calls that change a study or a job
// (SubmitBatch, ReportSuggestFailure, ReportValues, OptimizerReady, EndStudy, Finish) are
// retried on
// UNAVAILABLE for up to `retry_s` seconds with one request id, which the coordinator uses to
// answer a retry of a call that took effect with its first answer (each takes effect once).
std::unique_ptr<CoordinatorClient> MakeGrpcCoordinatorClient(const std::string& target,
                                                             const ClientTls& tls = ClientTls(),
                                                             double call_timeout_s = 60,
                                                             const std::string& token = "",
                                                             double retry_s = 30);

}  // namespace bbo

#endif  // BBO_WORKER_COORDINATOR_CLIENT_H_
