#ifndef BBO_SERVER_EMBED_H_
#define BBO_SERVER_EMBED_H_

// The coordinator as a library for tools (the `bbo` CLI): the one server/ header that code
// outside server/ may include. It hides the coordinator, its store and its gRPC services behind
// two small classes, and includes neither gRPC nor the store:
//
//   LocalServer    a coordinator and its gRPC services on 127.0.0.1 in this process (`bbo local`)
//   ArenaDatabase  a coordinator's SQLite file opened offline (`bbo export`, `bbo report --db`,
//                  `bbo replay`)
//
// Board names are the public ones ("main", "warm-start"), as on the command line.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/study_budget.h"
#include "problems/definition.h"
#include "nlohmann/json.hpp"
#include "problems/problem.h"
#include "report/results_csv.h"
#include "scoring/bootstrap.h"
#include "scoring/leaderboard.h"

namespace bbo {

class Clock;
class Coordinator;
class Credentials;
struct RecordedPhaseRules;
struct ScoreboardSpec;
class Store;
namespace rpc {
class GrpcServer;
}  // namespace rpc

struct LocalServerOptions {
  // The SQLite file (created if missing).
  std::string db_path;
  // Every study's budget.
  StudyBudget budget;
  // Random-search baseline trials per problem.
  int baseline_trials = 10;
  // Trials per problem of a submission that does not ask for a number.
  int default_trials = 3;
  // How the workers build each problem (by name): a problem with a definition is evaluated by
  // the worker hosting its study; the others (and the baseline) here.
  std::map<std::string, ProblemDefinition> definitions;
  // Evaluations run at once here (the random-search baseline; problems without a definition).
  int eval_threads = 2;
};

// A registered submission: its id, whether it runs optimizer.py (else an executable), and the
// number of jobs queued for it.
struct LocalSubmission {
  int64_t id = 0;
  bool python = false;
  int jobs = 0;
};

// Jobs of a submission: `finished` counts done and failed ones.
struct LocalProgress {
  int finished = 0;
  int total = 0;
};

// An error recorded in one of a submission's studies.
struct LocalStudyError {
  std::string problem;
  int batch = 0;
  std::string kind;
  std::string message;
};

// How a submission's studies went, for bbo local and bbo check.
struct LocalLog {
  std::map<std::string, int> studies_by_state;  // completed, cut_off, failed, ...
  int batches = 0;                              // batches run
  int random_batches = 0;  // of them, batches whose points all came from random search
  int total_errors = 0;
  std::map<std::string, int> errors_by_kind;
  std::vector<LocalStudyError> errors;  // the first `limit`, oldest first
  // "<problem> trial <t>: <why it ended>" for every study that did not complete.
  std::vector<std::string> failures;
};

// A coordinator with its gRPC services on 127.0.0.1 (a free port) in this process, its
// background threads (lease expiry, the random-search baseline) running: workers connect to
// address(). Stop() (or the destructor) shuts the services down and then the coordinator.
// Thread-safe, like the coordinator.
class LocalServer {
 public:
  // Opens the store and starts everything; `problems` is the phase's suite. Errors: those of
  // the store (a SQLite file that cannot be opened) and Unavailable when no port can be bound.
  static absl::StatusOr<std::unique_ptr<LocalServer>> Start(
      const LocalServerOptions& options, std::vector<std::unique_ptr<Problem>> problems);
  ~LocalServer();
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  // "127.0.0.1:<port>", for workers.
  std::string address() const;
  // The token the workers of this process send (a worker credential issued at Start).
  const std::string& worker_token() const { return worker_token_; }
  // Registers a submission (a tar archive of its folder) with `trials` per problem; the
  // coordinator's Phase::Register contract (InvalidArgument for a bad archive or name).
  absl::StatusOr<LocalSubmission> Register(const std::string& name, const std::string& archive,
                                           int trials);
  absl::StatusOr<LocalProgress> Progress(int64_t submission_id);
  // The job queue's change counter, and waiting for it to move past `seen` (a job queued,
  // finished or requeued) or `timeout`: progress without polling.
  uint64_t QueueVersion();
  void WaitForQueueChange(uint64_t seen, absl::Duration timeout);
  // Waits until every queued baseline study has run; false when `timeout` passed first.
  bool WaitForBaseline(absl::Duration timeout);
  // The main board (FailedPrecondition while the baseline has not finished on a problem).
  absl::StatusOr<scoring::Leaderboard> Leaderboard();
  // The first `limit` errors of a submission's studies, oldest first.
  absl::StatusOr<std::vector<LocalStudyError>> StudyErrors(int64_t submission_id, int limit);
  absl::StatusOr<LocalLog> Log(int64_t submission_id, int limit);
  // Idempotent.
  void Stop();

