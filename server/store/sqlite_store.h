#ifndef BBO_SERVER_STORE_SQLITE_STORE_H_
#define BBO_SERVER_STORE_SQLITE_STORE_H_

// SqliteStore: the Store on one SQLite file (WAL, prepared statements, one transaction per
// method, numbered schema migrations in migrations.cc). One class, implemented by concept:
// sqlite_submissions.cc, sqlite_jobs.cc, sqlite_workers.cc, sqlite_studies.cc,
// sqlite_scoring.cc (sqlite_store.cc: opening, the statement cache). Thread-safe: one connection
// guarded by a mutex; SQLite work is short (no RPC or child process runs under the lock).
// The study writes of many concurrent callers (RecordBatch, CreateStudy, EndStudy) commit in
// groups: they share one transaction, one savepoint each (so a failing write fails alone), and
// each caller returns once the transaction holding its write has committed.

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "common/sqlite.h"
#include "server/store/store.h"

namespace bbo {

class SqliteStore : public Store {
 public:
  // Opens or creates the file and applies pending migrations. Unavailable when the file cannot
  // be opened; FailedPrecondition when the file's schema is newer than this binary.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(const std::string& path);

  // SubmissionStore (sqlite_submissions.cc)
  absl::StatusOr<int64_t> AddSubmission(const SubmissionRecord& s, const std::string& archive,
                                        const std::vector<std::string>& problems,
                                        int64_t seed_base,
                                        const std::vector<std::string>& boards) override;
  using SubmissionStore::AddSubmission;
  absl::StatusOr<SubmissionRecord> GetSubmission(int64_t id) override;
  absl::StatusOr<std::optional<SubmissionRecord>> FindSubmission(
      const std::string& name, const std::string& phase) override;
  using SubmissionStore::FindSubmission;
  absl::StatusOr<std::string> GetSubmissionArchive(int64_t id) override;
  absl::StatusOr<std::vector<SubmissionRecord>> ListSubmissions() override;
  absl::StatusOr<std::vector<SubmissionRecord>> FindSubmissionsByDigest(
      const std::string& digest) override;
  absl::StatusOr<int> CountChargedSubmissions(const std::string& team, double created_since,
                                              const std::string& phase) override;
  using SubmissionStore::CountChargedSubmissions;
  absl::StatusOr<bool> SetHidden(int64_t submission_id, const std::string& reason) override;

  // PhaseStore (sqlite_phases.cc)
  absl::StatusOr<std::optional<PhaseRecord>> GetPhase(const std::string& name) override;
  absl::Status PutPhase(const PhaseRecord& phase) override;
  absl::Status SetChoice(const std::string& phase, const std::string& team,
                         int64_t submission_id, double at) override;
  absl::StatusOr<std::map<std::string, int64_t>> Choices(const std::string& phase) override;
  absl::StatusOr<int64_t> RecordPhaseEvent(const PhaseEvent& event) override;
  absl::StatusOr<std::vector<PhaseEvent>> PhaseEvents(const std::string& phase) override;
  absl::StatusOr<int64_t> MigrateOne(const std::string& phase, const Migration& source,
                                     const std::vector<std::string>& problems, int64_t seed_base,
                                     const std::vector<std::string>& boards,
                                     const PhaseEvent& event) override;
  absl::StatusOr<std::vector<int64_t>> MigrateInto(const std::string& phase,
                                                   const std::vector<Migration>& sources,
                                                   const std::vector<std::string>& problems,
                                                   int64_t seed_base,
                                                   const std::vector<std::string>& boards,
                                                   double at, const std::string& detail) override;

  // RaceStore
  absl::StatusOr<std::vector<RaceRoundRecord>> ListRaceRounds(const std::string& phase) override;
  absl::Status AddRaceRound(const RaceRoundRecord& round, const std::vector<RaceJob>& jobs,
                            const std::vector<std::string>& boards) override;
  absl::StatusOr<std::vector<RaceResultRecord>> RaceResults(const std::string& phase,
                                                            const std::string& board) override;

  // ContactStore (sqlite_contacts.cc)
  absl::Status SetTeamContact(const TeamContact& contact) override;
  absl::StatusOr<std::optional<TeamContact>> GetTeamContact(const std::string& team) override;
  absl::StatusOr<std::vector<TeamContact>> ListTeamContacts() override;
  absl::StatusOr<bool> MarkNotified(const std::string& key, double at) override;

