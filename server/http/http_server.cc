#include "server/http/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "boost/asio.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "boost/beast/ssl.hpp"
#include "server/http/internal/connection.h"
#include "spdlog/spdlog.h"

namespace bbo::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using internal::Connection;

namespace {

std::chrono::steady_clock::duration ToChrono(absl::Duration d) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(d));
}

Response Refusal(int status, absl::string_view message) {
  Response r;
  r.status = status;
  r.content_type = "application/json; charset=utf-8";
  // The message is the server's own text (never the request's), so plain quoting suffices.
  r.body = absl::StrCat("{\"error\": \"", message, "\"}");
  r.close = true;
  return r;
}

std::string Str(beast::string_view s) { return std::string(s.data(), s.size()); }

std::string PeerAddress(const tcp::endpoint& e) {
  asio::ip::address a = e.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
  }
  return a.to_string();
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HeadCheck head_check, Handler handler)
      : options_(std::move(options)),
        head_check_(std::move(head_check)),
        handler_(std::move(handler)),
        pool_(options_.handler_threads) {}

  absl::Status Listen();
  void Run() {
    Accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  void Stop();

  const HttpServerOptions& options() const { return options_; }
  const HeadCheck& head_check() const { return head_check_; }
  const Handler& handler() const { return handler_; }
  asio::thread_pool& pool() { return pool_; }
  internal::ConnectionTable& table() { return table_; }
  int port() const { return port_; }
  bool tls() const { return ssl_.has_value(); }

  // A handler slot (false: all are taken and the queue is full).
  bool AcquireHandler() {
    if (in_flight_.fetch_add(1) >= options_.handler_threads + options_.max_queued_requests) {
      in_flight_.fetch_sub(1);
      ++stats_.requests_refused_busy;
      return false;
    }
    return true;
  }
  void ReleaseHandler() { in_flight_.fetch_sub(1); }
  // `bytes` more of bodies and answers in memory (false: over the budget).
  bool AcquireBytes(size_t bytes, bool force) {
    const size_t before = buffered_.fetch_add(bytes);
    // (With bytes 0: whether the budget has room left at all.)
    const size_t max = options_.max_buffered_bytes;
    if (!force && (before + bytes > max || (bytes == 0 && before >= max))) {
      buffered_.fetch_sub(bytes);
      ++stats_.requests_refused_busy;
      return false;
    }
    return true;
  }
  void ReleaseBytes(size_t bytes) { buffered_.fetch_sub(bytes); }
  bool Trusted(const std::string& address) const {
    for (const std::string& p : options_.trusted_proxies) {
      if (p == address) return true;
    }
    return false;
  }

  struct AtomicStats {
    std::atomic<int64_t> connections_accepted{0}, connections_evicted{0}, connections_timed_out{0},
        requests_refused_busy{0}, requests_handled{0};
  };
  AtomicStats& stats() { return stats_; }
  HttpServerStats Snapshot() const {
    HttpServerStats s;
    s.connections_open = open_.load();
    s.connections_accepted = stats_.connections_accepted.load();
    s.connections_evicted = stats_.connections_evicted.load();
    s.connections_timed_out = stats_.connections_timed_out.load();
    s.requests_refused_busy = stats_.requests_refused_busy.load();
    s.requests_handled = stats_.requests_handled.load();
    return s;
  }
  void SetOpen(int n) { open_.store(n); }

 private:
  void Accept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  // Makes room for one more connection from `address` (closing the longest waiting one where a
  // bound is reached); false when there is none to close.
  bool MakeRoom(const std::string& address, bool trusted);

  const HttpServerOptions options_;
  const HeadCheck head_check_;
  const Handler handler_;
  // Declared before io_: handlers still queued on io_ when it is destroyed refer to the table.
  internal::ConnectionTable table_;
  std::optional<asio::ssl::context> ssl_;
  asio::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  asio::steady_timer retry_accept_{io_};
  asio::thread_pool pool_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> in_flight_{0};
  std::atomic<size_t> buffered_{0};
  std::atomic<int64_t> open_{0};
  AtomicStats stats_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
};

namespace {

// One connection: the TLS handshake, then requests read under the deadlines and bounds of
// HttpServerOptions, each handed to the handler pool, its answer written back. Lives on the
// I/O thread except while a handler has it (phase kHandling), when the I/O thread does not
// touch it.
template <typename Stream>
class Session : public Connection, public std::enable_shared_from_this<Session<Stream>> {
 public:
  template <typename... Args>
  Session(HttpServer::Impl* server, std::string address, int port, bool trusted, Args&&... args)
      : server_(server),
        stream_(std::forward<Args>(args)...),
        buffer_(server->options().max_header_bytes + 4096),
        peer_port_(port) {
    address_ = std::move(address);
    trusted_ = trusted;
  }

