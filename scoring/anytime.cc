#include "scoring/anytime.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <thread>

#include "scoring/internal/resample.h"
#include "scoring/internal/rng.h"

namespace bbo::scoring {

namespace {

// One (problem, method)'s clipped normalized best-so-far curves, as one flat [trial][stride]
// array (rows padded to whole SIMD vectors).
struct Entry {
  int method;
  uint32_t trials;
  std::vector<double> flat;  // trials x stride
};

// Per-thread scratch space of the bootstrap.
struct Scratch {
  std::vector<uint32_t> picks;
  std::vector<double> sums;
  std::vector<double> means;                // [entry][batch]
  std::vector<std::vector<int>> orders;     // per batch, the last sorted order
};

// Appends trial `c`'s normalized curve to `e`, and counts in first_reached[t] the targets of
// `b` it first reaches at batch t (t = T: never).
void AddTrial(const ProblemBaseline& b, const TrialCurve& c, int stride, Entry* e,
              std::vector<double>* first_reached, double* total) {
  const std::vector<double> s = BestSoFar(c);
  for (size_t t = 0; t < s.size(); ++t) {
    e->flat.push_back(std::clamp((s[t] - b.opt) / (b.clip - b.opt), -1.0, 1.0));
  }
  e->flat.resize(e->flat.size() + (stride - s.size()), 0.0);
  // S is nonincreasing: the first batch at or below a target by binary search.
  for (double target : b.rand_mean_perf) {
    *total += 1;
    const auto it = std::partition_point(s.begin(), s.end(),
                                         [&](double v) { return !(v <= target); });
    (*first_reached)[it - s.begin()] += 1;
  }
}

// One pass over method m's trials: adds its entries to `entries_of` (by problem) and returns
// its ECDF, the fraction of (problem, target, trial) triples reached by each batch.
std::vector<double> CollectMethod(const Leaderboard& board,
                                  const std::map<std::string, MethodProblemData>& problems,
                                  int m, int T, int stride,
                                  std::map<std::string, std::vector<Entry>>* entries_of) {
  // first_reached[t]: (problem, target, trial) triples first reached at batch t.
  std::vector<double> first_reached(T + 1, 0);
  double total = 0;
  for (const auto& [problem, data] : problems) {
    if (data.trials.empty()) continue;
    const ProblemBaseline& b = board.baselines.at(problem);
    // On a raced board only the trials that ran every batch (TrialCurve::horizon): the curves
    // of shortened ones do not exist beyond their horizon.
    Entry e{m, 0, {}};
    e.flat.reserve(data.trials.size() * stride);
    for (const TrialCurve& c : data.trials) {
      if (BatchesRun(c, T) < T) continue;
      AddTrial(b, c, stride, &e, &first_reached, &total);
      ++e.trials;
    }
    if (e.trials == 0) continue;
    (*entries_of)[problem].push_back(std::move(e));
  }
  std::vector<double> reached(T, 0);
  double cum = 0;
  for (int t = 0; t < T; ++t) {
    cum += first_reached[t];
    reached[t] = total > 0 ? cum / total : 0;
  }
  return reached;
}

// scratch->means[e][t]: entry e's mean curve over the trials resampled for replicate `rep`
// (replicate 0 is the data itself).
void ReplicateMeans(const std::vector<Entry>& entries, int rep, int T, int stride,
                    internal::Xoshiro& rng, Scratch* scratch) {
  std::vector<uint32_t>& picks = scratch->picks;
  scratch->means.resize(entries.size() * T);
  for (size_t e = 0; e < entries.size(); ++e) {
    const Entry& en = entries[e];
    picks.resize(en.trials);
    if (rep == 0) {
      for (uint32_t i = 0; i < en.trials; ++i) picks[i] = i;
    } else if (en.trials <= 65536) {
      uint32_t* out = picks.data();
      internal::DrawIndices16(rng, en.trials, en.trials, [&](uint32_t i) { *out++ = i; });
    } else {
      for (uint32_t& i : picks) i = rng.Below(en.trials);
    }
    internal::SumPickedRows(en.flat.data(), stride, picks.data(), en.trials,
                            scratch->sums.data());
    for (int t = 0; t < T; ++t) scratch->means[e * T + t] = scratch->sums[t] / en.trials;
  }
}

// Ranks the entries by their mean at batch t and adds 2 (rank - 1) of each to
// twice_rank[method * T + t].
void AddTwiceRanks(const std::vector<Entry>& entries, int T, int t, Scratch* scratch,
                   int64_t* twice_rank) {
  const std::vector<double>& means = scratch->means;
  // Insertion sort from the order of the previous replicate at this batch: resamples
  // barely reorder the methods, so this is close to linear.
  std::vector<int>& order = scratch->orders[t];
  if (order.size() != entries.size()) {
    order.resize(entries.size());
    for (size_t e = 0; e < entries.size(); ++e) order[e] = static_cast<int>(e);
  }
  auto value = [&](int e) { return means[static_cast<size_t>(e) * T + t]; };
  for (size_t i = 1; i < order.size(); ++i) {
    const int e = order[i];
    const double v = value(e);
    size_t j = i;
    for (; j > 0 && value(order[j - 1]) > v; --j) order[j] = order[j - 1];
    order[j] = e;
  }
  // Ties share the average rank: positions i..j-1 (0-based) get 2 (rank - 1) = i + j - 1.
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && value(order[j]) == value(order[i])) ++j;
    for (size_t x = i; x < j; ++x) {
      twice_rank[static_cast<size_t>(entries[order[x]].method) * T + t] +=
          static_cast<int64_t>(i + j - 1);
    }
    i = j;
  }
}

