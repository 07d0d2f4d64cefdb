#include "server/embed.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/phase.h"
#include "server/coordinator.h"
#include "server/identity.h"
#include "server/scoreboard.h"
#include "server/race.h"
#include "server/replay.h"
#include "server/requeue.h"
#include "server/rpc/grpc_server.h"
#include "server/store/export.h"
#include "server/store/sqlite_store.h"
#include "server/store/store.h"
#include "server/submission_log.h"

namespace bbo {

// --- LocalServer

absl::StatusOr<std::unique_ptr<LocalServer>> LocalServer::Start(
    const LocalServerOptions& options, std::vector<std::unique_ptr<Problem>> problems) {
  CoordinatorOptions co;
  co.db_path = options.db_path;
  co.study.budget = options.budget;
  co.competition.baseline_trials = options.baseline_trials;
  co.competition.default_trials = options.default_trials;
  // Workers run in this process: a lost one is noticed quickly.
  co.queue.lease_ttl_s = 30;
  co.queue.heartbeat_interval_s = 2;
  co.warn_without_workers = false;
  co.eval_threads = options.eval_threads;
  co.problem_definitions = {options.definitions};
  std::unique_ptr<LocalServer> local(new LocalServer());
  ASSIGN_OR_RETURN(local->coordinator_, Coordinator::Create(co, std::move(problems)));
  rpc::GrpcServerOptions listen;
  listen.address = "127.0.0.1:0";
  ASSIGN_OR_RETURN(local->server_, rpc::GrpcServer::Start(local->coordinator_.get(), listen));
  // The in-process workers' credential: the same protocol, the same checks as remote workers.
  ASSIGN_OR_RETURN(local->worker_token_,
                   local->coordinator_->credentials().Issue(CredentialKind::kWorker, "bbo-local"));
  local->coordinator_->Start();
  return local;
}

LocalServer::~LocalServer() {
  // The services first: no call may reach a stopped coordinator.
  server_.reset();
  coordinator_.reset();
}

std::string LocalServer::address() const { return server_->target(); }

absl::StatusOr<LocalSubmission> LocalServer::Register(const std::string& name,
                                                      const std::string& archive, int trials) {
  ASSIGN_OR_RETURN(RegisteredSubmission reg,
                   coordinator_->first_phase().Register(name, archive, trials));
  return LocalSubmission{reg.submission_id, reg.kind == SubmissionKind::kPython, reg.jobs};
}

absl::StatusOr<LocalProgress> LocalServer::Progress(int64_t submission_id) {
  ASSIGN_OR_RETURN(JobCounts counts, coordinator_->store().CountJobs(submission_id));
  return LocalProgress{counts.done + counts.failed, counts.total};
}

uint64_t LocalServer::QueueVersion() { return coordinator_->queue().version(); }

void LocalServer::WaitForQueueChange(uint64_t seen, absl::Duration timeout) {
  coordinator_->queue().WaitForChange(seen, timeout);
}

bool LocalServer::WaitForBaseline(absl::Duration timeout) {
  return coordinator_->WaitForBaseline(timeout);
}

absl::StatusOr<scoring::Leaderboard> LocalServer::Leaderboard() {
  ASSIGN_OR_RETURN(LeaderboardReport report, coordinator_->first_phase().Leaderboard());
  return std::move(report.board);
}

absl::StatusOr<std::vector<LocalStudyError>> LocalServer::StudyErrors(int64_t submission_id,
                                                                      int limit) {
  ASSIGN_OR_RETURN(auto errors, coordinator_->store().ListSubmissionErrors(submission_id, limit));
  std::vector<LocalStudyError> out;
  for (auto& [problem, e] : errors) {
    out.push_back({problem, e.batch, std::move(e.kind), std::move(e.message)});
  }
  return out;
}

absl::StatusOr<LocalLog> LocalServer::Log(int64_t submission_id, int limit) {
  ASSIGN_OR_RETURN(SubmissionRecord sub, coordinator_->store().GetSubmission(submission_id));
  ASSIGN_OR_RETURN(SubmissionLog log, ReadSubmissionLog(coordinator_->store(), sub,
                                                        coordinator_->problems(), false, limit));
  LocalLog out;
  out.studies_by_state = log.studies_by_state;
  out.total_errors = log.total_errors;
  out.errors_by_kind = log.errors_by_kind;
  for (const StudySummary& s : log.studies) {
    out.batches += s.batches_done;
    out.random_batches += s.random_batches;
    if (s.state != StudyState::kCompleted && s.state != StudyState::kRunning) {
      out.failures.push_back(absl::StrCat(s.problem, " trial ", s.trial, ": ", s.end_reason));
    }
  }
  for (SubmissionLogError& e : log.errors) {
    out.errors.push_back({e.problem, e.batch, std::move(e.kind), std::move(e.message)});
  }
  return out;
}

void LocalServer::Stop() {
  server_->Shutdown();
  coordinator_->Stop();
}

// --- ArenaDatabase

ArenaDatabase::ArenaDatabase(std::unique_ptr<Store> store, std::string path)
    : store_(std::move(store)),
      path_(path),
      secret_path_(Credentials::SecretPathFor(path)),
      clock_(std::make_unique<RealClock>()) {}
ArenaDatabase::~ArenaDatabase() = default;

absl::StatusOr<std::unique_ptr<ArenaDatabase>> ArenaDatabase::OpenOrCreate(
    const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store, SqliteStore::Open(path));
  return std::unique_ptr<ArenaDatabase>(new ArenaDatabase(std::move(store), path));
}

