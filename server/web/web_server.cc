#include "server/web/web_server.h"

#include <chrono>
#include <exception>
#include <functional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "httplib.h"
#include "spdlog/spdlog.h"
#include "server/web/internal/assets.h"
#include "server/web/internal/http.h"
#include "server/access.h"
#include "server/web/actions.h"
#include "server/web/views.h"

namespace bbo::web {
namespace {

using nlohmann::json;

// Scripts, styles and API calls of this origin only; the report is shown in a sandboxed frame
// written from a string (srcdoc: it inherits this policy, hence its inline <style> needs
// 'unsafe-inline' for styles; scripts stay 'self' only). No framing of these pages elsewhere.
constexpr char kContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' "
    "data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(internal::SafeJson(body), "application/json; charset=utf-8");
}

std::string Peer(const httplib::Request& req) {
  return absl::StrCat(req.remote_addr, ":", req.remote_port);
}

// A view of the API: given the caller and the request, its JSON or the domain's refusal.
using View = std::function<absl::StatusOr<json>(const Identity&, const httplib::Request&)>;

// Query parameter `key` of `req` if it is a plausible name ("" when absent); InvalidArgument
// naming the parameter otherwise.
absl::StatusOr<std::string> NameParam(const httplib::Request& req, const char* key) {
  std::string value = req.get_param_value(key);
  if (!internal::ValidName(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, ": at most 64 of A-Z a-z 0-9 . _ - (a phase or board name)"));
  }
  return value;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(Coordinator* coordinator,
                                                            const WebServerOptions& options) {
  absl::StatusOr<internal::HostPort> where =
      internal::ParseHostPort(options.address, "--web_listen");
  if (!where.ok()) return where.status();
  auto s = std::unique_ptr<WebServer>(new WebServer());
  s->tls_ = !options.tls_cert_file.empty() || !options.tls_key_file.empty();
  if (s->tls_) {
    if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
      return absl::InvalidArgumentError(
          "--web_listen: HTTPS needs both --tls_cert_file and --tls_key_file");
    }
    auto ssl = std::make_unique<httplib::SSLServer>(
        options.tls_cert_file.c_str(), options.tls_key_file.c_str(),
        options.tls_client_ca_file.empty() ? nullptr : options.tls_client_ca_file.c_str());
    if (!ssl->is_valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--web_listen: cannot load the TLS certificate ", options.tls_cert_file, ", its key ",
          options.tls_key_file,
          options.tls_client_ca_file.empty() ? "" : " or the client CA " + options.tls_client_ca_file));
    }
    SSL_CTX_set_min_proto_version(ssl->ssl_context(), TLS1_2_VERSION);
    s->http_ = std::move(ssl);
  } else {
    s->http_ = std::make_unique<httplib::Server>();
  }
  s->views_ = std::make_unique<WebViews>(coordinator);
  s->actions_ = std::make_unique<WebActions>(coordinator);
  s->http_->new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  // The largest body of any route (an upload); each route's own bound is checked before its
  // body is read (BoundBodies).
  s->http_->set_payload_max_length(kMaxUploadBytes);
  // A connection that sends nothing holds its thread this long (browsers preconnect).
  s->http_->set_read_timeout(3, 0);
  s->http_->set_write_timeout(5, 0);
  // One request per connection: cpp-httplib gives each connection a thread of the pool for as
  // long as it is open, so an idle keep-alive connection of one browser would hold a thread
  // that other readers wait for.
  s->http_->set_keep_alive_max_count(1);
  s->Route(coordinator);
  RETURN_IF_ERROR(internal::CheckRoutesDescribed(s->routes_));
  s->port_ = where->port == 0 ? s->http_->bind_to_any_port(where->host)
                              : (s->http_->bind_to_port(where->host, where->port) ? where->port : -1);
  if (s->port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("--web_listen: cannot listen on ", options.address,
                                               " (taken, or not an address of this host)"));
  }
  httplib::Server* http = s->http_.get();
  s->thread_ = std::thread([http] { http->listen_after_bind(); });
  return s;
}

namespace {

const httplib::Headers& SecurityHeaders() {
  static const httplib::Headers* headers = new httplib::Headers{
      {"Content-Security-Policy", kContentSecurityPolicy},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cross-Origin-Opener-Policy", "same-origin"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
      {"Cache-Control", "no-store"}};
  return *headers;
}

// The page's files, embedded at build time.
void ServeAssets(httplib::Server& http) {
  for (const internal::Asset& asset : internal::Assets()) {
    auto serve = [asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.content.data(), asset.content.size(), std::string(asset.media_type));
    };
    http.Get(std::string(asset.path), serve);
    if (asset.path == "/") http.Get("/index.html", serve);
  }
  // Browsers ask for it unprompted; there is none.
  http.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
}

