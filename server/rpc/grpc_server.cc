#include "server/rpc/grpc_server.h"

#include <chrono>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/server_builder.h"
#include "spdlog/spdlog.h"

namespace bbo::rpc {
namespace {

// Whether gRPC accepts `credentials` at all, tried on a throw-away loopback port: tells a
// certificate and key that do not belong together apart from an address that cannot be bound
// (gRPC reports both as a failed BuildAndStart).
bool CredentialsUsable(const std::shared_ptr<grpc::ServerCredentials>& credentials) {
  grpc::ServerBuilder probe;
  int port = 0;
  probe.AddListeningPort("127.0.0.1:0", credentials, &port);
  std::unique_ptr<grpc::Server> server = probe.BuildAndStart();
  if (server != nullptr) server->Shutdown();
  return server != nullptr && port != 0;
}

// Submissions travel as archives; allow them (the Phase enforces its own limit). The largest
// request is a submission: its archive (Phase's max_archive_bytes, 24 MiB by default) and a
// little more.
// gRPC reads a request whole before it checks that size: without a bound, one anonymous 300 MB
// request grew the coordinator by 294 MiB and four at once by 1,092 MiB before each was refused.
// A memory quota for the transport bounds what requests in flight may hold: a stream that would
// take more is reset (the client sees RESOURCE_EXHAUSTED). It is the largest archive plus
// kQuotaSlack, so one upload at the limit fits while nothing else is large (four 300 MB
// requests then grow it by 32-47 MiB: tests/e2e_test.cc).
void BoundRequests(grpc::ServerBuilder& builder, int64_t max_archive) {
  constexpr int64_t kQuotaSlack = 8 << 20;
  builder.SetMaxReceiveMessageSize(static_cast<int>(max_archive + (1 << 20)));
  builder.SetMaxSendMessageSize(256 << 20);
  grpc::ResourceQuota quota("bbo-coordinator-requests");
  quota.Resize(static_cast<size_t>(max_archive + kQuotaSlack));
  builder.SetResourceQuota(quota);
}

// Protobuf logs every request it cannot parse because a string is not UTF-8, at ERROR on
// stderr, for anyone who sends one: a way to fill the coordinator's log. Its messages go to the
// log at most once a minute, saying how many were left out (fatal ones always).
void ProtobufLogAtMostOnceAMinute(google::protobuf::LogLevel level, const char* filename,
                                  int line, const std::string& message) {
  if (level == google::protobuf::LOGLEVEL_FATAL) {
    spdlog::critical("protobuf {}:{}: {}", filename, line, message);
    return;
  }
  static std::mutex mu;
  static auto last = std::chrono::steady_clock::time_point::min();
  static long left_out = 0;
  std::lock_guard<std::mutex> l(mu);
  const auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::minutes(1)) {
    ++left_out;
    return;
  }
  spdlog::warn("protobuf: {}{}", message,
               left_out == 0 ? "" : absl::StrCat(" (", left_out, " more since the last one)"));
  last = now;
  left_out = 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(Coordinator* coordinator,
                                                              const GrpcServerOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      MakeServerCredentials(options);
  if (!credentials.ok()) return credentials.status();
  const std::string& address = options.address;
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  static std::once_flag protobuf_log;
  std::call_once(protobuf_log,
                 [] { google::protobuf::SetLogHandler(&ProtobufLogAtMostOnceAMinute); });
  auto s = std::unique_ptr<GrpcServer>(new GrpcServer());
  s->queue_ = &coordinator->queue();
  s->limiter_ = std::make_unique<RateLimiter>(options.rate_limit_per_s, options.rate_limit_burst);
  s->auth_ = std::make_unique<Authenticator>(&coordinator->credentials(), s->limiter_.get());
  s->calls_ = std::make_unique<CallIdentities>();
  s->study_ = std::make_unique<StudyServiceImpl>(&coordinator->studies(), &coordinator->competition(),
                                                 s->calls_.get());
  s->worker_ = std::make_unique<WorkerServiceImpl>(&coordinator->queue(), s->calls_.get());
  s->competition_ =
      std::make_unique<CompetitionServiceImpl>(&coordinator->competition(), s->calls_.get());
  s->scoring_ = std::make_unique<ScoringServiceImpl>(&coordinator->competition(), s->calls_.get());
  s->admin_ = std::make_unique<Administration>(coordinator);
  s->organizer_ = std::make_unique<OrganizerServiceImpl>(s->admin_.get(), s->calls_.get());
  grpc::ServerBuilder builder;
  // Every call is authenticated, timed and (when refused) audited by one interceptor.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> middleware;
  middleware.push_back(std::make_unique<AuthInterceptorFactory>(
      s->auth_.get(), s->calls_.get(), &coordinator->metrics(),
      std::vector<std::string>{v1::StudyService::service_full_name(),
                               v1::WorkerService::service_full_name(),
                               v1::CompetitionService::service_full_name(),
                               v1::ScoringService::service_full_name(),
                               v1::OrganizerService::service_full_name()}));
  builder.experimental().SetInterceptorCreators(std::move(middleware));
  // One server per port: without this gRPC sets SO_REUSEPORT, and a second coordinator on the
  // same port would silently share (and steal) the first one's clients.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Workers keep their connection checked with keepalive pings (every 20 s) while a call waits
  // on a long evaluation: accept them instead of closing the connection for "too many pings".
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.AddListeningPort(address, *credentials, &s->port_);
  // The synchronous server runs each call on a thread of a pool that grows by one thread when a
  // call leaves fewer than MIN_POLLERS threads waiting for calls, and ends a thread that finishes
  // a call while MAX_POLLERS threads are already waiting. gRPC's default maximum (2) ends and
  // starts a thread every ~2 calls under load (measured with bench/load_bench at 32-256
  // clients: ~0.55 clone3 per SubmitBatch, ~20 us of server CPU per call). Keeping up to
  // kMaxIdleThreads idle threads makes the pool settle at the peak number of concurrent calls
  // (0 clone3 per call); an idle thread costs its stack and malloc arena share (the server's RSS
  // grew by ~28 MiB from 32 to 256 concurrent calls), and idle threads beyond kMaxIdleThreads end
  // after waiting CQ_TIMEOUT_MSEC (10 s) for a call.
  constexpr int kMaxIdleThreads = 512;
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                              kMaxIdleThreads);
  builder.RegisterService(s->study_.get());
  builder.RegisterService(s->worker_.get());
  builder.RegisterService(s->competition_.get());
  builder.RegisterService(s->scoring_.get());
  builder.RegisterService(s->organizer_.get());
  BoundRequests(builder, coordinator->options().competition.max_archive_bytes);
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    if (options.tls() && !CredentialsUsable(*credentials)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gRPC refused the TLS files: --tls_key_file ", options.tls_key_file,
          " is not the private key of --tls_cert_file ", options.tls_cert_file,
          ", or one of them (or --tls_client_ca_file) is not a valid PEM certificate or key"));
    }
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
  if (queue_ != nullptr) queue_->StopWaits();  // in-flight long polls answer at once
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
}

void GrpcServer::Wait() {
  if (server_) server_->Wait();
}

}  // namespace bbo::rpc
