#include "server/rpc/services.h"

namespace bbo::rpc {

grpc::Status OrganizerServiceImpl::PublishBoard(grpc::ServerContext* context,
                                                const v1::PublishBoardRequest* req,
                                                v1::PublishBoardResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(admin_->Publish(who, req->phase(), req->undo(), req->reason()));
}

grpc::Status OrganizerServiceImpl::StopRace(grpc::ServerContext* context,
                                            const v1::StopRaceRequest* req,
                                            v1::StopRaceResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(admin_->StopRace(req->phase(), who, req->reason()));
}

grpc::Status OrganizerServiceImpl::HideSubmission(grpc::ServerContext* context,
                                                  const v1::HideSubmissionRequest* req,
                                                  v1::HideSubmissionResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(admin_->Hide(who, req->submission_id(), req->undo(), req->reason()));
}

grpc::Status OrganizerServiceImpl::DisqualifyTeam(grpc::ServerContext* context,
                                                  const v1::DisqualifyTeamRequest* req,
                                                  v1::DisqualifyTeamResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(
      admin_->Disqualify(who, req->phase(), req->team(), req->undo(), req->reason()));
}

grpc::Status OrganizerServiceImpl::SetFinalist(grpc::ServerContext* context,
                                               const v1::SetFinalistRequest* req,
                                               v1::SetFinalistResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::string next,
                        admin_->SetFinalist(who, req->submission_id(), req->reason()));
  resp->set_next_phase(next);
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::ListFailedJobs(grpc::ServerContext* context,
                                                  const v1::ListFailedJobsRequest*,
                                                  v1::ListFailedJobsResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::vector<FailedJob> jobs, admin_->FailedJobs(who));
  for (const FailedJob& f : jobs) {
    v1::FailedJobEntry* o = resp->add_jobs();
    o->set_job_id(f.job.id);
    o->set_submission_id(f.job.submission_id);
    o->set_submission(f.submission);
    o->set_problem(f.job.problem);
    o->set_trial(f.job.trial);
    o->set_board(f.job.board);
    o->set_attempts(f.job.attempts);
    o->set_last_error(f.last_error);
  }
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::RequeueJobs(grpc::ServerContext* context,
                                               const v1::RequeueJobsRequest* req,
                                               v1::RequeueJobsResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(int n, admin_->Requeue(who, req->job_id()));
  resp->set_requeued(n);
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::IssueToken(grpc::ServerContext* context,
                                              const v1::IssueTokenRequest* req,
                                              v1::IssueTokenResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::string token, admin_->IssueToken(who, req->kind(), req->owner()));
  resp->set_token(token);
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::RotateToken(grpc::ServerContext* context,
                                               const v1::RotateTokenRequest* req,
                                               v1::RotateTokenResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::string token, admin_->RotateToken(who, req->kind(), req->owner()));
  resp->set_token(token);
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::RevokeTokens(grpc::ServerContext* context,
                                                const v1::RevokeTokensRequest* req,
                                                v1::RevokeTokensResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(admin_->RevokeTokens(who, req->kind(), req->owner()));
}

grpc::Status OrganizerServiceImpl::ListTokens(grpc::ServerContext* context,
                                              const v1::ListTokensRequest*,
                                              v1::ListTokensResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::vector<CredentialRecord> tokens, admin_->Tokens(who));
  for (const CredentialRecord& c : tokens) {
    v1::TokenEntry* o = resp->add_tokens();
    o->set_kind(CredentialKindName(c.kind));
    o->set_owner(c.owner);
    o->set_created_at_s(c.created_at);
    o->set_revoked_at_s(c.revoked_at.value_or(0));
  }
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::ListAudit(grpc::ServerContext* context,
                                             const v1::ListAuditRequest* req,
                                             v1::ListAuditResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::vector<AuditRecord> log,
                        admin_->Audit(who, req->limit() == 0 ? 100 : req->limit()));
  for (const AuditRecord& a : log) {
    v1::AuditLogEntry* o = resp->add_entries();
    o->set_at_s(a.at);
    o->set_who(a.who);
    o->set_action(a.action);
    o->set_detail(a.detail);
    o->set_allowed(a.allowed);
  }
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::ListPhaseEvents(grpc::ServerContext* context,
                                                   const v1::ListPhaseEventsRequest* req,
                                                   v1::ListPhaseEventsResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::vector<PhaseEvent> events, admin_->Events(who, req->phase()));
  for (const PhaseEvent& e : events) {
    v1::PhaseEventEntry* o = resp->add_events();
    o->set_at_s(e.at);
    o->set_kind(e.kind);
    o->set_who(e.who);
    o->set_detail(e.detail);
    o->set_team(e.team);
    o->set_submission_id(e.submission_id);
  }
  return grpc::Status::OK;
}

}  // namespace bbo::rpc