  void Start() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      ReadHeader();
    } else {
      SetPhase(Phase::kHandshake);
      Lowest().expires_after(ToChrono(server_->options().header_deadline));
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) return self->Fail(ec);
                                self->ReadHeader();
                              });
    }
  }

  void Evict() override {
    ++server_->stats().connections_evicted;
    Close();
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }
  const HttpServerOptions& options() const { return server_->options(); }

  std::chrono::steady_clock::duration TransferTime(absl::Duration base, uint64_t bytes) const {
    const uint64_t rate = std::max<uint64_t>(1, options().min_transfer_bytes_per_s);
    return ToChrono(base) + std::chrono::seconds(bytes / rate);
  }

  void ReadHeader() {
    SetPhase(Phase::kHeader);
    request_ = Request();
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(options().max_header_bytes));
    // The route's bound is set once the headers are in (CheckHead).
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    Lowest().expires_after(ToChrono(options().header_deadline));
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec == bhttp::error::header_limit) {
      return Answer(Refusal(431, "the request's headers are too large"));
    }
    // A request that is not HTTP/1.x (a bad line, header or length) is told so; a connection
    // that ended or ran out of time is closed.
    if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
        ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
      return Answer(Refusal(400, "not an HTTP/1.1 request"));
    }
    if (ec) return Fail(ec);
    const auto& h = parser_->get();
    request_ = Request();
    keep_alive_ = h.keep_alive();
    version_ = h.version();
    request_.method = Str(h.method_string());
    const std::string target = Str(h.target());
    const size_t q = target.find('?');
    request_.path = target.substr(0, q);
    if (q != std::string::npos)
      request_.query = ParseQuery(absl::string_view(target).substr(q + 1));
    for (const auto& field : h) {
      request_.headers.emplace_back(absl::AsciiStrToLower(Str(field.name_string())),
                                    Str(field.value()));
    }
    request_.peer_address = address_;
    request_.peer_port = peer_port_;
    request_.client_address =
        ClientAddress(address_, request_.Header("x-forwarded-for"), options().trusted_proxies);
    if (std::optional<Response> refused = CheckHead()) return Answer(*std::move(refused));
    const uint64_t length = parser_->content_length().value_or(0);
    if (length == 0) return Dispatch();
    if (!server_->AcquireBytes(length, false)) {
      return Answer(Busy("the server is busy; retry in a few seconds"));
    }
    body_bytes_ = length;
    if (absl::EqualsIgnoreCase(request_.Header("expect"), "100-continue")) {
      auto cont = std::make_shared<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_,
                                                                       h.version());
      Lowest().expires_after(ToChrono(options().write_deadline));
      return bhttp::async_write(
          stream_, *cont, [self = this->shared_from_this(), cont](beast::error_code ec, size_t) {
            if (ec) return self->Fail(ec);
            self->ReadBody();
          });
    }
    ReadBody();
  }

  // The server's own rules for a request line and headers, then the route's (HeadCheck).
  std::optional<Response> CheckHead() {
    if (!HostAllowed(request_.Header("host"), options().allowed_hosts)) {
      return Refusal(421, "Host: not a name of this server");
    }
    const std::string encoding = absl::AsciiStrToLower(request_.Header("content-encoding"));
    if (!encoding.empty() && encoding != "identity") {
      return Refusal(415, "Content-Encoding: send the body uncompressed");
    }
    if (request_.HasHeader("transfer-encoding")) {
      return Refusal(411, "send the body with a Content-Length (chunked bodies are not accepted)");
    }
    const bool has_body_method =
        request_.method == "POST" || request_.method == "PUT" || request_.method == "PATCH";
    if (has_body_method && !parser_->content_length()) {
      return Refusal(411, "send the body with a Content-Length");
    }
    if (!has_body_method && parser_->content_length().value_or(0) > 0) {
      return Refusal(400, "a request of this method has no body");
    }
    HeadDecision d = server_->head_check() ? server_->head_check()(request_) : HeadDecision{};
    if (d.refused) {
      d.refusal.close = true;
      return std::move(d.refusal);
    }
    const uint64_t length = parser_->content_length().value_or(0);
    if (length > d.max_body_bytes) {
      return Refusal(413, absl::StrCat("the request is too large: ", length, " bytes; at most ",
                                       d.max_body_bytes));
    }
    parser_->body_limit(d.max_body_bytes);
    return std::nullopt;
  }

  Response Busy(absl::string_view message) {
    Response r = Refusal(503, message);
    r.headers.emplace_back("Retry-After", "2");
    return r;
  }

  void ReadBody() {
    SetPhase(Phase::kBody);
    Lowest().expires_after(TransferTime(options().body_deadline, body_bytes_));
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = this->shared_from_this()](beast::error_code ec, size_t) {
                        if (ec == bhttp::error::body_limit) {
                          return self->Answer(Refusal(413, "the request is too large"));
                        }
                        if (ec) return self->Fail(ec);
                        self->request_.body = std::move(self->parser_->get().body());
                        self->Dispatch();
                      });
  }

  void Dispatch() {
    // Answers still held in memory (clients that do not take them) count against the budget.
    if (!server_->AcquireBytes(0, false) || !server_->AcquireHandler()) {
      return Answer(Busy("the server is busy; retry in a few seconds"));
    }
    SetPhase(Phase::kHandling);
    asio::post(server_->pool(), [self = this->shared_from_this()] {
      Response r;
      try {
        r = self->server_->handler()(self->request_);
      } catch (const std::exception& e) {
        spdlog::error("event=http_internal_error path={} error=\"{}\"",
                      self->request_.path.substr(0, 200), e.what());
        r = Refusal(500, "internal error");
      }
      self->server_->ReleaseHandler();
      ++self->server_->stats().requests_handled;
      asio::post(self->stream_.get_executor(),
                 [self, r = std::move(r)]() mutable { self->Answer(std::move(r)); });
    });
  }

  void Answer(Response r) {
    if (phase() == Phase::kClosed) return;
    ReleaseBody();
    SetPhase(Phase::kWriting);
    ++served_;
    const bool read_whole = parser_.has_value() && parser_->is_done();
    const bool keep =
        keep_alive_ && !r.close && read_whole && served_ < options().max_requests_per_connection;
    response_.emplace(static_cast<bhttp::status>(r.status), version_ == 0 ? 11 : version_);
    for (const auto& [k, v] : options().default_headers) response_->set(k, v);
    for (const auto& [k, v] : r.headers) response_->set(k, v);
    if (!r.content_type.empty()) response_->set(bhttp::field::content_type, r.content_type);
    response_->keep_alive(keep);
    if (request_.method == "HEAD") {
      response_->content_length(r.body.size());
    } else {
      response_->body() = std::move(r.body);
      response_->prepare_payload();
    }
    answer_bytes_ = response_->body().size();
    server_->AcquireBytes(answer_bytes_, true);
    Lowest().expires_after(TransferTime(options().write_deadline, answer_bytes_));
    bhttp::async_write(
        stream_, *response_,
        [self = this->shared_from_this(), keep, read_whole](beast::error_code ec, size_t) {
          self->server_->ReleaseBytes(self->answer_bytes_);
          self->answer_bytes_ = 0;
          self->response_.reset();
          if (ec) return self->Fail(ec);
          if (keep) return self->ReadHeader();
          if (!read_whole) return self->Linger();
          self->Close();
        });
  }

  // After a refusal sent before the body was read: what the client goes on sending (at most
  // kLingerBytes, for at most kLingerTime, until it pauses for kLingerPause) is read and dropped
  // before the socket is closed, so that a client which sends its body whole before reading
  // reads the refusal instead of a reset connection. Such a connection is the first closed to
  // make room.
  static constexpr size_t kLingerBytes = 1 << 20;
  static constexpr std::chrono::milliseconds kLingerTime{2000}, kLingerPause{300};
  void Linger() {
    SetPhase(Phase::kHandshake);  // waiting for the client, first to be closed
    beast::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    linger_end_ = std::chrono::steady_clock::now() + kLingerTime;
    Drain();
  }
  void Drain() {
    const auto now = std::chrono::steady_clock::now();
    if (lingered_ >= kLingerBytes || now >= linger_end_) return Close();
    Lowest().expires_after(
        std::min<std::chrono::steady_clock::duration>(kLingerPause, linger_end_ - now));
    Lowest().async_read_some(asio::buffer(drain_),
                             [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                               self->lingered_ += n;
                               if (ec) return self->Close();
                               self->Drain();
                             });
  }

  void ReleaseBody() {
    if (body_bytes_ > 0) server_->ReleaseBytes(body_bytes_);
    body_bytes_ = 0;
  }

  void Fail(beast::error_code ec) {
    if (ec == beast::error::timeout) ++server_->stats().connections_timed_out;
    Close();
  }

  void Close() {
    if (phase() == Phase::kClosed) return;
    ReleaseBody();
    SetPhase(Phase::kClosed);
    server_->table().Remove(this);
    server_->SetOpen(server_->table().size());
    beast::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Lowest().close();
  }

  HttpServer::Impl* server_;
  Stream stream_;
  beast::flat_buffer buffer_;
  int peer_port_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> response_;
  Request request_;
  bool keep_alive_ = false;
  unsigned version_ = 11;
  int served_ = 0;
  uint64_t body_bytes_ = 0;
  size_t answer_bytes_ = 0;
  size_t lingered_ = 0;
  std::chrono::steady_clock::time_point linger_end_;
  std::array<char, 4096> drain_;
};

}  // namespace

