#include "scoring/leaderboard.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <cmath>
#include <cstring>

#include "absl/synchronization/mutex.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scoring/estimators.h"

namespace bbo::scoring {
namespace {

// Turner et al. (2021) eq. 2: S_ptn = cumm-min_t F_ptn; with a visible loss, the held-out value at
// the running argmin of the visible one.
std::vector<double> CumMinImpl(const TrialCurve& c) {
  const std::vector<double>& f = c.batch_min;
  std::vector<double> s(f.size());
  if (c.visible_min.size() == f.size()) {
    double best_key = HUGE_VAL, value = HUGE_VAL;
    bool any = false;
    for (size_t t = 0; t < f.size(); ++t) {
      if (!any || c.visible_min[t] <= best_key) {
        best_key = c.visible_min[t];
        value = f[t];
        any = true;
      }
      s[t] = value;
    }
    return s;
  }
  double best = HUGE_VAL;
  for (size_t t = 0; t < f.size(); ++t) {
    if (!std::isnan(f[t])) best = std::min(best, f[t]);
    s[t] = best;
  }
  return s;
}

// The pooled random-search performance after m evaluations, averaged over `problems`.
class RandomSearchCurve {
 public:
  RandomSearchCurve(const ScoringInput& input, const std::map<std::string, ProblemBaseline>& bases,
                    const std::vector<std::string>& problems) {
    n_max_ = INT32_MAX;
    for (const std::string& p : problems) {
      const ProblemBaseline& b = bases.at(p);
      std::vector<double> desc = input.problems.at(p).random_evals;
      for (double& v : desc) v = std::min(v, b.clip);
      std::sort(desc.begin(), desc.end(), std::greater<double>());
      n_max_ = std::min(n_max_, static_cast<int>(desc.size()));
      sorted_.push_back(std::move(desc));
      opt_.push_back(b.opt);
      clip_.push_back(b.clip);
    }
  }
  int n_max() const { return n_max_; }
  double operator()(int m) {
    auto it = cache_.find(m);
    if (it != cache_.end()) return it->second;
    double sum = 0;
    for (size_t i = 0; i < sorted_.size(); ++i) {
      double e = std::min(clip_[i], ExpectedMinSortedDesc(sorted_[i], m));
      sum += (e - opt_[i]) / (clip_[i] - opt_[i]);
    }
    return cache_[m] = sum / static_cast<double>(sorted_.size());
  }