  // RegistrationStore (sqlite_registrations.cc)
  absl::Status AddRegistration(const RegistrationRecord& r,
                               const std::string& invite_hash) override;
  absl::StatusOr<std::optional<RegistrationRecord>> GetRegistration(
      const std::string& team) override;
  absl::StatusOr<std::optional<RegistrationRecord>> FindRegistrationByClaim(
      const std::string& claim_hash) override;
  absl::StatusOr<std::vector<RegistrationRecord>> ListRegistrations() override;
  absl::StatusOr<int> CountRegistrationsFrom(const std::string& peer, double since) override;
  absl::Status DecideRegistration(const std::string& team, const std::string& state,
                                  const std::string& decided_by, const std::string& reason,
                                  double at) override;
  absl::StatusOr<bool> MarkTokenIssued(const std::string& team, double at) override;
  absl::StatusOr<int64_t> AddInvite(const InviteRecord& invite) override;
  absl::StatusOr<std::vector<InviteRecord>> ListInvites() override;
  absl::Status RevokeInvite(int64_t id, double at) override;

  // JobStore (sqlite_jobs.cc)
  using JobStore::LeaseJob;
  absl::StatusOr<std::optional<JobRecord>> LeaseJob(const std::string& worker_id,
                                                    double lease_expires_at,
                                                    const std::vector<int64_t>& skip) override;
  absl::Status ReleaseLease(int64_t job_id, const std::string& worker_id) override;
  absl::StatusOr<std::optional<JobRecord>> LeaseBuiltinJob(const std::string& owner,
                                                           double lease_expires_at) override;
  absl::StatusOr<JobRecord> GetJob(int64_t job_id) override;
  absl::Status RenewLeases(const std::string& worker_id, double lease_expires_at) override;
  absl::StatusOr<std::vector<int64_t>> ExpireLeases(double now, int max_attempts) override;
  absl::Status FinishJob(int64_t job_id, const std::string& worker_id, const std::string& error,
                         int max_attempts) override;
  absl::StatusOr<JobCounts> CountJobs(int64_t submission_id) override;
  absl::StatusOr<int> CountLeases(const std::string& worker_id) override;
  absl::StatusOr<std::vector<FailedJob>> ListFailedJobs() override;
  absl::Status RequeueFailedJob(int64_t job_id) override;
  absl::StatusOr<int64_t> BeginEpoch(double now) override;
  absl::StatusOr<RecoveryCounts> RecoverAfterRestart(double now) override;
  absl::StatusOr<int> CancelQueuedJobs(int64_t submission_id, const std::string& reason) override;
  absl::StatusOr<std::vector<std::string>> ListBoards() override;

  // WorkerStore (sqlite_workers.cc)
  absl::Status RegisterWorker(const std::string& worker_id, const std::string& hostname,
                              int slots, double now) override;
  absl::Status TouchWorker(const std::string& worker_id, double now) override;

  // StudyStore (sqlite_studies.cc)
  absl::StatusOr<int64_t> CreateStudy(const StudyRecord& s) override;
  absl::StatusOr<StudyRecord> GetStudy(int64_t study_id) override;
  absl::Status RecordBatch(const BatchRecord& b) override;
  absl::Status RecordStudyError(const StudyErrorRecord& e) override;
  absl::StatusOr<StudyState> EndStudy(int64_t study_id, StudyState state,
                                      const std::string& reason, double ended_at,
                                      double optimizer_time_s) override;
  absl::StatusOr<std::vector<StudyErrorRecord>> ListStudyErrors(int64_t study_id) override;
  absl::StatusOr<std::vector<std::pair<std::string, StudyErrorRecord>>> ListSubmissionErrors(
      int64_t submission_id, int limit) override;
  absl::StatusOr<std::vector<StudySummary>> ListSubmissionStudies(
      int64_t submission_id) override;
  absl::StatusOr<int> CountStudiesWithErrors(int64_t submission_id) override;
  absl::StatusOr<std::vector<std::vector<double>>> StudyValues(int64_t study_id) override;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ProblemSignatures() override;
  absl::StatusOr<std::vector<int64_t>> ListStudyIds() override;
  absl::StatusOr<std::vector<std::pair<int, EvaluationRecord>>> StudyEvaluations(
      int64_t study_id) override;

  // ScoringStore (sqlite_scoring.cc)
  using ScoringStore::LoadScoringData;
  absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems,
                                              const std::string& board) override;
  absl::StatusOr<ScoringChanges> ScoringChangesSince(int64_t after_seq) override;
  absl::StatusOr<std::vector<ScoredEvaluationRecord>> ScoredEvaluations(
      const std::string& board) override;

