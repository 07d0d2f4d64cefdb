#include "server/rpc/authenticate.h"

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/descriptor.h"
#include "spdlog/spdlog.h"

namespace bbo::rpc {

absl::StatusOr<Identity> Authenticator::Authenticate(const grpc::ServerContextBase* context,
                                                     const char* method) const {
  absl::StatusOr<Identity> who = Identify(context);
  if (!who.ok() || context == nullptr) return who;
  // Every call made with an organizer's token is an organizer action: it goes to the audit.
  if (who->is_organizer() && credentials_ != nullptr) {
    credentials_->Audit(*who, method, true, context->peer());
  }
  // Workers and organizers are the organizers' own machines: a busy worker host makes many
  // calls per second by design, and throttling it would break studies. Teams and anonymous
  // callers are limited.
  if (limiter_ == nullptr || who->is_organizer() || who->is_worker()) return who;
  // An anonymous caller is counted by its address (without the port).
  std::string key = who->Describe();
  if (who->role == Identity::Role::kAnonymous) {
    const std::string peer = context->peer();
    key = absl::StrCat("anonymous@", peer.substr(0, peer.rfind(':')));
  }
  if (absl::Status s = limiter_->Take(key, absl::Now()); !s.ok()) return s;
  return who;
}

absl::StatusOr<Identity> Authenticator::Identify(const grpc::ServerContextBase* context) const {
  if (context == nullptr) return Identity::Anonymous();
  const auto& md = context->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return Identity::Anonymous();
  const absl::string_view header(it->second.data(), it->second.size());
  if (!absl::StartsWith(header, "Bearer ")) {
    return absl::UnauthenticatedError(
        "authorization metadata must be \"Bearer <token>\"");
  }
  const absl::string_view token = header.substr(7);
  if (credentials_ == nullptr) {
    return absl::UnauthenticatedError("the token is not known here");
  }
  // Wrong tokens are bounded per address (without the port): "ipv4:10.0.0.7".
  const std::string peer = context->peer();
  return credentials_->AuthenticateFrom(token, peer.substr(0, peer.rfind(':')));
}

void Authenticator::AuditRefusal(const absl::StatusOr<Identity>& who, const char* method,
                                 const grpc::Status& answer, const std::string& peer) const {
  // NOT_FOUND is also the answer that hides another party's study, submission or worker (the
  // same as for none): a refusal too, and audited as one.
  if (credentials_ == nullptr || (answer.error_code() != grpc::StatusCode::UNAUTHENTICATED &&
                                  answer.error_code() != grpc::StatusCode::PERMISSION_DENIED &&
                                  answer.error_code() != grpc::StatusCode::NOT_FOUND)) {
    return;
  }
  if (!who.ok()) {
    credentials_->Audit(Identity::Anonymous(), method, false,
                        absl::StrCat(peer, ": ", who.status().message()));
  } else {
    credentials_->Audit(*who, method, false, answer.error_message());
  }
}

void CallIdentities::Set(const grpc::ServerContextBase* context, absl::StatusOr<Identity> who,
                         const void* owner) {
  absl::MutexLock l(&mu_);
  calls_.insert_or_assign(context, Call{std::move(who), false, owner});
}

absl::StatusOr<Identity> CallIdentities::Of(const grpc::ServerContextBase* context) {
  absl::MutexLock l(&mu_);
  auto it = calls_.find(context);
  if (it == calls_.end()) {
    return absl::InternalError(
        "the call was not authenticated: the server has no authentication interceptor");
  }
  it->second.asked = true;
  return it->second.who;
}

std::optional<CallIdentities::Call> CallIdentities::Release(
    const grpc::ServerContextBase* context, const void* owner) {
  absl::MutexLock l(&mu_);
  auto it = calls_.find(context);
  if (it == calls_.end() || it->second.owner != owner) return std::nullopt;
  Call call = std::move(it->second);
  calls_.erase(it);
  return call;
}

size_t CallIdentities::size() const {
  absl::MutexLock l(&mu_);
  return calls_.size();
}

namespace {

// One call's middleware: see AuthInterceptorFactory.
class AuthInterceptor final : public grpc::experimental::Interceptor {
 public:
  AuthInterceptor(grpc::ServerContextBase* context, const char* full_method,
                  const Authenticator* auth, CallIdentities* calls, Metrics* metrics)
      : context_(context),
        method_(std::strrchr(full_method, '/') + 1),
        auth_(auth),
        calls_(calls),
        metrics_(metrics),
        start_(absl::Now()) {}
  // A call that ends without sending its status leaves no record behind. The context may be
  // gone by now: it is only a key here.
  ~AuthInterceptor() override { calls_->Release(context_, this); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      calls_->Set(context_, auth_->Authenticate(context_, method_), this);
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      // gRPC hands no message on when the request could not be parsed (or when it refused
      // the call for want of threads): the handler will not run.
      unparsed_ = methods->GetRecvMessage() == nullptr;
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      End(methods);
    }
    methods->Proceed();
  }

