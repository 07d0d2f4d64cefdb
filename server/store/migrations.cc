// Numbered schema migrations. Never edit a migration that has shipped: append a new one.

#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

// kMigrations[v - 1] takes the schema from version v - 1 to version v.
constexpr const char* kMigrations[] = {
    // 1: the initial schema.
    R"sql(
CREATE TABLE submissions (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  kind INTEGER NOT NULL,
  archive BLOB NOT NULL,
  digest TEXT NOT NULL,
  trials INTEGER NOT NULL,
  is_baseline INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL
);
CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  hostname TEXT NOT NULL,
  slots INTEGER NOT NULL,
  registered_at REAL NOT NULL,
  last_heartbeat REAL NOT NULL
);
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  submission_id INTEGER NOT NULL REFERENCES submissions(id),
  problem TEXT NOT NULL,
  trial INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),
  worker_id TEXT,
  lease_expires_at REAL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  builtin INTEGER NOT NULL DEFAULT 0,
  UNIQUE (submission_id, problem, trial)
);
CREATE INDEX jobs_by_state ON jobs (state, builtin, id);
CREATE TABLE studies (
  id INTEGER PRIMARY KEY,
  job_id INTEGER REFERENCES jobs(id),
  submission_id INTEGER NOT NULL,
  problem TEXT NOT NULL,
  trial INTEGER NOT NULL,
  state TEXT NOT NULL,
  batch_size INTEGER NOT NULL,
  n_batches INTEGER NOT NULL,
  suggest_budget_s REAL NOT NULL,
  study_budget_s REAL NOT NULL,
  optimizer_time_s REAL NOT NULL DEFAULT 0,
  batches_done INTEGER NOT NULL DEFAULT 0,
  best_value REAL,
  started_at REAL NOT NULL,
  ended_at REAL,
  end_reason TEXT
);
CREATE INDEX studies_by_submission ON studies (submission_id, problem, state);
CREATE INDEX studies_by_job ON studies (job_id);
CREATE TABLE batches (
  study_id INTEGER NOT NULL REFERENCES studies(id),
  batch INTEGER NOT NULL,
  source TEXT NOT NULL,
  turn_time_s REAL NOT NULL,
  host_suggest_time_s REAL NOT NULL,
  host_observe_time_s REAL NOT NULL,
  eval_time_s REAL NOT NULL,
  n_replaced INTEGER NOT NULL,
  PRIMARY KEY (study_id, batch)
);
CREATE TABLE evaluations (
  study_id INTEGER NOT NULL,
  batch INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  params_json TEXT NOT NULL,
  value REAL NOT NULL,
  replaced INTEGER NOT NULL,
  eval_time_s REAL NOT NULL,
  PRIMARY KEY (study_id, batch, idx),
  FOREIGN KEY (study_id, batch) REFERENCES batches(study_id, batch)
);
CREATE TABLE study_errors (
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES studies(id),
  batch INTEGER NOT NULL,
  kind TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX study_errors_by_study ON study_errors (study_id);
)sql",
    // 2: keep the optimizer's original suggestion when random search replaced it.
    R"sql(
ALTER TABLE evaluations ADD COLUMN suggested_json TEXT;
)sql",
    // 3: the order in which studies reached a scored final state, so the scoring service
    // can find what changed since its last computation (incremental rescoring).
    R"sql(
ALTER TABLE studies ADD COLUMN final_seq INTEGER;
UPDATE studies SET final_seq = id WHERE state IN ('completed', 'cut_off', 'failed');
CREATE INDEX studies_by_final_seq ON studies (final_seq);
)sql",
    // 4: the problem's signature (values at fixed probe points) at the time of each study,
    // to detect a problem that changed between runs.
    R"sql(