 private:
  std::vector<std::vector<double>> sorted_;
  std::vector<double> opt_, clip_;
  int n_max_;
  std::map<int, double> cache_;
};

void RsEquivalent(MethodResult& r, RandomSearchCurve& f, int evals_used) {
  const double target = r.mean_perf.back();
  if (std::isnan(target) || f.n_max() < 1) return;
  using Bound = MethodResult::Bound;
  if (target >= f(1)) {
    r.rs_equivalent_evals = 1;
    r.rs_bound = target > f(1) ? Bound::kAtMost : Bound::kExact;
  } else if (target < f(f.n_max())) {
    r.rs_equivalent_evals = f.n_max();
    r.rs_bound = Bound::kAtLeast;
  } else {
    // f is nonincreasing: find the last m with f(m) >= target.
    int lo = 1, hi = f.n_max();
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (f(mid) >= target) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const double f_lo = f(lo), f_hi = f(hi);
    r.rs_equivalent_evals = f_lo > f_hi ? lo + (f_lo - target) / (f_lo - f_hi) : lo;
    r.rs_bound = Bound::kExact;
  }
  r.rs_efficiency = r.rs_equivalent_evals / evals_used;
}

// Aggregates per-problem curves into the method's curves (eq. 6 and the median of medians), at
// each batch over the problems on which a trial ran it.
absl::Status Aggregate(MethodResult& r, int n_batches, double alpha,
                       const std::vector<double>& rand_mean_perf) {
  r.mean_perf.assign(n_batches, NAN);
  r.mean_perf_eb.assign(n_batches, NAN);
  r.med_perf.assign(n_batches, NAN);
  r.med_perf_ci.assign(n_batches, Interval{NAN, NAN});
  r.normalized_mean_perf.assign(n_batches, NAN);
  for (int t = 0; t < n_batches; ++t) {
    std::vector<double> means, meds;
    for (const ProblemResult& p : r.problems) {
      if (!p.trials_run.empty() && p.trials_run[t] == 0) continue;
      means.push_back(p.norm_mean_perf[t]);
      meds.push_back(p.norm_med_perf[t]);
    }
    if (means.empty()) continue;
    double sum = 0;
    for (double m : means) sum += m;
    r.mean_perf[t] = sum / static_cast<double>(means.size());
    ASSIGN_OR_RETURN(r.mean_perf_eb[t], StudentTErrorBar(means, alpha));
    ASSIGN_OR_RETURN(QuantileWithCI med, QuantileAndCI(meds, 0.5, alpha));
    r.med_perf[t] = med.estimate;
    r.med_perf_ci[t] = med.ci;
    r.normalized_mean_perf[t] = r.mean_perf[t] / rand_mean_perf[t];
  }
  // Turner et al. (2021) eq. 7.
  r.score = 100 * (1 - r.mean_perf.back());
  double sum_med = 0;
  int with_last = 0;
  for (const ProblemResult& p : r.problems) {
    if (!p.trials_run.empty() && p.trials_run.back() == 0) continue;
    sum_med += p.norm_median_clip_last;
    ++with_last;
  }
  r.table2_median_score = with_last > 0 ? 100 * (1 - sum_med / with_last) : NAN;
  r.median_score = 100 * (1 - r.med_perf.back());
  return absl::OkStatus();
}

}  // namespace

std::vector<double> BestSoFar(const TrialCurve& trial) { return CumMinImpl(trial); }

namespace {

bool SameDoubles(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool SameTrials(const std::vector<TrialCurve>& a, const std::vector<TrialCurve>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].horizon != b[i].horizon || !SameDoubles(a[i].batch_min, b[i].batch_min) ||
        !SameDoubles(a[i].visible_min, b[i].visible_min)) {
      return false;
    }
  }
  return true;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// One method on one problem: eqs. 2-5 per batch, the median with its CI, the Table 2 median. At
// each batch, over the trials that ran it (every trial but on a raced board).
absl::StatusOr<ProblemResult> ScoreProblem(const std::string& method, const std::string& problem,
                                           const MethodProblemData& data,
                                           const ProblemBaseline& base, const ScoringInput& input) {
  const int T = input.n_batches;
  ProblemResult pr;
  pr.problem = problem;
  pr.trials = static_cast<int>(data.trials.size());
  std::vector<std::vector<double>> S;
  std::vector<int> run;
  for (const TrialCurve& c : data.trials) {
    if (static_cast<int>(c.batch_min.size()) != T) {
      return absl::InvalidArgumentError(absl::StrCat(
          "methods: a trial of \"", method, "\" on \"", problem, "\" has ",
          c.batch_min.size(), " batches, expected ", T));
    }
    S.push_back(BestSoFar(c));
    run.push_back(BatchesRun(c, T));
  }
  pr.norm_mean_perf.assign(T, NAN);
  pr.norm_med_perf.assign(T, NAN);
  pr.norm_med_ci.assign(T, Interval{NAN, NAN});
  pr.trials_run.assign(T, 0);
  const double range = base.clip - base.opt;
  std::vector<double> col;
  for (int t = 0; t < T; ++t) {
    // Eqs. 3-5 as Bayesmark's compute_aggregates computes them: each trial is normalized
    // and clipped to [-1, 1] (the upper clip is S' = min(S, clip_p); the lower one bounds the
    // influence of a single run below the estimated optimum), then averaged over trials.
    double sum = 0;
    col.clear();
    for (size_t n = 0; n < S.size(); ++n) {
      if (t >= run[n]) continue;
      sum += std::clamp((S[n][t] - base.opt) / range, -1.0, 1.0);
      col.push_back(S[n][t]);
    }
    pr.trials_run[t] = static_cast<int>(col.size());
    if (col.empty()) continue;
    pr.norm_mean_perf[t] = sum / static_cast<double>(col.size());
    // Bayesmark's "Median scores": (med_n S - opt) / (rand-med-perf_pt - opt).
    ASSIGN_OR_RETURN(QuantileWithCI med, QuantileAndCI(col, 0.5, input.alpha));
    const double denom = base.rand_med_perf[t] - base.opt;
    pr.norm_med_perf[t] = (med.estimate - base.opt) / denom;
    pr.norm_med_ci[t] = Interval{(med.ci.lo - base.opt) / denom, (med.ci.hi - base.opt) / denom};
  }
  pr.score = 100 * (1 - pr.norm_mean_perf.back());
  std::vector<double> last;
  for (size_t n = 0; n < S.size(); ++n) {
    if (run[n] < T) continue;
    last.push_back(std::clamp((S[n].back() - base.opt) / range, -1.0, 1.0));
  }
  if (last.empty()) {
    pr.norm_median_clip_last = NAN;
  } else {
    ASSIGN_OR_RETURN(pr.norm_median_clip_last, Quantile(last, 0.5));
  }
  return pr;
}

}  // namespace

