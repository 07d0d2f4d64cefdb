#ifndef BBO_SERVER_RPC_SERVICES_H_
#define BBO_SERVER_RPC_SERVICES_H_

// The gRPC handlers of bbo-server. Each handler first asks for its caller's Identity, which the
// authentication interceptor recorded for the call (authenticate.h; a handler that forgets is
// answered INTERNAL), then translates the request, makes one domain call on the Coordinator's
// objects and translates the result; no token, no SQL, no business rule here. Tests call the
// handlers directly, giving each call an Identity with CallIdentities::Set.

#include "bbo/v1/competition_service.grpc.pb.h"
#include "bbo/v1/organizer_service.grpc.pb.h"
#include "bbo/v1/scoring_service.grpc.pb.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "bbo/v1/worker_service.grpc.pb.h"
#include "server/administration.h"
#include "server/coordinator.h"
#include "server/rpc/authenticate.h"
#include "server/rpc/status.h"

namespace bbo::rpc {

class StudyServiceImpl final : public v1::StudyService::Service {
 public:
  StudyServiceImpl(StudyManager* studies, Competition* competition, CallIdentities* calls)
      : studies_(studies), competition_(competition), calls_(calls) {}
  grpc::Status OpenStudy(grpc::ServerContext*, const v1::OpenStudyRequest* req,
                         v1::OpenStudyResponse* resp) override;
  grpc::Status SubmitBatch(grpc::ServerContext*, const v1::SubmitBatchRequest* req,
                           v1::SubmitBatchResponse* resp) override;
  grpc::Status ReportSuggestFailure(grpc::ServerContext*,
                                    const v1::ReportSuggestFailureRequest* req,
                                    v1::ReportSuggestFailureResponse* resp) override;
  grpc::Status ReportValues(grpc::ServerContext*, const v1::ReportValuesRequest* req,
                            v1::ReportValuesResponse* resp) override;
  grpc::Status OptimizerReady(grpc::ServerContext*, const v1::OptimizerReadyRequest* req,
                              v1::OptimizerReadyResponse* resp) override;
  grpc::Status EndStudy(grpc::ServerContext*, const v1::EndStudyRequest* req,
                        v1::EndStudyResponse* resp) override;
  grpc::Status ListProblems(grpc::ServerContext*, const v1::ListProblemsRequest* req,
                            v1::ListProblemsResponse* resp) override;

 private:
  StudyManager* studies_;
  Competition* competition_;
  CallIdentities* calls_;
};

class WorkerServiceImpl final : public v1::WorkerService::Service {
 public:
  WorkerServiceImpl(JobQueue* queue, CallIdentities* calls) : queue_(queue), calls_(calls) {}
  grpc::Status RegisterWorker(grpc::ServerContext*, const v1::RegisterWorkerRequest* req,
                              v1::RegisterWorkerResponse* resp) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest* req,
                         v1::HeartbeatResponse* resp) override;
  grpc::Status LeaseJob(grpc::ServerContext*, const v1::LeaseJobRequest* req,
                        v1::LeaseJobResponse* resp) override;
  grpc::Status FinishJob(grpc::ServerContext*, const v1::FinishJobRequest* req,
                         v1::FinishJobResponse* resp) override;
  grpc::Status FetchSubmission(grpc::ServerContext*, const v1::FetchSubmissionRequest* req,
                               v1::FetchSubmissionResponse* resp) override;
  grpc::Status FetchProblemFiles(grpc::ServerContext*, const v1::FetchProblemFilesRequest* req,
                                 v1::FetchProblemFilesResponse* resp) override;

 private:
  JobQueue* queue_;
  CallIdentities* calls_;
};

class CompetitionServiceImpl final : public v1::CompetitionService::Service {
 public:
  CompetitionServiceImpl(Competition* competition, CallIdentities* calls)
      : competition_(competition), calls_(calls) {}
  grpc::Status RegisterSubmission(grpc::ServerContext*, const v1::RegisterSubmissionRequest* req,
                                  v1::RegisterSubmissionResponse* resp) override;
  grpc::Status ListSubmissions(grpc::ServerContext*, const v1::ListSubmissionsRequest* req,
                               v1::ListSubmissionsResponse* resp) override;
  grpc::Status WithdrawSubmission(grpc::ServerContext*, const v1::WithdrawSubmissionRequest* req,
                                  v1::WithdrawSubmissionResponse* resp) override;
  grpc::Status GetLeaderboard(grpc::ServerContext*, const v1::GetLeaderboardRequest* req,
                              v1::GetLeaderboardResponse* resp) override;
  grpc::Status GetCompetition(grpc::ServerContext*, const v1::GetCompetitionRequest* req,
                              v1::GetCompetitionResponse* resp) override;
  grpc::Status ChooseSubmission(grpc::ServerContext*, const v1::ChooseSubmissionRequest* req,
                                v1::ChooseSubmissionResponse* resp) override;
  grpc::Status SetContact(grpc::ServerContext*, const v1::SetContactRequest* req,
                          v1::SetContactResponse* resp) override;
  grpc::Status GetContact(grpc::ServerContext*, const v1::GetContactRequest* req,
                          v1::GetContactResponse* resp) override;
  grpc::Status GetSubmissionLog(grpc::ServerContext*, const v1::GetSubmissionLogRequest* req,
                                v1::GetSubmissionLogResponse* resp) override;