// Who is calling: anonymous without a header; a bad token is refused (Unauthenticated, with
// advice for a browser).
absl::StatusOr<Identity> Caller(Credentials* credentials, const httplib::Request& req) {
  if (!req.has_header("Authorization")) return Identity::Anonymous();
  absl::StatusOr<std::string> token = internal::BearerToken(req.get_header_value("Authorization"));
  absl::StatusOr<Identity> id = token.ok() ? credentials->Authenticate(*token) : token.status();
  if (id.ok() || !absl::IsUnauthenticated(id.status())) return id;
  // The domain's reason up to its advice for the CLI, then advice for a browser.
  const absl::string_view why = id.status().message();
  return absl::UnauthenticatedError(absl::StrCat(
      "sign-in refused: ", why.substr(0, why.find(';')),
      "; paste the token exactly as the organizers issued it, or ask them for a new one"));
}

// A body over its route's bound but at most this long is read before it is refused (413), so
// that the client, which sends it whole, reads the refusal; a longer one is refused unread.
constexpr uint64_t kReadBeforeRefusing = 1 << 20;

// Whether a body that was read is over its route's bound (TooLarge: 413).
bool TooLarge(const httplib::Request& req) {
  return req.body.size() > WebServer::kMaxBodyBytes;
}

// The middleware of every API call: authentication, the view, the audit of its refusals (as the
// gRPC edge audits them) and of organizers' reads when `audit_organizer`, the latency metric.
void ServeApi(Credentials* credentials, Metrics* metrics, const char* action,
              bool audit_organizer, const View& view, const httplib::Request& req,
              httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Identity> caller = Caller(credentials, req);
  const Identity who = caller.ok() ? *caller : Identity::Anonymous();
  absl::Status status = caller.status();
  json body;
  if (status.ok()) {
    absl::StatusOr<json> answer = view(who, req);
    if (answer.ok()) {
      body = *std::move(answer);
    } else {
      status = answer.status();
    }
  }
  if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
    credentials->Audit(who, action, false, absl::StrCat(Peer(req), ": ", status.message()));
  } else if (status.ok() && audit_organizer && who.is_organizer()) {
    credentials->Audit(who, action, true, Peer(req));
  }
  SendJson(res, internal::HttpStatus(status), status.ok() ? body : internal::ErrorBody(status));
  metrics->ObserveRpc(action, std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - start).count());
}

// An action of the API: given the caller, the request's JSON object and the caller's address,
// its answer or the domain's refusal.
using Action =
    std::function<absl::StatusOr<json>(const Identity&, const json&, const std::string& peer)>;

// The middleware of every action (POST): authentication as for a view, the body checked as JSON
// (ParseJsonBody), the action, the audit of its refusals, the latency metric. The domain audits
// what organizers did.
void ServeAction(Credentials* credentials, Metrics* metrics, const char* action_name,
                 const Action& action, const httplib::Request& req, httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  if (TooLarge(req)) {
    SendJson(res, 413, {{"error", "the request is too large"}});
    return;
  }
  absl::StatusOr<Identity> caller = Caller(credentials, req);
  const Identity who = caller.ok() ? *caller : Identity::Anonymous();
  absl::Status status = caller.status();
  json body;
  if (status.ok()) {
    absl::StatusOr<json> in =
        internal::ParseJsonBody(req.get_header_value("Content-Type"), req.body);
    absl::StatusOr<json> answer = in.ok() ? action(who, *in, Peer(req)) : in.status();
    if (answer.ok()) {
      body = *std::move(answer);
    } else {
      status = answer.status();
    }
  }
  if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
    credentials->Audit(who, action_name, false, absl::StrCat(Peer(req), ": ", status.message()));
  }
  SendJson(res, internal::HttpStatus(status), status.ok() ? body : internal::ErrorBody(status));
  metrics->ObserveRpc(action_name, std::chrono::duration<double>(
                                       std::chrono::steady_clock::now() - start).count());
}

