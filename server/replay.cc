#include "server/replay.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "problems/signature.h"

namespace bbo {

absl::StatusOr<ReplayResult> ReplayStudy(StudyStore* store, const Problem& problem, int64_t study_id) {
  ASSIGN_OR_RETURN(StudyRecord study, store->GetStudy(study_id));
  if (study.problem != problem.name()) {
    return absl::InvalidArgumentError(absl::StrCat("study ", study_id, " is on problem \"",
                                                   study.problem, "\", not \"", problem.name(),
                                                   "\""));
  }
  ReplayResult out;
  out.study_id = study_id;
  out.problem = study.problem;
  out.recorded_signature = study.problem_signature;
  out.signature_now = ProblemSignature(problem);
  ASSIGN_OR_RETURN(auto evaluations, store->StudyEvaluations(study_id));
  int index_in_batch = 0, last_batch = -1;
  for (const auto& [batch, e] : evaluations) {
    index_in_batch = batch == last_batch ? index_in_batch + 1 : 0;
    last_batch = batch;
    ++out.evaluations;
    auto json = nlohmann::json::parse(e.params_json, nullptr, false);
    if (json.is_discarded()) {
      return absl::InvalidArgumentError(absl::StrCat("study ", study_id, ", batch ", batch,
                                                     ": unreadable point ", e.params_json));
    }
    ASSIGN_OR_RETURN(Point p, PointFromJson(json));
    ASSIGN_OR_RETURN(Point canonical, problem.space().Canonicalize(p));
    double now;
    try {
      now = problem.Evaluate(canonical);
    } catch (...) {
      now = std::numeric_limits<double>::infinity();
    }
    if (std::isnan(now)) now = std::numeric_limits<double>::infinity();  // as recorded
    if (std::memcmp(&now, &e.value, sizeof(double)) == 0) {
      ++out.reproduced;
    } else if (out.differences.size() < 20) {
      out.differences.push_back(absl::StrFormat("batch %d, point %d: recorded %.17g, now %.17g",
                                                batch, index_in_batch, e.value, now));
    }
  }
  return out;
}

}  // namespace bbo
