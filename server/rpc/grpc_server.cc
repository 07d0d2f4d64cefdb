#include "server/rpc/grpc_server.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace bbo::rpc {

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(Coordinator* coordinator,
                                                              const std::string& address) {
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  auto s = std::unique_ptr<GrpcServer>(new GrpcServer());
  s->auth_ = std::make_unique<Authenticator>(&coordinator->credentials(),
                                             coordinator->options().organizer_token);
  s->study_ = std::make_unique<StudyServiceImpl>(&coordinator->studies(), s->auth_.get());
  s->worker_ = std::make_unique<WorkerServiceImpl>(&coordinator->queue(), s->auth_.get());
  s->competition_ =
      std::make_unique<CompetitionServiceImpl>(&coordinator->competition(), s->auth_.get());
  s->scoring_ = std::make_unique<ScoringServiceImpl>(&coordinator->competition(), s->auth_.get());
  grpc::ServerBuilder builder;
  // One server per port: without this gRPC sets SO_REUSEPORT, and a second coordinator on the
  // same port would silently share (and steal) the first one's clients.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &s->port_);
  builder.RegisterService(s->study_.get());
  builder.RegisterService(s->worker_.get());
  builder.RegisterService(s->competition_.get());
  builder.RegisterService(s->scoring_.get());
  // Submissions travel as archives; allow them (the Competition enforces its own limit).
  builder.SetMaxReceiveMessageSize(256 << 20);
  builder.SetMaxSendMessageSize(256 << 20);
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", address,
        ": the port is taken (is another bbo-server running?) or the address is not one of "
        "this host's; pick another --listen"));
  }
  std::string host = address.substr(0, address.rfind(':'));
  s->target_ = absl::StrCat(host, ":", s->port_);
  return s;
}

GrpcServer::~GrpcServer() { Shutdown(); }

void GrpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
}

void GrpcServer::Wait() {
  if (server_) server_->Wait();
}

}  // namespace bbo::rpc