// A view that reads the phase and board query parameters.
View WithPhaseAndBoard(
    std::function<absl::StatusOr<json>(const Identity&, const std::string&, const std::string&)>
        f) {
  return [f](const Identity& who, const httplib::Request& req) -> absl::StatusOr<json> {
    absl::StatusOr<std::string> phase = NameParam(req, "phase");
    if (!phase.ok()) return phase.status();
    absl::StatusOr<std::string> board = NameParam(req, "board");
    if (!board.ok()) return board.status();
    return f(who, *phase, *board);
  };
}

// Media types a browser gives an archive file (and the generic one).
bool ArchiveMediaType(const std::string& content_type) {
  const std::string t = content_type.substr(0, content_type.find(';'));
  for (const char* ok : {"application/octet-stream", "application/x-tar", "application/gzip",
                         "application/x-gzip", "application/x-compressed-tar", "application/zip",
                         "application/x-zip-compressed"}) {
    if (t == ok) return true;
  }
  return false;
}

// POST /api/submit?name=NAME[&trials=N][&phase=PHASE]: the body is the archive itself. Its
// bound and the caller's token were checked before the body was read (BoundBodies).
void ServeUpload(Credentials* credentials, Metrics* metrics, WebActions* actions,
                 const httplib::Request& req, httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Identity> caller = Caller(credentials, req);
  const Identity who = caller.ok() ? *caller : Identity::Anonymous();
  absl::Status status = caller.status();
  json body;
  if (status.ok()) {
    absl::StatusOr<std::string> name = NameParam(req, "name");
    absl::StatusOr<std::string> phase = NameParam(req, "phase");
    int trials = 0;
    if (!ArchiveMediaType(req.get_header_value("Content-Type"))) {
      status = absl::InvalidArgumentError(
          "Content-Type: send the archive's bytes as application/octet-stream (or its own type: "
          "application/x-tar, application/gzip, application/zip)");
    } else if (!name.ok() || !phase.ok()) {
      status = !name.ok() ? name.status() : phase.status();
    } else if (req.has_param("trials") &&
               !absl::SimpleAtoi(req.get_param_value("trials"), &trials)) {
      status = absl::InvalidArgumentError("trials: a whole number (0 = the phase's default)");
    } else {
      absl::StatusOr<json> answer = actions->Submit(who, req.body, *name, trials, *phase);
      status = answer.status();
      if (answer.ok()) body = *std::move(answer);
    }
  }
  if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
    credentials->Audit(who, "web:POST /api/submit", false,
                       absl::StrCat(Peer(req), ": ", status.message()));
  }
  SendJson(res, internal::HttpStatus(status), status.ok() ? body : internal::ErrorBody(status));
  metrics->ObserveRpc("web:POST /api/submit", std::chrono::duration<double>(
                                                  std::chrono::steady_clock::now() - start).count());
}

// Bounds every request body before a byte of it is read (cpp-httplib calls this after the
// headers): a declared length over kReadBeforeRefusing and its route's bound, or an upload's
// over kMaxUploadBytes, is refused with 413, a body without a declared length (chunked) with
// 411, and an upload from a caller who may not submit (AccessPolicy::SubmittingTeam: 401 without
// a valid token, 403 for a worker) before its body is read (so only teams and organizers can send
// the larger upload bodies). The connection is then closed unread.
httplib::Server::HandlerResponse BoundBodies(Credentials* credentials, const httplib::Request& req,
                                             httplib::Response& res) {
  const bool upload = req.path == "/api/submit" && req.method == "POST";
  const size_t limit = upload ? WebServer::kMaxUploadBytes : WebServer::kMaxBodyBytes;
  absl::Status refused;
  int status = 0;
  if (req.has_header("Transfer-Encoding")) {
    status = 411;
    refused = absl::InvalidArgumentError(
        "send the body with a Content-Length (chunked bodies are not accepted)");
  } else if (req.has_header("Content-Length")) {
    uint64_t length = 0;
    if (!absl::SimpleAtoi(req.get_header_value("Content-Length"), &length)) {
      status = 400;
      refused = absl::InvalidArgumentError("Content-Length: not a number");
    } else if (length > limit && (upload || length > kReadBeforeRefusing)) {
      status = 413;
      refused = absl::InvalidArgumentError(absl::StrCat(
          "the request is too large: ", length, " bytes; at most ", limit,
          upload ? " for an upload (larger archives: bbo submit)" : ""));
    }
  }
  if (status == 0 && upload) {
    // Who may submit is the domain's rule (the same as for bbo submit).
    absl::StatusOr<Identity> who = Caller(credentials, req);
    const absl::Status s =
        who.ok() ? AccessPolicy().SubmittingTeam(*who, "").status() : who.status();
    if (!s.ok()) {
      credentials->Audit(who.ok() ? *who : Identity::Anonymous(), "web:POST /api/submit", false,
                         absl::StrCat(Peer(req), ": ", s.message()));
      SendJson(res, internal::HttpStatus(s), internal::ErrorBody(s));
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
  }
  if (status == 0) return httplib::Server::HandlerResponse::Unhandled;
  SendJson(res, status, internal::ErrorBody(refused));
  res.set_header("Connection", "close");
  return httplib::Server::HandlerResponse::Handled;
}

// Unknown paths and refused requests (413 for a body over the limit) answer without echoing
// anything of the request.
void SetErrorHandlers(httplib::Server& http) {
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404 && TooLarge(req)) res.status = 413;
    const std::string message = res.status == 413 ? "the request is too large"
                                : res.status == 404 ? "no such page"
                                                    : "the request was refused";
    if (req.path.rfind("/api/", 0) == 0) {
      SendJson(res, res.status, {{"error", message}});
    } else {
      res.set_content(message + "\n", "text/plain; charset=utf-8");
    }
  });
  http.set_exception_handler([](const httplib::Request& req, httplib::Response& res,
                                std::exception_ptr error) {
    // The operator's log says what failed; the caller is told nothing of it.
    std::string what = "unknown exception";
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("event=web_internal_error method={} path={} error=\"{}\"", req.method,
                  req.path.substr(0, 200), what);
    SendJson(res, 500, {{"error", "internal error"}});
  });
}

}  // namespace