ALTER TABLE studies ADD COLUMN problem_signature TEXT;
)sql",
    // 5: boards (a final phase's warm-start board runs the same jobs with real parameter
    // names): jobs get a board and are unique per board, which SQLite can only do by
    // rebuilding the table; studies record their board; evaluations keep the problem's
    // held-out ("generalization") loss; submissions record their team.
    R"sql(
CREATE TABLE jobs_v5 (
  id INTEGER PRIMARY KEY,
  submission_id INTEGER NOT NULL REFERENCES submissions(id),
  problem TEXT NOT NULL,
  trial INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),
  worker_id TEXT,
  lease_expires_at REAL,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  builtin INTEGER NOT NULL DEFAULT 0,
  board TEXT NOT NULL DEFAULT '',
  UNIQUE (submission_id, problem, trial, board)
);
INSERT INTO jobs_v5 (id, submission_id, problem, trial, seed, state, worker_id,
                     lease_expires_at, attempts, last_error, builtin)
  SELECT id, submission_id, problem, trial, seed, state, worker_id, lease_expires_at, attempts,
         last_error, builtin FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_v5 RENAME TO jobs;
CREATE INDEX jobs_by_state ON jobs (state, builtin, id);
ALTER TABLE studies ADD COLUMN board TEXT NOT NULL DEFAULT '';
ALTER TABLE evaluations ADD COLUMN generalization REAL;
ALTER TABLE submissions ADD COLUMN team TEXT NOT NULL DEFAULT '';
CREATE INDEX submissions_by_team ON submissions (team);
CREATE INDEX submissions_by_digest ON submissions (digest);
)sql",
    // 6: the optimizer's CPU time per turn, from the worker's control group (NULL: unknown).
    R"sql(
ALTER TABLE batches ADD COLUMN optimizer_cpu_s REAL;
)sql",
    // 7: identities (keyed token hashes only) and the audit log.
    R"sql(
CREATE TABLE credentials (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('organizer', 'team', 'worker')),
  owner TEXT NOT NULL,
  token_hash BLOB NOT NULL UNIQUE,
  created_at REAL NOT NULL,
  revoked_at REAL
);
CREATE INDEX credentials_by_owner ON credentials (kind, owner);
CREATE TABLE audit (
  id INTEGER PRIMARY KEY,
  at REAL NOT NULL,
  who TEXT NOT NULL,
  action TEXT NOT NULL,
  allowed INTEGER NOT NULL,
  detail TEXT NOT NULL
);
)sql",
    // 8: coordinator epochs (one per start), and at most one final study per job. Earlier
    // versions could run a job twice (a worker dying between its study's end and FinishJob)
    // and scored the later study: the first stands now, the later ones are abandoned.
    R"sql(
CREATE TABLE coordinator_epochs (
  epoch INTEGER PRIMARY KEY,
  started_at REAL NOT NULL
);
UPDATE studies SET state = 'abandoned', final_seq = NULL,
  end_reason = 'a second final study of its job (the first one stands)'
  WHERE job_id IS NOT NULL AND state IN ('completed', 'cut_off', 'failed')
    AND id NOT IN (SELECT MIN(id) FROM studies WHERE job_id IS NOT NULL
                   AND state IN ('completed', 'cut_off', 'failed') GROUP BY job_id);
CREATE UNIQUE INDEX one_final_study_per_job ON studies (job_id)
  WHERE job_id IS NOT NULL AND state IN ('completed', 'cut_off', 'failed');
)sql",
    // 9: one competition, several phases in one database. Submissions belong to a phase
    // (their names are unique within it; "" is the one phase of a coordinator started from
    // flags) and may be migrated from an earlier phase; the phases' problems and budgets as
    // first served; phase events (migration, publishing the final board); teams' choices of
    // the submission that goes on to the next phase.
    R"sql(