 private:
  void End(grpc::experimental::InterceptorBatchMethods* methods) {
    std::optional<CallIdentities::Call> call = calls_->Release(context_, this);
    grpc::Status answer = methods->GetSendStatus();
    if (unparsed_ && answer.error_code() == grpc::StatusCode::INTERNAL) {
      // Not the server's fault: say what is wrong with the request (gRPC's own answer is an
      // INTERNAL error, mostly without a message).
      answer = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            absl::StrCat("the request could not be parsed as a ", method_,
                                         " request (is the client built from bbo/v1/*.proto?)"));
      methods->ModifySendStatus(answer);
    }
    // gRPC answers a call itself, without running its handler, when the request cannot be
    // parsed, the server shuts down or the call was cancelled or ran out of time first: that
    // is not a handler that forgot.
    const bool answered_by_grpc = unparsed_ || answer.error_code() == grpc::StatusCode::CANCELLED ||
                                  answer.error_code() == grpc::StatusCode::UNAVAILABLE ||
                                  answer.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
    if (call && !call->asked && !answered_by_grpc) {
      spdlog::error("BUG: the handler of {} answered without asking for its caller's identity",
                    method_);
      answer = grpc::Status(grpc::StatusCode::INTERNAL,
                            absl::StrCat("the server's handler of ", method_,
                                         " did not authenticate its caller"));
      methods->ModifySendStatus(answer);
    }
    if (call) auth_->AuditRefusal(call->who, method_, answer, context_->peer());
    if (metrics_ != nullptr) {
      metrics_->ObserveRpc(method_, absl::ToDoubleSeconds(absl::Now() - start_));
    }
  }

  grpc::ServerContextBase* const context_;
  const char* const method_;  // "GetLeaderboard" of "/bbo.v1.CompetitionService/GetLeaderboard"
  const Authenticator* const auth_;
  CallIdentities* const calls_;
  Metrics* const metrics_;
  const absl::Time start_;
  bool unparsed_ = false;  // the request arrived but could not be parsed
};

}  // namespace

AuthInterceptorFactory::AuthInterceptorFactory(const Authenticator* auth, CallIdentities* calls,
                                               Metrics* metrics,
                                               const std::vector<std::string>& services)
    : auth_(auth), calls_(calls), metrics_(metrics) {
  for (const std::string& name : services) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
    if (service == nullptr) continue;
    for (int i = 0; i < service->method_count(); ++i) {
      methods_.insert(absl::StrCat("/", name, "/", service->method(i)->name()));
    }
  }
}

grpc::experimental::Interceptor* AuthInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  const char* method = info->method();
  if (method == nullptr || !methods_.contains(method)) return nullptr;
  return new AuthInterceptor(info->server_context(), method, auth_, calls_, metrics_);
}

}  // namespace bbo::rpc
