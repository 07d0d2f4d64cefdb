#include "server/ops/ops_http.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/http/http_server.h"

namespace bbo {

absl::StatusOr<std::unique_ptr<OpsHttpServer>> OpsHttpServer::Start(Coordinator* coordinator,
                                                                    const OpsHttpOptions& options) {
  http::HttpServerOptions o;
  o.address = options.address;
  o.flag = "--metrics_listen";
  o.tls_cert_file = options.tls_cert_file;
  o.tls_key_file = options.tls_key_file;
  o.tls_client_ca_file = options.tls_client_ca_file;
  // A scraper and a health check: two handler threads and few connections are plenty.
  o.handler_threads = 2;
  o.max_queued_requests = 8;
  o.max_connections = 64;
  o.max_connections_per_address = 32;
  o.default_headers = {{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"}};
  auto handler = [coordinator](const http::Request& req) {
    http::Response res;
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.body = "GET only\n";
    } else if (req.path == "/metrics") {
      res.content_type = "text/plain; version=0.0.4; charset=utf-8";
      res.body = coordinator->metrics().Render(coordinator->Gauges());
    } else if (req.path == "/healthz") {
      const absl::Status health = coordinator->Health();
      res.status = health.ok() ? 200 : 503;
      res.body = health.ok() ? "ok\n" : absl::StrCat(health.message(), "\n");
    } else {
      res.status = 404;
      res.body = "no such page: /metrics or /healthz\n";
    }
    return res;
  };
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
      http::HttpServer::Start(o, nullptr, handler);
  if (!server.ok()) return server.status();
  auto s = std::unique_ptr<OpsHttpServer>(new OpsHttpServer());
  s->http_ = *std::move(server);
  return s;
}

OpsHttpServer::~OpsHttpServer() = default;

int OpsHttpServer::port() const { return http_->port(); }

}  // namespace bbo