// Memo entries: the complete input of a computation next to its result, compared bit for bit
// (no hashing, so a reused result is exactly the one a recomputation would give).
struct ScoringCache::Impl {
  struct BaselineEntry {
    ProblemBaselineInput in;
    double best_observed = 0;
    int batch_size = 0, n_batches = 0;
    ProblemBaseline out;
    uint64_t used = 0;
  };
  struct ResultEntry {
    std::vector<TrialCurve> trials;
    ProblemBaseline base;
    double alpha = 0;
    int n_batches = 0;
    ProblemResult out;
    uint64_t used = 0;
  };
  absl::Mutex mu;
  uint64_t generation = 0;
  std::map<std::string, BaselineEntry> baselines;
  std::map<std::pair<std::string, std::string>, ResultEntry> results;
  std::atomic<int64_t> hits{0}, misses{0};
};

ScoringCache::ScoringCache() : impl_(std::make_unique<Impl>()) {}
ScoringCache::~ScoringCache() = default;
int64_t ScoringCache::hits() const { return impl_->hits.load(); }
int64_t ScoringCache::misses() const { return impl_->misses.load(); }

namespace {

absl::StatusOr<ProblemBaseline> CachedBaseline(ScoringCache::Impl* cache,
                                               const std::string& problem,
                                               const ProblemBaselineInput& in,
                                               double best_observed, int batch_size, int T) {
  if (cache != nullptr) {
    absl::MutexLock l(&cache->mu);
    auto it = cache->baselines.find(problem);
    if (it != cache->baselines.end()) {
      const auto& e = it->second;
      if (e.batch_size == batch_size && e.n_batches == T &&
          SameBits(e.best_observed, best_observed) &&
          SameBits(e.in.all_evals_min, in.all_evals_min) &&
          e.in.known_optimum.has_value() == in.known_optimum.has_value() &&
          (!in.known_optimum || SameBits(*e.in.known_optimum, *in.known_optimum)) &&
          SameDoubles(e.in.random_evals, in.random_evals)) {
        it->second.used = cache->generation;
        cache->hits++;
        return e.out;
      }
    }
  }
  ASSIGN_OR_RETURN(ProblemBaseline out, ComputeBaseline(in, best_observed, batch_size, T));
  if (cache != nullptr) {
    absl::MutexLock l(&cache->mu);
    cache->misses++;
    cache->baselines[problem] =
        ScoringCache::Impl::BaselineEntry{in, best_observed, batch_size, T, out, cache->generation};
  }
  return out;
}

absl::StatusOr<ProblemResult> CachedProblemResult(ScoringCache::Impl* cache,
                                                  const std::string& method,
                                                  const std::string& problem,
                                                  const MethodProblemData& data,
                                                  const ProblemBaseline& base,
                                                  const ScoringInput& input) {
  const auto key = std::make_pair(method, problem);
  if (cache != nullptr) {
    absl::MutexLock l(&cache->mu);
    auto it = cache->results.find(key);
    if (it != cache->results.end()) {
      const auto& e = it->second;
      if (e.n_batches == input.n_batches && SameBits(e.alpha, input.alpha) &&
          SameBits(e.base.opt, base.opt) && SameBits(e.base.clip, base.clip) &&
          SameDoubles(e.base.rand_med_perf, base.rand_med_perf) && SameTrials(e.trials, data.trials)) {
        it->second.used = cache->generation;
        cache->hits++;
        return e.out;
      }
    }
  }
  ASSIGN_OR_RETURN(ProblemResult out, ScoreProblem(method, problem, data, base, input));
  if (cache != nullptr) {
    absl::MutexLock l(&cache->mu);
    cache->misses++;
    cache->results[key] = ScoringCache::Impl::ResultEntry{data.trials, base, input.alpha,
                                                          input.n_batches, out, cache->generation};
  }
  return out;
}

// Scores one method on every problem it has results on (eqs. 2-7 and the median summary).
absl::StatusOr<MethodResult> ScoreMethod(const std::string& method,
                                         const std::map<std::string, MethodProblemData>& per_problem,
                                         const Leaderboard& board, const ScoringInput& input,
                                         ScoringCache::Impl* cache) {
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
    ASSIGN_OR_RETURN(ProblemResult pr,
                     CachedProblemResult(cache, method, problem, data, bit->second, input));
    r.problems.push_back(std::move(pr));
  }
  r.complete = r.problems.size() == input.problems.size() &&
               std::all_of(r.problems.begin(), r.problems.end(),
                           [](const ProblemResult& p) { return p.trials_run.back() > 0; });
  RETURN_IF_ERROR(Aggregate(r, input.n_batches, input.alpha, board.rand_mean_perf));
  return r;
}

