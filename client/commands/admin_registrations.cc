// bbo admin --server HOST:PORT registrations | approve TEAM | reject TEAM --reason TEXT |
// invites | invite add [--uses N] [--note TEXT] | invite revoke ID: the teams that registered on
// the web page and the invite codes (OrganizerService; server/registration.h).

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "client/commands/admin.h"
#include "client/remote.h"
#include "nlohmann/json.hpp"

namespace bbo::client {
namespace {

int PrintRegistrations(const v1::ListRegistrationsResponse& r, bool json) {
  if (json) {
    nlohmann::json out = {{"mode", r.mode()}, {"registrations", nlohmann::json::array()}};
    for (const auto& e : r.registrations()) {
      out["registrations"].push_back({{"team", e.team()},
                                      {"email", e.email()},
                                      {"state", e.state()},
                                      {"created_at", e.created_at_s()},
                                      {"terms_accepted_at", e.terms_accepted_at_s()},
                                      {"invite_id", e.invite_id()},
                                      {"peer", e.peer()},
                                      {"decided_by", e.decided_by()},
                                      {"reason", e.reason()},
                                      {"token_issued_at", e.token_issued_at_s()}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("registration: %s\n", r.mode().c_str());
  if (r.registrations_size() == 0) {
    std::printf("(no team registered on the page)\n");
    return 0;
  }
  std::printf("%-24s %-9s %-21s %-21s %-28s %s\n", "team", "state", "registered", "token taken",
              "e-mail", "decided by / why");
  for (const auto& e : r.registrations()) {
    std::printf("%-24s %-9s %-21s %-21s %-28s %s%s%s\n", e.team().c_str(), e.state().c_str(),
                Utc(e.created_at_s()).c_str(), Utc(e.token_issued_at_s()).c_str(),
                e.email().empty() ? "-" : e.email().c_str(),
                e.decided_by().empty() ? "-" : e.decided_by().c_str(),
                e.reason().empty() ? "" : ": ", e.reason().c_str());
  }
  return 0;
}

int PrintInvites(const v1::ListInvitesResponse& r, bool json) {
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : r.invites()) {
      out.push_back({{"id", i.id()},
                     {"uses_left", i.uses_left()},
                     {"note", i.note()},
                     {"created_by", i.created_by()},
                     {"created_at", i.created_at_s()},
                     {"revoked_at", i.revoked_at_s()}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  if (r.invites_size() == 0) {
    std::printf("(no invite codes; bbo admin invite add --uses N makes one)\n");
    return 0;
  }
  std::printf("%6s %9s %-21s %-21s %-20s %s\n", "id", "uses left", "created", "revoked", "by",
              "note");
  for (const auto& i : r.invites()) {
    std::printf("%6lld %9d %-21s %-21s %-20s %s\n", static_cast<long long>(i.id()), i.uses_left(),
                Utc(i.created_at_s()).c_str(), Utc(i.revoked_at_s()).c_str(),
                i.created_by().c_str(), i.note().c_str());
  }
  return 0;
}

int RunInvite(const Remote& r, const AdminArgs& a) {
  if (a.words.size() == 2 && a.words[1] == "add") {
    v1::IssueInviteRequest req;
    req.set_uses(a.uses);
    req.set_note(a.note);
    auto resp = r.IssueInvite(req);
    if (!resp.ok()) return PrintRemoteError("admin invite", resp.status());
    std::printf("%s\n", resp->code().c_str());
    std::fprintf(stderr,
                 "bbo admin: invite code %lld for %d registration(s), shown once: give it to the "
                 "team(s), who paste it on the page's registration form\n",
                 static_cast<long long>(resp->id()), a.uses);
    return 0;
  }
  int64_t id = 0;
  if (a.words.size() != 3 || a.words[1] != "revoke" || !absl::SimpleAtoi(a.words[2], &id) ||
      id <= 0) {
    std::fprintf(stderr, "bbo admin: invite add [--uses N] [--note TEXT], or invite revoke ID "
                         "(bbo admin invites lists them)\n");
    return 2;
  }
  v1::RevokeInviteRequest req;
  req.set_id(id);
  if (auto resp = r.RevokeInvite(req); !resp.ok()) {
    return PrintRemoteError("admin invite revoke", resp.status());
  }
  std::printf("invite code %lld revoked: it registers no more teams\n", static_cast<long long>(id));
  return 0;
}

}  // namespace

bool IsRegistrationAction(const std::vector<std::string>& words) {
  static const std::set<std::string>* const kWords =
      new std::set<std::string>{"registrations", "approve", "reject", "invites", "invite"};
  return !words.empty() && kWords->count(words[0]) > 0;
}

int RunRegistrationActions(const Remote& r, const AdminArgs& a) {
  const std::string& what = a.words[0];
  if (what == "registrations" || what == "invites") {
    if (a.words.size() != 1) return AdminUsage();
    if (what == "invites") {
      auto resp = r.ListInvites();
      if (!resp.ok()) return PrintRemoteError("admin invites", resp.status());
      return PrintInvites(*resp, a.json);
    }
    auto resp = r.ListRegistrations();
    if (!resp.ok()) return PrintRemoteError("admin registrations", resp.status());
    return PrintRegistrations(*resp, a.json);
  }
  if (what == "invite") return RunInvite(r, a);
  if (a.words.size() != 2) {
    std::fprintf(stderr, "bbo admin: %s takes a team's name (bbo admin registrations lists "
                         "them)\n", what.c_str());
    return 2;
  }
  v1::DecideRegistrationRequest req;
  req.set_team(a.words[1]);
  req.set_approve(what == "approve");
  req.set_reason(a.reason);
  if (auto resp = r.DecideRegistration(req); !resp.ok()) {
    return PrintRemoteError("admin " + what, resp.status());
  }
  std::printf("team %s: registration %s%s\n", a.words[1].c_str(),
              what == "approve" ? "approved (the team takes its token with its claim code)"
                                : "rejected",
              what == "approve" ? "" : " (the team is shown your reason)");
  return 0;
}

}  // namespace bbo::client
