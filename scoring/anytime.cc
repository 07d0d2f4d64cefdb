#include "scoring/anytime.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <thread>

#include "scoring/internal/resample.h"
#include "scoring/internal/rng.h"

namespace bbo::scoring {

absl::StatusOr<AnytimeResult> ComputeAnytime(const Leaderboard& board, const ScoringInput& input,
                                             int bootstrap_replicates, uint64_t seed) {
  if (bootstrap_replicates < 1) {
    return absl::InvalidArgumentError("bootstrap_replicates: must be >= 1");
  }
  const int T = input.n_batches;
  AnytimeResult out;
  const int stride = (T + 3) / 4 * 4;
  // One pass over the trials: the ECDF counts, and each (problem, method)'s clipped normalized
  // best-so-far curves as one flat [trial][stride] array (rows padded to whole SIMD vectors).
  std::vector<std::string> methods;
  for (const auto& [m, unused] : input.methods) methods.push_back(m);
  struct Entry {
    int method;
    uint32_t trials;
    std::vector<double> flat;  // trials x stride
  };
  std::map<std::string, std::vector<Entry>> entries_of;
  for (size_t m = 0; m < methods.size(); ++m) {
    // first_reached[t]: (problem, target, trial) triples first reached at batch t.
    std::vector<double> first_reached(T + 1, 0);
    double total = 0;
    for (const auto& [problem, data] : input.methods.at(methods[m])) {
      if (data.trials.empty()) continue;
      const ProblemBaseline& b = board.baselines.at(problem);
      Entry e{static_cast<int>(m), static_cast<uint32_t>(data.trials.size()), {}};
      e.flat.reserve(data.trials.size() * stride);
      for (const TrialCurve& c : data.trials) {
        const std::vector<double> s = BestSoFar(c);
        for (size_t t = 0; t < s.size(); ++t) {
          e.flat.push_back(std::clamp((s[t] - b.opt) / (b.clip - b.opt), -1.0, 1.0));
        }
        e.flat.resize(e.flat.size() + (stride - s.size()), 0.0);
        // S is nonincreasing: the first batch at or below a target by binary search.
        for (double target : b.rand_mean_perf) {
          total += 1;
          const auto it = std::partition_point(s.begin(), s.end(),
                                               [&](double v) { return !(v <= target); });
          first_reached[it - s.begin()] += 1;
        }
      }
      entries_of[problem].push_back(std::move(e));
    }
    std::vector<double> reached(T, 0);
    double cum = 0;
    for (int t = 0; t < T; ++t) {
      cum += first_reached[t];
      reached[t] = total > 0 ? cum / total : 0;
    }
    out.ecdf[methods[m]] = reached;
  }
  // Bootstrap average fractional rank, over the problems with at least two methods.
  std::vector<std::vector<Entry>> by_problem;
  for (auto& [problem, entries] : entries_of) {
    if (entries.size() >= 2) by_problem.push_back(std::move(entries));
  }
  const size_t M = methods.size(), P = by_problem.size();
  // twice_rank[p][m][t]: the sum over replicates of 2 (rank - 1) of method m on problem p at
  // batch t (ranks are multiples of 1/2: exact integers). Problems are independent: each thread
  // takes whole problems (their curves stay in cache across replicates), and each problem has
  // its own random stream, so the result does not depend on the number of threads.
  using Sums = std::vector<int64_t>;
  Sums twice_rank(P * M * T, 0);
  auto index = [&](size_t p, size_t m, int t) { return (p * M + m) * T + t; };
  std::atomic<size_t> next_problem{0};
  auto run = [&] {
    std::vector<uint32_t> picks;
    std::vector<double> sums(stride);
    std::vector<double> means;  // [entry][batch]
    std::vector<std::vector<int>> orders(T);  // per batch, the last sorted order
    for (size_t p = next_problem++; p < P; p = next_problem++) {
      internal::Xoshiro rng = internal::Xoshiro::ForReplicate(seed, p);
      for (auto& o : orders) o.clear();
      for (int rep = 0; rep < bootstrap_replicates; ++rep) {
        const std::vector<Entry>& entries = by_problem[p];
        means.resize(entries.size() * T);
        for (size_t e = 0; e < entries.size(); ++e) {
          const Entry& en = entries[e];
          picks.resize(en.trials);
          if (rep == 0) {  // replicate 0 is the data itself
            for (uint32_t i = 0; i < en.trials; ++i) picks[i] = i;
          } else if (en.trials <= 65536) {
            uint32_t* out = picks.data();
            internal::DrawIndices16(rng, en.trials, en.trials, [&](uint32_t i) { *out++ = i; });
          } else {
            for (uint32_t& i : picks) i = rng.Below(en.trials);
          }
          internal::SumPickedRows(en.flat.data(), stride, picks.data(), en.trials, sums.data());
          for (int t = 0; t < T; ++t) means[e * T + t] = sums[t] / en.trials;
        }
        for (int t = 0; t < T; ++t) {
          // Insertion sort from the order of the previous replicate at this batch: resamples
          // barely reorder the methods, so this is close to linear.
          std::vector<int>& order = orders[t];
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
              twice_rank[index(p, entries[order[x]].method, t)] += static_cast<int64_t>(i + j - 1);
            }
            i = j;
          }
        }
      }
    }
  };
  {
    const unsigned threads = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                                std::max<size_t>(P, 1));
    std::vector<std::thread> pool;
    for (unsigned th = 1; th < threads; ++th) pool.emplace_back(run);
    run();
    for (auto& th : pool) th.join();
  }
  for (size_t m = 0; m < M; ++m) {
    std::vector<double> v(T, NAN);
    for (int t = 0; t < T; ++t) {
      double sum = 0;
      int problems = 0;
      for (size_t p = 0; p < P; ++p) {
        bool present = false;
        for (const Entry& e : by_problem[p]) present |= e.method == static_cast<int>(m);
        if (!present) continue;
        const int64_t twice = twice_rank[index(p, m, t)];
        // Fractional rank (rank - 1) / (k - 1), averaged over replicates.
        sum += static_cast<double>(twice) /
               (2.0 * static_cast<double>(by_problem[p].size() - 1) * bootstrap_replicates);
        ++problems;
      }
      if (problems > 0) v[t] = sum / problems;
    }
    out.avg_fractional_rank[methods[m]] = v;
  }
  return out;
}

}  // namespace bbo::scoring