// Runs `work` on min(cores, tasks) threads, the calling one included; `work` takes tasks until
// none is left.
template <typename Work>
void RunOnAllCores(size_t tasks, Work work) {
  const unsigned threads = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                              std::max<size_t>(1, tasks));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
}

// The best value observed on `problem`: by random search, or by any method.
double BestObserved(const ScoringInput& input, const std::string& problem,
                    const ProblemBaselineInput& base_in) {
  double best_observed = base_in.all_evals_min;
  for (const auto& [method, per_problem] : input.methods) {
    auto it = per_problem.find(problem);
    if (it == per_problem.end()) continue;
    for (const TrialCurve& c : it->second.trials) {
      for (double f : c.batch_min) {
        if (!std::isnan(f)) best_observed = std::min(best_observed, f);
      }
    }
  }
  return best_observed;
}

// board->baselines, and board->rand_mean_perf: random search's normalized mean performance
// averaged over the problems.
absl::Status ComputeBaselines(const ScoringInput& input, ScoringCache::Impl* cache,
                              Leaderboard* board) {
  const int T = input.n_batches;
  // opt_p needs the best value of every method on the problem. Problems are independent:
  // computed on all cores.
  std::vector<const std::pair<const std::string, ProblemBaselineInput>*> base_todo;
  for (const auto& entry : input.problems) base_todo.push_back(&entry);
  std::vector<absl::StatusOr<ProblemBaseline>> bases(base_todo.size(),
                                                     absl::InternalError("not computed"));
  std::atomic<size_t> next_base{0};
  RunOnAllCores(base_todo.size(), [&] {
    for (size_t i = next_base++; i < base_todo.size(); i = next_base++) {
      const auto& [problem, base_in] = *base_todo[i];
      bases[i] = CachedBaseline(cache, problem, base_in, BestObserved(input, problem, base_in),
                                input.batch_size, T);
    }
  });
  for (size_t i = 0; i < base_todo.size(); ++i) {
    if (!bases[i].ok()) {
      return absl::InvalidArgumentError(absl::StrCat("problem \"", base_todo[i]->first, "\": ",
                                                     bases[i].status().message()));
    }
    board->baselines[base_todo[i]->first] = *std::move(bases[i]);
  }
  board->rand_mean_perf.assign(T, 0);
  for (const auto& [problem, b] : board->baselines) {
    for (int t = 0; t < T; ++t) {
      board->rand_mean_perf[t] += (b.rand_mean_perf[t] - b.opt) / (b.clip - b.opt) /
                                  static_cast<double>(board->baselines.size());
    }
  }
  return absl::OkStatus();
}

// Appends a row per method, in the input's order. Methods are independent: scored on all cores.
absl::Status ScoreMethods(const ScoringInput& input, ScoringCache::Impl* cache,
                          Leaderboard* board) {
  std::vector<const std::pair<const std::string, std::map<std::string, MethodProblemData>>*> todo;
  for (const auto& entry : input.methods) todo.push_back(&entry);
  std::vector<absl::StatusOr<MethodResult>> scored(todo.size(),
                                                   absl::InternalError("not scored"));
  std::atomic<size_t> next{0};
  RunOnAllCores(todo.size(), [&] {
    for (size_t i = next++; i < todo.size(); i = next++) {
      scored[i] = ScoreMethod(todo[i]->first, todo[i]->second, *board, input, cache);
    }
  });
  for (auto& r : scored) {
    if (!r.ok()) return r.status();
    board->rows.push_back(*std::move(r));
  }
  return absl::OkStatus();
}

