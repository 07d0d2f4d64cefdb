#include "scoring/leaderboard.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scoring/estimators.h"

namespace bbo::scoring {
namespace {

// Seed 001 eq. 2: S_ptn = cumm-min_t F_ptn.
std::vector<double> CumMin(const std::vector<double>& f) {
  std::vector<double> s(f.size());
  double best = HUGE_VAL;
  for (size_t t = 0; t < f.size(); ++t) {
    if (!std::isnan(f[t])) best = std::min(best, f[t]);
    s[t] = best;
  }
  return s;
}

// Aggregates per-problem curves into the method's curves (eq. 6 and the median of medians).
absl::Status Aggregate(MethodResult& r, int n_batches) {
  r.mean_perf.assign(n_batches, 0);
  r.med_perf.assign(n_batches, 0);
  if (r.problems.empty()) {
    r.mean_perf.assign(n_batches, NAN);
    r.med_perf.assign(n_batches, NAN);
    r.score = r.median_score = NAN;
    return absl::OkStatus();
  }
  for (int t = 0; t < n_batches; ++t) {
    double sum = 0;
    std::vector<double> meds;
    for (const ProblemResult& p : r.problems) {
      sum += p.norm_mean_perf[t];
      meds.push_back(p.norm_med_perf[t]);
    }
    r.mean_perf[t] = sum / static_cast<double>(r.problems.size());
    ASSIGN_OR_RETURN(r.med_perf[t], Quantile(meds, 0.5));
  }
  // Seed 001 eq. 7.
  r.score = 100 * (1 - r.mean_perf.back());
  r.median_score = 100 * (1 - r.med_perf.back());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Leaderboard> ComputeLeaderboard(const ScoringInput& input,
                                               const std::string& baseline_row_name) {
  if (input.n_batches < 1) return absl::InvalidArgumentError("n_batches: must be >= 1");
  if (input.batch_size < 1) return absl::InvalidArgumentError("batch_size: must be >= 1");
  const int T = input.n_batches;
  Leaderboard board;

  // opt_p needs the best value of every method on the problem.
  for (const auto& [problem, base_in] : input.problems) {
    double best_observed = HUGE_VAL;
    for (const auto& [method, per_problem] : input.methods) {
      auto it = per_problem.find(problem);
      if (it == per_problem.end()) continue;
      for (const TrialCurve& c : it->second.trials) {
        for (double f : c.batch_min) {
          if (!std::isnan(f)) best_observed = std::min(best_observed, f);
        }
      }
    }
    absl::StatusOr<ProblemBaseline> b =
        ComputeBaseline(base_in, best_observed, input.batch_size, T);
    if (!b.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("problem \"", problem, "\": ", b.status().message()));
    }
    board.baselines[problem] = *std::move(b);
  }

  for (const auto& [method, per_problem] : input.methods) {
    MethodResult r;
    r.method = method;
    for (const auto& [problem, data] : per_problem) {
      auto bit = board.baselines.find(problem);
      if (bit == board.baselines.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "methods: \"", method, "\" has results on problem \"", problem,
            "\" which has no baseline input"));
      }
      if (data.trials.empty()) continue;
      const ProblemBaseline& base = bit->second;
      ProblemResult pr;
      pr.problem = problem;
      pr.trials = static_cast<int>(data.trials.size());
      std::vector<std::vector<double>> S;
      for (const TrialCurve& c : data.trials) {
        if (static_cast<int>(c.batch_min.size()) != T) {
          return absl::InvalidArgumentError(absl::StrCat(
              "methods: a trial of \"", method, "\" on \"", problem, "\" has ",
              c.batch_min.size(), " batches, expected ", T));
        }
        S.push_back(CumMin(c.batch_min));
      }
      pr.norm_mean_perf.resize(T);
      pr.norm_med_perf.resize(T);
      const double range = base.clip - base.opt;
      for (int t = 0; t < T; ++t) {
        // Eqs. 3-5 as Bayesmark's compute_aggregates computes them: each trial is normalized
        // and clipped to [-1, 1] (the upper clip is S' = min(S, clip_p); the lower one bounds the
        // influence of a single run below the estimated optimum), then averaged over trials.
        double sum = 0;
        std::vector<double> col;
        for (const auto& s : S) {
          double normed = (s[t] - base.opt) / range;
          sum += std::clamp(normed, -1.0, 1.0);
          col.push_back(s[t]);
        }
        pr.norm_mean_perf[t] = sum / static_cast<double>(S.size());
        // Seed 003 "Median scores": (med_n S - opt) / (rand-med-perf_pt - opt).
        ASSIGN_OR_RETURN(double med, Quantile(col, 0.5));
        pr.norm_med_perf[t] = (med - base.opt) / (base.rand_med_perf[t] - base.opt);
      }
      pr.score = 100 * (1 - pr.norm_mean_perf.back());
      r.problems.push_back(std::move(pr));
    }
    r.complete = r.problems.size() == input.problems.size();
    RETURN_IF_ERROR(Aggregate(r, T));
    board.rows.push_back(std::move(r));
  }

  if (!baseline_row_name.empty()) {
    MethodResult r;
    r.method = baseline_row_name;
    r.is_baseline = true;
    for (const auto& [problem, base] : board.baselines) {
      ProblemResult pr;
      pr.problem = problem;
      pr.trials = static_cast<int>(input.problems.at(problem).random_evals.size() /
                                   (static_cast<size_t>(input.batch_size) * T));
      for (int t = 0; t < T; ++t) {
        pr.norm_mean_perf.push_back((base.rand_mean_perf[t] - base.opt) / (base.clip - base.opt));
        pr.norm_med_perf.push_back(1.0);
      }
      pr.score = 100 * (1 - pr.norm_mean_perf.back());
      r.problems.push_back(std::move(pr));
    }
    RETURN_IF_ERROR(Aggregate(r, T));
    board.rows.push_back(std::move(r));
  }

  std::stable_sort(board.rows.begin(), board.rows.end(),
                   [](const MethodResult& a, const MethodResult& b) {
                     if (std::isnan(a.score) != std::isnan(b.score)) return std::isnan(b.score);
                     return a.score > b.score;
                   });
  return board;
}

}  // namespace bbo::scoring
