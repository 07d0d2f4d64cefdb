#include "server/rpc/convert.h"
#include "server/rpc/services.h"

namespace bbo::rpc {

grpc::Status CompetitionServiceImpl::RegisterSubmission(
    grpc::ServerContext* context, const v1::RegisterSubmissionRequest* req,
    v1::RegisterSubmissionResponse* resp) {
  BBO_RPC_WHO(who, context, "RegisterSubmission");
  absl::StatusOr<RegisteredSubmission> r =
      competition_->Register(who, req->name(), req->archive(), req->trials(), req->team());
  if (!r.ok()) return ToGrpcStatus(auth_->Audited(who, "RegisterSubmission", r.status()));
  resp->set_submission_id(r->submission_id);
  resp->set_kind(ToProto(r->kind));
  resp->set_jobs(r->jobs);
  resp->set_trials(r->trials);
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::ListSubmissions(grpc::ServerContext* context,
                                                     const v1::ListSubmissionsRequest*,
                                                     v1::ListSubmissionsResponse* resp) {
  BBO_RPC_WHO(who, context, "ListSubmissions");
  absl::StatusOr<std::vector<SubmissionStatus>> list = competition_->List(who);
  if (!list.ok()) return ToGrpcStatus(auth_->Audited(who, "ListSubmissions", list.status()));
  for (const SubmissionStatus& s : *list) {
    v1::SubmissionStatus* o = resp->add_submissions();
    o->set_submission_id(s.submission.id);
    o->set_name(s.submission.name);
    o->set_kind(ToProto(s.submission.kind));
    o->set_state(!s.finished()       ? v1::SUBMISSION_STATE_RUNNING
                 : s.jobs.failed > 0 ? v1::SUBMISSION_STATE_INCOMPLETE
                                     : v1::SUBMISSION_STATE_FINISHED);
    o->set_jobs_total(s.jobs.total);
    o->set_jobs_queued(s.jobs.queued);
    o->set_jobs_running(s.jobs.leased);
    o->set_jobs_done(s.jobs.done);
    o->set_jobs_failed(s.jobs.failed);
    o->set_studies_with_errors(s.studies_with_errors);
    o->set_created_at_s(s.submission.created_at);
    o->set_team(s.submission.team);
  }
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::WithdrawSubmission(grpc::ServerContext* context,
                                                        const v1::WithdrawSubmissionRequest* req,
                                                        v1::WithdrawSubmissionResponse* resp) {
  BBO_RPC_WHO(who, context, "WithdrawSubmission");
  absl::StatusOr<int> n = competition_->Withdraw(who, req->submission_id());
  if (!n.ok()) return ToGrpcStatus(auth_->Audited(who, "WithdrawSubmission", n.status()));
  resp->set_jobs_cancelled(*n);
  return grpc::Status::OK;
}

grpc::Status CompetitionServiceImpl::GetLeaderboard(grpc::ServerContext* context,
                                                    const v1::GetLeaderboardRequest* req,
                                                    v1::GetLeaderboardResponse* resp) {
  BBO_RPC_WHO(who, context, "GetLeaderboard");
  absl::StatusOr<LeaderboardReport> report = competition_->Leaderboard(who, req->board());
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
    for (const auto& p : r.problems) {
      v1::ProblemScore* ps = row->add_problems();
      ps->set_problem(p.problem);
      ps->set_score(p.score);
      ps->set_trials(p.trials);
    }
  }
  resp->set_batch_size(report->batch_size);
  resp->set_n_batches(report->n_batches);
  if (report->per_problem) resp->set_report_json(report->json.dump());
  resp->set_phase(competition_->options().phase);
  resp->set_board(BoardDisplayName(BoardFromName(req->board())));
  for (const LeaderboardReport::Pending& p : report->pending) {
    v1::PendingSubmission* o = resp->add_pending();
    o->set_name(p.name);
    o->set_jobs_total(p.jobs.total);
    o->set_jobs_done(p.jobs.done);
    o->set_jobs_failed(p.jobs.failed);
  }
  return grpc::Status::OK;
}

grpc::Status ScoringServiceImpl::GetReport(grpc::ServerContext* context,
                                           const v1::GetReportRequest* req,
                                           v1::GetReportResponse* resp) {
  BBO_RPC_WHO(who, context, "GetReport");
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
  absl::StatusOr<std::vector<scoring::ReportFile>> files =
      competition_->ReportFiles(who, r, format);
  if (!files.ok()) return ToGrpcStatus(files.status());
  resp->set_phase(r.phase.empty() ? competition_->options().phase : r.phase);
  for (auto& f : *files) {
    v1::ReportFile* o = resp->add_files();
    o->set_name(f.name);
    o->set_media_type(f.media_type);
    o->set_content(std::move(f.content));
  }
  return grpc::Status::OK;
}

}  // namespace bbo::rpc
