// StudyManager: the batch path. A batch (the optimizer's, or a random-search fill after a failed
// suggest) is checked, charged and then evaluated here or handed to the study's worker, whose
// values come back with ReportValues; either way it is recorded by Record.

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "server/internal/worker_text.h"
#include "server/study_manager.h"

namespace bbo {

using study_manager_internal::Bounded;
using study_manager_internal::kInf;
using study_manager_internal::kMaxWorkerTextBytes;

double StudyManager::Charged(const Live& live, double turn_s, const TurnReport& host) {
  if (!live.worker_evaluates) return turn_s;
  const double host_s = host.suggest_s + host.observe_s;
  // The worker's measure of the optimizer alone; the coordinator's clock bounds it.
  if (!std::isfinite(host_s) || host.suggest_s < 0 || host.observe_s < 0) return turn_s;
  return std::min(turn_s, host_s);
}

absl::StatusOr<BatchOutcome> StudyManager::Submit(int64_t study_id, int batch,
                                                  const std::vector<IncomingPoint>& suggestions,
                                                  const TurnReport& turn) {
  ASSIGN_OR_RETURN(std::shared_ptr<Live> live, Claim(study_id, batch));
  const double turn_s =
      Charged(*live, absl::ToDoubleSeconds(clock_->Now() - live->turn_started), turn);
  absl::StatusOr<BatchOutcome> out = [&]() -> absl::StatusOr<BatchOutcome> {
    RETURN_IF_ERROR(CheckBudget(*live, turn_s));
    const SearchSpace& space = live->problem->space();
    const int n = live->record.budget.batch_size;
    std::vector<Point> points;
    std::vector<bool> replaced;
    std::vector<std::string> suggested(n);
    std::vector<std::string> errors;
    if (static_cast<int>(suggestions.size()) != n) {
      errors.push_back(absl::StrCat(
          "batch has ", suggestions.size(), " suggestions, expected ", n,
          suggestions.size() < static_cast<size_t>(n) ? "; missing points filled by random search"
                                                      : "; extra points ignored"));
    }
    for (int i = 0; i < n; ++i) {
      if (i >= static_cast<int>(suggestions.size())) {
        points.push_back(space.SampleRandom(live->rng));
        replaced.push_back(true);
        continue;
      }
      const IncomingPoint& in = suggestions[i];
      // An anonymized study validates against the opaque space (so no error message names a
      // real parameter) and evaluates the point under the real names.
      const Anonymization* anon = live->anonymization.get();
      absl::StatusOr<Point> canonical =
          !in.decode_error.empty() ? absl::InvalidArgumentError(Bounded(in.decode_error))
          : anon != nullptr        ? anon->space->Canonicalize(in.point)
                                   : space.Canonicalize(in.point);
      if (canonical.ok() && anon != nullptr) canonical = RenameKeys(*canonical, anon->to_real);
      if (canonical.ok()) {
        points.push_back(*std::move(canonical));
        replaced.push_back(false);
      } else {
        errors.push_back(Bounded(absl::StrCat("suggestion ", i, ": ", canonical.status().message(),
                                              "; replaced by random search")));
        // What the optimizer sent, bounded: an over-long point is kept as a JSON string of its
        // start.
        std::string sent = in.decode_error.empty() ? PointToJson(in.point).dump()
                                                   : nlohmann::json(Bounded(in.decode_error)).dump();
        if (sent.size() > kMaxWorkerTextBytes) sent = nlohmann::json(Bounded(sent)).dump();
        suggested[i] = std::move(sent);
        points.push_back(space.SampleRandom(live->rng));
        replaced.push_back(true);
      }
    }
    return Evaluate(*live,
                    PendingBatch{std::move(points), std::move(replaced), std::move(suggested),
                                 std::move(errors), BatchSource::kOptimizer, turn_s, turn});
  }();
  Release(live);
  return out;
}

absl::StatusOr<BatchOutcome> StudyManager::FillAfterFailure(int64_t study_id, int batch,
                                                            const std::string& raw_message,
                                                            bool optimizer_dead) {
  const std::string message = Bounded(raw_message);
  ASSIGN_OR_RETURN(std::shared_ptr<Live> live, Claim(study_id, batch));
  double turn_s = absl::ToDoubleSeconds(clock_->Now() - live->turn_started);
  absl::StatusOr<BatchOutcome> out = [&]() -> absl::StatusOr<BatchOutcome> {
    RETURN_IF_ERROR(CheckBudget(*live, turn_s));
    if (optimizer_dead) {
      live->used_s += turn_s;
      std::string why = Bounded(absl::StrCat("batch ", batch, ": optimizer died: ", message));
      RETURN_IF_ERROR(Finish(*live, StudyState::kFailed, why,
                             StudyErrorRecord{study_id, batch, "optimizer_died", message}));
      BatchOutcome done;
      done.study_done = true;
      done.errors.push_back(why);
      return done;
    }
    const SearchSpace& space = live->problem->space();
    std::vector<Point> points = space.SampleRandom(live->record.budget.batch_size, live->rng);
    std::vector<bool> replaced(points.size(), true);
    std::vector<std::string> errors = {
        Bounded(absl::StrCat("suggest failed (batch filled by random search): ", message))};
    std::vector<std::string> suggested(points.size());
    return Evaluate(
        *live, PendingBatch{std::move(points), std::move(replaced), std::move(suggested),
                            std::move(errors), BatchSource::kRandomFill, turn_s, TurnReport{}});
  }();
  Release(live);
  return out;
}

absl::StatusOr<BatchOutcome> StudyManager::Evaluate(Live& live, PendingBatch batch) {
  if (live.worker_evaluates) {
    // The worker evaluates; the optimizer's clock stays stopped until ReportValues.
    BatchOutcome out;
    out.to_evaluate = batch.points;
    out.evaluated = batch.points;
    if (live.anonymization != nullptr) {
      for (Point& p : out.evaluated) p = RenameKeys(p, live.anonymization->to_opaque);
    }
    out.errors = batch.errors;
    out.remaining_s =
        std::max(0.0, live.record.budget.study_budget_s - live.used_s - batch.turn_s);
    live.awaiting = std::move(batch);
    return out;
  }
  absl::Time eval_start = clock_->Now();
  std::vector<EvaluatedPoint> results = evaluator_->EvaluateBatch(*live.problem, batch.points);
  const double eval_s = absl::ToDoubleSeconds(clock_->Now() - eval_start);
  return Record(live, std::move(batch), results, eval_s);
}

absl::StatusOr<BatchOutcome> StudyManager::ReportValues(const Identity& who, int64_t study_id,
                                                        int batch,
                                                        std::vector<EvaluatedPoint> results,
                                                        double eval_s,
                                                        const std::string& request_id) {
  RETURN_IF_ERROR(Authorize(who, study_id));
  if (std::optional<BatchOutcome> again = Answered(who, study_id, batch, request_id)) {
    return *again;
  }
  absl::StatusOr<BatchOutcome> out = RecordValues(study_id, batch, std::move(results), eval_s);
  Remember(who, study_id, batch, request_id, out);
  return out;
}

absl::StatusOr<BatchOutcome> StudyManager::RecordValues(int64_t study_id, int batch,
                                                        std::vector<EvaluatedPoint> results,
                                                        double eval_s) {
  ASSIGN_OR_RETURN(std::shared_ptr<Live> live, Claim(study_id, batch, /*values=*/true));
  absl::StatusOr<BatchOutcome> out = [&]() -> absl::StatusOr<BatchOutcome> {
    if (results.size() != live->awaiting->points.size()) {
      return absl::InvalidArgumentError(absl::StrCat("evaluations: ", results.size(),
                                                     " values for the ",
                                                     live->awaiting->points.size(),
                                                     " points of batch ", batch));
    }
    for (EvaluatedPoint& r : results) {
      // A worker's numbers are checked as its strings are: NaN is a crash, errors are bounded.
      if (std::isnan(r.value)) r.value = kInf;
      if (r.generalization && std::isnan(*r.generalization)) r.generalization = kInf;
      if (!std::isfinite(r.eval_time_s) || r.eval_time_s < 0) r.eval_time_s = 0;
      r.error = Bounded(r.error);
    }
    if (!std::isfinite(eval_s) || eval_s < 0) eval_s = 0;
    PendingBatch pending = *std::move(live->awaiting);
    live->awaiting.reset();
    absl::StatusOr<BatchOutcome> recorded = Record(*live, pending, results, eval_s);
    // Not recorded (the store refused): the batch still awaits its values, and a retry may
    // bring them again.
    if (!recorded.ok() && live->record.state == StudyState::kRunning) {
      live->awaiting = std::move(pending);
    }
    if (recorded.ok()) {
      // The optimizer already has the points; only the study's progress is news.
      recorded->evaluated.clear();
      recorded->errors.clear();
    }
    return recorded;
  }();
  Release(live);
  return out;
}

absl::StatusOr<BatchOutcome> StudyManager::Record(Live& live, PendingBatch batch,
                                                  const std::vector<EvaluatedPoint>& results,
                                                  double eval_s) {
  std::vector<Point>& points = batch.points;
  std::vector<bool>& replaced = batch.replaced;
  std::vector<std::string>& suggested = batch.suggested;
  std::vector<std::string>& errors = batch.errors;
  const double turn_s = batch.turn_s;
  BatchRecord rec;
  rec.study_id = live.record.id;
  rec.batch = live.next_batch;
  rec.source = batch.source;
  rec.turn_time_s = turn_s;
  rec.host_suggest_time_s = batch.host.suggest_s;
  rec.host_observe_time_s = batch.host.observe_s;
  rec.figures = CheckedFigures(batch.host.figures);
  rec.eval_time_s = eval_s;
  rec.errors = errors;
  double best = live.best;
  BatchOutcome out;
  for (size_t i = 0; i < points.size(); ++i) {
    EvaluationRecord e;
    e.params_json = PointToJson(points[i]).dump();
    e.value = results[i].value;
    e.generalization = results[i].generalization;
    e.replaced = replaced[i];
    if (i < suggested.size()) e.suggested_json = std::move(suggested[i]);
    e.eval_time_s = results[i].eval_time_s;
    best = std::min(best, e.value);
    rec.evaluations.push_back(std::move(e));
    out.values.push_back(results[i].value);
  }
  rec.optimizer_time_s = live.used_s + turn_s;
  rec.best_value = best;
  // Nothing is returned to the optimizer unless the batch is durable.
  RETURN_IF_ERROR(studies_->RecordBatch(rec));
  live.used_s += turn_s;
  live.best = best;
  live.next_batch++;
  if (live.anonymization != nullptr) {
    for (Point& p : points) p = RenameKeys(p, live.anonymization->to_opaque);
  }
  out.evaluated = std::move(points);
  out.errors = std::move(errors);
  if (live.next_batch >= live.record.budget.n_batches) {
    RETURN_IF_ERROR(Finish(live, StudyState::kCompleted, "done"));
    out.study_done = true;
  }
  out.remaining_s = std::max(0.0, live.record.budget.study_budget_s - live.used_s);
  live.turn_started = clock_->Now();
  return out;
}

}  // namespace bbo
