#include "scoring/plackett_luce/rankings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo::scoring::pl {

Ranking RankValues(std::vector<std::pair<int, double>> values, int timepoint) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (auto& [i, v] : values) {
    if (std::isnan(v)) v = kInf;
  }
  std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  Ranking r;
  r.timepoint = timepoint;
  r.order.reserve(values.size());
  r.group.reserve(values.size());
  int g = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    if (k > 0 && values[k].second != values[k - 1].second) ++g;
    r.order.push_back(values[k].first);
    r.group.push_back(g);
  }
  return r;
}

absl::StatusOr<RankingSet> RankingsFromTraces(const TraceSet& traces, const TimeGrid& grid) {
  RETURN_IF_ERROR(ValidateGrid(grid));
  if (traces.empty()) return absl::InvalidArgumentError("traces: no methods");
  RankingSet out;
  out.grid = grid;
  // run -> (method index, trace); methods come sorted from the map.
  std::map<RunKey, std::vector<std::pair<int, const StepTrace*>>> runs;
  for (const auto& [method, by_run] : traces) {
    const int i = static_cast<int>(out.methods.size());
    out.methods.push_back(method);
    for (const auto& [key, trace] : by_run) {
      if (absl::Status s = ValidateTrace(trace); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("traces[", method, "][", key.instance, "#",
                                                       key.trial, "]: ", s.message()));
      }
      runs[key].push_back({i, &trace});
    }
  }
  const int T = grid.size();
  std::vector<std::vector<Ranking>> per_t(T);
  std::vector<std::pair<int, double>> values;
  for (const auto& [key, present] : runs) {
    if (present.size() < 2) continue;
    bool counted = false;
    for (int t = 0; t < T; ++t) {
      values.clear();
      for (const auto& [i, trace] : present) {
        if (grid.points[t] <= trace->horizon)
          values.push_back({i, ValueAt(*trace, grid.points[t])});
      }
      if (values.size() < 2) continue;
      if (!counted) ++out.runs;
      counted = true;
      per_t[t].push_back(RankValues(values, t));
    }
  }
  for (auto& rs : per_t) {
    for (Ranking& r : rs) out.rankings.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<RankingSet> FinalRankings(const ScoringInput& input) {
  ASSIGN_OR_RETURN(TraceSet traces, BatchTraces(input));
  if (traces.empty()) return absl::InvalidArgumentError("input.methods: no methods");
  TimeGrid grid{{static_cast<double>(input.n_batches)}, GridSpacing::kCustom, "batches"};
  return RankingsFromTraces(traces, grid);
}

}  // namespace bbo::scoring::pl
