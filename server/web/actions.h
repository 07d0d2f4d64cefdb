#ifndef BBO_SERVER_WEB_ACTIONS_H_
#define BBO_SERVER_WEB_ACTIONS_H_

// WebActions: what the web page changes (POST /api/...), each a JSON object in, a JSON object
// out, and one call of the domain that decides who may do it: the team's own choose and
// withdraw (Competition::Choose, Competition::Withdraw), and every organizer action through
// Administration (server/administration.h), the same methods `bbo admin --server` calls. No
// HTTP here (server/web/web_server.h is the transport). Bodies are checked field by field:
// an object, known keys only, each of its type and size (InvalidArgument naming the field).
// Thread-safe.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/access.h"
#include "server/administration.h"
#include "server/coordinator.h"

namespace bbo::web {

class WebActions {
 public:
  explicit WebActions(Coordinator* coordinator) : c_(coordinator), admin_(coordinator) {}

  // A team: {submission_id} -> {next_phase}; {submission_id} -> {jobs_cancelled}.
  absl::StatusOr<nlohmann::json> Choose(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Withdraw(const Identity& who, const nlohmann::json& body);
  // Organizers (Administration): {phase, undo?, reason?}; {phase, reason}; {submission_id,
  // undo?, reason}; {phase, team, undo?, reason}; {submission_id, reason} -> {next_phase};
  // {job_id} (0 = every failed job) -> {requeued}; {kind, owner, action: add|rotate|revoke} ->
  // {token} (add, rotate).
  absl::StatusOr<nlohmann::json> Publish(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> StopRace(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Hide(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Disqualify(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> SetFinalist(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Requeue(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Token(const Identity& who, const nlohmann::json& body);
  // Organizers' reads: {tokens: [{kind, owner, created_at_s, revoked_at_s}]}; {entries: [{at_s,
  // who, action, detail, allowed}]} (the latest `limit`); {jobs: [...]}; {events: [...]} of a
  // phase.
  absl::StatusOr<nlohmann::json> Tokens(const Identity& who);
  absl::StatusOr<nlohmann::json> Audit(const Identity& who, int limit);
  absl::StatusOr<nlohmann::json> FailedJobs(const Identity& who);
  absl::StatusOr<nlohmann::json> Events(const Identity& who, const std::string& phase);

  // Registration (server/registration.h), anonymous: {team, email?, accept_terms?,
  // invite_code?} -> {team, state, token?, claim?, message}; {claim} -> the same. `peer` is the
  // caller's address. Both are audited (who registered what from where).
  absl::StatusOr<nlohmann::json> Register(const Identity& who, const nlohmann::json& body,
                                          const std::string& peer);
  absl::StatusOr<nlohmann::json> Claim(const Identity& who, const nlohmann::json& body,
                                       const std::string& peer);
  // Organizers: {registrations: [...], mode}; {team, approve, reason?}; {uses, note?} -> {id,
  // code}; {invites: [...]}; {id}.
  absl::StatusOr<nlohmann::json> Registrations(const Identity& who);
  absl::StatusOr<nlohmann::json> DecideRegistration(const Identity& who,
                                                    const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Invite(const Identity& who, const nlohmann::json& body);
  absl::StatusOr<nlohmann::json> Invites(const Identity& who);
  absl::StatusOr<nlohmann::json> RevokeInvite(const Identity& who, const nlohmann::json& body);
  // A submission uploaded from the page: the archive's bytes (a .tar, .tar.gz or .zip of the
  // folder), its name, trials (0 = the phase's default) and phase ("" = the one open now),
  // registered as `bbo submit` registers it (Phase::Register: the same checks and messages) ->
  // {submission_id, kind, jobs, trials, phase}.
  absl::StatusOr<nlohmann::json> Submit(const Identity& who, const std::string& archive,
                                        const std::string& name, int trials,
                                        const std::string& phase);

 private:
  Coordinator* c_;
  Administration admin_;
};

}  // namespace bbo::web

#endif  // BBO_SERVER_WEB_ACTIONS_H_
