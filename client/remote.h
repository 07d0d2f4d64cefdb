#ifndef BBO_CLIENT_REMOTE_H_
#define BBO_CLIENT_REMOTE_H_

// Everything gRPC the CLI does: one call per method to a bbo-server, each on its own channel
// (TLS, verified against the given CA or else the system's trusted roots; plaintext only to
// this machine or with --insecure: common/tls_files.h UsesTls) with the call's deadline and, when a token is set, the
// "authorization: Bearer <token>" metadata. gRPC errors come back as absl::Status with gRPC's code
// and message. No gRPC header is included here (only the Protobuf messages). Thread-compatible.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bbo/v1/competition_service.pb.h"
#include "bbo/v1/organizer_service.pb.h"
#include "bbo/v1/scoring_service.pb.h"
#include "bbo/v1/study_service.pb.h"
#include "common/tls_files.h"

namespace bbo::client {

class Remote {
 public:
  // `server`: "host:port". `token`: the caller's token ("" = none). `tls`: the CA (and client
  // certificate) of a TLS server; without a CA, TLS with the system's roots to another host and
  // plaintext to this one (or with tls.insecure). A TLS mismatch with the server ends the call
  // with Unavailable well within its deadline.
  Remote(std::string server, std::string token, ClientTls tls = ClientTls());

  // CompetitionService; deadlines 120 s, 30 s and 120 s.
  absl::StatusOr<v1::RegisterSubmissionResponse> RegisterSubmission(
      const v1::RegisterSubmissionRequest& request) const;
  absl::StatusOr<v1::ListSubmissionsResponse> ListSubmissions(const std::string& phase = "") const;
  absl::StatusOr<v1::GetCompetitionResponse> GetCompetition() const;
  absl::StatusOr<v1::GetSubmissionLogResponse> GetSubmissionLog(int64_t submission_id,
                                                                int limit) const;
  absl::StatusOr<v1::ChooseSubmissionResponse> ChooseSubmission(int64_t submission_id) const;
  // A team's notification contact: set (`team` "" = the caller's) or read.
  absl::StatusOr<v1::SetContactResponse> SetContact(const v1::SetContactRequest& request) const;
  absl::StatusOr<v1::GetContactResponse> GetContact(const std::string& team) const;
  absl::StatusOr<v1::WithdrawSubmissionResponse> WithdrawSubmission(int64_t submission_id) const;
  absl::StatusOr<v1::GetLeaderboardResponse> GetLeaderboard(
      const v1::GetLeaderboardRequest& request) const;
  // StudyService; deadline 30 s.
  absl::StatusOr<v1::ListProblemsResponse> ListProblems() const;
  // OrganizerService (an organizer's token); deadline 30 s.
  absl::StatusOr<v1::PublishBoardResponse> PublishBoard(const v1::PublishBoardRequest& request) const;
  absl::StatusOr<v1::StopRaceResponse> StopRace(const v1::StopRaceRequest& request) const;
  absl::StatusOr<v1::HideSubmissionResponse> HideSubmission(const v1::HideSubmissionRequest& request) const;
  absl::StatusOr<v1::DisqualifyTeamResponse> DisqualifyTeam(const v1::DisqualifyTeamRequest& request) const;
  absl::StatusOr<v1::SetFinalistResponse> SetFinalist(const v1::SetFinalistRequest& request) const;
  absl::StatusOr<v1::ListFailedJobsResponse> ListFailedJobs(const v1::ListFailedJobsRequest& request) const;
  absl::StatusOr<v1::RequeueJobsResponse> RequeueJobs(const v1::RequeueJobsRequest& request) const;
  absl::StatusOr<v1::IssueTokenResponse> IssueToken(const v1::IssueTokenRequest& request) const;
  absl::StatusOr<v1::RotateTokenResponse> RotateToken(const v1::RotateTokenRequest& request) const;
  absl::StatusOr<v1::RevokeTokensResponse> RevokeTokens(const v1::RevokeTokensRequest& request) const;
  absl::StatusOr<v1::ListTokensResponse> ListTokens(const v1::ListTokensRequest& request) const;
  absl::StatusOr<v1::ListAuditResponse> ListAudit(const v1::ListAuditRequest& request) const;
  absl::StatusOr<v1::ListPhaseEventsResponse> ListPhaseEvents(const v1::ListPhaseEventsRequest& request) const;
  absl::StatusOr<v1::ListRegistrationsResponse> ListRegistrations() const;
  absl::StatusOr<v1::DecideRegistrationResponse> DecideRegistration(const v1::DecideRegistrationRequest& request) const;
  absl::StatusOr<v1::IssueInviteResponse> IssueInvite(const v1::IssueInviteRequest& request) const;
  absl::StatusOr<v1::ListInvitesResponse> ListInvites() const;
  absl::StatusOr<v1::RevokeInviteResponse> RevokeInvite(const v1::RevokeInviteRequest& request) const;
  // ScoringService; deadline 600 s (a report with a large bootstrap takes a while).
  absl::StatusOr<v1::GetReportResponse> GetReport(const v1::GetReportRequest& request) const;

 private:
  std::string server_;
  std::string token_;
  ClientTls tls_;
};

// Prints the CLI's error line for a failed call, "bbo: <what>: <message>", plus a hint when the
// server could not be reached (Unavailable), which covers a TLS mismatch. Returns the exit
// code, 1.
int PrintRemoteError(const std::string& what, const absl::Status& status);

}  // namespace bbo::client

#endif  // BBO_CLIENT_REMOTE_H_
