#include "client/remote.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bbo/v1/competition_service.grpc.pb.h"
#include "bbo/v1/organizer_service.grpc.pb.h"
#include "bbo/v1/scoring_service.grpc.pb.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

namespace bbo::client {
namespace {

// Submissions and full leaderboards can be large.
constexpr int kCompetitionMessageBytes = 256 << 20;
// A report with every plot inlined can be larger still.
constexpr int kReportMessageBytes = 1 << 30;

std::shared_ptr<grpc::Channel> Channel(const std::string& server, const ClientTls& tls,
                                       const grpc::ChannelArguments& args) {
  if (!UsesTls(tls, server)) {
    return grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), args);
  }
  // Without a CA file, gRPC verifies the server against its default (the system's) roots.
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = tls.ca_pem;
  ssl.pem_cert_chain = tls.cert_pem;
  ssl.pem_private_key = tls.key_pem;
  return grpc::CreateCustomChannel(server, grpc::SslCredentials(ssl), args);
}

grpc::ChannelArguments CompetitionArgs() {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(kCompetitionMessageBytes);
  args.SetMaxReceiveMessageSize(kCompetitionMessageBytes);
  return args;
}

// gRPC and abseil number their codes alike.
absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

// An unreachable server, or one that speaks the other way: say which way this client spoke.
// gRPC reports a failed TLS handshake as Unavailable, like a closed port.
enum class Tls { kNone, kGivenCa, kSystemRoots };

Tls TlsMode(const ClientTls& tls, const std::string& server) {
  if (!UsesTls(tls, server)) return Tls::kNone;
  return tls.enabled() ? Tls::kGivenCa : Tls::kSystemRoots;
}

absl::Status ExplainUnavailable(const absl::Status& status, Tls tls) {
  if (!absl::IsUnavailable(status)) return status;
  const char* hint = "";
  switch (tls) {
    case Tls::kGivenCa:
      hint = " (connected with TLS, --ca_file: does the server serve TLS with a certificate "
             "signed by that CA for this --server host? If it requires client certificates, "
             "pass --cert_file and --key_file)";
      break;
    case Tls::kSystemRoots:
      hint = " (connected with TLS, verified against the system's trusted roots, as for every "
             "server on another host: if its certificate is signed by the organizers' own CA, "
             "pass --ca_file or set BBO_CA_FILE; only on a private network, --insecure speaks "
             "plaintext and sends your token in clear text)";
      break;
    case Tls::kNone:
      hint = " (connected without TLS: if the server serves TLS, pass --ca_file or set "
             "BBO_CA_FILE)";
      break;
  }
  return absl::UnavailableError(absl::StrCat(status.message(), hint));
}

// Runs one unary call with a deadline of `seconds` and the token's metadata.
template <typename Response, typename Call>
absl::StatusOr<Response> Invoke(const std::string& token, Tls tls, int seconds, Call call) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  Response response;
  grpc::Status s = call(&ctx, &response);
  if (!s.ok()) return ExplainUnavailable(FromGrpc(s), tls);
  return response;
}

// One OrganizerService call with a deadline of 30 s.
template <typename Request, typename Response>
absl::StatusOr<Response> OrganizerCall(
    const std::string& server, const ClientTls& tls, const std::string& token,
    const Request& request,
    grpc::Status (v1::OrganizerService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                      Response*)) {
  auto stub = v1::OrganizerService::NewStub(Channel(server, tls, CompetitionArgs()));
  return Invoke<Response>(token, TlsMode(tls, server), 30, [&](auto* ctx, auto* response) {
    return ((*stub).*method)(ctx, request, response);
  });
}

}  // namespace

absl::StatusOr<v1::PublishBoardResponse> Remote::PublishBoard(const v1::PublishBoardRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::PublishBoard);
}

absl::StatusOr<v1::StopRaceResponse> Remote::StopRace(const v1::StopRaceRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::StopRace);
}

