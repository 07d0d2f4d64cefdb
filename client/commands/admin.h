#ifndef BBO_CLIENT_COMMANDS_ADMIN_H_
#define BBO_CLIENT_COMMANDS_ADMIN_H_

// The parts of `bbo admin` shared by its two ways of working: on the coordinator's database
// (admin.cc, --db) and on a running coordinator over the network (admin_remote.cc, --server with
// an organizer token). Both print the same way.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/commands/commands.h"
#include "server/embed.h"

namespace bbo::client {

// The kinds of WHAT that both ways know.
enum class AdminAction { kToken, kPublish, kStopRace, kRequeue, kFailedJobs, kTokens, kAudit };
// What `words` asks for, or nullopt when they say nothing runnable (of the kinds above).
std::optional<AdminAction> ParseAction(const std::vector<std::string>& words);
// WHATs only a running coordinator can do (hide, disqualify, finalist, withdraw, events, ...).
bool IsRemoteOnly(const std::vector<std::string>& words);

// "2026-07-01 00:00:00Z" for seconds since the epoch; "-" for 0 (never).
std::string Utc(double t);
// "bbo admin: say what to do ..." on stderr; returns 2.
int AdminUsage();
// "bbo admin: <message>" on stderr; returns 1.
int AdminFail(const absl::Status& s);
// A new token on stdout, what to do with it on stderr.
void PrintNewToken(const std::string& kind, const std::string& owner, const std::string& token);
// The tables (or JSON) of `bbo admin jobs`, `tokens` and `audit`; 0, or AdminFail's 1.
int PrintFailedJobs(const absl::StatusOr<std::vector<FailedJobInfo>>& failed, bool json);
int PrintTokens(const absl::StatusOr<std::vector<TokenInfo>>& tokens, bool json);
int PrintAudit(const absl::StatusOr<std::vector<AuditEntry>>& log, bool json);

// `bbo admin --server ...`: every WHAT, through the coordinator's OrganizerService.
int RunAdminRemote(const AdminArgs& a);

class Remote;
// Whether words[0] is one of registrations, approve, reject, invites, invite (remote only).
bool IsRegistrationAction(const std::vector<std::string>& words);
// `bbo admin --server ... registrations|approve TEAM|reject TEAM|invites|invite add|invite
// revoke ID` (admin_registrations.cc).
int RunRegistrationActions(const Remote& r, const AdminArgs& a);

}  // namespace bbo::client

#endif  // BBO_CLIENT_COMMANDS_ADMIN_H_
