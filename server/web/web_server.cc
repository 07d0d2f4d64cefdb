#include "server/web/web_server.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "server/access.h"
#include "server/http/http_server.h"
#include "server/web/actions.h"
#include "server/web/internal/assets.h"
#include "server/web/internal/http.h"
#include "server/web/views.h"
#include "spdlog/spdlog.h"

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

void SendJson(http::Response& res, int status, const json& body) {
  res.status = status;
  res.content_type = "application/json; charset=utf-8";
  res.body = internal::SafeJson(body);
}

// Who the request comes from, for the audit log and the registration limits: the client's
// address (X-Forwarded-For behind a trusted proxy), and the socket's peer when that differs.
std::string Peer(const http::Request& req) {
  if (req.client_address != req.peer_address) {
    return absl::StrCat(req.client_address, " via ", req.peer_address, ":", req.peer_port);
  }
  return absl::StrCat(req.peer_address, ":", req.peer_port);
}

// A view of the API: given the caller and the request, its JSON or the domain's refusal.
using View = std::function<absl::StatusOr<json>(const Identity&, const http::Request&)>;

// Query parameter `key` of `req` if it is a plausible name ("" when absent); InvalidArgument
// naming the parameter otherwise.
absl::StatusOr<std::string> NameParam(const http::Request& req, const char* key) {
  std::string value = req.Param(key);
  if (!internal::ValidName(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, ": at most 64 of A-Z a-z 0-9 . _ - (a phase or board name)"));
  }
  return value;
}

}  // namespace

