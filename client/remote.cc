#include "client/remote.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <utility>

#include "bbo/v1/competition_service.grpc.pb.h"
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

std::shared_ptr<grpc::Channel> Channel(const std::string& server,
                                       const grpc::ChannelArguments& args) {
  return grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), args);
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

// Runs one unary call with a deadline of `seconds` and the token's metadata.
template <typename Response, typename Call>
absl::StatusOr<Response> Invoke(const std::string& token, int seconds, Call call) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  Response response;
  grpc::Status s = call(&ctx, &response);
  if (!s.ok()) return FromGrpc(s);
  return response;
}

}  // namespace

Remote::Remote(std::string server, std::string token)
    : server_(std::move(server)), token_(std::move(token)) {}

absl::StatusOr<v1::RegisterSubmissionResponse> Remote::RegisterSubmission(
    const v1::RegisterSubmissionRequest& request) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, CompetitionArgs()));
  return Invoke<v1::RegisterSubmissionResponse>(token_, 120, [&](auto* ctx, auto* response) {
    return stub->RegisterSubmission(ctx, request, response);
  });
}

absl::StatusOr<v1::ListSubmissionsResponse> Remote::ListSubmissions() const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, CompetitionArgs()));
  return Invoke<v1::ListSubmissionsResponse>(token_, 30, [&](auto* ctx, auto* response) {
    return stub->ListSubmissions(ctx, v1::ListSubmissionsRequest(), response);
  });
}

absl::StatusOr<v1::GetLeaderboardResponse> Remote::GetLeaderboard(
    const v1::GetLeaderboardRequest& request) const {
  auto stub = v1::CompetitionService::NewStub(Channel(server_, CompetitionArgs()));
  return Invoke<v1::GetLeaderboardResponse>(token_, 120, [&](auto* ctx, auto* response) {
    return stub->GetLeaderboard(ctx, request, response);
  });
}

absl::StatusOr<v1::ListProblemsResponse> Remote::ListProblems() const {
  auto stub = v1::StudyService::NewStub(Channel(server_, grpc::ChannelArguments()));
  return Invoke<v1::ListProblemsResponse>(token_, 30, [&](auto* ctx, auto* response) {
    return stub->ListProblems(ctx, v1::ListProblemsRequest(), response);
  });
}

absl::StatusOr<v1::GetReportResponse> Remote::GetReport(
    const v1::GetReportRequest& request) const {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kReportMessageBytes);
  auto stub = v1::ScoringService::NewStub(Channel(server_, args));
  return Invoke<v1::GetReportResponse>(token_, 600, [&](auto* ctx, auto* response) {
    return stub->GetReport(ctx, request, response);
  });
}

int PrintRemoteError(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "bbo: %s: %s\n", what.c_str(), std::string(status.message()).c_str());
  if (absl::IsUnavailable(status)) {
    std::fprintf(stderr, "bbo: is bbo-server running at that address? (--server)\n");
  }
  return 1;
}

}  // namespace bbo::client
