#include "scoring/plackett_luce/rankings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scoring/plackett_luce/internal/parallel.h"

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

namespace {

// The trials of one problem: per method index, its trials there.
using ProblemTrials = std::vector<std::pair<int, const MethodProblemData*>>;

// BestSoFar of trial `c` with NaN batch minima taken as crashes (+inf), as BatchTraces has it.
absl::Status AppendBestSoFar(const TrialCurve& c, int n_batches, const std::string& method,
                             const std::string& problem, size_t n, std::vector<double>& out) {
  if (static_cast<int>(c.batch_min.size()) != n_batches ||
      (!c.visible_min.empty() && static_cast<int>(c.visible_min.size()) != n_batches)) {
    return absl::InvalidArgumentError(absl::StrCat("methods[", method, "][", problem, "].trials[",
                                                   n, "]: curve length != n_batches"));
  }
  if (c.visible_min.empty()) {  // the cumulative minimum, NaN (a crash) improving nothing
    double best = HUGE_VAL;
    for (double v : c.batch_min) {
      if (!std::isnan(v)) best = std::min(best, v);
      out.push_back(best);
    }
    return absl::OkStatus();
  }
  auto is_nan = [](double v) { return std::isnan(v); };
  std::vector<double> best;
  if (std::any_of(c.batch_min.begin(), c.batch_min.end(), is_nan) ||
      std::any_of(c.visible_min.begin(), c.visible_min.end(), is_nan)) {
    TrialCurve clean = c;
    for (double& v : clean.batch_min) v = std::isnan(v) ? HUGE_VAL : v;
    for (double& v : clean.visible_min) v = std::isnan(v) ? HUGE_VAL : v;
    best = BestSoFar(clean);
  } else {
    best = BestSoFar(c);
  }
  out.insert(out.end(), best.begin(), best.end());
  return absl::OkStatus();
}

// The rankings of one run at every timepoint, as RankValues makes them: by value (best so far of
// method present[k] after batch t: best[k * T + t]), ties grouped, the method index ordering a
// group. A best-so-far changes little from one batch to the next, so each timepoint's order is
// the previous one insertion-sorted.
void RankRun(const std::vector<int>& present, const std::vector<double>& best, int T,
             std::vector<std::vector<Ranking>>& per_t) {
  const size_t m = present.size();
  std::vector<std::pair<double, int>> order(m);  // (value, method index)
  std::vector<size_t> slot(m);                    // order[j] holds present[slot[j]]
  for (size_t k = 0; k < m; ++k) slot[k] = k;
  for (int t = 0; t < T; ++t) {
    for (size_t j = 0; j < m; ++j) order[j] = {best[slot[j] * T + t], present[slot[j]]};
    for (size_t j = 1; j < m; ++j) {
      const std::pair<double, int> item = order[j];
      const size_t from = slot[j];
      size_t i = j;
      for (; i > 0 && item < order[i - 1]; --i) {
        order[i] = order[i - 1];
        slot[i] = slot[i - 1];
      }
      order[i] = item;
      slot[i] = from;
    }
    Ranking r;
    r.timepoint = t;
    r.order.resize(m);
    r.group.resize(m);
    int g = 0;
    for (size_t j = 0; j < m; ++j) {
      if (j > 0 && order[j].first != order[j - 1].first) ++g;
      r.order[j] = order[j].second;
      r.group[j] = g;
    }
    per_t[t].push_back(std::move(r));
  }
}

// The rankings of one problem's runs (RunIndices, in order), appended per timepoint. A method
// whose trial a race shortened leaves that run's rankings after its horizon.
absl::Status RankProblem(const std::string& problem, const ProblemTrials& trials,
                         const std::vector<std::string>& methods, int T,
                         std::vector<std::vector<Ranking>>& per_t, int& runs) {
  // run -> (method index, trial position, trial) in method order.
  struct Member {
    int method;
    size_t n;
    const TrialCurve* curve;
  };
  std::map<int, std::vector<Member>> by_run;
  for (const auto& [i, data] : trials) {
    const std::vector<int> run = RunIndices(data->trials);
    for (size_t n = 0; n < run.size(); ++n) by_run[run[n]].push_back({i, n, &data->trials[n]});
  }
  std::vector<double> best;
  std::vector<int> present, horizon;
  std::vector<std::pair<int, double>> values;
  for (const auto& [unused, members] : by_run) {
    if (members.size() < 2) continue;
    best.clear();
    present.clear();
    horizon.clear();
    for (const Member& m : members) {
      RETURN_IF_ERROR(AppendBestSoFar(*m.curve, T, methods[m.method], problem, m.n, best));
      present.push_back(m.method);
      horizon.push_back(BatchesRun(*m.curve, T));
    }
    if (*std::min_element(horizon.begin(), horizon.end()) == T) {
      ++runs;
      RankRun(present, best, T, per_t);
      continue;
    }
    // Shortened by a race: at each timepoint the methods observed there, as RankingsFromTraces.
    bool counted = false;
    for (int t = 0; t < T; ++t) {
      values.clear();
      for (size_t k = 0; k < present.size(); ++k) {
        if (t < horizon[k]) values.push_back({present[k], best[k * T + t]});
      }
      if (values.size() < 2) continue;
      if (!counted) ++runs;
      counted = true;
      per_t[t].push_back(RankValues(values, t));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RankingSet> BatchRankings(const ScoringInput& input) {
  if (input.n_batches < 1) return absl::InvalidArgumentError("n_batches: must be >= 1");
  if (input.methods.empty()) return absl::InvalidArgumentError("input.methods: no methods");
  RankingSet out;
  ASSIGN_OR_RETURN(out.grid, BatchGrid(input.n_batches));
  std::map<std::string, ProblemTrials> by_problem;
  for (const auto& [method, problems] : input.methods) {
    const int i = static_cast<int>(out.methods.size());
    out.methods.push_back(method);
    for (const auto& [problem, data] : problems) by_problem[problem].push_back({i, &data});
  }
  // Problems are independent: ranked on every core, then laid out as RankingsFromTraces lays
  // them out (by timepoint, then by problem and trial).
  const int T = input.n_batches;
  const std::vector<std::pair<const std::string*, const ProblemTrials*>> problems = [&] {
    std::vector<std::pair<const std::string*, const ProblemTrials*>> v;
    for (const auto& [problem, trials] : by_problem) v.push_back({&problem, &trials});
    return v;
  }();
  const int P = static_cast<int>(problems.size());
  std::vector<std::vector<std::vector<Ranking>>> per_problem(P, std::vector<std::vector<Ranking>>(T));
  std::vector<int> runs(P, 0);
  std::vector<absl::Status> status(P);
  internal::ParallelFor(P, 0, [&](int k) {
    status[k] = RankProblem(*problems[k].first, *problems[k].second, out.methods, T,
                            per_problem[k], runs[k]);
  });
  for (int k = 0; k < P; ++k) {
    RETURN_IF_ERROR(status[k]);
    out.runs += runs[k];
  }
  for (int t = 0; t < T; ++t) {
    for (int k = 0; k < P; ++k) {
      for (Ranking& r : per_problem[k][t]) out.rankings.push_back(std::move(r));
    }
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