absl::Status HttpServer::Impl::Listen() {
  const std::string& address = options_.address;
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(options_.flag, ": \"", address, "\" is not host:port"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const bool has_cert = !options_.tls_cert_file.empty(), has_key = !options_.tls_key_file.empty();
  if (has_cert != has_key || (!has_cert && !options_.tls_client_ca_file.empty())) {
    return absl::InvalidArgumentError(
        absl::StrCat(options_.flag, ": HTTPS needs both --tls_cert_file and --tls_key_file"));
  }
  if (has_cert) {
    ssl_.emplace(asio::ssl::context::tls_server);
    beast::error_code ec;
    ssl_->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                          asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                          asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use,
                      ec);
    if (!ec) ssl_->use_certificate_chain_file(options_.tls_cert_file, ec);
    if (!ec) ssl_->use_private_key_file(options_.tls_key_file, asio::ssl::context::pem, ec);
    if (!ec && !options_.tls_client_ca_file.empty()) {
      ssl_->load_verify_file(options_.tls_client_ca_file, ec);
      if (!ec) {
        ssl_->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert, ec);
      }
    }
    if (ec) {
      return absl::InvalidArgumentError(absl::StrCat(
          options_.flag, ": cannot load the TLS certificate ", options_.tls_cert_file, ", its key ",
          options_.tls_key_file,
          options_.tls_client_ca_file.empty() ? ""
                                              : " or the client CA " + options_.tls_client_ca_file,
          " (", ec.message(), ")"));
    }
  }
  beast::error_code ec;
  tcp::resolver resolver(io_);
  auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  const auto unavailable = [&](const std::string& why) {
    return absl::UnavailableError(
        absl::StrCat(options_.flag, ": cannot listen on ", address, " (", why, ")"));
  };
  if (ec || endpoints.empty()) return unavailable("not an address of this host");
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return unavailable(absl::StrCat("taken, or not an address of this host: ", ec.message()));
  port_ = acceptor_.local_endpoint().port();
  work_.emplace(io_.get_executor());
  return absl::OkStatus();
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](beast::error_code ec, tcp::socket s) {
    OnAccept(ec, std::move(s));
  });
}