absl::StatusOr<v1::HideSubmissionResponse> Remote::HideSubmission(const v1::HideSubmissionRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::HideSubmission);
}

absl::StatusOr<v1::DisqualifyTeamResponse> Remote::DisqualifyTeam(const v1::DisqualifyTeamRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::DisqualifyTeam);
}

absl::StatusOr<v1::SetFinalistResponse> Remote::SetFinalist(const v1::SetFinalistRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::SetFinalist);
}

absl::StatusOr<v1::ListFailedJobsResponse> Remote::ListFailedJobs(const v1::ListFailedJobsRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::ListFailedJobs);
}

absl::StatusOr<v1::RequeueJobsResponse> Remote::RequeueJobs(const v1::RequeueJobsRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::RequeueJobs);
}

absl::StatusOr<v1::IssueTokenResponse> Remote::IssueToken(const v1::IssueTokenRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::IssueToken);
}

absl::StatusOr<v1::RotateTokenResponse> Remote::RotateToken(const v1::RotateTokenRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::RotateToken);
}

absl::StatusOr<v1::RevokeTokensResponse> Remote::RevokeTokens(const v1::RevokeTokensRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::RevokeTokens);
}

absl::StatusOr<v1::ListTokensResponse> Remote::ListTokens(const v1::ListTokensRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::ListTokens);
}

absl::StatusOr<v1::ListAuditResponse> Remote::ListAudit(const v1::ListAuditRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::ListAudit);
}

absl::StatusOr<v1::ListPhaseEventsResponse> Remote::ListPhaseEvents(const v1::ListPhaseEventsRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::ListPhaseEvents);
}

absl::StatusOr<v1::ListRegistrationsResponse> Remote::ListRegistrations() const {
  return OrganizerCall(server_, tls_, token_, v1::ListRegistrationsRequest(),
                       &v1::OrganizerService::Stub::ListRegistrations);
}

absl::StatusOr<v1::DecideRegistrationResponse> Remote::DecideRegistration(const v1::DecideRegistrationRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::DecideRegistration);
}

absl::StatusOr<v1::IssueInviteResponse> Remote::IssueInvite(const v1::IssueInviteRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::IssueInvite);
}

absl::StatusOr<v1::ListInvitesResponse> Remote::ListInvites() const {
  return OrganizerCall(server_, tls_, token_, v1::ListInvitesRequest(),
                       &v1::OrganizerService::Stub::ListInvites);
}

absl::StatusOr<v1::RevokeInviteResponse> Remote::RevokeInvite(const v1::RevokeInviteRequest& request) const {
  return OrganizerCall(server_, tls_, token_, request, &v1::OrganizerService::Stub::RevokeInvite);
}

Remote::Remote(std::string server, std::string token, ClientTls tls)
    : server_(std::move(server)), token_(std::move(token)), tls_(std::move(tls)) {}

absl::StatusOr<v1::RegisterSubmissionResponse> Remote::RegisterSubmission(
    const v1::RegisterSubmissionRequest& request) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  return Invoke<v1::RegisterSubmissionResponse>(
      token_, TlsMode(tls_, server_), 120,
      [&](auto* ctx, auto* response) { return stub->RegisterSubmission(ctx, request, response); });
}

absl::StatusOr<v1::ListSubmissionsResponse> Remote::ListSubmissions(
    const std::string& phase) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  v1::ListSubmissionsRequest request;
  request.set_phase(phase);
  return Invoke<v1::ListSubmissionsResponse>(
      token_, TlsMode(tls_, server_), 30, [&](auto* ctx, auto* response) {
        return stub->ListSubmissions(ctx, request, response);
      });
}

absl::StatusOr<v1::GetCompetitionResponse> Remote::GetCompetition() const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  return Invoke<v1::GetCompetitionResponse>(
      token_, TlsMode(tls_, server_), 30, [&](auto* ctx, auto* response) {
        return stub->GetCompetition(ctx, v1::GetCompetitionRequest(), response);
      });
}