 private:
  Competition* competition_;
  CallIdentities* calls_;
};

class ScoringServiceImpl final : public v1::ScoringService::Service {
 public:
  ScoringServiceImpl(Competition* competition, CallIdentities* calls)
      : competition_(competition), calls_(calls) {}
  grpc::Status GetReport(grpc::ServerContext*, const v1::GetReportRequest* req,
                         v1::GetReportResponse* resp) override;

 private:
  Competition* competition_;
  CallIdentities* calls_;
};

class OrganizerServiceImpl final : public v1::OrganizerService::Service {
 public:
  OrganizerServiceImpl(Administration* admin, CallIdentities* calls)
      : admin_(admin), calls_(calls) {}
  grpc::Status PublishBoard(grpc::ServerContext*, const v1::PublishBoardRequest* req,
                            v1::PublishBoardResponse* resp) override;
  grpc::Status StopRace(grpc::ServerContext*, const v1::StopRaceRequest* req,
                        v1::StopRaceResponse* resp) override;
  grpc::Status HideSubmission(grpc::ServerContext*, const v1::HideSubmissionRequest* req,
                              v1::HideSubmissionResponse* resp) override;
  grpc::Status DisqualifyTeam(grpc::ServerContext*, const v1::DisqualifyTeamRequest* req,
                              v1::DisqualifyTeamResponse* resp) override;
  grpc::Status SetFinalist(grpc::ServerContext*, const v1::SetFinalistRequest* req,
                           v1::SetFinalistResponse* resp) override;
  grpc::Status ListFailedJobs(grpc::ServerContext*, const v1::ListFailedJobsRequest* req,
                              v1::ListFailedJobsResponse* resp) override;
  grpc::Status RequeueJobs(grpc::ServerContext*, const v1::RequeueJobsRequest* req,
                           v1::RequeueJobsResponse* resp) override;
  grpc::Status IssueToken(grpc::ServerContext*, const v1::IssueTokenRequest* req,
                          v1::IssueTokenResponse* resp) override;
  grpc::Status RotateToken(grpc::ServerContext*, const v1::RotateTokenRequest* req,
                           v1::RotateTokenResponse* resp) override;
  grpc::Status RevokeTokens(grpc::ServerContext*, const v1::RevokeTokensRequest* req,
                            v1::RevokeTokensResponse* resp) override;
  grpc::Status ListTokens(grpc::ServerContext*, const v1::ListTokensRequest* req,
                          v1::ListTokensResponse* resp) override;
  grpc::Status ListAudit(grpc::ServerContext*, const v1::ListAuditRequest* req,
                         v1::ListAuditResponse* resp) override;
  grpc::Status ListPhaseEvents(grpc::ServerContext*, const v1::ListPhaseEventsRequest* req,
                               v1::ListPhaseEventsResponse* resp) override;
  grpc::Status ListRegistrations(grpc::ServerContext*, const v1::ListRegistrationsRequest* req,
                                 v1::ListRegistrationsResponse* resp) override;
  grpc::Status DecideRegistration(grpc::ServerContext*, const v1::DecideRegistrationRequest* req,
                                  v1::DecideRegistrationResponse* resp) override;
  grpc::Status IssueInvite(grpc::ServerContext*, const v1::IssueInviteRequest* req,
                           v1::IssueInviteResponse* resp) override;
  grpc::Status ListInvites(grpc::ServerContext*, const v1::ListInvitesRequest* req,
                           v1::ListInvitesResponse* resp) override;
  grpc::Status RevokeInvite(grpc::ServerContext*, const v1::RevokeInviteRequest* req,
                            v1::RevokeInviteResponse* resp) override;

 private:
  Administration* admin_;
  CallIdentities* calls_;
};

}  // namespace bbo::rpc

#endif  // BBO_SERVER_RPC_SERVICES_H_
