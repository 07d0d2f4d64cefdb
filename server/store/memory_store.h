#ifndef BBO_SERVER_STORE_MEMORY_STORE_H_
#define BBO_SERVER_STORE_MEMORY_STORE_H_

// InMemoryStore: the whole Store in memory, with SqliteStore's semantics (the conformance suite
// store_conformance_test.cc runs against both): the same ids (1, 2, ... per table), status
// codes, ordering and scoring rules; each method validates everything before changing anything,
// so it is all-or-nothing. Nothing is durable. For tests and `bbo local`-style runs that need
// no file. Thread-safe: one mutex around every method (no method blocks or calls out).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/store/store.h"

namespace bbo {

class InMemoryStore : public Store {
 public:
  InMemoryStore() = default;

  // SubmissionStore
  absl::StatusOr<int64_t> AddSubmission(const SubmissionRecord& s, const std::string& archive,
                                        const std::vector<std::string>& problems, int64_t seed_base,
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

  // PhaseStore (memory_phases.cc)
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

  // ContactStore (memory_contacts.cc)
  absl::Status SetTeamContact(const TeamContact& contact) override;
  absl::StatusOr<std::optional<TeamContact>> GetTeamContact(const std::string& team) override;
  absl::StatusOr<std::vector<TeamContact>> ListTeamContacts() override;
  absl::StatusOr<bool> MarkNotified(const std::string& key, double at) override;

  // RegistrationStore (memory_registrations.cc)
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

  // JobStore
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

  // WorkerStore
  absl::Status RegisterWorker(const std::string& worker_id, const std::string& hostname, int slots,
                              double now) override;
  absl::Status TouchWorker(const std::string& worker_id, double now) override;

  // StudyStore
  absl::StatusOr<int64_t> CreateStudy(const StudyRecord& s) override;
  absl::StatusOr<StudyRecord> GetStudy(int64_t study_id) override;
  absl::Status RecordBatch(const BatchRecord& b) override;
  absl::Status RecordStudyError(const StudyErrorRecord& e) override;
  absl::StatusOr<StudyState> EndStudy(int64_t study_id, StudyState state, const std::string& reason,
                                      double ended_at, double optimizer_time_s) override;
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

  // IdentityStore (memory_identities.cc)
  absl::StatusOr<int64_t> AddCredential(const CredentialRecord& c) override;
  absl::StatusOr<std::optional<CredentialRecord>> FindCredential(
      const std::string& token_hash) override;
  absl::StatusOr<int> RevokeCredentials(CredentialKind kind, const std::string& owner,
                                        double now) override;
  absl::StatusOr<std::vector<CredentialRecord>> ListCredentials() override;
  absl::StatusOr<int64_t> AppendAudit(const AuditRecord& a) override;
  absl::StatusOr<std::vector<AuditRecord>> ListAudit(int limit) override;
  absl::StatusOr<int> TrimAudit(int64_t keep) override;

  // ScoringStore
  using ScoringStore::LoadScoringData;
  absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems,
                                              const std::string& board) override;
  absl::StatusOr<ScoringChanges> ScoringChangesSince(int64_t after_seq) override;
  absl::StatusOr<std::vector<ScoredEvaluationRecord>> ScoredEvaluations(
      const std::string& board) override;

 private:
  struct Submission {
    SubmissionRecord record;
    std::string archive;
  };
  struct Job {
    JobRecord record;
    bool builtin = false;
    std::string last_error;
  };
  struct Worker {
    std::string hostname;
    int slots = 0;
    double registered_at = 0, last_heartbeat = 0;
  };
  struct Batch {
    BatchSource source = BatchSource::kOptimizer;
    double turn_time_s = 0, host_suggest_time_s = 0, host_observe_time_s = 0, eval_time_s = 0;
    BatchFigures figures;
    std::vector<EvaluationRecord> evaluations;  // values stored as SqliteStore stores them
  };
  struct Study {
    StudyRecord record;
    std::map<int, Batch> batches;
    int batches_done = 0;
    double optimizer_time_s = 0;
    double best_value = 0;
    double ended_at = 0;
    std::string end_reason;
    int64_t final_seq = 0;  // 0 = not in a scored final state
  };

  // AddSubmission after its checks (no name clash, no repeated job). Returns the id.
  int64_t InsertSubmissionLocked(const SubmissionRecord& s, const std::string& archive,
                                 const std::vector<std::string>& problems, int64_t seed_base,
                                 const std::vector<std::string>& boards)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::optional<JobRecord>> LeaseLocked(bool builtin, const std::string& owner,
                                                       double lease_expires_at,
                                                       const std::vector<int64_t>& skip = {})
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<SubmissionRecord> SubmissionsWhere(bool (*keep)(const SubmissionRecord&,
                                                              const std::string&),
                                                 const std::string& arg)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The id of the job's final study (a scored one), 0 when it has none.
  int64_t FinalStudyOf(int64_t job_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Why the submission is withdrawn ("" while entered or unknown).
  std::string WithdrawnLocked(int64_t submission_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A final study of each problem the submission ran on gets a new sequence number.
  void MarkScoringChangedLocked(int64_t submission_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AbandonStudiesOfJob(int64_t job_id, const std::string& reason,
                           std::optional<double> ended_at) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The studies that scoring on `board` reads, in id order (methods' latest scored study per
  // job on the board; the baseline's completed studies), with their submissions.
  std::vector<std::pair<const Study*, const Submission*>> ScoredStudies(const std::string& board)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::map<int64_t, Submission> submissions_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Job> jobs_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Worker> workers_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Study> studies_ ABSL_GUARDED_BY(mu_);
  std::vector<StudyErrorRecord> errors_ ABSL_GUARDED_BY(mu_);  // in recording order
  std::map<int64_t, CredentialRecord> credentials_ ABSL_GUARDED_BY(mu_);
  std::vector<AuditRecord> audit_ ABSL_GUARDED_BY(mu_);
  int64_t audit_next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<std::string, PhaseRecord> phases_ ABSL_GUARDED_BY(mu_);
  std::vector<PhaseEvent> phase_events_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, double>> choices_
      ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, int>, RaceRoundRecord> race_rounds_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, TeamContact> contacts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, double> notified_ ABSL_GUARDED_BY(mu_);
  std::vector<RegistrationRecord> registrations_ ABSL_GUARDED_BY(mu_);
  std::vector<InviteRecord> invites_ ABSL_GUARDED_BY(mu_);
  int64_t last_final_seq_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_MEMORY_STORE_H_