void WebServer::Route(Coordinator* coordinator) {
  httplib::Server& http = *http_;
  http.set_default_headers(SecurityHeaders());
  ServeAssets(http);
  Credentials* credentials = &coordinator->credentials();
  Metrics* metrics = &coordinator->metrics();
  http.set_pre_routing_handler([credentials](const httplib::Request& req, httplib::Response& res) {
    return BoundBodies(credentials, req, res);
  });
  {
    WebActions* actions = actions_.get();
    routes_.push_back("post /api/submit");
    http.Post("/api/submit", [=](const httplib::Request& req, httplib::Response& res) {
      ServeUpload(credentials, metrics, actions, req, res);
    });
  }
  std::vector<std::string>* routes = &routes_;
  auto api = [&http, credentials, metrics, routes](const std::string& pattern, const char* action,
                                                   bool audit_organizer, View view) {
    routes->push_back("get " + pattern);
    http.Get(pattern, [=](const httplib::Request& req, httplib::Response& res) {
      ServeApi(credentials, metrics, action, audit_organizer, view, req, res);
    });
  };
  WebViews* views = views_.get();
  RouteActions(http, credentials, metrics, actions_.get(), &routes_);
  api("/api/me", "web:/api/me", true,
      [views](const Identity& who, const httplib::Request&) -> absl::StatusOr<json> {
        return views->Me(who);
      });
  api("/api/phases", "web:/api/phases", false,
      [views](const Identity& who, const httplib::Request&) { return views->Competition(who); });
  api("/api/leaderboard", "web:/api/leaderboard", false,
      WithPhaseAndBoard([views](const Identity& who, const std::string& phase,
                                const std::string& board) {
        return views->Leaderboard(who, phase, board);
      }));
  api("/api/submissions", "web:/api/submissions", false,
      [views](const Identity& who, const httplib::Request& req) -> absl::StatusOr<json> {
        absl::StatusOr<std::string> phase = NameParam(req, "phase");
        if (!phase.ok()) return phase.status();
        return views->Submissions(who, *phase);
      });
  api(R"(/api/submissions/(\d{1,18}))", "web:/api/submissions/id", false,
      [views](const Identity& who, const httplib::Request& req) -> absl::StatusOr<json> {
        int64_t id = 0;
        if (!absl::SimpleAtoi(req.matches[1].str(), &id)) {
          return absl::InvalidArgumentError("id: not a submission id");
        }
        return views->Submission(who, id);
      });
  api(R"(/api/submissions/(\d{1,18})/log)", "web:/api/submissions/log", false,
      [views](const Identity& who, const httplib::Request& req) -> absl::StatusOr<json> {
        int64_t id = 0;
        if (!absl::SimpleAtoi(req.matches[1].str(), &id)) {
          return absl::InvalidArgumentError("id: not a submission id");
        }
        return views->Log(who, id);
      });
  api("/api/queue", "web:/api/queue", false,
      [views](const Identity& who, const httplib::Request&) { return views->Queue(who); });
  api("/api/report", "web:/api/report", true,
      WithPhaseAndBoard([views](const Identity& who, const std::string& phase,
                                const std::string& board) {
        return views->Report(who, phase, board);
      }));
  SetErrorHandlers(http);
}

