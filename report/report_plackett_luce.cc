// The Plackett-Luce part of a report (report/report.h): the Bayesian ranking over time of
// Wurth, Stegherr, Kemper, Heider and Hähner, "Pareto-Optimal Anytime Algorithms via Bayesian
// Racing", computed by scoring/plackett_luce/summary.h, or the reason it was not.

#include <algorithm>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "report/report.h"
#include "scoring/plackett_luce/seconds.h"

namespace bbo::scoring {

absl::StatusOr<pl::PlackettLuceSummary> ReportPlackettLuce(const ScoringInput& input,
                                                           const pl::SummaryOptions& options) {
  // With one method the model is trivial (theta = 1): say so rather than show a certainty that
  // compares nothing.
  int with_results = 0;
  for (const auto& [method, per_problem] : input.methods) {
    for (const auto& [problem, data] : per_problem) {
      if (!data.trials.empty()) {
        ++with_results;
        break;
      }
    }
  }
  if (with_results < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a Plackett-Luce ranking compares methods on the same runs: it needs at least two "
        "methods with results, and this report has ",
        with_results));
  }
  return pl::SummarizePlackettLuce(input, options);
}

namespace {

// The summary of `earlier`'s posterior under `options`, when `earlier` has one.
std::optional<absl::StatusOr<pl::PlackettLuceSummary>> Resummarize(
    const absl::StatusOr<pl::PlackettLuceSummary>* earlier, const pl::SummaryOptions& options) {
  if (earlier == nullptr || !earlier->ok() || (*earlier)->posterior == nullptr) return std::nullopt;
  absl::StatusOr<pl::PlackettLuceSummary> s =
      pl::SummarizePlackettLuce(*(*earlier)->posterior, options);
  if (s.ok()) {
    s->runs = (*earlier)->runs;
    s->posterior = (*earlier)->posterior;
  }
  return s;
}

}  // namespace

PlackettLuceFits FitPlackettLuce(const ScoringInput& input, const pl::SummaryOptions& options,
                                 const PlackettLuceFits* same_input) {
  PlackettLuceFits fits;
  if (auto again = Resummarize(same_input ? &same_input->batches : nullptr, options)) {
    fits.batches = *std::move(again);
  } else {
    fits.batches = ReportPlackettLuce(input, options);
  }
  if (pl::HasTimings(input)) {
    const absl::StatusOr<pl::PlackettLuceSummary>* earlier =
        same_input != nullptr && same_input->seconds ? &*same_input->seconds : nullptr;
    if (auto again = Resummarize(earlier, options)) {
      fits.seconds = *std::move(again);
    } else {
      pl::SecondsOptions seconds;
      seconds.timepoints = std::clamp(input.n_batches, 10, 100);
      seconds.summary = options;
      fits.seconds = pl::PlackettLuceSeconds(input, seconds);
    }
  }
  return fits;
}

nlohmann::json PlackettLuceReportJson(const absl::StatusOr<pl::PlackettLuceSummary>& summary) {
  if (summary.ok()) return pl::PlackettLuceJson(*summary);
  return {{"layout", "bbo-arena/plackett-luce/1"},
          {"error", std::string(summary.status().message())}};
}

}  // namespace bbo::scoring