absl::StatusOr<v1::GetSubmissionLogResponse> Remote::GetSubmissionLog(int64_t submission_id,
                                                                      int limit) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  v1::GetSubmissionLogRequest request;
  request.set_submission_id(submission_id);
  request.set_limit(limit);
  return Invoke<v1::GetSubmissionLogResponse>(
      token_, TlsMode(tls_, server_), 30, [&](auto* ctx, auto* response) {
        return stub->GetSubmissionLog(ctx, request, response);
      });
}

absl::StatusOr<v1::ChooseSubmissionResponse> Remote::ChooseSubmission(
    int64_t submission_id) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  v1::ChooseSubmissionRequest request;
  request.set_submission_id(submission_id);
  return Invoke<v1::ChooseSubmissionResponse>(
      token_, TlsMode(tls_, server_), 30, [&](auto* ctx, auto* response) {
        return stub->ChooseSubmission(ctx, request, response);
      });
}

absl::StatusOr<v1::SetContactResponse> Remote::SetContact(
    const v1::SetContactRequest& request) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  return Invoke<v1::SetContactResponse>(
      token_, TlsMode(tls_, server_), 30,
      [&](auto* ctx, auto* response) { return stub->SetContact(ctx, request, response); });
}

absl::StatusOr<v1::GetContactResponse> Remote::GetContact(const std::string& team) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  v1::GetContactRequest request;
  request.set_team(team);
  return Invoke<v1::GetContactResponse>(
      token_, TlsMode(tls_, server_), 30,
      [&](auto* ctx, auto* response) { return stub->GetContact(ctx, request, response); });
}

absl::StatusOr<v1::WithdrawSubmissionResponse> Remote::WithdrawSubmission(
    int64_t submission_id) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  v1::WithdrawSubmissionRequest request;
  request.set_submission_id(submission_id);
  return Invoke<v1::WithdrawSubmissionResponse>(
      token_, TlsMode(tls_, server_), 30, [&](auto* ctx, auto* response) {
        return stub->WithdrawSubmission(ctx, request, response);
      });
}

absl::StatusOr<v1::GetLeaderboardResponse> Remote::GetLeaderboard(
    const v1::GetLeaderboardRequest& request) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, tls_, CompetitionArgs()));
  return Invoke<v1::GetLeaderboardResponse>(
      token_, TlsMode(tls_, server_), 120,
      [&](auto* ctx, auto* response) { return stub->GetLeaderboard(ctx, request, response); });
}

absl::StatusOr<v1::ListProblemsResponse> Remote::ListProblems() const {
  auto stub = v1::StudyService::NewStub(Channel(server_, tls_, grpc::ChannelArguments()));
  return Invoke<v1::ListProblemsResponse>(
      token_, TlsMode(tls_, server_), 30, [&](auto* ctx, auto* response) {
        return stub->ListProblems(ctx, v1::ListProblemsRequest(), response);
      });
}

absl::StatusOr<v1::GetReportResponse> Remote::GetReport(const v1::GetReportRequest& request) const {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kReportMessageBytes);
  auto stub = v1::ScoringService::NewStub(Channel(server_, tls_, args));
  return Invoke<v1::GetReportResponse>(token_, TlsMode(tls_, server_), 600, [&](auto* ctx, auto* response) {
    return stub->GetReport(ctx, request, response);
  });
}

int PrintRemoteError(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "bbo: %s: %s\n", what.c_str(), std::string(status.message()).c_str());
  if (absl::IsUnavailable(status)) {
    std::fprintf(stderr, "bbo: is bbo-server running at that address? (--server)\n");
  }
  if (absl::StrContains(status.message(), "RST_STREAM with error code 11")) {
    // The coordinator's memory bound for requests in flight (server/rpc/grpc_server.cc).
    std::fprintf(stderr, "bbo: the coordinator had no room for this request now (other large "
                         "uploads in flight, or an archive near its size limit); retry in a "
                         "minute\n");
  }
  return 1;
}

}  // namespace bbo::client