CREATE TABLE submissions_v9 (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  archive BLOB NOT NULL,
  digest TEXT NOT NULL,
  trials INTEGER NOT NULL,
  is_baseline INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL,
  team TEXT NOT NULL DEFAULT '',
  phase TEXT NOT NULL DEFAULT '',
  migrated_from INTEGER REFERENCES submissions_v9(id),
  UNIQUE (phase, name)
);
INSERT INTO submissions_v9 (id, name, kind, archive, digest, trials, is_baseline, created_at,
                            team)
  SELECT id, name, kind, archive, digest, trials, is_baseline, created_at, team FROM submissions;
DROP TABLE submissions;
ALTER TABLE submissions_v9 RENAME TO submissions;
CREATE INDEX submissions_by_team ON submissions (team);
CREATE INDEX submissions_by_digest ON submissions (digest);
CREATE INDEX jobs_by_board ON jobs (board, submission_id);
CREATE TABLE phases (
  name TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  spec TEXT NOT NULL,
  recorded_at REAL NOT NULL
);
CREATE TABLE phase_events (
  id INTEGER PRIMARY KEY,
  phase TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('migrated', 'published', 'unpublished')),
  at REAL NOT NULL,
  who TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE UNIQUE INDEX one_migration_per_phase ON phase_events (phase) WHERE kind = 'migrated';
CREATE TABLE final_choices (
  phase TEXT NOT NULL,
  team TEXT NOT NULL,
  submission_id INTEGER NOT NULL REFERENCES submissions(id),
  chosen_at REAL NOT NULL,
  PRIMARY KEY (phase, team)
);
)sql",
    // 10: racing phases (server/race.h). A job may run fewer batches than its phase (a method
    // stopped at its tau_A); each round of a race is recorded with the planner's state, in the
    // transaction that queues the round's jobs, so a round is queued exactly once.
    R"sql(
ALTER TABLE jobs ADD COLUMN max_batches INTEGER NOT NULL DEFAULT 0;
CREATE TABLE race_rounds (
  phase TEXT NOT NULL,
  round INTEGER NOT NULL,
  state_json TEXT NOT NULL,
  stop INTEGER NOT NULL DEFAULT 0,
  note TEXT NOT NULL DEFAULT '',
  jobs INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL,
  PRIMARY KEY (phase, round)
);
)sql",
    // 11: the optimizer's peak memory per turn, from the worker's control group (NULL: unknown).
    R"sql(
ALTER TABLE batches ADD COLUMN optimizer_peak_memory_mb REAL;
)sql",
    // 12: a withdrawn submission is marked as such (before, only its cancelled jobs said so:
    // one withdrawn between a race's rounds, with nothing queued, ran on). Backfilled from them.
    R"sql(
ALTER TABLE submissions ADD COLUMN withdrawn TEXT NOT NULL DEFAULT '';
UPDATE submissions SET withdrawn = COALESCE(
  (SELECT j.last_error FROM jobs j WHERE j.submission_id = submissions.id
     AND j.state = 'failed' AND j.last_error LIKE 'withdrawn%' ORDER BY j.id LIMIT 1), '');
)sql",
    // 13: organizers' moderation. A submission an organizer hid (or whose team was disqualified)
    // is off its board with the reason; phase events name the team and submission they are about
    // (hiding, disqualifying, choices and finalists set by organizers).
    // phase_events is rebuilt (SQLite's procedure) for its wider CHECK of kinds.
    R"sql(
ALTER TABLE submissions ADD COLUMN hidden TEXT NOT NULL DEFAULT '';
CREATE TABLE phase_events_v13 (
  id INTEGER PRIMARY KEY,
  phase TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('migrated', 'published', 'unpublished', 'hidden',
                                     'unhidden', 'disqualified', 'requalified', 'chosen',
                                     'finalist_set', 'finalist_replaced')),
  at REAL NOT NULL,
  who TEXT NOT NULL,
  detail TEXT NOT NULL,
  team TEXT NOT NULL DEFAULT '',
  submission_id INTEGER
);
INSERT INTO phase_events_v13 (id, phase, kind, at, who, detail)
  SELECT id, phase, kind, at, who, detail FROM phase_events;