  // IdentityStore (sqlite_identities.cc)
  absl::StatusOr<int64_t> AddCredential(const CredentialRecord& c) override;
  absl::StatusOr<std::optional<CredentialRecord>> FindCredential(
      const std::string& token_hash) override;
  absl::StatusOr<int> RevokeCredentials(CredentialKind kind, const std::string& owner,
                                        double now) override;
  absl::StatusOr<std::vector<CredentialRecord>> ListCredentials() override;
  absl::StatusOr<int64_t> AppendAudit(const AuditRecord& a) override;
  absl::StatusOr<std::vector<AuditRecord>> ListAudit(int limit) override;
  absl::StatusOr<int> TrimAudit(int64_t keep) override;

  // The schema version after migrations (for tests and `bbo-server --version`).
  absl::StatusOr<int> SchemaVersion();
  // Runs raw SQL on the connection. Fault-injection tests only (e.g. PRAGMA max_page_count to
  // simulate a full disk).
  absl::Status ExecForTesting(const std::string& sql);

 private:
  explicit SqliteStore(std::unique_ptr<sqlite::Database> db) : db_(std::move(db)) {}
  // The prepared statement of `sql` (a string literal: cached by its address), reset.
  absl::StatusOr<sqlite::Statement*> Stmt(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::optional<JobRecord>> LeaseLocked(bool builtin, const std::string& owner,
                                                       double lease_expires_at,
                                                       const std::vector<int64_t>& skip = {})
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::optional<JobRecord>> QueryJob(int64_t job_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A phase event's row (RecordPhaseEvent without the kind check).
  absl::StatusOr<int64_t> InsertPhaseEventLocked(const PhaseEvent& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // MigrateInto's copy of one submission and its jobs: the copy's id.
  absl::StatusOr<int64_t> CopySubmissionLocked(const std::string& phase, const Migration& m,
                                               const std::vector<std::string>& problems,
                                               int64_t seed_base,
                                               const std::vector<std::string>& boards, double at)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The problems submission `submission_id` has scored studies on count as changed
  // (ScoringChangesSince): a final study of each gets a new sequence number.
  absl::Status MarkScoringChanged(int64_t submission_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  template <typename Key>
  absl::StatusOr<std::optional<SubmissionRecord>> QuerySubmission(const char* sql, const Key& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Group commit (sqlite_studies.cc). A caller waiting in the queue.
  struct QueuedWrite;
  // Runs `write` (statements only: no BEGIN/COMMIT) in a transaction shared with the writes of
  // concurrent callers, inside a savepoint of its own; returns once that transaction has
  // committed. The outcome for the caller is exactly that of `write` in a transaction alone.
  absl::Status GroupCommit(absl::FunctionRef<absl::Status()> write) ABSL_LOCKS_EXCLUDED(mu_);
  // `write` in a transaction of its own.
  absl::Status CommitAloneLocked(absl::FunctionRef<absl::Status()> write)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes `group` in one transaction and sets each member's status.
  void CommitGroupLocked(const std::vector<QueuedWrite*>& group)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // CreateStudy's part of a transaction: the new study's id.
  absl::StatusOr<int64_t> InsertStudyLocked(const StudyRecord& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes one batch's rows (RecordBatch's part of a transaction).
  absl::Status InsertBatchLocked(const BatchRecord& b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Callers of GroupCommit in arrival order; the first one writes for the others (leveldb's
  // writers_ queue). Taken before mu_, never while holding it.
  absl::Mutex queue_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::deque<QueuedWrite*> queue_ ABSL_GUARDED_BY(queue_mu_);

  absl::Mutex mu_;
  std::unique_ptr<sqlite::Database> db_ ABSL_GUARDED_BY(mu_);
  // Prepared statements cached by their SQL text (pointer identity of the literal).
  std::map<const char*, std::unique_ptr<sqlite::Statement>> stmts_ ABSL_GUARDED_BY(mu_);
  // Checkpoints the WAL on a thread of its own instead of inside a commit (null for ":memory:").
  // Declared last: stopped before the connection closes.
  std::unique_ptr<sqlite::WalCheckpointer> checkpointer_;
};

// Applies numbered migrations to `db` (schema_version table). Exposed for tests.
absl::Status Migrate(sqlite::Database* db);
// Applies the migrations up to `version` only (tests of a later migration on an older file).
absl::Status MigrateTo(sqlite::Database* db, int version);
// The number of migrations this binary knows.
int LatestSchemaVersion();

}  // namespace bbo

#endif  // BBO_SERVER_STORE_SQLITE_STORE_H_