void WebServer::RouteActions(httplib::Server& http, Credentials* credentials, Metrics* metrics,
                             WebActions* actions, std::vector<std::string>* routes) {
  auto post = [&http, credentials, metrics, routes](const std::string& pattern, const char* name,
                                                    Action action) {
    routes->push_back("post " + pattern);
    http.Post(pattern, [=](const httplib::Request& req, httplib::Response& res) {
      ServeAction(credentials, metrics, name, action, req, res);
    });
  };
  using A = WebActions;
  auto bind = [actions](absl::StatusOr<json> (A::*f)(const Identity&, const json&)) -> Action {
    return [actions, f](const Identity& who, const json& body, const std::string&) {
      return (actions->*f)(who, body);
    };
  };
  auto with_peer = [actions](absl::StatusOr<json> (A::*f)(const Identity&, const json&,
                                                          const std::string&)) -> Action {
    return [actions, f](const Identity& who, const json& body, const std::string& peer) {
      return (actions->*f)(who, body, peer);
    };
  };
  post("/api/register", "web:POST /api/register", with_peer(&A::Register));
  post("/api/register/claim", "web:POST /api/register/claim", with_peer(&A::Claim));
  post("/api/admin/registration", "web:POST /api/admin/registration",
       bind(&A::DecideRegistration));
  post("/api/admin/invite", "web:POST /api/admin/invite", bind(&A::Invite));
  post("/api/admin/invite/revoke", "web:POST /api/admin/invite/revoke", bind(&A::RevokeInvite));
  post("/api/choose", "web:POST /api/choose", bind(&A::Choose));
  post("/api/withdraw", "web:POST /api/withdraw", bind(&A::Withdraw));
  post("/api/admin/publish", "web:POST /api/admin/publish", bind(&A::Publish));
  post("/api/admin/stop-race", "web:POST /api/admin/stop-race", bind(&A::StopRace));
  post("/api/admin/hide", "web:POST /api/admin/hide", bind(&A::Hide));
  post("/api/admin/disqualify", "web:POST /api/admin/disqualify", bind(&A::Disqualify));
  post("/api/admin/finalist", "web:POST /api/admin/finalist", bind(&A::SetFinalist));
  post("/api/admin/requeue", "web:POST /api/admin/requeue", bind(&A::Requeue));
  post("/api/admin/token", "web:POST /api/admin/token", bind(&A::Token));
  auto get = [&http, credentials, metrics, routes](const std::string& pattern, const char* name,
                                                   View view) {
    routes->push_back("get " + pattern);
    http.Get(pattern, [=](const httplib::Request& req, httplib::Response& res) {
      ServeApi(credentials, metrics, name, false, view, req, res);
    });
  };
  get("/api/admin/tokens", "web:/api/admin/tokens",
      [actions](const Identity& who, const httplib::Request&) { return actions->Tokens(who); });
  get("/api/admin/registrations", "web:/api/admin/registrations",
      [actions](const Identity& who, const httplib::Request&) {
        return actions->Registrations(who);
      });
  get("/api/admin/invites", "web:/api/admin/invites",
      [actions](const Identity& who, const httplib::Request&) { return actions->Invites(who); });
  get("/api/admin/jobs", "web:/api/admin/jobs",
      [actions](const Identity& who, const httplib::Request&) { return actions->FailedJobs(who); });
  get("/api/admin/audit", "web:/api/admin/audit",
      [actions](const Identity& who, const httplib::Request& req) -> absl::StatusOr<json> {
        int limit = 100;
        if (req.has_param("limit") && !absl::SimpleAtoi(req.get_param_value("limit"), &limit)) {
          return absl::InvalidArgumentError("limit: a number from 1 to 10000");
        }
        return actions->Audit(who, limit);
      });
  get("/api/admin/events", "web:/api/admin/events",
      [actions](const Identity& who, const httplib::Request& req) -> absl::StatusOr<json> {
        absl::StatusOr<std::string> phase = NameParam(req, "phase");
        if (!phase.ok()) return phase.status();
        return actions->Events(who, *phase);
      });
}

WebServer::~WebServer() {
  if (http_ != nullptr) http_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace bbo::web
