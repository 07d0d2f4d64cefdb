#include "server/plackett_luce_seconds.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "report/report.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/rankings.h"

namespace bbo {

namespace pl = scoring::pl;

namespace {

bool Timed(const StudyCurve& c) { return c.batch_end_seconds.size() == c.batch_min.size(); }

absl::Status CheckOptions(const PlackettLuceSecondsOptions& o) {
  if (o.timepoints < 2) return absl::InvalidArgumentError("timepoints: must be >= 2");
  if (!(o.first_quantile >= 0 && o.first_quantile <= 1)) {
    return absl::InvalidArgumentError("first_quantile: must be in [0, 1]");
  }
  if (!(o.min_first_s > 0 && std::isfinite(o.min_first_s))) {
    return absl::InvalidArgumentError("min_first_s: must be positive and finite");
  }
  return absl::OkStatus();
}

// From the 5% quantile of the first batch ends: a few runs whose first batch came back at once
// would otherwise stretch the log axis over decades where nothing else happens.
absl::StatusOr<pl::TimeGrid> SecondsGrid(const ScoringData& data,
                                         const PlackettLuceSecondsOptions& o) {
  std::vector<double> firsts;
  double last = 0;
  for (const auto& [method, per_problem] : data.methods) {
    for (const auto& [problem, curves] : per_problem) {
      for (const StudyCurve& c : curves) {
        if (!Timed(c) || c.batch_end_seconds.empty()) continue;
        firsts.push_back(c.batch_end_seconds.front());
        last = std::max(last, c.batch_end_seconds.back());
      }
    }
  }
  if (firsts.empty() || !(last > 0)) {
    return absl::FailedPreconditionError(
        "no optimizer time was recorded for the scored studies (the seconds view needs the "
        "batches' turn times)");
  }
  std::sort(firsts.begin(), firsts.end());
  const double rank = std::ceil(o.first_quantile * static_cast<double>(firsts.size()));
  const size_t k = static_cast<size_t>(std::clamp(rank - 1, 0.0, firsts.size() - 1.0));
  const double first = std::max(o.min_first_s, firsts[k]);
  if (!(last > first)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the longest study used ", last, " s of optimizer time, no more than the ",
                     "grid's first point (", first, " s): there is no time axis to rank on"));
  }
  return pl::LogGrid(first, last, o.timepoints, "seconds");
}

}  // namespace

absl::StatusOr<pl::TraceSet> SecondsTraces(const ScoringData& data) {
  pl::TraceSet traces;
  for (const auto& [method, per_problem] : data.methods) {
    for (const auto& [problem, curves] : per_problem) {
      for (const StudyCurve& c : curves) {
        if (!Timed(c)) continue;
        absl::StatusOr<pl::StepTrace> trace =
            pl::StepTraceFromEvaluations(c.batch_end_seconds, c.batch_min);
        if (!trace.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("method \"", method, "\", problem \"",
                                                         problem, "\", trial ", c.trial, ": ",
                                                         trace.status().message()));
        }
        traces[method][pl::RunKey{problem, c.trial}] = *std::move(trace);
      }
    }
  }
  return traces;
}

absl::StatusOr<pl::PlackettLuceSummary> PlackettLuceSeconds(const ScoringData& data,
                                                            const PlackettLuceSecondsOptions& o) {
  RETURN_IF_ERROR(CheckOptions(o));
  ASSIGN_OR_RETURN(pl::TraceSet traces, SecondsTraces(data));
  // As the batch view (scoring::ReportPlackettLuce): one method would get theta = 1, a certainty
  // that compares nothing.
  if (traces.size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a Plackett-Luce ranking compares methods on the same runs: it needs at least two "
        "methods with timed results, and this board has ",
        traces.size()));
  }
  ASSIGN_OR_RETURN(pl::TimeGrid grid, SecondsGrid(data, o));
  ASSIGN_OR_RETURN(pl::RankingSet rankings, pl::RankingsFromTraces(traces, grid));
  ASSIGN_OR_RETURN(pl::RatingPosterior post,
                   pl::FitIndependentDirichlet(rankings, o.summary.model));
  ASSIGN_OR_RETURN(pl::PlackettLuceSummary s, pl::SummarizePlackettLuce(post, o.summary));
  s.runs = rankings.runs;
  return s;
}

nlohmann::json PlackettLuceSecondsJson(const absl::StatusOr<pl::PlackettLuceSummary>& summary) {
  nlohmann::json j = scoring::PlackettLuceReportJson(summary);
  if (summary.ok()) {
    j["grid"] = {{"spacing", "log"},
                 {"clock",
                  "optimizer seconds: the running sum of the batches' turn times (the time the "
                  "optimizer held the turn, which the study budget counts; evaluating the "
                  "objective is not in it)"}};
  }
  return j;
}

nlohmann::json ReportPlackettLuceSeconds(ScoringStore& store,
                                         const std::vector<std::string>& problems,
                                         const std::string& board, int n_batches) {
  // One unfiltered read, then only the phase's problems (as Phase::RefreshInput keeps them).
  absl::StatusOr<ScoringData> data = store.LoadScoringData({}, board);
  if (!data.ok()) {
    return PlackettLuceSecondsJson(
        absl::Status(data.status().code(),
                     absl::StrCat("could not read the batch timings: ", data.status().message())));
  }
  const std::set<std::string> keep(problems.begin(), problems.end());
  for (auto& [method, per_problem] : data->methods) {
    if (keep.empty()) break;  // every problem of the board
    for (auto it = per_problem.begin(); it != per_problem.end();) {
      it = keep.count(it->first) ? std::next(it) : per_problem.erase(it);
    }
  }
  PlackettLuceSecondsOptions o;
  o.timepoints = std::clamp(n_batches, 10, 100);
  return PlackettLuceSecondsJson(PlackettLuceSeconds(*data, o));
}

}  // namespace bbo
