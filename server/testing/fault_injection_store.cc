#include "server/testing/fault_injection_store.h"

namespace bbo::testing {

void FaultInjectionStore::FailNext(absl::string_view method, absl::Status status, int n) {
  absl::MutexLock l(&mu_);
  faults_[std::string(method)] = Fault{std::move(status), n};
}

void FaultInjectionStore::FailUntilHealed(absl::string_view method, absl::Status status) {
  absl::MutexLock l(&mu_);
  faults_[std::string(method)] = Fault{std::move(status), -1};
}

void FaultInjectionStore::Heal(absl::string_view method) {
  absl::MutexLock l(&mu_);
  auto it = faults_.find(method);
  if (it != faults_.end()) faults_.erase(it);
}

void FaultInjectionStore::HealAll() {
  absl::MutexLock l(&mu_);
  faults_.clear();
}

int FaultInjectionStore::InjectedFailures(absl::string_view method) {
  absl::MutexLock l(&mu_);
  auto it = counts_.find(method);
  return it == counts_.end() ? 0 : it->second.injected;
}

int FaultInjectionStore::Calls(absl::string_view method) {
  absl::MutexLock l(&mu_);
  auto it = counts_.find(method);
  return it == counts_.end() ? 0 : it->second.calls;
}

absl::Status FaultInjectionStore::Check(absl::string_view method) {
  absl::MutexLock l(&mu_);
  Counts& counts = counts_[std::string(method)];
  auto it = faults_.find(method);
  if (it == faults_.end()) {
    counts.calls++;
    return absl::OkStatus();
  }
  counts.injected++;
  absl::Status s = it->second.status;
  if (it->second.remaining > 0 && --it->second.remaining == 0) faults_.erase(it);
  return s;
}

absl::StatusOr<int64_t> FaultInjectionStore::AddSubmission(const SubmissionRecord& s,
                                                           const std::string& archive,
                                                           const std::vector<std::string>& problems,
                                                           int64_t seed_base,
                                                           const std::vector<std::string>& boards) {
  if (absl::Status s = Check("AddSubmission"); !s.ok()) return s;
  return base_->AddSubmission(s, archive, problems, seed_base, boards);
}

absl::StatusOr<SubmissionRecord> FaultInjectionStore::GetSubmission(int64_t id) {
  if (absl::Status s = Check("GetSubmission"); !s.ok()) return s;
  return base_->GetSubmission(id);
}

absl::StatusOr<std::optional<SubmissionRecord>> FaultInjectionStore::FindSubmission(
    const std::string& name, const std::string& phase) {
  if (absl::Status s = Check("FindSubmission"); !s.ok()) return s;
  return base_->FindSubmission(name, phase);
}

absl::StatusOr<std::string> FaultInjectionStore::GetSubmissionArchive(int64_t id) {
  if (absl::Status s = Check("GetSubmissionArchive"); !s.ok()) return s;
  return base_->GetSubmissionArchive(id);
}

absl::StatusOr<std::vector<SubmissionRecord>> FaultInjectionStore::ListSubmissions() {
  if (absl::Status s = Check("ListSubmissions"); !s.ok()) return s;
  return base_->ListSubmissions();
}

absl::StatusOr<std::vector<SubmissionRecord>> FaultInjectionStore::FindSubmissionsByDigest(
    const std::string& digest) {
  if (absl::Status s = Check("FindSubmissionsByDigest"); !s.ok()) return s;
  return base_->FindSubmissionsByDigest(digest);
}

absl::StatusOr<int> FaultInjectionStore::CountChargedSubmissions(const std::string& team,
                                                                 double created_since,
                                                                 const std::string& phase) {
  if (absl::Status s = Check("CountChargedSubmissions"); !s.ok()) return s;
  return base_->CountChargedSubmissions(team, created_since, phase);
}

absl::StatusOr<std::optional<PhaseRecord>> FaultInjectionStore::GetPhase(const std::string& name) {
  if (absl::Status s = Check("GetPhase"); !s.ok()) return s;
  return base_->GetPhase(name);
}

absl::Status FaultInjectionStore::PutPhase(const PhaseRecord& phase) {
  if (absl::Status s = Check("PutPhase"); !s.ok()) return s;
  return base_->PutPhase(phase);
}

absl::Status FaultInjectionStore::SetChoice(const std::string& phase, const std::string& team,
                                            int64_t submission_id, double at) {
  if (absl::Status s = Check("SetChoice"); !s.ok()) return s;
  return base_->SetChoice(phase, team, submission_id, at);
}

absl::StatusOr<std::map<std::string, int64_t>> FaultInjectionStore::Choices(
    const std::string& phase) {
  if (absl::Status s = Check("Choices"); !s.ok()) return s;
  return base_->Choices(phase);
}

absl::StatusOr<int64_t> FaultInjectionStore::RecordPhaseEvent(const PhaseEvent& event) {
  if (absl::Status s = Check("RecordPhaseEvent"); !s.ok()) return s;
  return base_->RecordPhaseEvent(event);
}

absl::StatusOr<std::vector<PhaseEvent>> FaultInjectionStore::PhaseEvents(
    const std::string& phase) {
  if (absl::Status s = Check("PhaseEvents"); !s.ok()) return s;
  return base_->PhaseEvents(phase);
}

absl::StatusOr<std::vector<int64_t>> FaultInjectionStore::MigrateInto(
    const std::string& phase, const std::vector<Migration>& sources,
    const std::vector<std::string>& problems, int64_t seed_base,
    const std::vector<std::string>& boards, double at, const std::string& detail) {
  if (absl::Status s = Check("MigrateInto"); !s.ok()) return s;
  return base_->MigrateInto(phase, sources, problems, seed_base, boards, at, detail);
}

absl::StatusOr<int64_t> FaultInjectionStore::MigrateOne(const std::string& phase,
                                                        const Migration& source,
                                                        const std::vector<std::string>& problems,
                                                        int64_t seed_base,
                                                        const std::vector<std::string>& boards,
                                                        const PhaseEvent& event) {
  if (absl::Status s = Check("MigrateOne"); !s.ok()) return s;
  return base_->MigrateOne(phase, source, problems, seed_base, boards, event);
}

absl::StatusOr<bool> FaultInjectionStore::SetHidden(int64_t submission_id,
                                                    const std::string& reason) {
  if (absl::Status s = Check("SetHidden"); !s.ok()) return s;
  return base_->SetHidden(submission_id, reason);
}

absl::StatusOr<std::vector<RaceRoundRecord>> FaultInjectionStore::ListRaceRounds(
    const std::string& phase) {
  if (absl::Status s = Check("ListRaceRounds"); !s.ok()) return s;
  return base_->ListRaceRounds(phase);
}

absl::Status FaultInjectionStore::AddRaceRound(const RaceRoundRecord& round,
                                               const std::vector<RaceJob>& jobs,
                                               const std::vector<std::string>& boards) {
  if (absl::Status s = Check("AddRaceRound"); !s.ok()) return s;
  return base_->AddRaceRound(round, jobs, boards);
}

absl::StatusOr<std::vector<RaceResultRecord>> FaultInjectionStore::RaceResults(
    const std::string& phase, const std::string& board) {
  if (absl::Status s = Check("RaceResults"); !s.ok()) return s;
  return base_->RaceResults(phase, board);
}

absl::Status FaultInjectionStore::SetTeamContact(const TeamContact& contact) {
  if (absl::Status s = Check("SetTeamContact"); !s.ok()) return s;
  return base_->SetTeamContact(contact);
}

absl::StatusOr<std::optional<TeamContact>> FaultInjectionStore::GetTeamContact(
    const std::string& team) {
  if (absl::Status s = Check("GetTeamContact"); !s.ok()) return s;
  return base_->GetTeamContact(team);
}

absl::StatusOr<std::vector<TeamContact>> FaultInjectionStore::ListTeamContacts() {
  if (absl::Status s = Check("ListTeamContacts"); !s.ok()) return s;
  return base_->ListTeamContacts();
}

absl::StatusOr<bool> FaultInjectionStore::MarkNotified(const std::string& key, double at) {
  if (absl::Status s = Check("MarkNotified"); !s.ok()) return s;
  return base_->MarkNotified(key, at);
}

absl::Status FaultInjectionStore::AddRegistration(const RegistrationRecord& r, const std::string& invite_hash) {
  if (absl::Status s = Check("AddRegistration"); !s.ok()) return s;
  return base_->AddRegistration(r, invite_hash);
}

absl::StatusOr<std::optional<RegistrationRecord>> FaultInjectionStore::GetRegistration(const std::string& team) {
  if (absl::Status s = Check("GetRegistration"); !s.ok()) return s;
  return base_->GetRegistration(team);
}

absl::StatusOr<std::optional<RegistrationRecord>> FaultInjectionStore::FindRegistrationByClaim(const std::string& claim_hash) {
  if (absl::Status s = Check("FindRegistrationByClaim"); !s.ok()) return s;
  return base_->FindRegistrationByClaim(claim_hash);
}

absl::StatusOr<std::vector<RegistrationRecord>> FaultInjectionStore::ListRegistrations() {
  if (absl::Status s = Check("ListRegistrations"); !s.ok()) return s;
  return base_->ListRegistrations();
}

absl::StatusOr<int> FaultInjectionStore::CountRegistrationsFrom(const std::string& peer, double since) {
  if (absl::Status s = Check("CountRegistrationsFrom"); !s.ok()) return s;
  return base_->CountRegistrationsFrom(peer, since);
}

absl::Status FaultInjectionStore::DecideRegistration(const std::string& team, const std::string& state, const std::string& decided_by, const std::string& reason, double at) {
  if (absl::Status s = Check("DecideRegistration"); !s.ok()) return s;
  return base_->DecideRegistration(team, state, decided_by, reason, at);
}

absl::StatusOr<bool> FaultInjectionStore::MarkTokenIssued(const std::string& team, double at) {
  if (absl::Status s = Check("MarkTokenIssued"); !s.ok()) return s;
  return base_->MarkTokenIssued(team, at);
}

absl::StatusOr<int64_t> FaultInjectionStore::AddInvite(const InviteRecord& invite) {
  if (absl::Status s = Check("AddInvite"); !s.ok()) return s;
  return base_->AddInvite(invite);
}

absl::StatusOr<std::vector<InviteRecord>> FaultInjectionStore::ListInvites() {
  if (absl::Status s = Check("ListInvites"); !s.ok()) return s;
  return base_->ListInvites();
}

absl::Status FaultInjectionStore::RevokeInvite(int64_t id, double at) {
  if (absl::Status s = Check("RevokeInvite"); !s.ok()) return s;
  return base_->RevokeInvite(id, at);
}

absl::StatusOr<std::optional<JobRecord>> FaultInjectionStore::LeaseJob(
    const std::string& worker_id, double lease_expires_at, const std::vector<int64_t>& skip) {
  if (absl::Status s = Check("LeaseJob"); !s.ok()) return s;
  return base_->LeaseJob(worker_id, lease_expires_at, skip);
}

absl::Status FaultInjectionStore::ReleaseLease(int64_t job_id, const std::string& worker_id) {
  if (absl::Status s = Check("ReleaseLease"); !s.ok()) return s;
  return base_->ReleaseLease(job_id, worker_id);
}

absl::StatusOr<std::optional<JobRecord>> FaultInjectionStore::LeaseBuiltinJob(
    const std::string& owner, double lease_expires_at) {
  if (absl::Status s = Check("LeaseBuiltinJob"); !s.ok()) return s;
  return base_->LeaseBuiltinJob(owner, lease_expires_at);
}

absl::StatusOr<JobRecord> FaultInjectionStore::GetJob(int64_t job_id) {
  if (absl::Status s = Check("GetJob"); !s.ok()) return s;
  return base_->GetJob(job_id);
}

absl::Status FaultInjectionStore::RenewLeases(const std::string& worker_id,
                                              double lease_expires_at) {
  if (absl::Status s = Check("RenewLeases"); !s.ok()) return s;
  return base_->RenewLeases(worker_id, lease_expires_at);
}

absl::StatusOr<std::vector<int64_t>> FaultInjectionStore::ExpireLeases(double now,
                                                                       int max_attempts) {
  if (absl::Status s = Check("ExpireLeases"); !s.ok()) return s;
  return base_->ExpireLeases(now, max_attempts);
}

absl::Status FaultInjectionStore::FinishJob(int64_t job_id, const std::string& worker_id,
                                            const std::string& error, int max_attempts) {
  if (absl::Status s = Check("FinishJob"); !s.ok()) return s;
  return base_->FinishJob(job_id, worker_id, error, max_attempts);
}

absl::StatusOr<int> FaultInjectionStore::CountLeases(const std::string& worker_id) {
  if (absl::Status s = Check("CountLeases"); !s.ok()) return s;
  return base_->CountLeases(worker_id);
}

absl::StatusOr<JobCounts> FaultInjectionStore::CountJobs(int64_t submission_id) {
  if (absl::Status s = Check("CountJobs"); !s.ok()) return s;
  return base_->CountJobs(submission_id);
}

absl::StatusOr<std::vector<std::string>> FaultInjectionStore::ListBoards() {
  if (absl::Status s = Check("ListBoards"); !s.ok()) return s;
  return base_->ListBoards();
}

absl::Status FaultInjectionStore::RegisterWorker(const std::string& worker_id,
                                                 const std::string& hostname, int slots,
                                                 double now) {
  if (absl::Status s = Check("RegisterWorker"); !s.ok()) return s;
  return base_->RegisterWorker(worker_id, hostname, slots, now);
}

absl::Status FaultInjectionStore::TouchWorker(const std::string& worker_id, double now) {
  if (absl::Status s = Check("TouchWorker"); !s.ok()) return s;
  return base_->TouchWorker(worker_id, now);
}

absl::StatusOr<int64_t> FaultInjectionStore::CreateStudy(const StudyRecord& s) {
  if (absl::Status s = Check("CreateStudy"); !s.ok()) return s;
  return base_->CreateStudy(s);
}

absl::StatusOr<StudyRecord> FaultInjectionStore::GetStudy(int64_t study_id) {
  if (absl::Status s = Check("GetStudy"); !s.ok()) return s;
  return base_->GetStudy(study_id);
}

absl::Status FaultInjectionStore::RecordBatch(const BatchRecord& b) {
  if (absl::Status s = Check("RecordBatch"); !s.ok()) return s;
  return base_->RecordBatch(b);
}

absl::Status FaultInjectionStore::RecordStudyError(const StudyErrorRecord& e) {
  if (absl::Status s = Check("RecordStudyError"); !s.ok()) return s;
  return base_->RecordStudyError(e);
}

absl::StatusOr<StudyState> FaultInjectionStore::EndStudy(int64_t study_id, StudyState state,
                                                         const std::string& reason, double ended_at,
                                                         double optimizer_time_s) {
  if (absl::Status s = Check("EndStudy"); !s.ok()) return s;
  return base_->EndStudy(study_id, state, reason, ended_at, optimizer_time_s);
}

absl::StatusOr<std::vector<StudyErrorRecord>> FaultInjectionStore::ListStudyErrors(
    int64_t study_id) {
  if (absl::Status s = Check("ListStudyErrors"); !s.ok()) return s;
  return base_->ListStudyErrors(study_id);
}

absl::StatusOr<std::vector<std::pair<std::string, StudyErrorRecord>>>
FaultInjectionStore::ListSubmissionErrors(int64_t submission_id, int limit) {
  if (absl::Status s = Check("ListSubmissionErrors"); !s.ok()) return s;
  return base_->ListSubmissionErrors(submission_id, limit);
}

absl::StatusOr<std::vector<StudySummary>> FaultInjectionStore::ListSubmissionStudies(
    int64_t submission_id) {
  if (absl::Status s = Check("ListSubmissionStudies"); !s.ok()) return s;
  return base_->ListSubmissionStudies(submission_id);
}

absl::StatusOr<int> FaultInjectionStore::CountStudiesWithErrors(int64_t submission_id) {
  if (absl::Status s = Check("CountStudiesWithErrors"); !s.ok()) return s;
  return base_->CountStudiesWithErrors(submission_id);
}

absl::StatusOr<std::vector<std::vector<double>>> FaultInjectionStore::StudyValues(
    int64_t study_id) {
  if (absl::Status s = Check("StudyValues"); !s.ok()) return s;
  return base_->StudyValues(study_id);
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
FaultInjectionStore::ProblemSignatures() {
  if (absl::Status s = Check("ProblemSignatures"); !s.ok()) return s;
  return base_->ProblemSignatures();
}

absl::StatusOr<std::vector<int64_t>> FaultInjectionStore::ListStudyIds() {
  if (absl::Status s = Check("ListStudyIds"); !s.ok()) return s;
  return base_->ListStudyIds();
}

absl::StatusOr<std::vector<std::pair<int, EvaluationRecord>>> FaultInjectionStore::StudyEvaluations(
    int64_t study_id) {
  if (absl::Status s = Check("StudyEvaluations"); !s.ok()) return s;
  return base_->StudyEvaluations(study_id);
}

absl::StatusOr<ScoringData> FaultInjectionStore::LoadScoringData(
    const std::vector<std::string>& problems, const std::string& board) {
  if (absl::Status s = Check("LoadScoringData"); !s.ok()) return s;
  return base_->LoadScoringData(problems, board);
}

absl::StatusOr<ScoringChanges> FaultInjectionStore::ScoringChangesSince(int64_t after_seq) {
  if (absl::Status s = Check("ScoringChangesSince"); !s.ok()) return s;
  return base_->ScoringChangesSince(after_seq);
}

absl::StatusOr<std::vector<ScoredEvaluationRecord>> FaultInjectionStore::ScoredEvaluations(
    const std::string& board) {
  if (absl::Status s = Check("ScoredEvaluations"); !s.ok()) return s;
  return base_->ScoredEvaluations(board);
}

absl::StatusOr<int64_t> FaultInjectionStore::AddCredential(const CredentialRecord& c) {
  if (absl::Status s = Check("AddCredential"); !s.ok()) return s;
  return base_->AddCredential(c);
}

absl::StatusOr<std::optional<CredentialRecord>> FaultInjectionStore::FindCredential(
    const std::string& token_hash) {
  if (absl::Status s = Check("FindCredential"); !s.ok()) return s;
  return base_->FindCredential(token_hash);
}

absl::StatusOr<int> FaultInjectionStore::RevokeCredentials(CredentialKind kind,
                                                           const std::string& owner,
                                                           double now) {
  if (absl::Status s = Check("RevokeCredentials"); !s.ok()) return s;
  return base_->RevokeCredentials(kind, owner, now);
}

absl::StatusOr<std::vector<CredentialRecord>> FaultInjectionStore::ListCredentials() {
  if (absl::Status s = Check("ListCredentials"); !s.ok()) return s;
  return base_->ListCredentials();
}

absl::StatusOr<int64_t> FaultInjectionStore::AppendAudit(const AuditRecord& a) {
  if (absl::Status s = Check("AppendAudit"); !s.ok()) return s;
  return base_->AppendAudit(a);
}

absl::StatusOr<int> FaultInjectionStore::TrimAudit(int64_t keep) {
  if (absl::Status s = Check("TrimAudit"); !s.ok()) return s;
  return base_->TrimAudit(keep);
}

absl::StatusOr<std::vector<AuditRecord>> FaultInjectionStore::ListAudit(int limit) {
  if (absl::Status s = Check("ListAudit"); !s.ok()) return s;
  return base_->ListAudit(limit);
}

absl::StatusOr<std::vector<FailedJob>> FaultInjectionStore::ListFailedJobs() {
  if (absl::Status s = Check("ListFailedJobs"); !s.ok()) return s;
  return base_->ListFailedJobs();
}

absl::Status FaultInjectionStore::RequeueFailedJob(int64_t job_id) {
  if (absl::Status s = Check("RequeueFailedJob"); !s.ok()) return s;
  return base_->RequeueFailedJob(job_id);
}

absl::StatusOr<int64_t> FaultInjectionStore::BeginEpoch(double now) {
  if (absl::Status s = Check("BeginEpoch"); !s.ok()) return s;
  return base_->BeginEpoch(now);
}

absl::StatusOr<RecoveryCounts> FaultInjectionStore::RecoverAfterRestart(double now) {
  if (absl::Status s = Check("RecoverAfterRestart"); !s.ok()) return s;
  return base_->RecoverAfterRestart(now);
}

absl::StatusOr<int> FaultInjectionStore::CancelQueuedJobs(int64_t submission_id,
                                                          const std::string& reason) {
  if (absl::Status s = Check("CancelQueuedJobs"); !s.ok()) return s;
  return base_->CancelQueuedJobs(submission_id, reason);
}

}  // namespace bbo::testing