absl::StatusOr<Credentials*> ArenaDatabase::Creds() {
  if (creds_ == nullptr) {
    ASSIGN_OR_RETURN(std::string secret, Credentials::LoadOrCreateSecret(secret_path_));
    creds_ = std::make_unique<Credentials>(store_.get(), std::move(secret), clock_.get());
  }
  return creds_.get();
}

namespace {

// The audit's "who" for an offline action: the tool's caller, not a network identity.
void AuditOffline(Credentials* creds, const std::string& actor, const std::string& action,
                  const absl::Status& result, const std::string& owner) {
  creds->Audit(Identity::Organizer(), absl::StrCat(action, " (", actor, ")"), result.ok(),
               result.ok() ? owner : absl::StrCat(owner, ": ", result.message()));
}

}  // namespace

absl::StatusOr<std::string> ArenaDatabase::IssueToken(const std::string& kind,
                                                      const std::string& owner,
                                                      const std::string& actor) {
  ASSIGN_OR_RETURN(CredentialKind k, ParseCredentialKind(kind));
  ASSIGN_OR_RETURN(Credentials * creds, Creds());
  absl::StatusOr<std::string> token = creds->Issue(k, owner);
  AuditOffline(creds, actor, absl::StrCat(kind, " add"), token.status(), owner);
  return token;
}

absl::StatusOr<std::string> ArenaDatabase::RotateToken(const std::string& kind,
                                                       const std::string& owner,
                                                       const std::string& actor) {
  ASSIGN_OR_RETURN(CredentialKind k, ParseCredentialKind(kind));
  ASSIGN_OR_RETURN(Credentials * creds, Creds());
  absl::StatusOr<std::string> token = creds->Rotate(k, owner);
  AuditOffline(creds, actor, absl::StrCat(kind, " rotate"), token.status(), owner);
  return token;
}

absl::Status ArenaDatabase::RevokeTokens(const std::string& kind, const std::string& owner,
                                         const std::string& actor) {
  ASSIGN_OR_RETURN(CredentialKind k, ParseCredentialKind(kind));
  ASSIGN_OR_RETURN(Credentials * creds, Creds());
  absl::Status s = creds->Revoke(k, owner);
  AuditOffline(creds, actor, absl::StrCat(kind, " revoke"), s, owner);
  return s;
}

absl::StatusOr<std::vector<FailedJobInfo>> ArenaDatabase::ListFailedJobs() {
  ASSIGN_OR_RETURN(std::vector<FailedJob> failed, store_->ListFailedJobs());
  std::vector<FailedJobInfo> out;
  for (const FailedJob& f : failed) {
    out.push_back({f.job.id, f.submission, f.job.problem, BoardDisplayName(f.job.board),
                   f.last_error, f.job.trial, f.job.attempts});
  }
  return out;
}

absl::StatusOr<int> ArenaDatabase::RequeueFailedJobs(int64_t job_id, const std::string& actor) {
  absl::StatusOr<int> n = bbo::RequeueFailedJobs(*store_, job_id);
  ASSIGN_OR_RETURN(Credentials * creds, Creds());
  AuditOffline(creds, actor, "jobs requeue", n.status(),
               job_id == 0 ? std::string("all failed") : absl::StrCat("job ", job_id));
  return n;
}

