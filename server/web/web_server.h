#ifndef BBO_SERVER_WEB_WEB_SERVER_H_
#define BBO_SERVER_WEB_WEB_SERVER_H_

// The coordinator's web leaderboard (bbo-server --web_listen; docs/web.md): a small static page
// (server/web/static, embedded at build time) and a read-only JSON API under /api/, over HTTP or
// HTTPS (server/http, Boost.Beast) on an address of its own.
//
// Identities are the gRPC API's: the page sends a team's or an organizer's token as
// `Authorization: Bearer <token>` (no cookies: a request from another site carries no
// credentials, so there is nothing to forge); the server turns it into an Identity with
// Credentials::Authenticate, and the domain decides what that identity sees (WebViews). A call
// without a token is anonymous. A malformed, unknown or revoked token gets 401 and no data; every
// 401 and 403 is written to the audit log with the caller's address, as the gRPC edge does.
// Organizers' sign-ins and report fetches are audited too (the page's polls are not: one record
// every few seconds would bury the log).
//
// Every answer carries a Content-Security-Policy (scripts and styles of this origin only, no
// framing), X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer and Cache-Control:
// no-store. JSON has '<', '>' and '&' escaped as \u00XX, so no answer can be read as markup.
// Actions are POSTs of a JSON object (Content-Type: application/json, nested at most 8 deep; the
// token in the Authorization header, never a cookie, so another site cannot make a browser act:
// no CSRF), each answered by one WebActions call (server/web/actions.h).
// The transport is server/http's bounded server (docs/security.md, "The web port"): one I/O
// thread for every connection, the oldest waiting connection closed to make room for a new one,
// whole-request deadlines, 8 KiB of request line and headers, kThreads handler threads. A body
// is bounded before it is read: over kMaxBodyBytes (kMaxUploadBytes for an upload, which needs
// a team's token before its first byte is read) it is refused with 413, compressed (415),
// chunked or without a length (411). A Host that is not an IP address, localhost or one of
// `hosts` is refused (421) when the server listens on loopback or `hosts` is set (DNS
// rebinding). Behind `trusted_proxies`, the client's address is X-Forwarded-For's.
//
// Plaintext on an address other hosts can reach is the caller's rule to enforce (bbo-server
// refuses it without --insecure, as for its gRPC port).
//
// Thread-safe; stops on destruction.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/coordinator.h"

namespace bbo::http {
class HttpServer;
struct Request;
struct Response;
}  // namespace bbo::http

namespace bbo::web {

class WebActions;
class WebViews;

struct WebServerOptions {
  // "host:port" or "[v6]:port"; port 0 = any free port.
  std::string address = "127.0.0.1:0";
  // PEM certificate chain and key (bbo-server's --tls_cert_file / --tls_key_file). Both set =
  // HTTPS only; both empty = plain HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
  // PEM CA certificate(s) (--tls_client_ca_file): set = every client must present a certificate
  // signed by one of them, as on the gRPC port. Needs the certificate and key.
  std::string tls_client_ca_file;
  // Names this server is reached by (bbo-server --web_host), e.g. "arena.example.org": with
  // them, or on a loopback address, any other Host but an IP address or localhost is refused.
  std::vector<std::string> hosts;
  // Reverse proxies (IP addresses; --web_trusted_proxy) whose X-Forwarded-For names the client.
  std::vector<std::string> trusted_proxies;
};

class WebServer {
 public:
  // Handler threads (each runs one request's handler at a time).
  static constexpr int kThreads = 8;
  // Largest request body accepted, bytes (an action's JSON object).
  static constexpr size_t kMaxBodyBytes = 16 << 10;
  // Largest upload (POST /api/submit: a submission's archive), bytes; from a team's token only.
  static constexpr size_t kMaxUploadBytes = 16 << 20;

  // Listens for `coordinator` (not owned; must outlive the server). InvalidArgument for a
  // malformed address or TLS files that cannot be loaded; Unavailable when it cannot bind.
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(Coordinator* coordinator,
                                                          const WebServerOptions& options);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // The port it listens on.
  int port() const;
  bool tls() const;
  // The transport's counts (connections open, evicted, requests refused as busy).
  struct Stats {
    int64_t connections_open = 0, connections_evicted = 0, requests_refused_busy = 0;
  };
  Stats stats() const;

 private:
  struct RouteEntry;
  using Serve = std::function<void(const http::Request&, http::Response&)>;
  WebServer() = default;
  void Route(Coordinator* coordinator);
  // The actions (POST) and the organizers' reads.
  void RouteActions(Credentials* credentials, Metrics* metrics, WebActions* actions);
  // Adds a route: `pattern` is a path whose "{id}" segments stand for a number (1-18 digits).
  void Add(const std::string& method, const std::string& pattern, Serve serve);
  // Answers a request by its route (404/405 without one).
  http::Response Dispatch(const http::Request& req) const;

  std::unique_ptr<WebViews> views_;
  std::unique_ptr<WebActions> actions_;
  // "get /api/..." / "post /api/..." as registered, for the check that the OpenAPI description
  // (static/openapi.json, served at /openapi.json) names every one.
  std::vector<std::string> routes_;
  std::vector<std::unique_ptr<RouteEntry>> table_;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace bbo::web

#endif  // BBO_SERVER_WEB_WEB_SERVER_H_
