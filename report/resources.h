#ifndef BBO_REPORT_RESOURCES_H_
#define BBO_REPORT_RESOURCES_H_

// The report's "Optimizer resources" view: per submission, every per-batch figure its hosts
// measured (common/batch_figures.h: the optimizer's CPU seconds, ...), summarized over all its
// batches on all problems and trials. One loop over kBatchFigures: a new figure appears here,
// in the report's JSON, CSV and HTML without a change to this file. Pure and thread-safe.

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "common/batch_figures.h"
#include "nlohmann/json.hpp"
#include "scoring/leaderboard.h"

namespace bbo::scoring {

// One figure of one submission over its batches where it was measured.
struct FigureUse {
  int batches = 0;                                           // batches with the figure measured
  double median = std::numeric_limits<double>::quiet_NaN();  // NaN when batches == 0
  double max = std::numeric_limits<double>::quiet_NaN();
};

struct MethodResources {
  std::string method;
  std::array<FigureUse, kNumBatchFigures> figures;  // in kBatchFigures order
};

// Every method of `input` with at least one figure measured, in name order. The median of an
// even count is the mean of the middle two.
std::vector<MethodResources> ComputeResources(const ScoringInput& input);

// {"figures": [{"name", "heading"}...], "methods": [{"method", <figure name>: {"batches",
// "median", "max"}}...]}; medians and maxima of unmeasured figures are null.
nlohmann::json ResourcesJson(const std::vector<MethodResources>& resources);

}  // namespace bbo::scoring

#endif  // BBO_REPORT_RESOURCES_H_