absl::Status ArenaDatabase::PublishBoard(const std::string& phase, bool undo,
                                         const std::string& reason, const std::string& actor) {
  absl::Status st = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::optional<PhaseRecord> known, store_->GetPhase(phase));
    if (!known || phase.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "no phase \"", phase, "\" in this database (phases come from the coordinator's "
          "--competition_file, recorded when it starts)"));
    }
    ASSIGN_OR_RETURN(std::optional<RecordedPhaseRules> rules, RecordedRules(phase));
    // A phase recorded before phases recorded their rules: its board may be hidden.
    const bool hidden = !rules || rules->board_hidden_until_published;
    return Publish(*store_, BoardPublication{phase, phase, hidden}, Identity::Organizer(), actor,
                   undo, reason, absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()));
  }();
  ASSIGN_OR_RETURN(Credentials * creds, Creds());
  AuditOffline(creds, actor, undo ? "unpublish" : "publish", st,
               absl::StrCat("phase ", phase, reason.empty() ? "" : ": " + reason));
  return st;
}

absl::Status ArenaDatabase::StopRace(const std::string& phase, const std::string& reason,
                                     const std::string& actor) {
  const absl::Status st = RaceDriver::Stop(*store_, phase, actor, reason,
                                           absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()));
  ASSIGN_OR_RETURN(Credentials * creds, Creds());
  AuditOffline(creds, actor, "stop-race", st, absl::StrCat("phase ", phase, ": ", reason));
  return st;
}

absl::StatusOr<std::vector<TokenInfo>> ArenaDatabase::ListTokens() {
  ASSIGN_OR_RETURN(std::vector<CredentialRecord> all, store_->ListCredentials());
  std::vector<TokenInfo> out;
  for (const CredentialRecord& c : all) {
    out.push_back({CredentialKindName(c.kind), c.owner, c.created_at, c.revoked_at.value_or(0)});
  }
  return out;
}

absl::StatusOr<std::vector<AuditEntry>> ArenaDatabase::ListAudit(int limit) {
  ASSIGN_OR_RETURN(std::vector<AuditRecord> all, store_->ListAudit(limit));
  std::vector<AuditEntry> out;
  for (const AuditRecord& a : all) out.push_back({a.at, a.who, a.action, a.detail, a.allowed});
  return out;
}

