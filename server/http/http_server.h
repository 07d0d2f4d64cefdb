#ifndef BBO_SERVER_HTTP_HTTP_SERVER_H_
#define BBO_SERVER_HTTP_HTTP_SERVER_H_

// A bounded HTTP/1.1 server (Boost.Beast over Boost.Asio) for the coordinator's public web port
// and its operations endpoint. It runs inside the coordinator's own process, so what one
// anonymous caller can cost it is bounded before any handler runs (docs/security.md, "The web
// port"):
//
// - Connections: one I/O thread serves every connection (a connection that sends nothing costs
//   a descriptor and a few KiB, never a thread). At most `max_connections` are open, and at most
//   `max_connections_per_address` from one address (trusted proxies excepted). When a new one
//   would exceed either, the oldest connection still waiting for its request (from that address,
//   for the per-address bound) is closed to make room; a connection whose request is being
//   answered is never closed for that. So slow or idle connections cannot keep a prompt client
//   out: it always takes the place of the slowest.
// - Time: the request line and headers must arrive whole within `header_deadline` of the
//   connection (or of the previous answer on a kept-alive one), however slowly they trickle;
//   the body within `body_deadline` plus its length at `min_transfer_bytes_per_s`; the answer
//   must be taken within `write_deadline` plus its length at that rate. Late connections are
//   closed.
// - Size: request line and headers at most `max_header_bytes`. The body's bound is the route's,
//   decided by the HeadCheck from the headers before a byte of the body is read; a larger
//   declared length is refused (413) unread. Bodies are never decompressed: a request with a
//   Content-Encoding other than identity is refused (415), one with a Transfer-Encoding (411),
//   a POST or PUT without a Content-Length (411). Range headers are ignored (every answer is
//   whole, once). The bytes of bodies and answers held in memory at once are at most
//   `max_buffered_bytes`; a request that would exceed it is answered 503 with Retry-After.
// - Handlers: `handler_threads` threads run the handlers; at most `max_queued_requests` more
//   wait for one, beyond that 503 with Retry-After. A slow handler delays no connection's I/O.
// - Host: when `allowed_hosts` is not empty, a request whose Host header names none of them is
//   refused (421), so that a page on another site cannot reach a loopback server through DNS
//   rebinding.
//
// Thread-safe; stops on destruction (waiting for handlers that are running).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace bbo::http {

// A request as its handler sees it: the method, the path (without the query), the decoded query
// parameters, the headers (names in lower case) and the body.
struct Request {
  std::string method;  // "GET", "POST", ...
  std::string path;    // "/api/leaderboard", percent-decoding left to the handler
  std::vector<std::pair<std::string, std::string>> query;    // decoded, in order
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names
  std::string body;
  // The socket's peer, and the client it speaks for: the peer itself, or, when the peer is a
  // trusted proxy, the last address of X-Forwarded-For that is not a trusted proxy.
  std::string peer_address;
  int peer_port = 0;
  std::string client_address;
  // Set by a router (the one handler call that has the request): the parts of the path that
  // the route's pattern left open, e.g. the id of "/api/submissions/{id}".
  mutable std::vector<std::string> matches;

  // The first header `name` (lower case), "" when absent.
  std::string Header(absl::string_view name) const;
  bool HasHeader(absl::string_view name) const;
  // The first query parameter `key`, "" when absent.
  std::string Param(absl::string_view key) const;
  bool HasParam(absl::string_view key) const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Close the connection after this answer.
  bool close = false;
};

// Decides, from the request line and headers alone, how long a body this request may have
// (bytes; 0 = none) or refuses it outright with an answer (sent without reading the body; the
// connection is then closed). Runs on the I/O thread: keep it cheap (no store access).
struct HeadDecision {
  uint64_t max_body_bytes = 0;
  bool refused = false;
  Response refusal;
};
using HeadCheck = std::function<HeadDecision(const Request& head)>;
using Handler = std::function<Response(const Request& request)>;

struct HttpServerOptions {
  // "host:port" or "[v6]:port"; port 0 = any free port.
  std::string address = "127.0.0.1:0";
  // The flag the address came from, for messages ("--web_listen").
  std::string flag = "--web_listen";
  // PEM certificate chain and key: both set = HTTPS (TLS 1.2 or later) only.
  std::string tls_cert_file;
  std::string tls_key_file;
  // PEM CA certificate(s): set = every client must present a certificate signed by one of them.
  std::string tls_client_ca_file;

  int handler_threads = 8;
  int max_queued_requests = 64;
  int max_connections = 1024;
  int max_connections_per_address = 256;
  size_t max_header_bytes = 8 << 10;
  // Bytes of request bodies and answers held at once, over all connections.
  size_t max_buffered_bytes = 32 << 20;
  absl::Duration header_deadline = absl::Seconds(10);
  absl::Duration body_deadline = absl::Seconds(10);
  absl::Duration write_deadline = absl::Seconds(10);
  // The slowest transfer a body or an answer may take, on top of its deadline.
  uint64_t min_transfer_bytes_per_s = 64 << 10;
  // Requests served on one connection before it is closed (1 = no keep-alive).
  int max_requests_per_connection = 100;
  // Host header values accepted (a name or address, with or without a port; "[::1]" for IPv6);
  // empty = any.
  std::vector<std::string> allowed_hosts;
  // Peers (IP addresses) whose X-Forwarded-For is believed, and who are exempt from the
  // per-address connection bound.
  std::vector<std::string> trusted_proxies;
  // Headers added to every answer (security headers).
  std::vector<std::pair<std::string, std::string>> default_headers;
};

// What the server has done, for metrics and tests.
struct HttpServerStats {
  int64_t connections_open = 0;
  int64_t connections_accepted = 0;
  // Closed to make room for a newer connection, or for missing a deadline.
  int64_t connections_evicted = 0;
  int64_t connections_timed_out = 0;
  // Requests answered 503 because the handlers or the buffer budget were full.
  int64_t requests_refused_busy = 0;
  int64_t requests_handled = 0;
};

class HttpServer {
 public:
  // Listens on options.address. InvalidArgument for a malformed address or TLS files that
  // cannot be loaded; Unavailable when it cannot bind.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                           HeadCheck head_check, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  bool tls() const;
  HttpServerStats stats() const;

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `host` (a Host header's value) names one of `allowed` (exact names, case-insensitive,
// each with or without a port). Empty `allowed` = any.
bool HostAllowed(absl::string_view host, const std::vector<std::string>& allowed);

// The client a request speaks for (see Request::client_address).
std::string ClientAddress(absl::string_view peer, absl::string_view forwarded_for,
                          const std::vector<std::string>& trusted_proxies);

// The decoded parameters of a query string ("a=1&b=x%20y"); '+' is a space. A malformed escape
// is kept as written.
std::vector<std::pair<std::string, std::string>> ParseQuery(absl::string_view query);

}  // namespace bbo::http

#endif  // BBO_SERVER_HTTP_HTTP_SERVER_H_
