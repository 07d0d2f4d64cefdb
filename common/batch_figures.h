#ifndef BBO_COMMON_BATCH_FIGURES_H_
#define BBO_COMMON_BATCH_FIGURES_H_

// What a host reports of an optimizer's turn (its suggest of one batch and the observe before
// it), and the per-batch figures among it.
//
// A figure is a number the host measures per batch beyond the turn's wall time (the optimizer's
// CPU seconds, ...). Each is optional: unknown when the host cannot measure it (a worker without
// control groups, a remote practice client, a built-in random-search batch). kBatchFigures names
// them once for every place they travel, so that those places loop over the list instead of
// naming each figure:
//   the worker measures it -> SubmitBatchRequest (common/wire.h, TurnReportToProto) ->
//   the coordinator (StudyManager::SubmitBatch) -> the store (a column of `batches` each) ->
//   the scoring snapshot (scoring::TrialCurve::batch_figures) -> the report's "Optimizer
//   resources" table, its JSON and CSV -> the results CSV of `bbo export` (a column each) and
//   back through `bbo score`.
// Adding a figure: a member and an entry below, a proto field and its two lines in wire.cc, a
// store migration adding the column, and the host code that measures it.

#include <cmath>
#include <cstddef>
#include <optional>

namespace bbo {

struct BatchFigures {
  // CPU seconds (user + system) of all the optimizer's processes in the turn, as the study's
  // control group accounted them.
  std::optional<double> optimizer_cpu_s;
  // The most memory the optimizer's processes held at once in the turn, MiB (the study's
  // control group's high-water mark, reset at the start of the turn).
  std::optional<double> optimizer_peak_memory_mb;

  bool operator==(const BatchFigures&) const = default;
};

struct BatchFigure {
  // The store's column, the CSV columns' and the JSON keys' name: snake_case, ending in its unit.
  const char* name;
  // The report's heading for it.
  const char* heading;
  std::optional<double> BatchFigures::*value;
};

inline constexpr BatchFigure kBatchFigures[] = {
    {"optimizer_cpu_s", "CPU s per batch", &BatchFigures::optimizer_cpu_s},
    {"optimizer_peak_memory_mb", "peak memory MiB per batch",
     &BatchFigures::optimizer_peak_memory_mb},
};
inline constexpr size_t kNumBatchFigures = sizeof(kBatchFigures) / sizeof(kBatchFigures[0]);

// `figures` as the coordinator records them: a host's figure that is negative or not finite is
// unknown (a host's figures are informational; they never fail a batch).
inline BatchFigures CheckedFigures(const BatchFigures& figures) {
  BatchFigures out;
  for (const BatchFigure& f : kBatchFigures) {
    const std::optional<double>& v = figures.*f.value;
    if (v.has_value() && std::isfinite(*v) && *v >= 0) out.*f.value = v;
  }
  return out;
}

// Whether any figure is known.
inline bool AnyFigure(const BatchFigures& figures) {
  for (const BatchFigure& f : kBatchFigures) {
    if ((figures.*f.value).has_value()) return true;
  }
  return false;
}

// What a host reports of the turn with the batch it suggested.
struct TurnReport {
  // Wall time of the optimizer's suggest, and of its observe of the previous batch, seconds, as
  // the host measured them (for a study its worker evaluates, the coordinator charges their sum,
  // bounded by its own clock).
  double suggest_s = 0;
  double observe_s = 0;
  BatchFigures figures;
};

}  // namespace bbo

#endif  // BBO_COMMON_BATCH_FIGURES_H_
