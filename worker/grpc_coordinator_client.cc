#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "bbo/v1/worker_service.grpc.pb.h"
#include "common/utf8.h"
#include "common/wire.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "spdlog/spdlog.h"
#include "worker/coordinator_client.h"

namespace bbo {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

// The coordinator's evaluated points -> JSON for the optimizer. The coordinator only sends
// points it evaluated, so an undecodable one is its bug, not the participant's.
absl::Status EvaluatedToJson(const google::protobuf::RepeatedPtrField<v1::Suggestion>& evaluated,
                             std::vector<nlohmann::json>* out) {
  for (const v1::Suggestion& e : evaluated) {
    absl::StatusOr<nlohmann::json> j = SuggestionToJson(e);
    if (!j.ok()) {
      return absl::InternalError(
          absl::StrCat("the coordinator sent an evaluated point the worker cannot decode: ",
                       j.status().message()));
    }
    out->push_back(*std::move(j));
  }
  return absl::OkStatus();
}

class GrpcCoordinatorClient : public CoordinatorClient {
 public:
  GrpcCoordinatorClient(const std::string& target, const ClientTls& tls, double timeout_s,
                        std::string token, double retry_s)
      : timeout_s_(timeout_s), retry_s_(retry_s), token_(std::move(token)) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(256 << 20);
    args.SetMaxSendMessageSize(256 << 20);
    // Reconnect soon after the coordinator comes back (gRPC's default backoff grows to 120 s).
    // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS is also the time one connection attempt (TCP and TLS
    // handshake) may take: 1 s, not 0.1 s, which a loaded host can exceed.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    // A batch call has no deadline (it may wait on a long evaluation): pings tell a live
    // coordinator from a vanished one (the call then fails with UNAVAILABLE).
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
    // TLS with the organizers' CA, or (no CA, another host) gRPC's default roots: the system's.
    if (UsesTls(tls, target)) {
      grpc::SslCredentialsOptions ssl;
      ssl.pem_root_certs = tls.ca_pem;
      ssl.pem_cert_chain = tls.cert_pem;
      ssl.pem_private_key = tls.key_pem;
      credentials = grpc::SslCredentials(ssl);
    }
    auto channel = grpc::CreateCustomChannel(target, credentials, args);
    worker_ = v1::WorkerService::NewStub(channel);
    study_ = v1::StudyService::NewStub(channel);
  }

  absl::StatusOr<WorkerIdentity> Register(const std::string& hostname, int slots) override {
    grpc::ClientContext ctx;
    Prepare(ctx);
    v1::RegisterWorkerRequest req;
    req.set_hostname(hostname);
    req.set_slots(slots);
    v1::RegisterWorkerResponse resp;
    if (auto s = FromGrpc(worker_->RegisterWorker(&ctx, req, &resp)); !s.ok()) return s;
    return WorkerIdentity{resp.worker_id(), resp.lease_ttl_s(), resp.heartbeat_interval_s(),
                          resp.coordinator_epoch()};
  }

  absl::StatusOr<int64_t> Heartbeat(const std::string& worker_id) override {
    grpc::ClientContext ctx;
    Prepare(ctx);
    v1::HeartbeatRequest req;
    req.set_worker_id(worker_id);
    v1::HeartbeatResponse resp;
    if (auto s = FromGrpc(worker_->Heartbeat(&ctx, req, &resp)); !s.ok()) return s;
    return resp.coordinator_epoch();
  }