absl::StatusOr<std::unique_ptr<ArenaDatabase>> ArenaDatabase::Open(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(absl::StrCat(path, " does not exist"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store, SqliteStore::Open(path));
  return std::unique_ptr<ArenaDatabase>(new ArenaDatabase(std::move(store), path));
}

absl::StatusOr<std::optional<RecordedPhaseRules>> ArenaDatabase::RecordedRules(
    const std::string& phase_key) {
  ASSIGN_OR_RETURN(std::optional<PhaseRecord> known, store_->GetPhase(phase_key));
  if (!known || known->spec.empty()) return std::nullopt;
  const nlohmann::json j =
      nlohmann::json::parse(known->spec, nullptr, /*allow_exceptions=*/false);
  absl::StatusOr<RecordedPhaseRules> rules = RecordedPhaseRules::FromJson(j);
  if (!rules.ok()) return std::nullopt;  // recorded before phases recorded their rules
  return *std::move(rules);
}

absl::StatusOr<ScoreboardSpec> ArenaDatabase::RecordedScoreboard(const std::string& board_key,
                                                                 const std::string& phase) {
  const std::string phase_key = PhaseKeyOfBoard(board_key);
  ASSIGN_OR_RETURN(std::optional<RecordedPhaseRules> rules, RecordedRules(phase_key));
  if (rules) return rules->scoreboard;
  // A database from before phases recorded how they are scored: the problems, batch size and
  // number of batches its results show, and no problem details.
  ASSIGN_OR_RETURN(scoring::BuiltInput built,
                   LoadReportInput(BoardDisplayName(board_key), false, phase));
  ScoreboardSpec spec;
  spec.phase = phase_key.empty() ? (phase.empty() ? "practice" : phase) : phase_key;
  spec.batch_size = built.input.batch_size;
  spec.n_batches = built.input.n_batches;
  for (const auto& [name, unused] : built.input.problems) {
    ScoreboardProblem p;
    p.name = name;
    spec.problems.push_back(std::move(p));
  }
  return spec;
}

absl::StatusOr<nlohmann::json> ArenaDatabase::Report(const std::string& board,
                                                     const std::string& phase,
                                                     const scoring::BootstrapOptions& bootstrap) {
  ASSIGN_OR_RETURN(std::string key, BoardKey(phase, board));
  ASSIGN_OR_RETURN(ScoreboardSpec spec, RecordedScoreboard(key, phase));
  Scoreboard scoreboard(store_.get(), key, spec, store_.get());
  ReportRequest request;
  request.bootstrap_replicates = bootstrap.replicates;
  request.seed = bootstrap.seed;
  request.top_k = bootstrap.top_k;
  ASSIGN_OR_RETURN(BoardReport report, scoreboard.Report(request, path_));
  // A racing phase's main board: the race as its rounds recorded it (as the coordinator shows it).
  nlohmann::json racing = nullptr;
  if (spec.race && !IsWarmStartBoard(key)) {
    RealClock clock;
    RaceDriver race(store_.get(), &clock, RaceDriverOptions::OfBoard(spec));
    ASSIGN_OR_RETURN(RaceView view, race.View());
    racing = view.ToJson();
  }
  return scoring::ReportJson(*report.report, report.snapshot->input, racing);
}

absl::StatusOr<std::string> ArenaDatabase::BoardKey(const std::string& phase,
                                                    const std::string& board) {
  std::string key = phase;
  if (!phase.empty()) {
    ASSIGN_OR_RETURN(std::optional<PhaseRecord> known, store_->GetPhase(phase));
    if (!known) {
      // A database of a coordinator started from flags: its one phase has the key "" and a
      // name that only labels it.
      ASSIGN_OR_RETURN(std::vector<SubmissionRecord> subs, store_->ListSubmissions());
      const bool phased = std::any_of(subs.begin(), subs.end(),
                                      [](const SubmissionRecord& s) { return !s.phase.empty(); });
      if (phased) {
        return absl::NotFoundError(absl::StrCat("no phase \"", phase, "\" in ", path_,
                                                " (phases come from a competition file)"));
      }
      key = "";
    }
  }
  if (board.empty() || board == "main") return MainBoardKey(key);
  if (board == "warm-start") return WarmStartBoardKey(key);
  return absl::InvalidArgumentError(
      absl::StrCat("board: \"", board, "\" is neither main nor warm-start"));
}

absl::Status ArenaDatabase::ExportResultsCsv(const std::string& board, std::ostream& out,
                                             const std::string& phase) {
  ASSIGN_OR_RETURN(std::string key, BoardKey(phase, board));
  return bbo::ExportResultsCsv(*store_, out, key);
}

absl::StatusOr<scoring::BuiltInput> ArenaDatabase::LoadReportInput(const std::string& board,
                                                                   bool generalization,
                                                                   const std::string& phase) {
  ASSIGN_OR_RETURN(std::string board_key, BoardKey(phase, board));
  // The rows `bbo export` writes (the methods' scored studies of the board, the baseline's
  // evaluations pooled), straight from the store: the baseline is scored as a method too, and
  // the report's warnings count the evaluations of each batch, which batch minima do not show.
  ASSIGN_OR_RETURN(std::vector<ScoredEvaluationRecord> evaluations,
                   store_->ScoredEvaluations(board_key));
  scoring::ResultsTable table = ResultsTableOf(evaluations);
  auto key = [](const scoring::ResultsRow& r) {
    return std::tie(r.problem, r.method, r.trial, r.batch, r.suggestion);
  };
  for (size_t i = 1; i < table.rows.size(); ++i) {
    if (key(table.rows[i - 1]) == key(table.rows[i])) {
      const scoring::ResultsRow& r = table.rows[i];
      return absl::InvalidArgumentError(absl::StrCat(
          "repeats problem ", r.problem, ", method ", r.method, ", trial ", r.trial, ", batch ",
          r.batch, ", suggestion ", r.suggestion));
    }
  }
  if (table.rows.empty()) return absl::InvalidArgumentError("the results table has no rows");
  return scoring::BuildScoringInput(table, PhaseOptions().baseline_name, generalization);
}

absl::StatusOr<std::vector<int64_t>> ArenaDatabase::StudyIds() { return store_->ListStudyIds(); }

ReplayRun ArenaDatabase::ReplayStudies(
    const std::vector<int64_t>& study_ids,
    const std::map<std::string, std::unique_ptr<Problem>>& problems) {
  ReplayRun run;
  for (int64_t id : study_ids) {
    absl::StatusOr<StudyRecord> study = store_->GetStudy(id);
    if (!study.ok()) {
      run.error = study.status();
      break;
    }
    ReplayedStudy out;
    out.study_id = id;
    out.problem = study->problem;
    auto it = problems.find(study->problem);
    if (it == problems.end() || it->second == nullptr) {
      out.skipped = true;
      run.studies.push_back(std::move(out));
      continue;
    }
    absl::StatusOr<ReplayResult> r = ReplayStudy(store_.get(), *it->second, id);
    if (!r.ok()) {
      run.error = absl::Status(r.status().code(), absl::StrCat("study ", id, ": ",
                                                               r.status().message()));
      break;
    }
    out.problem = r->problem;
    out.evaluations = r->evaluations;
    out.reproduced = r->reproduced;
    out.differences = std::move(r->differences);
    out.signature_changed =
        !r->recorded_signature.empty() && r->recorded_signature != r->signature_now;
    run.studies.push_back(std::move(out));
  }
  return run;
}

}  // namespace bbo
