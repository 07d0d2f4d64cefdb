#include "absl/strings/str_cat.h"
#include "common/wire.h"
#include "server/rpc/convert.h"
#include "server/rpc/services.h"

namespace bbo::rpc {
namespace {

template <typename Resp>
void OutcomeToProto(const BatchOutcome& out, Resp* resp) {
  for (const Point& p : out.evaluated) PointToProto(p, resp->add_evaluated());
  for (const Point& p : out.to_evaluate) PointToProto(p, resp->add_to_evaluate());
  for (double v : out.values) resp->add_values(v);
  resp->set_study_done(out.study_done);
  resp->set_remaining_s(out.remaining_s);
}

}  // namespace

grpc::Status StudyServiceImpl::OpenStudy(grpc::ServerContext* context,
                                         const v1::OpenStudyRequest* req,
                                         v1::OpenStudyResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<OpenedStudy> s;
  switch (req->target_case()) {
    case v1::OpenStudyRequest::kJobId:
      s = studies_->OpenForJob(who, req->job_id(), req->worker_id(), req->problem_signature());
      break;
    case v1::OpenStudyRequest::kProblem: {
      absl::StatusOr<Phase*> phase = competition_->Get(req->phase());
      if (!phase.ok()) return ToGrpcStatus(phase.status());
      s = studies_->OpenPractice(who, req->problem(), (*phase)->options().phase_key);
      break;
    }
    default:
      return ToGrpcStatus(absl::InvalidArgumentError("target: set job_id or problem"));
  }
  if (!s.ok()) return ToGrpcStatus(s.status());
  resp->set_study_id(s->study_id);
  resp->set_api_config_json(s->api_config.dump());
  resp->set_batch_size(s->budget.batch_size);
  resp->set_n_batches(s->budget.n_batches);
  resp->set_suggest_budget_s(s->budget.suggest_budget_s);
  resp->set_study_budget_s(s->budget.study_budget_s);
  resp->set_remaining_s(s->remaining_s);
  resp->set_optimizer_memory_mb(s->limits.memory_mb);
  resp->set_optimizer_max_tasks(s->limits.max_tasks);
  resp->set_optimizer_cpus(s->limits.cpus);
  resp->set_optimizer_tmp_mb(s->limits.tmp_mb);
  return grpc::Status::OK;
}

grpc::Status StudyServiceImpl::SubmitBatch(grpc::ServerContext* context,
                                           const v1::SubmitBatchRequest* req,
                                           v1::SubmitBatchResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  std::vector<IncomingPoint> points;
  points.reserve(req->suggestions_size());
  for (const auto& s : req->suggestions()) points.push_back(FromProto(s));
  absl::StatusOr<BatchOutcome> out = studies_->SubmitBatch(
      who, req->study_id(), req->batch(), points, TurnReportFromProto(*req), req->request_id());
  if (!out.ok()) return ToGrpcStatus(out.status());
  OutcomeToProto(*out, resp);
  for (const auto& e : out->errors) resp->add_errors(e);
  return grpc::Status::OK;
}

grpc::Status StudyServiceImpl::ReportSuggestFailure(grpc::ServerContext* context,
                                                    const v1::ReportSuggestFailureRequest* req,
                                                    v1::ReportSuggestFailureResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<BatchOutcome> out = studies_->ReportSuggestFailure(
      who, req->study_id(), req->batch(), req->message(), req->optimizer_dead(), req->request_id());
  if (!out.ok()) return ToGrpcStatus(out.status());
  OutcomeToProto(*out, resp);
  return grpc::Status::OK;
}

grpc::Status StudyServiceImpl::ReportValues(grpc::ServerContext* context,
                                            const v1::ReportValuesRequest* req,
                                            v1::ReportValuesResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  if (req->evaluations_size() > kMaxBatchSize) {
    return ToGrpcStatus(absl::InvalidArgumentError(
        absl::StrCat("evaluations: ", req->evaluations_size(), " values is over the limit of ",
                     kMaxBatchSize)));
  }
  std::vector<EvaluatedPoint> results;
  results.reserve(req->evaluations_size());
  for (const v1::WorkerEvaluation& e : req->evaluations()) {
    EvaluatedPoint r;
    r.value = e.value();
    r.eval_time_s = e.eval_time_s();
    if (e.has_generalization()) r.generalization = e.generalization();
    r.error = e.error();
    results.push_back(std::move(r));
  }
  absl::StatusOr<BatchOutcome> out = studies_->ReportValues(
      who, req->study_id(), req->batch(), std::move(results), req->eval_time_s(),
      req->request_id());
  if (!out.ok()) return ToGrpcStatus(out.status());
  resp->set_study_done(out->study_done);
  resp->set_remaining_s(out->remaining_s);
  return grpc::Status::OK;
}

grpc::Status StudyServiceImpl::OptimizerReady(grpc::ServerContext* context,
                                              const v1::OptimizerReadyRequest* req,
                                              v1::OptimizerReadyResponse*) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  return ToGrpcStatus(studies_->OptimizerReady(who, req->study_id()));
}

grpc::Status StudyServiceImpl::EndStudy(grpc::ServerContext* context,
                                        const v1::EndStudyRequest* req,
                                        v1::EndStudyResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<StudyState> st = studies_->EndStudy(who, req->study_id(), req->reason(), req->host_error());
  if (!st.ok()) return ToGrpcStatus(st.status());
  switch (*st) {
    case StudyState::kRunning: resp->set_state(v1::STUDY_STATE_RUNNING); break;
    case StudyState::kCompleted: resp->set_state(v1::STUDY_STATE_COMPLETED); break;
    case StudyState::kCutOff: resp->set_state(v1::STUDY_STATE_CUT_OFF); break;
    case StudyState::kFailed: resp->set_state(v1::STUDY_STATE_FAILED); break;
    case StudyState::kAbandoned: resp->set_state(v1::STUDY_STATE_ABANDONED); break;
  }
  return grpc::Status::OK;
}

grpc::Status StudyServiceImpl::ListProblems(grpc::ServerContext* context,
                                            const v1::ListProblemsRequest* req,
                                            v1::ListProblemsResponse* resp) {
  ASSIGN_OR_RETURN_GRPC(const Identity who, calls_->Of(context));
  absl::StatusOr<Phase*> phase = competition_->Get(req->phase());
  if (!phase.ok()) return ToGrpcStatus(phase.status());
  absl::StatusOr<std::vector<ProblemInfo>> problems =
      studies_->ListProblems(who, (*phase)->options().phase_key);
  if (!problems.ok()) return ToGrpcStatus(problems.status());
  for (const ProblemInfo& p : *problems) {
    v1::ProblemInfo* o = resp->add_problems();
    o->set_name(p.name);
    o->set_description(p.description);
    o->set_api_config_json(p.api_config_json);
  }
  return grpc::Status::OK;
}

}  // namespace bbo::rpc