namespace {

std::vector<std::pair<std::string, std::string>> SecurityHeaders() {
  return {{"Content-Security-Policy", kContentSecurityPolicy},
          {"X-Content-Type-Options", "nosniff"},
          {"X-Frame-Options", "DENY"},
          {"Referrer-Policy", "no-referrer"},
          {"Cross-Origin-Opener-Policy", "same-origin"},
          {"Cross-Origin-Resource-Policy", "same-origin"},
          {"Cache-Control", "no-store"}};
}

// Whether a --web_listen host is a loopback address or name.
bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The page's files, embedded at build time.
using Serve = std::function<void(const http::Request&, http::Response&)>;
using AddRoute = std::function<void(const std::string& method, const std::string& pattern, Serve)>;

void ServeAssets(const AddRoute& add) {
  for (const internal::Asset& asset : internal::Assets()) {
    auto serve = [asset](const http::Request&, http::Response& res) {
      res.body.assign(asset.content.data(), asset.content.size());
      res.content_type = std::string(asset.media_type);
    };
    add("GET", std::string(asset.path), serve);
    if (asset.path == "/") add("GET", "/index.html", serve);
  }
  // Browsers ask for it unprompted; there is none.
  add("GET", "/favicon.ico", [](const http::Request&, http::Response& res) {
    res.status = 204;
    res.content_type.clear();
  });
}

// Who is calling: anonymous without a header; a bad token is refused (Unauthenticated, with
// advice for a browser).
absl::StatusOr<Identity> Caller(Credentials* credentials, const http::Request& req) {
  if (!req.HasHeader("authorization")) return Identity::Anonymous();
  absl::StatusOr<std::string> token = internal::BearerToken(req.Header("authorization"));
  // Refused tokens are bounded per client address (ResourceExhausted: 429, not audited).
  absl::StatusOr<Identity> id =
      token.ok() ? credentials->AuthenticateFrom(*token, req.client_address) : token.status();
  if (id.ok() || !absl::IsUnauthenticated(id.status())) return id;
  // The domain's reason up to its advice for the CLI, then advice for a browser.
  const absl::string_view why = id.status().message();
  return absl::UnauthenticatedError(absl::StrCat(
      "sign-in refused: ", why.substr(0, why.find(';')),
      "; paste the token exactly as the organizers issued it, or ask them for a new one"));
}

// The middleware of every API call: authentication, the view, the audit of its refusals (as the
// gRPC edge audits them) and of organizers' reads when `audit_organizer`, the latency metric.
void ServeApi(Credentials* credentials, Metrics* metrics, const char* action, bool audit_organizer,
              const View& view, const http::Request& req, http::Response& res) {
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
  metrics->ObserveRpc(
      action, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// An action of the API: given the caller, the request's JSON object and the caller's address,
// its answer or the domain's refusal.
using Action =
    std::function<absl::StatusOr<json>(const Identity&, const json&, const std::string& peer)>;

// The middleware of every action (POST): authentication as for a view, the body checked as JSON
// (ParseJsonBody), the action, the audit of its refusals, the latency metric. The domain audits
// what organizers did.
void ServeAction(Credentials* credentials, Metrics* metrics, const char* action_name,
                 const Action& action, const http::Request& req, http::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Identity> caller = Caller(credentials, req);
  const Identity who = caller.ok() ? *caller : Identity::Anonymous();
  absl::Status status = caller.status();
  json body;
  if (status.ok()) {
    absl::StatusOr<json> in = internal::ParseJsonBody(req.Header("content-type"), req.body);
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
  metrics->ObserveRpc(
      action_name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// A view that reads the phase and board query parameters.
View WithPhaseAndBoard(
    std::function<absl::StatusOr<json>(const Identity&, const std::string&, const std::string&)>
        f) {
  return [f](const Identity& who, const http::Request& req) -> absl::StatusOr<json> {
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
  for (const char* ok :
       {"application/octet-stream", "application/x-tar", "application/gzip", "application/x-gzip",
        "application/x-compressed-tar", "application/zip", "application/x-zip-compressed"}) {
    if (t == ok) return true;
  }
  return false;
}

// POST /api/submit?name=NAME[&trials=N][&phase=PHASE]: the body is the archive itself. Its
// bound and the caller's token were checked before the body was read (BoundBodies).
void ServeUpload(Credentials* credentials, Metrics* metrics, WebActions* actions,
                 const http::Request& req, http::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Identity> caller = Caller(credentials, req);
  const Identity who = caller.ok() ? *caller : Identity::Anonymous();
  absl::Status status = caller.status();
  json body;
  if (status.ok()) {
    absl::StatusOr<std::string> name = NameParam(req, "name");
    absl::StatusOr<std::string> phase = NameParam(req, "phase");
    int trials = 0;
    if (!ArchiveMediaType(req.Header("content-type"))) {
      status = absl::InvalidArgumentError(
          "Content-Type: send the archive's bytes as application/octet-stream (or its own type: "
          "application/x-tar, application/gzip, application/zip)");
    } else if (!name.ok() || !phase.ok()) {
      status = !name.ok() ? name.status() : phase.status();
    } else if (req.HasParam("trials") && !absl::SimpleAtoi(req.Param("trials"), &trials)) {
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
  metrics->ObserveRpc(
      "web:POST /api/submit",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// The bound of a request's body, decided from its headers before a byte of it is read (the
// transport refuses longer bodies with 413, compressed ones with 415, chunked ones with 411): an
// upload's is kMaxUploadBytes, and only for a caller who may submit
// (AccessPolicy::SubmittingTeam: 401 without a valid token, 403 for a worker), so only teams and
// organizers can send the larger bodies; every other request's is kMaxBodyBytes.
http::HeadDecision BoundBody(Credentials* credentials, const http::Request& req) {
  http::HeadDecision d;
  const bool upload = req.path == "/api/submit" && req.method == "POST";
  d.max_body_bytes = upload ? WebServer::kMaxUploadBytes : WebServer::kMaxBodyBytes;
  uint64_t length = 0;
  // An oversized upload is refused for its size first (413, by the transport), whoever sends it.
  if (!upload || (absl::SimpleAtoi(req.Header("content-length"), &length) &&
                  length > d.max_body_bytes)) {
    return d;
  }
  // Who may submit is the domain's rule (the same as for bbo submit).
  absl::StatusOr<Identity> who = Caller(credentials, req);
  const absl::Status s = who.ok() ? AccessPolicy().SubmittingTeam(*who, "").status() : who.status();
  if (!s.ok()) {
    credentials->Audit(who.ok() ? *who : Identity::Anonymous(), "web:POST /api/submit", false,
                       absl::StrCat(Peer(req), ": ", s.message()));
    d.refused = true;
    SendJson(d.refusal, internal::HttpStatus(s), internal::ErrorBody(s));
  }
  return d;
}

// The answer to a request no route takes, echoing nothing of it.
void NoRoute(const http::Request& req, int status, http::Response& res) {
  const std::string message =
      status == 405 ? "this page does not take " + req.method.substr(0, 8) : "no such page";
  if (req.path.rfind("/api/", 0) == 0) {
    SendJson(res, status, {{"error", message}});
  } else {
    res.status = status;
    res.body = message + "\n";
  }
}

// Whether `path` matches `pattern` ("{id}" = a number of 1-18 digits), with the numbers.
bool Matches(absl::string_view pattern, absl::string_view path, std::vector<std::string>* ids) {
  ids->clear();
  std::vector<absl::string_view> want = absl::StrSplit(pattern, '/');
  std::vector<absl::string_view> got = absl::StrSplit(path, '/');
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == "{id}") {
      if (got[i].empty() || got[i].size() > 18 ||
          !std::all_of(got[i].begin(), got[i].end(), absl::ascii_isdigit)) {
        return false;
      }
      ids->emplace_back(got[i]);
    } else if (want[i] != got[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

struct WebServer::RouteEntry {
  std::string method;
  std::string pattern;
  Serve serve;
};

void WebServer::Add(const std::string& method, const std::string& pattern, Serve serve) {
  table_.push_back(std::make_unique<RouteEntry>(RouteEntry{method, pattern, std::move(serve)}));
}

http::Response WebServer::Dispatch(const http::Request& req) const {
  http::Response res;
  // HEAD is GET without the body (the transport sends the headers only).
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  std::vector<std::string> ids;
  bool path_known = false;
  for (const std::unique_ptr<RouteEntry>& r : table_) {
    if (!Matches(r->pattern, req.path, &ids)) continue;
    path_known = true;
    if (r->method != method) continue;
    req.matches = std::move(ids);  // not a copy: an upload's body is 16 MiB
    try {
      r->serve(req, res);
    } catch (const std::exception& e) {
      // The operator's log says what failed; the caller is told nothing of it.
      spdlog::error("event=web_internal_error method={} path={} error=\"{}\"", req.method,
                    req.path.substr(0, 200), e.what());
      res = http::Response();
      SendJson(res, 500, {{"error", "internal error"}});
    }
    return res;
  }
  NoRoute(req, path_known ? 405 : 404, res);
  return res;
}

void WebServer::Route(Coordinator* coordinator) {
  auto add = [this](const std::string& method, const std::string& pattern, Serve serve) {
    Add(method, pattern, std::move(serve));
  };
  ServeAssets(add);
  Credentials* credentials = &coordinator->credentials();
  Metrics* metrics = &coordinator->metrics();
  {
    WebActions* actions = actions_.get();
    routes_.push_back("post /api/submit");
    Add("POST", "/api/submit", [=](const http::Request& req, http::Response& res) {
      ServeUpload(credentials, metrics, actions, req, res);
    });
  }
  auto api = [this, credentials, metrics](const std::string& pattern, const char* action,
                                          bool audit_organizer, View view) {
    routes_.push_back("get " + pattern);
    Add("GET", pattern, [=](const http::Request& req, http::Response& res) {
      ServeApi(credentials, metrics, action, audit_organizer, view, req, res);
    });
  };
  WebViews* views = views_.get();
  RouteActions(credentials, metrics, actions_.get());
  api("/api/me", "web:/api/me", true,
      [views](const Identity& who, const http::Request&) -> absl::StatusOr<json> {
        return views->Me(who);
      });
  api("/api/phases", "web:/api/phases", false,
      [views](const Identity& who, const http::Request&) { return views->Competition(who); });
  api("/api/leaderboard", "web:/api/leaderboard", false,
      WithPhaseAndBoard(
          [views](const Identity& who, const std::string& phase, const std::string& board) {
            return views->Leaderboard(who, phase, board);
          }));
  api("/api/submissions", "web:/api/submissions", false,
      [views](const Identity& who, const http::Request& req) -> absl::StatusOr<json> {
        absl::StatusOr<std::string> phase = NameParam(req, "phase");
        if (!phase.ok()) return phase.status();
        return views->Submissions(who, *phase);
      });
  auto id_of = [](const http::Request& req) -> absl::StatusOr<int64_t> {
    int64_t id = 0;
    if (req.matches.empty() || !absl::SimpleAtoi(req.matches[0], &id)) {
      return absl::InvalidArgumentError("id: not a submission id");
    }
    return id;
  };
  api("/api/submissions/{id}", "web:/api/submissions/id", false,
      [views, id_of](const Identity& who, const http::Request& req) -> absl::StatusOr<json> {
        absl::StatusOr<int64_t> id = id_of(req);
        if (!id.ok()) return id.status();
        return views->Submission(who, *id);
      });
  api("/api/submissions/{id}/log", "web:/api/submissions/log", false,
      [views, id_of](const Identity& who, const http::Request& req) -> absl::StatusOr<json> {
        absl::StatusOr<int64_t> id = id_of(req);
        if (!id.ok()) return id.status();
        return views->Log(who, *id);
      });
  api("/api/queue", "web:/api/queue", false,
      [views](const Identity& who, const http::Request&) { return views->Queue(who); });
  api("/api/report", "web:/api/report", true,
      WithPhaseAndBoard(
          [views](const Identity& who, const std::string& phase, const std::string& board) {
            return views->Report(who, phase, board);
          }));
}

void WebServer::RouteActions(Credentials* credentials, Metrics* metrics, WebActions* actions) {
  auto post = [this, credentials, metrics](const std::string& pattern, const char* name,
                                           Action action) {
    routes_.push_back("post " + pattern);
    Add("POST", pattern, [=](const http::Request& req, http::Response& res) {
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
  post("/api/admin/registration", "web:POST /api/admin/registration", bind(&A::DecideRegistration));
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
  auto get = [this, credentials, metrics](const std::string& pattern, const char* name, View view) {
    routes_.push_back("get " + pattern);
    Add("GET", pattern, [=](const http::Request& req, http::Response& res) {
      ServeApi(credentials, metrics, name, false, view, req, res);
    });
  };
  get("/api/admin/tokens", "web:/api/admin/tokens",
      [actions](const Identity& who, const http::Request&) { return actions->Tokens(who); });
  get("/api/admin/registrations", "web:/api/admin/registrations",
      [actions](const Identity& who, const http::Request&) { return actions->Registrations(who); });
  get("/api/admin/invites", "web:/api/admin/invites",
      [actions](const Identity& who, const http::Request&) { return actions->Invites(who); });
  get("/api/admin/jobs", "web:/api/admin/jobs",
      [actions](const Identity& who, const http::Request&) { return actions->FailedJobs(who); });
  get("/api/admin/audit", "web:/api/admin/audit",
      [actions](const Identity& who, const http::Request& req) -> absl::StatusOr<json> {
        int limit = 100;
        if (req.HasParam("limit") && !absl::SimpleAtoi(req.Param("limit"), &limit)) {
          return absl::InvalidArgumentError("limit: a number from 1 to 10000");
        }
        return actions->Audit(who, limit);
      });
  get("/api/admin/events", "web:/api/admin/events",
      [actions](const Identity& who, const http::Request& req) -> absl::StatusOr<json> {
        absl::StatusOr<std::string> phase = NameParam(req, "phase");
        if (!phase.ok()) return phase.status();
        return actions->Events(who, *phase);
      });
}

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(Coordinator* coordinator,
                                                            const WebServerOptions& options) {
  absl::StatusOr<internal::HostPort> where =
      internal::ParseHostPort(options.address, "--web_listen");
  if (!where.ok()) return where.status();
  auto s = std::unique_ptr<WebServer>(new WebServer());
  s->views_ = std::make_unique<WebViews>(coordinator);
  s->actions_ = std::make_unique<WebActions>(coordinator);
  s->Route(coordinator);
  RETURN_IF_ERROR(internal::CheckRoutesDescribed(s->routes_));
  http::HttpServerOptions o;
  o.address = options.address;
  o.flag = "--web_listen";
  o.tls_cert_file = options.tls_cert_file;
  o.tls_key_file = options.tls_key_file;
  o.tls_client_ca_file = options.tls_client_ca_file;
  o.handler_threads = kThreads;
  o.default_headers = SecurityHeaders();
  o.trusted_proxies = options.trusted_proxies;
  if (!options.hosts.empty() || IsLoopbackHost(where->host)) {
    o.allowed_hosts = options.hosts;
    o.allowed_hosts.push_back("localhost");
  }
  Credentials* credentials = &coordinator->credentials();
  WebServer* self = s.get();
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Start(
      o, [credentials](const http::Request& head) { return BoundBody(credentials, head); },
      [self](const http::Request& req) { return self->Dispatch(req); });
  if (!server.ok()) return server.status();
  s->http_ = *std::move(server);
  return s;
}

int WebServer::port() const { return http_->port(); }
bool WebServer::tls() const { return http_->tls(); }

WebServer::Stats WebServer::stats() const {
  const http::HttpServerStats t = http_->stats();
  return {t.connections_open, t.connections_evicted, t.requests_refused_busy};
}

// The transport stops (waiting for running handlers) before the views and actions go.
WebServer::~WebServer() { http_.reset(); }

}  // namespace bbo::web