// The row of random search itself, named `name`.
absl::StatusOr<MethodResult> BaselineRow(const std::string& name, const ScoringInput& input,
                                         const Leaderboard& board) {
  const int T = input.n_batches;
  MethodResult r;
  r.method = name;
  r.is_baseline = true;
  for (const auto& [problem, base] : board.baselines) {
    ProblemResult pr;
    pr.problem = problem;
    pr.trials = static_cast<int>(input.problems.at(problem).random_evals.size() /
                                 (static_cast<size_t>(input.batch_size) * T));
    for (int t = 0; t < T; ++t) {
      pr.norm_mean_perf.push_back((base.rand_mean_perf[t] - base.opt) / (base.clip - base.opt));
      pr.norm_med_perf.push_back(1.0);
      pr.norm_med_ci.push_back(Interval{1.0, 1.0});
    }
    pr.score = 100 * (1 - pr.norm_mean_perf.back());
    // Random search's median after T batches, clipped: min_quantile of the pooled sample.
    ASSIGN_OR_RETURN(double med, MinQuantile(input.problems.at(problem).random_evals, 0.5,
                                             input.batch_size * T));
    pr.norm_median_clip_last =
        std::clamp((std::min(med, base.clip) - base.opt) / (base.clip - base.opt), -1.0, 1.0);
    r.problems.push_back(std::move(pr));
  }
  RETURN_IF_ERROR(Aggregate(r, T, input.alpha, board.rand_mean_perf));
  return r;
}

// RS-equivalents, each against the pooled random search on the method's own problems (one
// shared, memoized curve per distinct problem set).
void AddRsEquivalents(const ScoringInput& input, Leaderboard* board) {
  std::map<std::vector<std::string>, std::unique_ptr<RandomSearchCurve>> curves;
  for (MethodResult& r : board->rows) {
    if (r.problems.empty()) continue;
    // The problems its last batch is scored on (on a raced board, those where a trial ran it).
    std::vector<std::string> names;
    for (const ProblemResult& p : r.problems) {
      if (p.trials_run.empty() || p.trials_run.back() > 0) names.push_back(p.problem);
    }
    if (names.empty()) continue;
    auto& f = curves[names];
    if (f == nullptr) f = std::make_unique<RandomSearchCurve>(input, board->baselines, names);
    RsEquivalent(r, *f, input.batch_size * input.n_batches);
  }
}

}  // namespace

absl::StatusOr<Leaderboard> ComputeLeaderboard(const ScoringInput& input,
                                               const std::string& baseline_row_name,
                                               ScoringCache* scoring_cache) {
  ScoringCache::Impl* cache = scoring_cache == nullptr ? nullptr : scoring_cache->impl_.get();
  if (cache != nullptr) {
    absl::MutexLock l(&cache->mu);
    cache->generation++;
  }
  if (input.n_batches < 1) return absl::InvalidArgumentError("n_batches: must be >= 1");
  if (input.batch_size < 1) return absl::InvalidArgumentError("batch_size: must be >= 1");
  Leaderboard board;
  RETURN_IF_ERROR(ComputeBaselines(input, cache, &board));
  RETURN_IF_ERROR(ScoreMethods(input, cache, &board));
  if (!baseline_row_name.empty()) {
    ASSIGN_OR_RETURN(MethodResult r, BaselineRow(baseline_row_name, input, board));
    board.rows.push_back(std::move(r));
  }
  AddRsEquivalents(input, &board);

  if (cache != nullptr) {
    // Forget methods and problems that are no longer part of the input.
    absl::MutexLock l(&cache->mu);
    std::erase_if(cache->baselines, [&](const auto& e) { return e.second.used != cache->generation; });
    std::erase_if(cache->results, [&](const auto& e) { return e.second.used != cache->generation; });
  }

  std::stable_sort(board.rows.begin(), board.rows.end(),
                   [](const MethodResult& a, const MethodResult& b) {
                     if (std::isnan(a.score) != std::isnan(b.score)) return std::isnan(b.score);
                     return a.score > b.score;
                   });
  return board;
}

}  // namespace bbo::scoring