// twice_rank[p][m][t]: the sum over replicates of 2 (rank - 1) of method m on problem p at
// batch t (ranks are multiples of 1/2: exact integers). Problems are independent: each thread
// takes whole problems (their curves stay in cache across replicates), and each problem has
// its own random stream, so the result does not depend on the number of threads.
std::vector<int64_t> BootstrapTwiceRanks(const std::vector<std::vector<Entry>>& by_problem,
                                         size_t M, int T, int stride, int replicates,
                                         uint64_t seed) {
  const size_t P = by_problem.size();
  std::vector<int64_t> twice_rank(P * M * T, 0);
  std::atomic<size_t> next_problem{0};
  auto run = [&] {
    Scratch scratch;
    scratch.sums.resize(stride);
    scratch.orders.resize(T);
    for (size_t p = next_problem++; p < P; p = next_problem++) {
      internal::Xoshiro rng = internal::Xoshiro::ForReplicate(seed, p);
      for (auto& o : scratch.orders) o.clear();
      for (int rep = 0; rep < replicates; ++rep) {
        ReplicateMeans(by_problem[p], rep, T, stride, rng, &scratch);
        for (int t = 0; t < T; ++t) {
          AddTwiceRanks(by_problem[p], T, t, &scratch, &twice_rank[p * M * T]);
        }
      }
    }
  };
  const unsigned threads = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                              std::max<size_t>(P, 1));
  std::vector<std::thread> pool;
  for (unsigned th = 1; th < threads; ++th) pool.emplace_back(run);
  run();
  for (auto& th : pool) th.join();
  return twice_rank;
}

// Method m's fractional rank (rank - 1) / (k - 1) at each batch, averaged over replicates and
// over the problems it ran on (NaN where it ran on none).
std::vector<double> AverageFractionalRank(const std::vector<std::vector<Entry>>& by_problem,
                                          const std::vector<int64_t>& twice_rank, size_t m,
                                          size_t M, int T, int replicates) {
  std::vector<double> v(T, NAN);
  for (int t = 0; t < T; ++t) {
    double sum = 0;
    int problems = 0;
    for (size_t p = 0; p < by_problem.size(); ++p) {
      bool present = false;
      for (const Entry& e : by_problem[p]) present |= e.method == static_cast<int>(m);
      if (!present) continue;
      const int64_t twice = twice_rank[(p * M + m) * T + t];
      sum += static_cast<double>(twice) /
             (2.0 * static_cast<double>(by_problem[p].size() - 1) * replicates);
      ++problems;
    }
    if (problems > 0) v[t] = sum / problems;
  }
  return v;
}

}  // namespace

absl::StatusOr<AnytimeResult> ComputeAnytime(const Leaderboard& board, const ScoringInput& input,
                                             int bootstrap_replicates, uint64_t seed) {
  if (bootstrap_replicates < 1) {
    return absl::InvalidArgumentError("bootstrap_replicates: must be >= 1");
  }
  const int T = input.n_batches;
  AnytimeResult out;
  const int stride = (T + 3) / 4 * 4;
  std::vector<std::string> methods;
  for (const auto& [m, unused] : input.methods) methods.push_back(m);
  std::map<std::string, std::vector<Entry>> entries_of;
  for (size_t m = 0; m < methods.size(); ++m) {
    out.ecdf[methods[m]] = CollectMethod(board, input.methods.at(methods[m]),
                                         static_cast<int>(m), T, stride, &entries_of);
  }
  // Bootstrap average fractional rank, over the problems with at least two methods.
  std::vector<std::vector<Entry>> by_problem;
  for (auto& [problem, entries] : entries_of) {
    if (entries.size() >= 2) by_problem.push_back(std::move(entries));
  }
  const size_t M = methods.size();
  const std::vector<int64_t> twice_rank =
      BootstrapTwiceRanks(by_problem, M, T, stride, bootstrap_replicates, seed);
  for (size_t m = 0; m < M; ++m) {
    out.avg_fractional_rank[methods[m]] =
        AverageFractionalRank(by_problem, twice_rank, m, M, T, bootstrap_replicates);
  }
  return out;
}

}  // namespace bbo::scoring
