// bbo admin: the organizer's tokens (teams, workers, organizers) and the audit log, kept in the
// coordinator's SQLite file (server/identity.h). Runs on the coordinator's host; a running
// coordinator sees the changes at its next call (revocation is immediate).
//
//   bbo admin --db F team add NAME        print a new token for team NAME (shown once)
//   bbo admin --db F team rotate NAME     revoke NAME's tokens and print a new one
//   bbo admin --db F team revoke NAME     revoke NAME's tokens
//   (the same for `worker NAME` and `organizer LABEL`)
//   bbo admin --db F tokens [--json]      every credential (never the token itself)
//   bbo admin --db F audit [--limit N] [--json]   organizer actions and refused calls

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/commands/admin.h"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
#include "nlohmann/json.hpp"
#include "server/embed.h"

namespace bbo::client {

std::string Utc(double t) {
  if (t <= 0) return "-";
  const std::time_t s = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

namespace {

// The audit's "who" for this tool: the local user (from the real uid, not $USER, which the
// caller sets) and host.
std::string Actor() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  const passwd* pw = getpwuid(getuid());
  return absl::StrCat("bbo admin by ",
                      pw != nullptr ? std::string(pw->pw_name) : absl::StrCat("uid ", getuid()),
                      "@", host);
}

}  // namespace

int AdminUsage() {
  std::fprintf(stderr,
               "bbo admin: say what to do, e.g.\n"
               "  bbo admin --server HOST:PORT --token_file organizer.token WHAT  (any WHAT below)\n"
               "  bbo admin --server ... hide ID --reason TEXT    (also: unhide)\n"
               "  bbo admin --server ... disqualify PHASE TEAM --reason TEXT   (also: requalify)\n"
               "  bbo admin --server ... finalist ID --reason TEXT\n"
               "  bbo admin --server ... withdraw ID\n"
               "  bbo admin --server ... events PHASE\n"
               "  bbo admin --db arena.sqlite team add NAME      (also: rotate, revoke)\n"
               "  bbo admin --db arena.sqlite worker add NAME    (also: rotate, revoke)\n"
               "  bbo admin --db arena.sqlite organizer add LABEL\n"
               "  bbo admin --db arena.sqlite tokens\n"
               "  bbo admin --db arena.sqlite audit [--limit N]\n"
               "  bbo admin --db arena.sqlite jobs               (the jobs that failed)\n"
               "  bbo admin --db arena.sqlite jobs requeue ID    (or: all)\n"
               "  bbo admin --db arena.sqlite publish PHASE\n"
               "  bbo admin --db arena.sqlite unpublish PHASE --reason TEXT\n"
               "  bbo admin --db arena.sqlite stop-race PHASE --reason TEXT\n");
  return 2;
}

int AdminFail(const absl::Status& s) {
  std::fprintf(stderr, "bbo admin: %s\n", std::string(s.message()).c_str());
  return 1;
}

bool IsRemoteOnly(const std::vector<std::string>& words) {
  static const std::set<std::string>* const kRemote = new std::set<std::string>{
      "hide",      "unhide",  "disqualify", "requalify", "finalist",
      "withdraw",  "events",  "registrations", "approve", "reject",
      "invites",   "invite"};
  return !words.empty() && kRemote->count(words[0]) > 0;
}

// What `words` asks for, or nullopt when they say nothing runnable.
std::optional<AdminAction> ParseAction(const std::vector<std::string>& words) {
  if (words.empty()) return std::nullopt;
  const std::string& what = words[0];
  if (what == "team" || what == "worker" || what == "organizer") {
    if (words.size() != 3 || (words[1] != "add" && words[1] != "rotate" && words[1] != "revoke")) {
      return std::nullopt;
    }
    return AdminAction::kToken;
  }
  if (what == "publish" || what == "unpublish") {
    return words.size() == 2 ? std::optional(AdminAction::kPublish) : std::nullopt;
  }
  if (what == "stop-race") {
    return words.size() == 2 ? std::optional(AdminAction::kStopRace) : std::nullopt;
  }
  if (what == "jobs") {
    if (words.size() == 1) return AdminAction::kFailedJobs;
    if (words.size() == 3 && words[1] == "requeue") return AdminAction::kRequeue;
    return std::nullopt;
  }
  if (words.size() != 1) return std::nullopt;
  if (what == "tokens") return AdminAction::kTokens;
  if (what == "audit") return AdminAction::kAudit;
  return std::nullopt;
}

void PrintNewToken(const std::string& kind, const std::string& owner, const std::string& token) {
  // The token alone on stdout (for scripts); what to do with it on stderr.
  std::printf("%s\n", token.c_str());
  std::fprintf(stderr,
               "bbo admin: the token of %s %s above is shown only this once; hand it over "
               "privately (%s)\n",
               kind.c_str(), owner.c_str(),
               kind == "worker" ? "bbo-worker --token_file FILE"
                                : "BBO_TOKEN=... bbo submit, or bbo --token_file FILE");
}

namespace {

// team|worker|organizer add|rotate|revoke NAME.
int RunTokenAction(ArenaDatabase& db, const std::vector<std::string>& words) {
  const std::string& kind = words[0];
  const std::string& action = words[1];
  const std::string& owner = words[2];
  if (action == "revoke") {
    absl::Status s = db.RevokeTokens(kind, owner, Actor());
    if (!s.ok()) return AdminFail(s);
    std::fprintf(stderr, "bbo admin: %s %s: every token revoked\n", kind.c_str(), owner.c_str());
    return 0;
  }
  absl::StatusOr<std::string> token = action == "add" ? db.IssueToken(kind, owner, Actor())
                                                      : db.RotateToken(kind, owner, Actor());
  if (!token.ok()) return AdminFail(token.status());
  PrintNewToken(kind, owner, *token);
  return 0;
}

// publish|unpublish PHASE.
int RunPublish(ArenaDatabase& db, const AdminArgs& a) {
  const std::string& what = a.words[0];
  absl::Status s = db.PublishBoard(a.words[1], what == "unpublish", a.reason, Actor());
  if (!s.ok()) return AdminFail(s);
  std::printf("%s the board of phase %s%s\n", what == "publish" ? "published" : "hid again",
              a.words[1].c_str(),
              what == "publish" ? ": every participant sees its scores and ranks now"
                                : " (recorded with the reason)");
  return 0;
}

// stop-race PHASE.
int RunStopRace(ArenaDatabase& db, const AdminArgs& a) {
  absl::Status s = db.StopRace(a.words[1], a.reason, Actor());
  if (!s.ok()) return AdminFail(s);
  std::printf("stopped the race of phase %s: no more rounds; queued jobs still run, and the "
              "remaining submissions are its Pareto set (bbo report --phase %s)\n",
              a.words[1].c_str(), a.words[1].c_str());
  return 0;
}

// jobs requeue ID|all.
int RunRequeue(ArenaDatabase& db, const std::string& which) {
  int64_t id = 0;
  if (which != "all" && (!absl::SimpleAtoi(which, &id) || id <= 0)) {
    std::fprintf(stderr, "bbo admin: jobs requeue takes a job id or 'all', got '%s'\n",
                 which.c_str());
    return 2;
  }
  absl::StatusOr<int> n = db.RequeueFailedJobs(id, Actor());
  if (!n.ok()) return AdminFail(n.status());
  std::printf("%d job(s) back in the queue\n", *n);
  return 0;
}

}  // namespace

// jobs: those that failed without a result.
int PrintFailedJobs(const absl::StatusOr<std::vector<FailedJobInfo>>& failed, bool json) {
  if (!failed.ok()) return AdminFail(failed.status());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const FailedJobInfo& f : *failed) {
      out.push_back({{"job_id", f.job_id},
                     {"submission", f.submission},
                     {"problem", f.problem},
                     {"trial", f.trial},
                     {"board", f.board},
                     {"attempts", f.attempts},
                     {"last_error", f.last_error}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-7s %-28s %-24s %5s %8s  %s\n", "job", "submission", "problem", "trial",
              "attempts", "last error");
  for (const FailedJobInfo& f : *failed) {
    std::printf("%-7lld %-28s %-24s %5d %8d  %s\n", static_cast<long long>(f.job_id),
                f.submission.c_str(), f.problem.c_str(), f.trial, f.attempts,
                f.last_error.c_str());
  }
  if (failed->empty()) std::printf("(no failed jobs)\n");
  return 0;
}

// tokens: every credential, never the token itself.
int PrintTokens(const absl::StatusOr<std::vector<TokenInfo>>& tokens, bool json) {
  if (!tokens.ok()) return AdminFail(tokens.status());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const TokenInfo& t : *tokens) {
      out.push_back({{"kind", t.kind},
                     {"owner", t.owner},
                     {"created_at", t.created_at},
                     {"revoked", t.revoked_at > 0}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-10s %-30s %-21s %s\n", "kind", "owner", "created", "revoked");
  for (const TokenInfo& t : *tokens) {
    std::printf("%-10s %-30s %-21s %s\n", t.kind.c_str(), t.owner.c_str(),
                Utc(t.created_at).c_str(), Utc(t.revoked_at).c_str());
  }
  return 0;
}

// audit: the latest `limit` organizer actions and refused calls.
int PrintAudit(const absl::StatusOr<std::vector<AuditEntry>>& log, bool json) {
  if (!log.ok()) return AdminFail(log.status());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const AuditEntry& e : *log) {
      out.push_back({{"at", e.at},
                     {"who", e.who},
                     {"action", e.action},
                     {"allowed", e.allowed},
                     {"detail", e.detail}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  for (const AuditEntry& e : *log) {
    std::printf("%s  %-8s %-22s %-40s %s\n", Utc(e.at).c_str(), e.allowed ? "allowed" : "REFUSED",
                e.who.c_str(), e.action.c_str(), e.detail.c_str());
  }
  return 0;
}

int RunAdmin(const AdminArgs& a) {
  if (a.remote) return RunAdminRemote(a);
  if (a.db.empty()) {
    std::fprintf(stderr, "bbo admin: say where: --server HOST:PORT (a running coordinator, with "
                         "an organizer token) or --db FILE (its database, on its host)\n");
    return 2;
  }
  if (IsRemoteOnly(a.words)) {
    std::fprintf(stderr, "bbo admin: %s needs the running coordinator (it applies the phases' "
                         "rules): --server HOST:PORT with an organizer token, not --db\n",
                 a.words[0].c_str());
    return 2;
  }
  const std::optional<AdminAction> action = ParseAction(a.words);
  if (!action) return AdminUsage();
  // Only issuing a token may create the file (the first step of setting up a competition).
  auto db = *action == AdminAction::kToken ? ArenaDatabase::OpenOrCreate(a.db)
                                           : ArenaDatabase::Open(a.db);
  if (!db.ok()) return AdminFail(db.status());
  if (!a.secret_file.empty()) (*db)->set_secret_path(a.secret_file);
  switch (*action) {
    case AdminAction::kToken: return RunTokenAction(**db, a.words);
    case AdminAction::kPublish: return RunPublish(**db, a);
    case AdminAction::kStopRace: return RunStopRace(**db, a);
    case AdminAction::kRequeue: return RunRequeue(**db, a.words[2]);
    case AdminAction::kFailedJobs: return PrintFailedJobs((*db)->ListFailedJobs(), a.json);
    case AdminAction::kTokens: return PrintTokens((*db)->ListTokens(), a.json);
    case AdminAction::kAudit: return PrintAudit((*db)->ListAudit(a.limit), a.json);
  }
  return AdminUsage();
}

Command AddAdminCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<AdminArgs>();
  CLI::App* cmd = app.add_subcommand(
      "admin",
      "Organizers: every organizer action, on a running coordinator over the network (--server "
      "HOST:PORT with an organizer's token, e.g. --token_file organizer.token) or on its SQLite "
      "file on its host (--db; a running coordinator may share it). WHAT: `team "
      "add|rotate|revoke NAME`, `worker add|rotate|revoke NAME`, `organizer add|rotate|revoke "
      "LABEL`, `tokens`, `audit`, `jobs` (those lost without a result), `jobs requeue "
      "ID|all` (all: every failed job not withdrawn), `publish PHASE` (show a "
      "board hidden until published to everyone), `unpublish PHASE --reason TEXT` (hide it "
      "again; the reason is shown to participants), `stop-race PHASE --reason TEXT` (end a "
      "racing phase's race now: its remaining submissions are the Pareto set); with --server "
      "only: `hide ID --reason TEXT` / `unhide ID --reason TEXT` (take a submission off its "
      "board, or put it back), `disqualify PHASE TEAM --reason TEXT` / `requalify PHASE TEAM "
      "--reason TEXT`, `finalist ID --reason TEXT` (make submission ID its team's entry in the "
      "next phase; after the migration it replaces the team's entry there), `withdraw ID`, "
      "`events PHASE` (publication, moderation and finalist choices, with who and why), "
      "`registrations` (teams that registered on the web page), `approve TEAM`, `reject TEAM "
      "--reason TEXT`, `invite add [--uses N] [--note TEXT]` (an invite code for registration "
      "by invite code, shown once), `invites`, `invite revoke ID`. Every action is written to "
      "the audit log.");
  cmd->add_option("--db", args->db, "The coordinator's SQLite file (on its host)");
  CLI::Option* server = AddServerOptions(*cmd, args->server, connection);
  server->description(
      "A running bbo-server, host:port (with an organizer's token: --token_file or $BBO_TOKEN)");
  cmd->add_option("--secret_file", args->secret_file,
                  "--db: the token secret (default: <db>.secret, created 0600)");
  cmd->add_option("WHAT", args->words, "What to do (see above)")->required();
  cmd->add_option("--limit", args->limit, "audit: the latest N entries")->default_val(args->limit);
  cmd->add_flag("--json", args->json, "JSON output (tokens, audit, jobs)");
  cmd->add_option("--uses", args->uses, "invite add: registrations the code allows")
      ->default_val(args->uses)
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--note", args->note, "invite add: who the code is for (organizers see it)");
  cmd->add_option("--reason", args->reason,
                  "unpublish, stop-race, hide, unhide, disqualify, requalify, finalist, reject: why "
                  "(recorded with your name and shown to the teams concerned)");
  return {cmd, [args, server, &connection] {
            if (server->count() > 0 && !args->db.empty()) {
              std::fprintf(stderr, "bbo admin: give --server or --db, not both\n");
              return 2;
            }
            args->remote = server->count() > 0;
            if (args->remote && !Connect(connection, args->server)) return 1;
            return RunAdmin(*args);
          }};
}

}  // namespace bbo::client
