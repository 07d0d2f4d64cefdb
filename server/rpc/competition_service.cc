#include "server/rpc/convert.h"
#include "server/submission_state.h"
#include "server/rpc/services.h"

namespace bbo::rpc {
namespace {

v1::SubmissionState StateToProto(SubmissionState s) {
  switch (s) {
    case SubmissionState::kQueued:
      return v1::SUBMISSION_STATE_QUEUED;
    case SubmissionState::kRunning:
      return v1::SUBMISSION_STATE_RUNNING;
    case SubmissionState::kFinished:
      return v1::SUBMISSION_STATE_FINISHED;
    case SubmissionState::kPartial:
      return v1::SUBMISSION_STATE_PARTIAL;
    case SubmissionState::kFailed:
      return v1::SUBMISSION_STATE_FAILED;
    case SubmissionState::kWithdrawn:
      return v1::SUBMISSION_STATE_WITHDRAWN;
  }
  return v1::SUBMISSION_STATE_UNSPECIFIED;
}

// The proto state of a leaderboard row's state name (SubmissionStateName).
v1::SubmissionState StateNameToProto(const std::string& name) {
  for (SubmissionState s :
       {SubmissionState::kQueued, SubmissionState::kRunning, SubmissionState::kFinished,
        SubmissionState::kPartial, SubmissionState::kFailed, SubmissionState::kWithdrawn}) {
    if (name == SubmissionStateName(s)) return StateToProto(s);
  }
  return v1::SUBMISSION_STATE_UNSPECIFIED;
}

void StatusToProto(const SubmissionStatus& s, v1::SubmissionStatus* o) {
  o->set_submission_id(s.submission.id);
  o->set_name(s.submission.name);
  o->set_kind(ToProto(s.submission.kind));
  o->set_state(StateToProto(StateOf(s)));
  o->set_state_detail(DescribeState(s));
  o->set_jobs_withdrawn(s.jobs.withdrawn);
  o->set_hidden(s.submission.hidden);
  o->set_jobs_total(s.jobs.total);
  o->set_jobs_queued(s.jobs.queued);
  o->set_jobs_running(s.jobs.leased);
  o->set_jobs_done(s.jobs.done);
  o->set_jobs_failed(s.jobs.lost());
  o->set_studies_with_errors(s.studies_with_errors);
  o->set_created_at_s(s.submission.created_at);
  o->set_team(s.submission.team);
  o->set_migrated_from(s.submission.migrated_from);
}

}  // namespace

grpc::Status CompetitionServiceImpl::RegisterSubmission(
    grpc::ServerContext* context, const v1::RegisterSubmissionRequest* req,
    v1::RegisterSubmissionResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<Phase*> phase = competition_->ForSubmission(req->phase());
  if (!phase.ok()) return ToGrpcStatus(phase.status());
  absl::StatusOr<RegisteredSubmission> r =
      (*phase)->Register(who, req->name(), req->archive(), req->trials(), req->team());
  if (!r.ok()) return ToGrpcStatus(r.status());
  resp->set_submission_id(r->submission_id);
  resp->set_kind(ToProto(r->kind));
  resp->set_jobs(r->jobs);
  resp->set_trials(r->trials);
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::ListSubmissions(grpc::ServerContext* context,
                                                     const v1::ListSubmissionsRequest* req,
                                                     v1::ListSubmissionsResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<std::vector<PhaseSubmission>> list = competition_->List(who, req->phase());
  if (!list.ok()) return ToGrpcStatus(list.status());
  for (const PhaseSubmission& ps : *list) {
    StatusToProto(ps.status, resp->add_submissions());
    v1::SubmissionStatus* o = resp->mutable_submissions(resp->submissions_size() - 1);
    o->set_phase(ps.phase);
    o->set_chosen(ps.chosen);
    o->set_finalist(ps.finalist);
    o->set_next_phase(ps.next_phase);
  }
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::WithdrawSubmission(grpc::ServerContext* context,
                                                        const v1::WithdrawSubmissionRequest* req,
                                                        v1::WithdrawSubmissionResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<int> n = competition_->Withdraw(who, req->submission_id());
  if (!n.ok()) return ToGrpcStatus(n.status());
  resp->set_jobs_cancelled(*n);
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::GetLeaderboard(grpc::ServerContext* context,
                                                    const v1::GetLeaderboardRequest* req,
                                                    v1::GetLeaderboardResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<Phase*> phase = competition_->Get(req->phase());
  if (!phase.ok()) return ToGrpcStatus(phase.status());
  absl::StatusOr<LeaderboardReport> report = (*phase)->Leaderboard(who, req->board());
  if (!report.ok()) return ToGrpcStatus(report.status());
  int rank = 0;
  for (const auto& r : report->board.rows) {
    v1::LeaderboardRow* row = resp->add_rows();
    row->set_rank(++rank);
    row->set_name(r.method);
    row->set_score(r.score);
    row->set_median_score(r.median_score);
    row->set_baseline(r.is_baseline);
    row->set_complete(r.complete);
    if (auto e = report->entries.find(r.method); e != report->entries.end()) {
      row->set_submission_id(e->second.id);
      row->set_team(e->second.team);
      row->set_state(StateNameToProto(e->second.state));
    }
    for (const auto& p : r.problems) {
      v1::ProblemScore* ps = row->add_problems();
      ps->set_problem(p.problem);
      ps->set_score(p.score);
      ps->set_trials(p.trials);
    }
  }
  resp->set_batch_size(report->batch_size);
  resp->set_n_batches(report->n_batches);
  if (report->per_problem) resp->set_report_json(LeaderboardReportJson(*report).dump());
  resp->set_phase((*phase)->options().phase);
  resp->set_board(BoardDisplayName((*phase)->BoardKey(req->board())));
  for (const LeaderboardReport::Removed& r : report->removed) {
    v1::RemovedSubmission* o = resp->add_removed();
    o->set_name(r.name);
    o->set_team(r.team);
    o->set_why(r.why);
  }
  resp->set_rows_rule(report->rows);
  resp->set_rows_not_shown(report->rows_not_shown);
  for (const LeaderboardReport::Pending& p : report->pending) {
    v1::PendingSubmission* o = resp->add_pending();
    o->set_name(p.name);
    o->set_jobs_total(p.jobs.total);
    o->set_jobs_done(p.jobs.done);
    o->set_jobs_failed(p.jobs.lost());
    o->set_jobs_withdrawn(p.jobs.withdrawn);
  }
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::GetCompetition(grpc::ServerContext* context,
                                                    const v1::GetCompetitionRequest*,
                                                    v1::GetCompetitionResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  auto seconds = [](const std::optional<absl::Time>& t) {
    return t ? absl::ToDoubleSeconds(*t - absl::UnixEpoch()) : 0.0;
  };
  resp->set_name(competition_->name());
  resp->set_now_s(competition_->calendar()->NowSeconds());
  const QueueView q = competition_->Queue(who);
  resp->set_workers_connected(q.workers_connected);
  resp->set_worker_slots(q.worker_slots);
  resp->set_jobs_queued(q.jobs_queued);
  resp->set_jobs_running(q.jobs_running);
  resp->set_estimated_wait_s(q.estimated_wait_s);
  for (const PhaseView& v : competition_->Describe()) {
    v1::Phase* o = resp->add_phases();
    o->set_name(v.name);
    o->set_title(v.title);
    o->set_rules(v.rules);
    o->set_start_s(seconds(v.start));
    o->set_end_s(seconds(v.end));
    o->set_current(v.current);
    o->set_open(v.open);
    o->set_accepts_submissions(v.accepts_submissions);
    o->set_hidden(v.hidden);
    o->set_board_hidden_until_published(v.board_hidden_until_published);
    o->set_published(v.published);
    o->set_migrate_from(v.migrate_from);
    o->set_migrated_at_s(v.migrated_at);
    o->set_racing(v.racing);
  }
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::ChooseSubmission(grpc::ServerContext* context,
                                                      const v1::ChooseSubmissionRequest* req,
                                                      v1::ChooseSubmissionResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<std::string> next = competition_->Choose(who, req->submission_id());
  if (!next.ok()) return ToGrpcStatus(next.status());
  resp->set_next_phase(*next);
  return grpc::Status::OK;
}

namespace {

void ToProto(const TeamContact& c, v1::TeamContact* out) {
  out->set_team(c.team);
  out->set_email(c.email);
  out->set_webhook_url(c.webhook_url);
  out->set_updated_at_s(c.updated_at);
}

}  // namespace

grpc::Status CompetitionServiceImpl::SetContact(grpc::ServerContext* context,
                                                const v1::SetContactRequest* req,
                                                v1::SetContactResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<TeamContact> contact =
      competition_->SetContact(who, req->team(), req->email(), req->webhook_url());
  if (!contact.ok()) return ToGrpcStatus(contact.status());
  ToProto(*contact, resp->mutable_contact());
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::GetContact(grpc::ServerContext* context,
                                                const v1::GetContactRequest* req,
                                                v1::GetContactResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<TeamContact> contact = competition_->Contact(who, req->team());
  if (!contact.ok()) return ToGrpcStatus(contact.status());
  ToProto(*contact, resp->mutable_contact());
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::GetSubmissionLog(grpc::ServerContext* context,
                                                      const v1::GetSubmissionLogRequest* req,
                                                      v1::GetSubmissionLogResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<SubmissionLog> log =
      competition_->Log(who, req->submission_id(), req->limit() > 0 ? req->limit() : 50);
  if (!log.ok()) return ToGrpcStatus(log.status());
  SubmissionStatus status;
  status.submission = log->submission;
  status.jobs = log->jobs;
  for (const StudySummary& st : log->studies) {
    v1::StudyLogLine* o = resp->add_studies();
    o->set_study_id(st.study_id);
    o->set_problem(st.problem);
    o->set_trial(st.trial);
    o->set_board(BoardDisplayName(st.board));
    o->set_state(StudyStateName(st.state));
    o->set_batches_done(st.batches_done);
    o->set_n_batches(st.n_batches);
    o->set_end_reason(st.end_reason);
  }
  for (const auto& [kind, n] : log->errors_by_kind) (*resp->mutable_errors_by_kind())[kind] = n;
  resp->set_total_errors(log->total_errors);
  for (const SubmissionLogError& e : log->errors) {
    v1::ErrorLogLine* o = resp->add_errors();
    o->set_problem(e.problem);
    o->set_study_id(e.study_id);
    o->set_batch(e.batch);
    o->set_kind(e.kind);
    o->set_message(e.message);
  }
  status.studies_with_errors = log->studies_with_errors;
  StatusToProto(status, resp->mutable_submission());
  resp->mutable_submission()->set_phase(log->submission.phase);
  return grpc::Status::OK;
}

grpc::Status ScoringServiceImpl::GetReport(grpc::ServerContext* context,
                                           const v1::GetReportRequest* req,
                                           v1::GetReportResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  ReportRequest r;
  r.phase = req->phase();
  r.board = req->board();
  if (req->bootstrap_replicates() != 0) r.bootstrap_replicates = req->bootstrap_replicates();
  if (req->seed() != 0) r.seed = req->seed();
  if (req->top_k() != 0) r.top_k = req->top_k();
  const char* format = "json";
  switch (req->format()) {
    case v1::REPORT_FORMAT_HTML: format = "html"; break;
    case v1::REPORT_FORMAT_CSV: format = "csv"; break;
    case v1::REPORT_FORMAT_JSON:
    case v1::REPORT_FORMAT_UNSPECIFIED: format = "json"; break;
    default:
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "format: unknown report format");
  }
  absl::StatusOr<Phase*> phase = competition_->Get(req->phase());
  if (!phase.ok()) return ToGrpcStatus(phase.status());
  r.phase = (*phase)->options().phase;
  absl::StatusOr<std::vector<scoring::ReportFile>> files = (*phase)->ReportFiles(who, r, format);
  if (!files.ok()) return ToGrpcStatus(files.status());
  resp->set_phase(r.phase);
  for (auto& f : *files) {
    v1::ReportFile* o = resp->add_files();
    o->set_name(f.name);
    o->set_media_type(f.media_type);
    o->set_content(std::move(f.content));
  }
  return grpc::Status::OK;
}

}  // namespace bbo::rpc
