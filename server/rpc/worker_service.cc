#include "server/rpc/convert.h"
#include "server/rpc/services.h"

namespace bbo::rpc {

grpc::Status WorkerServiceImpl::RegisterWorker(grpc::ServerContext* context,
                                               const v1::RegisterWorkerRequest* req,
                                               v1::RegisterWorkerResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<WorkerRegistration> reg =
      queue_->RegisterWorker(who, req->hostname(), req->slots());
  if (!reg.ok()) return ToGrpcStatus(reg.status());
  resp->set_worker_id(reg->worker_id);
  resp->set_lease_ttl_s(reg->lease_ttl_s);
  resp->set_heartbeat_interval_s(reg->heartbeat_interval_s);
  resp->set_coordinator_epoch(reg->epoch);
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::Heartbeat(grpc::ServerContext* context,
                                          const v1::HeartbeatRequest* req,
                                          v1::HeartbeatResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  resp->set_coordinator_epoch(queue_->epoch());
  return ToGrpcStatus(queue_->Heartbeat(who, req->worker_id()));
}

grpc::Status WorkerServiceImpl::LeaseJob(grpc::ServerContext* context,
                                         const v1::LeaseJobRequest* req,
                                         v1::LeaseJobResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  // NaN and negative waits answer at once.
  const double wait_s = req->wait_s() > 0 ? req->wait_s() : 0;
  absl::StatusOr<std::optional<LeasedJob>> job =
      queue_->Lease(who, req->worker_id(), absl::Seconds(std::min(wait_s, 30.0)),
                    [context] { return context->IsCancelled(); });
  if (!job.ok()) return ToGrpcStatus(job.status());
  resp->set_has_job(job->has_value());
  resp->set_coordinator_epoch(queue_->epoch());
  if (*job) {
    resp->set_job_id((*job)->job_id);
    resp->set_submission_id((*job)->submission_id);
    resp->set_kind(ToProto((*job)->kind));
    resp->set_submission_digest((*job)->digest);
    resp->set_trial((*job)->trial);
    resp->set_seed((*job)->seed);
    if ((*job)->problem) {
      const ProblemDefinition& d = *(*job)->problem;
      v1::ProblemDefinition* p = resp->mutable_problem();
      p->set_suite(d.suite);
      p->set_name(d.name);
      p->set_seed(d.seed);
      p->set_generated_family(d.generated_family);
      p->set_generated_tasks(d.generated_tasks);
      p->set_files_digest(d.files_digest);
    }
  }
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::FinishJob(grpc::ServerContext* context,
                                          const v1::FinishJobRequest* req,
                                          v1::FinishJobResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(queue_->Finish(who, req->worker_id(), req->job_id(), req->error(),
                                     req->request_id(), req->hand_back()));
}

grpc::Status WorkerServiceImpl::FetchSubmission(grpc::ServerContext* context,
                                                const v1::FetchSubmissionRequest* req,
                                                v1::FetchSubmissionResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<SubmissionFiles> files =
      queue_->Fetch(who, req->worker_id(), req->job_id(), req->submission_id());
  if (!files.ok()) return ToGrpcStatus(files.status());
  resp->set_kind(ToProto(files->kind));
  resp->set_archive(std::move(files->archive));
  resp->set_digest(files->digest);
  return grpc::Status::OK;
}

grpc::Status WorkerServiceImpl::FetchProblemFiles(grpc::ServerContext* context,
                                                  const v1::FetchProblemFilesRequest* req,
                                                  v1::FetchProblemFilesResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<ProblemFiles> files =
      queue_->FetchProblemFiles(who, req->worker_id(), req->job_id());
  if (!files.ok()) return ToGrpcStatus(files.status());
  resp->set_content(std::move(files->content));
  resp->set_digest(files->digest);
  return grpc::Status::OK;
}

}  // namespace bbo::rpc
