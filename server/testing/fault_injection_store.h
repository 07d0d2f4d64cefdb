#ifndef BBO_SERVER_TESTING_FAULT_INJECTION_STORE_H_
#define BBO_SERVER_TESTING_FAULT_INJECTION_STORE_H_

// FaultInjectionStore: a Store that forwards to another Store, except that chosen methods fail
// with a chosen status (a full disk, a lost connection) for their next N calls or until healed.
// A failed call does not reach the wrapped store, so it changes nothing (the Store contract).
// For tests of how domain classes handle store errors. Thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "server/store/store.h"

namespace bbo::testing {

class FaultInjectionStore : public Store {
 public:
  // `base` is not owned and must outlive this store.
  explicit FaultInjectionStore(Store* base) : base_(base) {}

  // The next `n` calls of `method` (its name, e.g. "EndStudy") fail with `status` (not OK).
  void FailNext(absl::string_view method, absl::Status status, int n = 1);
  // Every call of `method` fails with `status` until Heal(method) or HealAll().
  void FailUntilHealed(absl::string_view method, absl::Status status);
  void Heal(absl::string_view method);
  void HealAll();
  // How many calls of `method` failed by injection, and how many reached the wrapped store.
  int InjectedFailures(absl::string_view method);
  int Calls(absl::string_view method);

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
  absl::StatusOr<std::vector<RaceRoundRecord>> ListRaceRounds(const std::string& phase) override;
  absl::Status AddRaceRound(const RaceRoundRecord& round, const std::vector<RaceJob>& jobs,
                            const std::vector<std::string>& boards) override;
  absl::StatusOr<std::vector<RaceResultRecord>> RaceResults(const std::string& phase,
                                                            const std::string& board) override;

  absl::Status SetTeamContact(const TeamContact& contact) override;
  absl::StatusOr<std::optional<TeamContact>> GetTeamContact(const std::string& team) override;
  absl::StatusOr<std::vector<TeamContact>> ListTeamContacts() override;
  absl::StatusOr<bool> MarkNotified(const std::string& key, double at) override;
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

  absl::Status RegisterWorker(const std::string& worker_id, const std::string& hostname, int slots,
                              double now) override;
  absl::Status TouchWorker(const std::string& worker_id, double now) override;

  // IdentityStore (forwarded)
  absl::StatusOr<int64_t> AddCredential(const CredentialRecord& c) override;
  absl::StatusOr<std::optional<CredentialRecord>> FindCredential(
      const std::string& token_hash) override;
  absl::StatusOr<int> RevokeCredentials(CredentialKind kind, const std::string& owner,
                                        double now) override;
  absl::StatusOr<std::vector<CredentialRecord>> ListCredentials() override;
  absl::StatusOr<int64_t> AppendAudit(const AuditRecord& a) override;
  absl::StatusOr<std::vector<AuditRecord>> ListAudit(int limit) override;
  absl::StatusOr<int> TrimAudit(int64_t keep) override;


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

  using ScoringStore::LoadScoringData;
  absl::StatusOr<ScoringData> LoadScoringData(const std::vector<std::string>& problems,
                                              const std::string& board) override;
  absl::StatusOr<ScoringChanges> ScoringChangesSince(int64_t after_seq) override;
  absl::StatusOr<std::vector<ScoredEvaluationRecord>> ScoredEvaluations(
      const std::string& board) override;

 private:
  struct Fault {
    absl::Status status;
    int remaining = 0;  // calls left to fail; negative = until healed
  };
  struct Counts {
    int injected = 0, calls = 0;
  };
  // The injected failure of this call of `method`, or OK (the call goes through).
  absl::Status Check(absl::string_view method);

  Store* base_;
  absl::Mutex mu_;
  std::map<std::string, Fault, std::less<>> faults_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Counts, std::less<>> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bbo::testing

#endif  // BBO_SERVER_TESTING_FAULT_INJECTION_STORE_H_