  absl::StatusOr<std::optional<JobLease>> Lease(const std::string& worker_id,
                                                double wait_s) override {
    grpc::ClientContext ctx;
    Prepare(ctx, wait_s);
    v1::LeaseJobRequest req;
    req.set_worker_id(worker_id);
    req.set_wait_s(wait_s);
    v1::LeaseJobResponse resp;
    {
      absl::MutexLock l(&waits_mu_);
      waits_.insert(&ctx);
    }
    grpc::Status st = worker_->LeaseJob(&ctx, req, &resp);
    {
      absl::MutexLock l(&waits_mu_);
      waits_.erase(&ctx);
    }
    if (auto s = FromGrpc(st); !s.ok()) return s;
    if (!resp.has_job()) return std::optional<JobLease>();
    JobLease l;
    l.job_id = resp.job_id();
    l.submission_id = resp.submission_id();
    l.kind = resp.kind() == v1::SUBMISSION_KIND_EXECUTABLE ? HostedKind::kExecutable
                                                           : HostedKind::kPython;
    l.digest = resp.submission_digest();
    l.trial = resp.trial();
    l.seed = resp.seed();
    l.epoch = resp.coordinator_epoch();
    if (resp.has_problem()) {
      const v1::ProblemDefinition& p = resp.problem();
      l.problem = ProblemDefinition{p.suite(),           p.name(),
                                    p.seed(),            p.generated_family(),
                                    p.generated_tasks(), p.files_digest(),
                                    ""};
    }
    return std::optional<JobLease>(l);
  }

  absl::Status Finish(const std::string& worker_id, int64_t job_id,
                      const std::string& error) override {
    v1::FinishJobRequest req;
    req.set_worker_id(worker_id);
    req.set_job_id(job_id);
    req.set_error(error);
    req.set_request_id(NewRequestId());
    v1::FinishJobResponse resp;
    return Retried([&](grpc::ClientContext& c) { return worker_->FinishJob(&c, req, &resp); });
  }

  absl::Status HandBack(const std::string& worker_id, int64_t job_id,
                        const std::string& reason) override {
    v1::FinishJobRequest req;
    req.set_worker_id(worker_id);
    req.set_job_id(job_id);
    req.set_error(reason);
    req.set_request_id(NewRequestId());
    req.set_hand_back(true);
    v1::FinishJobResponse resp;
    return Retried([&](grpc::ClientContext& c) { return worker_->FinishJob(&c, req, &resp); });
  }

  absl::StatusOr<std::string> FetchProblemFiles(int64_t job_id,
                                                const std::string& worker_id) override {
    grpc::ClientContext ctx;
    Prepare(ctx);
    v1::FetchProblemFilesRequest req;
    req.set_job_id(job_id);
    req.set_worker_id(worker_id);
    v1::FetchProblemFilesResponse resp;
    if (auto s = FromGrpc(worker_->FetchProblemFiles(&ctx, req, &resp)); !s.ok()) return s;
    return std::move(*resp.mutable_content());
  }

  absl::StatusOr<std::string> Fetch(int64_t submission_id, int64_t job_id,
                                    const std::string& worker_id) override {
    grpc::ClientContext ctx;
    Prepare(ctx);
    v1::FetchSubmissionRequest req;
    req.set_submission_id(submission_id);
    req.set_job_id(job_id);
    req.set_worker_id(worker_id);
    v1::FetchSubmissionResponse resp;
    if (auto s = FromGrpc(worker_->FetchSubmission(&ctx, req, &resp)); !s.ok()) return s;
    return std::move(*resp.mutable_archive());
  }

  absl::StatusOr<OpenedStudy> OpenStudy(int64_t job_id, const std::string& worker_id,
                                        const std::string& problem_signature) override {
    grpc::ClientContext ctx;
    // The coordinator may first compute the problem's signature (five evaluations): no
    // deadline shorter than that, keepalive pings instead.
    if (problem_signature.empty()) {
      Prepare(ctx);
    } else if (!token_.empty()) {
      ctx.AddMetadata("authorization", "Bearer " + token_);
    }
    v1::OpenStudyRequest req;
    req.set_job_id(job_id);
    req.set_worker_id(worker_id);
    req.set_problem_signature(problem_signature);
    v1::OpenStudyResponse resp;
    if (auto s = FromGrpc(study_->OpenStudy(&ctx, req, &resp)); !s.ok()) return s;
    OpenedStudy info;
    info.study_id = resp.study_id();
    info.api_config = nlohmann::json::parse(resp.api_config_json(), nullptr, false);
    if (info.api_config.is_discarded()) {
      return absl::InternalError("coordinator sent an api_config that is not JSON");
    }
    info.budget.batch_size = resp.batch_size();
    info.budget.n_batches = resp.n_batches();
    info.budget.suggest_budget_s = resp.suggest_budget_s();
    info.budget.study_budget_s = resp.study_budget_s();
    info.remaining_s = resp.remaining_s();
    // All four unset: a coordinator that predates the settings; the worker's defaults apply.
    if (resp.optimizer_memory_mb() != 0 || resp.optimizer_max_tasks() != 0 ||
        resp.optimizer_cpus() != 0 || resp.optimizer_tmp_mb() != 0) {
      info.limits.memory_mb = resp.optimizer_memory_mb();
      info.limits.max_tasks = resp.optimizer_max_tasks();
      info.limits.cpus = resp.optimizer_cpus();
      info.limits.tmp_mb = resp.optimizer_tmp_mb();
      if (absl::Status valid = info.limits.Validate(); !valid.ok()) {
        return absl::InternalError(
            absl::StrCat("coordinator sent invalid optimizer limits: ", valid.message()));
      }
    }
    return info;
  }

