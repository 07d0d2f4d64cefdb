#include "scoring/plackett_luce/seconds.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/rankings.h"

namespace bbo::scoring::pl {
namespace {

absl::Status CheckOptions(const SecondsOptions& o) {
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
absl::StatusOr<TimeGrid> SecondsGrid(const ScoringInput& input, const SecondsOptions& o) {
  std::vector<double> firsts;
  double last = 0;
  for (const auto& [method, per_problem] : input.methods) {
    for (const auto& [problem, data] : per_problem) {
      for (const TrialCurve& c : data.trials) {
        if (!c.batch_end_seconds || c.batch_end_seconds->empty()) continue;
        firsts.push_back(c.batch_end_seconds->front());
        last = std::max(last, c.batch_end_seconds->back());
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
  return LogGrid(first, last, o.timepoints, "seconds");
}

}  // namespace

bool HasTimings(const ScoringInput& input) {
  for (const auto& [method, per_problem] : input.methods) {
    for (const auto& [problem, data] : per_problem) {
      for (const TrialCurve& c : data.trials) {
        if (c.batch_end_seconds) return true;
      }
    }
  }
  return false;
}

absl::StatusOr<TraceSet> SecondsTraces(const ScoringInput& input) {
  TraceSet traces;
  for (const auto& [method, per_problem] : input.methods) {
    for (const auto& [problem, data] : per_problem) {
      const std::vector<int> runs = RunIndices(data.trials);
      for (size_t i = 0; i < data.trials.size(); ++i) {
        const TrialCurve& c = data.trials[i];
        if (!c.batch_end_seconds) continue;
        const int trial = runs[i];
        const std::vector<double>& times = *c.batch_end_seconds;
        absl::StatusOr<StepTrace> trace =
            times.size() > c.batch_min.size()
                ? absl::InvalidArgumentError(
                      absl::StrCat(times.size(), " batch end times for ", c.batch_min.size(),
                                   " batch minima"))
                : StepTraceFromEvaluations(
                      times, std::vector<double>(c.batch_min.begin(),
                                                 c.batch_min.begin() + times.size()));
        if (!trace.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("method \"", method, "\", problem \"",
                                                         problem, "\", trial ", trial, ": ",
                                                         trace.status().message()));
        }
        // A race's shortened study was observed until the end of its last batch only.
        const size_t run = static_cast<size_t>(BatchesRun(c, input.n_batches));
        if (run < static_cast<size_t>(input.n_batches) && !times.empty()) {
          trace->horizon = times[std::min(run, times.size()) - 1];
        }
        traces[method][RunKey{problem, trial}] = *std::move(trace);
      }
    }
  }
  return traces;
}

absl::StatusOr<PlackettLuceSummary> PlackettLuceSeconds(const ScoringInput& input,
                                                        const SecondsOptions& o) {
  if (absl::Status s = CheckOptions(o); !s.ok()) return s;
  absl::StatusOr<TraceSet> traces = SecondsTraces(input);
  if (!traces.ok()) return traces.status();
  // As the batch view: one method would get theta = 1, a certainty that compares nothing.
  if (traces->size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a Plackett-Luce ranking compares methods on the same runs: it needs at least two "
        "methods with timed results, and this board has ",
        traces->size()));
  }
  absl::StatusOr<TimeGrid> grid = SecondsGrid(input, o);
  if (!grid.ok()) return grid.status();
  absl::StatusOr<RankingSet> rankings = RankingsFromTraces(*traces, *grid);
  if (!rankings.ok()) return rankings.status();
  absl::StatusOr<RatingPosterior> fitted = FitIndependentDirichlet(*rankings, o.summary.model);
  if (!fitted.ok()) return fitted.status();
  auto post = std::make_shared<const RatingPosterior>(*std::move(fitted));
  absl::StatusOr<PlackettLuceSummary> s = SummarizePlackettLuce(*post, o.summary);
  if (s.ok()) {
    s->runs = rankings->runs;
    s->posterior = std::move(post);
  }
  return s;
}

nlohmann::json PlackettLuceSecondsJson(const absl::StatusOr<PlackettLuceSummary>& summary) {
  if (!summary.ok()) {
    return {{"layout", "bbo-arena/plackett-luce/1"},
            {"error", std::string(summary.status().message())}};
  }
  nlohmann::json j = PlackettLuceJson(*summary);
  j["grid"] = {{"spacing", "log"},
               {"clock",
                "optimizer seconds: the running sum of the batches' turn times (the time the "
                "optimizer held the turn, which the study budget counts; evaluating the "
                "objective is not in it)"}};
  return j;
}

}  // namespace bbo::scoring::pl
