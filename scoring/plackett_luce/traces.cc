#include "scoring/plackett_luce/traces.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace bbo::scoring::pl {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

absl::Status CheckBounds(double t_first, double t_last, int T) {
  if (T < 1) return absl::InvalidArgumentError(absl::StrCat("T: must be >= 1, got ", T));
  if (!std::isfinite(t_first) || !std::isfinite(t_last)) {
    return absl::InvalidArgumentError("t_first, t_last: must be finite");
  }
  if (T > 1 && !(t_last > t_first)) {
    return absl::InvalidArgumentError("t_last: must be > t_first when T > 1");
  }
  return absl::OkStatus();
}

double Sanitize(double v) { return std::isnan(v) ? kInf : v; }

}  // namespace

absl::StatusOr<TimeGrid> UniformGrid(double t_first, double t_last, int T, std::string unit) {
  if (absl::Status s = CheckBounds(t_first, t_last, T); !s.ok()) return s;
  TimeGrid g{{}, GridSpacing::kUniform, std::move(unit)};
  g.points.resize(T);
  for (int i = 0; i < T; ++i) {
    g.points[i] = T == 1 ? t_first : t_first + (t_last - t_first) * i / (T - 1);
  }
  if (T > 1) g.points.back() = t_last;
  return g;
}

absl::StatusOr<TimeGrid> LogGrid(double t_first, double t_last, int T, std::string unit) {
  if (absl::Status s = CheckBounds(t_first, t_last, T); !s.ok()) return s;
  if (!(t_first > 0)) return absl::InvalidArgumentError("t_first: must be > 0 on a log grid");
  TimeGrid g{{}, GridSpacing::kLog, std::move(unit)};
  g.points.resize(T);
  const double a = std::log(t_first), b = std::log(t_last);
  for (int i = 0; i < T; ++i) g.points[i] = T == 1 ? t_first : std::exp(a + (b - a) * i / (T - 1));
  g.points.front() = t_first;
  if (T > 1) g.points.back() = t_last;
  return g;
}

absl::StatusOr<TimeGrid> BatchGrid(int n_batches) {
  if (n_batches < 1) {
    return absl::InvalidArgumentError(absl::StrCat("n_batches: must be >= 1, got ", n_batches));
  }
  TimeGrid g{{}, GridSpacing::kUniform, "batches"};
  for (int b = 1; b <= n_batches; ++b) g.points.push_back(b);
  return g;
}

absl::Status ValidateGrid(const TimeGrid& grid) {
  if (grid.points.empty()) return absl::InvalidArgumentError("grid.points: empty");
  for (size_t i = 0; i < grid.points.size(); ++i) {
    const double t = grid.points[i];
    if (!std::isfinite(t)) return absl::InvalidArgumentError("grid.points: must be finite");
    if (i > 0 && !(t > grid.points[i - 1])) {
      return absl::InvalidArgumentError("grid.points: must be strictly increasing");
    }
    if (grid.spacing == GridSpacing::kLog && !(t > 0)) {
      return absl::InvalidArgumentError("grid.points: must be > 0 on a log grid");
    }
  }
  return absl::OkStatus();
}

double ValueAt(const StepTrace& trace, double t) {
  // The last step with time <= t.
  auto it = std::upper_bound(trace.time.begin(), trace.time.end(), t);
  if (it == trace.time.begin()) return kInf;
  return Sanitize(trace.best[(it - trace.time.begin()) - 1]);
}

absl::Status ValidateTrace(const StepTrace& trace) {
  if (trace.time.size() != trace.best.size()) {
    return absl::InvalidArgumentError("trace: time and best differ in length");
  }
  if (std::isnan(trace.horizon)) return absl::InvalidArgumentError("trace.horizon: NaN");
  for (size_t j = 0; j < trace.time.size(); ++j) {
    if (std::isnan(trace.time[j])) return absl::InvalidArgumentError("trace.time: NaN");
    if (j > 0 && trace.time[j] < trace.time[j - 1]) {
      return absl::InvalidArgumentError("trace.time: must be non-decreasing");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<StepTrace> StepTraceFromEvaluations(const std::vector<double>& times,
                                                   const std::vector<double>& values) {
  StepTrace raw{times, values};
  if (absl::Status s = ValidateTrace(raw); !s.ok()) return s;
  StepTrace out;
  double best = kInf;
  for (size_t k = 0; k < times.size(); ++k) {
    const double v = Sanitize(values[k]);
    if (v < best || (out.time.empty() && k == 0)) {
      best = std::min(best, v);
      out.time.push_back(times[k]);
      out.best.push_back(best);
    }
  }
  return out;
}

std::vector<int> RunIndices(const std::vector<TrialCurve>& trials) {
  std::vector<int> numbers;
  for (const TrialCurve& c : trials) numbers.push_back(c.trial);
  std::vector<int> sorted = numbers;
  std::sort(sorted.begin(), sorted.end());
  const bool numbered = (sorted.empty() || sorted.front() >= 0) &&
                        std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  if (numbered) return numbers;
  std::vector<int> positions(trials.size());
  for (size_t n = 0; n < trials.size(); ++n) positions[n] = static_cast<int>(n);
  return positions;
}

absl::StatusOr<TraceSet> BatchTraces(const ScoringInput& input) {
  if (input.n_batches < 1) return absl::InvalidArgumentError("n_batches: must be >= 1");
  TraceSet out;
  for (const auto& [method, problems] : input.methods) {
    auto& runs = out[method];
    for (const auto& [problem, data] : problems) {
      const std::vector<int> run = RunIndices(data.trials);
      for (size_t n = 0; n < data.trials.size(); ++n) {
        TrialCurve c = data.trials[n];
        if (static_cast<int>(c.batch_min.size()) != input.n_batches ||
            (!c.visible_min.empty() && static_cast<int>(c.visible_min.size()) != input.n_batches)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "methods[", method, "][", problem, "].trials[", n, "]: curve length != n_batches"));
        }
        for (double& v : c.batch_min) v = Sanitize(v);
        for (double& v : c.visible_min) v = Sanitize(v);
        StepTrace tr;
        tr.best = BestSoFar(c);
        for (int b = 1; b <= input.n_batches; ++b) tr.time.push_back(b);
        const int ran = BatchesRun(c, input.n_batches);
        if (ran < input.n_batches) tr.horizon = ran;
        runs[RunKey{problem, run[n]}] = std::move(tr);
      }
    }
  }
  return out;
}

}  // namespace bbo::scoring::pl