  absl::StatusOr<BatchValues> SubmitBatch(int64_t study_id, int batch,
                                          const std::vector<nlohmann::json>& suggestions,
                                          const TurnReport& turn) override {
    v1::SubmitBatchRequest req;
    req.set_request_id(NewRequestId());
    req.set_study_id(study_id);
    req.set_batch(batch);
    for (size_t i = 0; i < suggestions.size(); ++i) {
      // A refused value still travels, marked as unset, so the coordinator replaces the point by
      // random search and tells the participant which parameter was wrong.
      absl::Status encoded = SuggestionFromJson(suggestions[i], req.add_suggestions());
      if (!encoded.ok()) {
        spdlog::debug("study={} batch={} suggestion {}: {}", study_id, batch, i,
                      std::string(encoded.message()));
      }
    }
    TurnReportToProto(turn, &req);
    v1::SubmitBatchResponse resp;
    if (auto s =
            Retried([&](grpc::ClientContext& c) { return study_->SubmitBatch(&c, req, &resp); },
                    kNoDeadline);
        !s.ok()) {
      return s;
    }
    BatchValues out;
    if (absl::Status s = EvaluatedToJson(resp.evaluated(), &out.evaluated); !s.ok()) return s;
    if (absl::Status s = EvaluatedToJson(resp.to_evaluate(), &out.to_evaluate); !s.ok()) return s;
    out.values.assign(resp.values().begin(), resp.values().end());
    out.errors.assign(resp.errors().begin(), resp.errors().end());
    out.study_done = resp.study_done();
    out.remaining_s = resp.remaining_s();
    return out;
  }

  absl::StatusOr<BatchValues> ReportSuggestFailure(int64_t study_id, int batch,
                                                   const std::string& message,
                                                   bool optimizer_dead) override {
    v1::ReportSuggestFailureRequest req;
    req.set_request_id(NewRequestId());
    req.set_study_id(study_id);
    req.set_batch(batch);
    req.set_message(message);
    req.set_optimizer_dead(optimizer_dead);
    v1::ReportSuggestFailureResponse resp;
    if (auto s = Retried(
            [&](grpc::ClientContext& c) { return study_->ReportSuggestFailure(&c, req, &resp); },
            kNoDeadline);
        !s.ok()) {
      return s;
    }
    BatchValues out;
    if (absl::Status s = EvaluatedToJson(resp.evaluated(), &out.evaluated); !s.ok()) return s;
    if (absl::Status s = EvaluatedToJson(resp.to_evaluate(), &out.to_evaluate); !s.ok()) return s;
    out.values.assign(resp.values().begin(), resp.values().end());
    out.study_done = resp.study_done();
    out.remaining_s = resp.remaining_s();
    return out;
  }

  absl::StatusOr<BatchValues> ReportValues(int64_t study_id, int batch,
                                           const std::vector<EvaluatedPoint>& values,
                                           double eval_s) override {
    v1::ReportValuesRequest req;
    req.set_request_id(NewRequestId());
    req.set_study_id(study_id);
    req.set_batch(batch);
    req.set_eval_time_s(eval_s);
    for (const EvaluatedPoint& v : values) {
      v1::WorkerEvaluation* e = req.add_evaluations();
      e->set_value(v.value);
      e->set_eval_time_s(v.eval_time_s);
      if (v.generalization) e->set_generalization(*v.generalization);
      e->set_error(TruncateUtf8(v.error, 8u << 10));
    }
    v1::ReportValuesResponse resp;
    if (auto s = Retried(
            [&](grpc::ClientContext& c) { return study_->ReportValues(&c, req, &resp); });
        !s.ok()) {
      return s;
    }
    BatchValues out;
    out.study_done = resp.study_done();
    out.remaining_s = resp.remaining_s();
    return out;
  }