 private:
  LocalServer() = default;
  std::unique_ptr<Coordinator> coordinator_;
  std::unique_ptr<rpc::GrpcServer> server_;
  std::string worker_token_;
};

// One study re-evaluated by ArenaDatabase::ReplayStudies (server/replay.h).
struct ReplayedStudy {
  int64_t study_id = 0;
  std::string problem;
  // The study's problem is not among those given: not replayed, the fields below are empty.
  bool skipped = false;
  int evaluations = 0;
  int reproduced = 0;
  // "batch b, point i: recorded X, now Y" (at most 20).
  std::vector<std::string> differences;
  // The problem's signature differs from the one recorded with the study.
  bool signature_changed = false;
  // Every value reproduced and the signature unchanged (meaningless when skipped).
  bool ok() const { return reproduced == evaluations && !signature_changed; }
};

struct ReplayRun {
  // The studies replayed (or skipped), in order, up to the first error.
  std::vector<ReplayedStudy> studies;
  // The error that stopped the replay, if any ("study N: ..." when replaying study N failed).
  absl::Status error;
};

// One credential as `bbo admin tokens` lists it (never the token itself).
struct TokenInfo {
  std::string kind;  // "organizer", "team", "worker"
  std::string owner;
  double created_at = 0;
  double revoked_at = 0;  // 0 = live
};

// A job that ended without a final study, as `bbo admin jobs` lists it.
struct FailedJobInfo {
  int64_t job_id = 0;
  std::string submission, problem, board, last_error;
  int trial = 0;
  int attempts = 0;
};

// One audit log entry.
struct AuditEntry {
  double at = 0;
  std::string who, action, detail;
  bool allowed = true;
};

// A coordinator's SQLite file, opened offline (a running coordinator may share it: SQLite's
// WAL lets a reader in). Not thread-safe.
class ArenaDatabase {
 public:
  // NotFound "<path> does not exist" when the file is missing (it is never created here), else
  // the store's errors.
  static absl::StatusOr<std::unique_ptr<ArenaDatabase>> Open(const std::string& path);
  // The same, creating the file (and its schema) when it is missing: for `bbo admin`, which an
  // organizer may run before the coordinator's first start.
  static absl::StatusOr<std::unique_ptr<ArenaDatabase>> OpenOrCreate(const std::string& path);