DROP TABLE phase_events;
ALTER TABLE phase_events_v13 RENAME TO phase_events;
CREATE UNIQUE INDEX one_migration_per_phase ON phase_events (phase) WHERE kind = 'migrated';
CREATE INDEX phase_events_by_phase ON phase_events (phase, id);
)sql",
    // 14: teams' contacts for notifications (server/notifications.h), and the one-off notices
    // already sent (a phase opened or closed: once, across restarts).
    R"sql(
CREATE TABLE team_contacts (
  team TEXT PRIMARY KEY,
  email TEXT NOT NULL DEFAULT '',
  webhook_url TEXT NOT NULL DEFAULT '',
  updated_at REAL NOT NULL
);
CREATE TABLE notifications_sent (
  key TEXT PRIMARY KEY,
  at REAL NOT NULL
);
)sql",
    // 15: teams registered on the web page (server/registration.h) and the organizers' invite
    // codes; only keyed hashes of the claim and invite codes.
    R"sql(
CREATE TABLE invites (
  id INTEGER PRIMARY KEY,
  code_hash BLOB NOT NULL UNIQUE,
  uses_left INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL,
  created_at REAL NOT NULL,
  revoked_at REAL
);
CREATE TABLE registrations (
  team TEXT PRIMARY KEY,
  email TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
  claim_hash BLOB NOT NULL UNIQUE,
  invite_id INTEGER REFERENCES invites (id),
  terms_accepted_at REAL NOT NULL DEFAULT 0,
  peer TEXT NOT NULL DEFAULT '',
  created_at REAL NOT NULL,
  decided_at REAL NOT NULL DEFAULT 0,
  decided_by TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  token_issued_at REAL NOT NULL DEFAULT 0
);
CREATE INDEX registrations_by_peer ON registrations (peer, created_at);
)sql",
};

}  // namespace

int LatestSchemaVersion() { return static_cast<int>(std::size(kMigrations)); }

namespace {

absl::Status ApplyMigrations(sqlite::Database* db, int target) {
  sqlite::Transaction tx(db);
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto q, db->Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version"));
  ASSIGN_OR_RETURN(bool row, q->Step());
  int version = row ? static_cast<int>(q->Int(0)) : 0;
  q.reset();
  if (version > LatestSchemaVersion()) {
    return absl::FailedPreconditionError(
        absl::StrCat("database schema version ", version, " is newer than this binary's ",
                     LatestSchemaVersion(), "; upgrade bbo-server"));
  }
  if (version >= target) return tx.Commit();
  for (int v = version + 1; v <= target; ++v) {
    RETURN_IF_ERROR(db->Exec(kMigrations[v - 1]));
    RETURN_IF_ERROR(db->Exec(absl::StrCat("INSERT INTO schema_version VALUES (", v, ")")));
  }
  ASSIGN_OR_RETURN(auto check, db->Prepare("PRAGMA foreign_key_check"));
  ASSIGN_OR_RETURN(bool violation, check->Step());
  if (violation) {
    return absl::DataLossError(absl::StrCat("the database has a dangling reference in table ",
                                            check->Text(0), "; migration rolled back"));
  }
  check.reset();
  return tx.Commit();
}

}  // namespace

absl::Status Migrate(sqlite::Database* db) { return MigrateTo(db, LatestSchemaVersion()); }

absl::Status MigrateTo(sqlite::Database* db, int target) {
  RETURN_IF_ERROR(db->Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"));
  // Migrations that rebuild a table (SQLite's documented procedure: create, copy, drop, rename)
  // run with foreign-key enforcement off, which can only be switched outside a transaction; the
  // references are checked before committing instead.
  RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=OFF"));
  absl::Status st = ApplyMigrations(db, target);
  absl::Status on = db->Exec("PRAGMA foreign_keys=ON");
  return st.ok() ? on : st;
}

}  // namespace bbo