  // OptimizerReady and EndStudy are idempotent without a request id (a repeat changes nothing).
  absl::Status OptimizerReady(int64_t study_id) override {
    v1::OptimizerReadyRequest req;
    req.set_study_id(study_id);
    v1::OptimizerReadyResponse resp;
    return Retried([&](grpc::ClientContext& c) { return study_->OptimizerReady(&c, req, &resp); });
  }

  absl::Status GiveUpStudy(int64_t study_id, const std::string& reason) override {
    v1::EndStudyRequest req;
    req.set_study_id(study_id);
    req.set_reason(reason);
    req.set_host_error(true);
    v1::EndStudyResponse resp;
    return Retried([&](grpc::ClientContext& c) { return study_->EndStudy(&c, req, &resp); });
  }

  absl::Status EndStudy(int64_t study_id, const std::string& reason) override {
    v1::EndStudyRequest req;
    req.set_study_id(study_id);
    req.set_reason(reason);
    v1::EndStudyResponse resp;
    return Retried([&](grpc::ClientContext& c) { return study_->EndStudy(&c, req, &resp); });
  }

  void StopRetrying() override { stop_retrying_ = true; }

  void CancelWaits() override {
    absl::MutexLock l(&waits_mu_);
    for (grpc::ClientContext* ctx : waits_) ctx->TryCancel();
  }

 private:
  // A fresh request id: 128 random bits, hex.
  static std::string NewRequestId() {
    std::random_device rd;
    return absl::StrFormat("%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  }

  // `call` until it is not UNAVAILABLE (the coordinator unreachable or restarting) or `retry_s_`
  // has passed; each attempt gets a fresh context and deadline.
  // `deadline_s`: of each attempt (0 = the client's call timeout, kNoDeadline = none).
  static constexpr double kNoDeadline = -1;
  template <typename Call>
  absl::Status Retried(Call call, double deadline_s = 0) {
    const absl::Time until = absl::Now() + absl::Seconds(retry_s_);
    absl::Duration pause = absl::Milliseconds(100);
    while (true) {
      grpc::ClientContext ctx;
      if (deadline_s == kNoDeadline) {
        if (!token_.empty()) ctx.AddMetadata("authorization", "Bearer " + token_);
      } else {
        Prepare(ctx);
      }
      absl::Status s = FromGrpc(call(ctx));
      if (!absl::IsUnavailable(s) || absl::Now() + pause > until || stop_retrying_) return s;
      absl::SleepFor(pause);
      pause = std::min(pause * 2, absl::Seconds(2));
    }
  }

  // `extra_s`: added to the deadline (a long poll's wait).
  void Prepare(grpc::ClientContext& ctx, double extra_s = 0) {
    ctx.set_deadline(
        std::chrono::system_clock::now() +
        std::chrono::milliseconds(static_cast<int64_t>((timeout_s_ + extra_s) * 1000)));
    if (!token_.empty()) ctx.AddMetadata("authorization", "Bearer " + token_);
  }

  double timeout_s_;
  double retry_s_;
  std::atomic<bool> stop_retrying_{false};
  // Lease calls waiting now, for CancelWaits.
  absl::Mutex waits_mu_;
  std::set<grpc::ClientContext*> waits_ ABSL_GUARDED_BY(waits_mu_);
  std::string token_;
  std::unique_ptr<v1::WorkerService::Stub> worker_;
  std::unique_ptr<v1::StudyService::Stub> study_;
};

}  // namespace

std::unique_ptr<CoordinatorClient> MakeGrpcCoordinatorClient(const std::string& target,
                                                             const ClientTls& tls,
                                                             double call_timeout_s,
                                                             const std::string& token,
                                                             double retry_s) {
  return std::make_unique<GrpcCoordinatorClient>(target, tls, call_timeout_s, token, retry_s);
}

}  // namespace bbo