  // Tokens (server/identity.h), kept as keyed hashes under the secret file beside the database
  // ("<db>.secret", created 0600 when missing; `secret_path` overrides it). `kind` is
  // "organizer", "team" or "worker". IssueToken and RotateToken return the new token: it is
  // shown once and cannot be recovered. Each action is written to the audit log as `actor`.
  absl::StatusOr<std::string> IssueToken(const std::string& kind, const std::string& owner,
                                         const std::string& actor);
  absl::StatusOr<std::string> RotateToken(const std::string& kind, const std::string& owner,
                                          const std::string& actor);
  absl::Status RevokeTokens(const std::string& kind, const std::string& owner,
                            const std::string& actor);
  absl::StatusOr<std::vector<TokenInfo>> ListTokens();
  absl::StatusOr<std::vector<AuditEntry>> ListAudit(int limit);
  // Jobs that ended without a final study, and putting them back in the queue (JobStore::
  // ListFailedJobs / RequeueFailedJobs; 0 = every failed job not withdrawn by its team). A
  // running coordinator picks requeued jobs up at its next lease. Audited as `actor`.
  absl::StatusOr<std::vector<FailedJobInfo>> ListFailedJobs();
  absl::StatusOr<int> RequeueFailedJobs(int64_t job_id, const std::string& actor);
  // Publishes the board of `phase` (a phase of a competition file whose board is hidden until
  // published), or with `undo` hides it again (`reason` required). Recorded as a phase event
  // and in the audit log as `actor`; a running coordinator shows it at its next call.
  // NotFound for a phase this database never served; FailedPrecondition when the board already
  // is in that state.
  absl::Status PublishBoard(const std::string& phase, bool undo, const std::string& reason,
                            const std::string& actor);
  // Stops the race of racing phase `phase` now (server/race.h): no more rounds are planned, not
  // even for a late submission; jobs already queued still run. The remaining submissions are the
  // race's anytime Pareto set. `reason` required; recorded as the race's last round and in
  // the audit log as `actor`. FailedPrecondition when the race has not started or
  // was already stopped by an organizer.
  absl::Status StopRace(const std::string& phase, const std::string& reason,
                        const std::string& actor);
  void set_secret_path(std::string path) { secret_path_ = std::move(path); }
  // The full scoring report of board `board` of `phase` exactly as the coordinator computes it
  // (server/scoreboard.h: the same Scoreboard over this file, on the phase's problems and
  // settings as the coordinator recorded them), as JSON (report/report.h layout) labelled with
  // this file's path as its source. `phase` as ExportResultsCsv's. Errors: NotFound for an
  // unknown phase or board, FailedPrecondition while the baseline has not finished, the store's.
  absl::StatusOr<nlohmann::json> Report(const std::string& board, const std::string& phase,
                                        const scoring::BootstrapOptions& bootstrap);
  // The store key of board `board` ("main" or "warm-start") of `phase` (see ExportResultsCsv).
  absl::StatusOr<std::string> BoardKey(const std::string& phase, const std::string& board);
  ~ArenaDatabase();
  ArenaDatabase(const ArenaDatabase&) = delete;
  ArenaDatabase& operator=(const ArenaDatabase&) = delete;

  // Writes the scored results of `board` as a results CSV (the format of `bbo score`):
  // problem,method,trial,batch,suggestion,value,generalization. Unavailable when `out` fails.
  // `phase`: a phase of the competition file the database serves; "" (or any name, for the
  // database of a coordinator started from flags) = its one phase. NotFound for a phase a
  // competition's database never served.
  absl::Status ExportResultsCsv(const std::string& board, std::ostream& out,
                                const std::string& phase = "");

  // The scoring input of `board`, read from the store without a CSV: exactly what
  // report/results_csv.h BuildScoringInput makes of ExportResultsCsv's table, with the
  // coordinator's random-search baseline as the random-search method (and scored as a method
  // too). `generalization`: score the held-out loss at the visible argmin. InvalidArgument: no
  // finished study, a repeated evaluation, or BuildScoringInput's errors.
  absl::StatusOr<scoring::BuiltInput> LoadReportInput(const std::string& board,
                                                      bool generalization,
                                                      const std::string& phase = "");

  // Ids of every study in the file, ascending.
  absl::StatusOr<std::vector<int64_t>> StudyIds();

  // Replays `study_ids` on `problems` (by name; a study whose problem is missing is skipped)
  // and compares the values bit for bit (server/replay.h). The first study that cannot be read
  // or replayed ends the run with ReplayRun::error.
  ReplayRun ReplayStudies(const std::vector<int64_t>& study_ids,
                          const std::map<std::string, std::unique_ptr<Problem>>& problems);

 private:
  ArenaDatabase(std::unique_ptr<Store> store, std::string path);
  // The rules the coordinator recorded for phase `phase_key` (Phase::Rules); nullopt for a
  // phase recorded before phases recorded them.
  absl::StatusOr<std::optional<RecordedPhaseRules>> RecordedRules(const std::string& phase_key);
  // How the phase of board `board_key` is scored: as its coordinator recorded it, or for a
  // database from before that, what its results show.
  absl::StatusOr<ScoreboardSpec> RecordedScoreboard(const std::string& board_key,
                                                    const std::string& phase);
  // The Credentials over this file's store and secret (made on first use).
  absl::StatusOr<Credentials*> Creds();
  std::unique_ptr<Store> store_;
  std::string path_;
  std::string secret_path_;
  std::unique_ptr<Clock> clock_;
  std::unique_ptr<Credentials> creds_;
};

}  // namespace bbo

#endif  // BBO_SERVER_EMBED_H_
