#include "server/ops/ops_http.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "httplib.h"

namespace bbo {

absl::StatusOr<std::unique_ptr<OpsHttpServer>> OpsHttpServer::Start(Coordinator* coordinator,
                                                                    const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics_listen: \"", address, "\" is not host:port"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  auto s = std::unique_ptr<OpsHttpServer>(new OpsHttpServer());
  s->http_ = std::make_unique<httplib::Server>();
  s->http_->Get("/metrics", [coordinator](const httplib::Request&, httplib::Response& res) {
    res.set_content(coordinator->metrics().Render(coordinator->Gauges()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  s->http_->Get("/healthz", [coordinator](const httplib::Request&, httplib::Response& res) {
    absl::Status health = coordinator->Health();
    res.status = health.ok() ? 200 : 503;
    res.set_content(health.ok() ? "ok\n" : absl::StrCat(health.message(), "\n"), "text/plain");
  });
  s->port_ = port == 0 ? s->http_->bind_to_any_port(host)
                       : (s->http_->bind_to_port(host, port) ? port : -1);
  if (s->port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("--metrics_listen: cannot listen on ", address,
                                               " (taken, or not an "
                                               "address of this host)"));
  }
  httplib::Server* http = s->http_.get();
  s->thread_ = std::thread([http] { http->listen_after_bind(); });
  return s;
}

OpsHttpServer::~OpsHttpServer() {
  if (http_ != nullptr) http_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace bbo
