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

grpc::Status OrganizerServiceImpl::ListRegistrations(grpc::ServerContext* context,
                                                     const v1::ListRegistrationsRequest*,
                                                     v1::ListRegistrationsResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::vector<RegistrationRecord> list, admin_->ListRegistrations(who));
  resp->set_mode(admin_->RegistrationModeText());
  for (const RegistrationRecord& r : list) {
    v1::RegistrationEntry* o = resp->add_registrations();
    o->set_team(r.team);
    o->set_email(r.email);
    o->set_state(r.state);
    o->set_created_at_s(r.created_at);
    o->set_terms_accepted_at_s(r.terms_accepted_at);
    o->set_invite_id(r.invite_id);
    o->set_peer(r.peer);
    o->set_decided_at_s(r.decided_at);
    o->set_decided_by(r.decided_by);
    o->set_reason(r.reason);
    o->set_token_issued_at_s(r.token_issued_at);
  }
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::DecideRegistration(grpc::ServerContext* context,
                                                      const v1::DecideRegistrationRequest* req,
                                                      v1::DecideRegistrationResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(
      admin_->DecideRegistration(who, req->team(), req->approve(), req->reason()));
}

grpc::Status OrganizerServiceImpl::IssueInvite(grpc::ServerContext* context,
                                               const v1::IssueInviteRequest* req,
                                               v1::IssueInviteResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(auto invite, admin_->IssueInvite(who, req->uses(), req->note()));
  resp->set_id(invite.first);
  resp->set_code(invite.second);
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::ListInvites(grpc::ServerContext* context,
                                               const v1::ListInvitesRequest*,
                                               v1::ListInvitesResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ASSIGN_OR_RETURN_GRPC(std::vector<InviteRecord> list, admin_->Invites(who));
  for (const InviteRecord& i : list) {
    v1::InviteEntry* o = resp->add_invites();
    o->set_id(i.id);
    o->set_uses_left(i.uses_left);
    o->set_note(i.note);
    o->set_created_by(i.created_by);
    o->set_created_at_s(i.created_at);
    o->set_revoked_at_s(i.revoked_at);
  }
  return grpc::Status::OK;
}

grpc::Status OrganizerServiceImpl::RevokeInvite(grpc::ServerContext* context,
                                                const v1::RevokeInviteRequest* req,
                                                v1::RevokeInviteResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(admin_->RevokeInvite(who, req->id()));
}

}  // namespace bbo::rpc