bool HttpServer::Impl::MakeRoom(const std::string& address, bool trusted) {
  while (table_.size() >= options_.max_connections) {
    std::shared_ptr<Connection> oldest = table_.OldestWaiting("");
    if (oldest == nullptr) return false;
    oldest->Evict();
  }
  while (!trusted && table_.CountFrom(address) >= options_.max_connections_per_address) {
    std::shared_ptr<Connection> oldest = table_.OldestWaiting(address);
    if (oldest == nullptr) return false;
    oldest->Evict();
  }
  return true;
}

void HttpServer::Impl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // Out of descriptors (or another transient error): wait a little rather than spin.
    spdlog::warn("event=http_accept_error flag={} error=\"{}\"", options_.flag, ec.message());
    retry_accept_.expires_after(std::chrono::milliseconds(100));
    retry_accept_.async_wait([this](beast::error_code e) {
      if (!e) Accept();
    });
    return;
  }
  beast::error_code peer_ec;
  const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
  if (!peer_ec) {
    ++stats_.connections_accepted;
    const std::string address = PeerAddress(peer);
    const bool trusted = Trusted(address);
    if (MakeRoom(address, trusted)) {
      std::shared_ptr<Connection> c;
      if (ssl_.has_value()) {
        auto s = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
            this, address, peer.port(), trusted, std::move(socket), *ssl_);
        c = s;
        table_.Add(c);
        s->Start();
      } else {
        auto s = std::make_shared<Session<beast::tcp_stream>>(this, address, peer.port(), trusted,
                                                              std::move(socket));
        c = s;
        table_.Add(c);
        s->Start();
      }
      SetOpen(table_.size());
    } else {
      ++stats_.connections_evicted;
      beast::error_code ignored;
      socket.close(ignored);
    }
  }
  Accept();
}

void HttpServer::Impl::Stop() {
  asio::post(io_, [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
    retry_accept_.cancel();
    for (const std::shared_ptr<Connection>& c : table_.All()) c->Evict();
  });
  pool_.join();
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                              HeadCheck head_check,
                                                              Handler handler) {
  auto impl = std::make_unique<Impl>(options, std::move(head_check), std::move(handler));
  if (absl::Status s = impl->Listen(); !s.ok()) return s;
  impl->Run();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { impl_->Stop(); }

int HttpServer::port() const { return impl_->port(); }
bool HttpServer::tls() const { return impl_->tls(); }
HttpServerStats HttpServer::stats() const { return impl_->Snapshot(); }

}  // namespace bbo::http
