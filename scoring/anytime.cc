#include "scoring/anytime.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <thread>

#include "scoring/internal/rng.h"

namespace bbo::scoring {

absl::StatusOr<AnytimeResult> ComputeAnytime(const Leaderboard& board, const ScoringInput& input,
                                             int bootstrap_replicates, uint64_t seed) {
  if (bootstrap_replicates < 1) {
    return absl::InvalidArgumentError("bootstrap_replicates: must be >= 1");
  }
  const int T = input.n_batches;
  AnytimeResult out;
  // S curves and clipped normalized curves per method, problem, trial.
  std::map<std::string, std::map<std::string, std::vector<std::vector<double>>>> S, normed;
  for (const auto& [method, per_problem] : input.methods) {
    for (const auto& [problem, data] : per_problem) {
      const ProblemBaseline& b = board.baselines.at(problem);
      for (const TrialCurve& c : data.trials) {
        std::vector<double> s = BestSoFar(c), n(s.size());
        for (size_t t = 0; t < s.size(); ++t) {
          n[t] = std::clamp((s[t] - b.opt) / (b.clip - b.opt), -1.0, 1.0);
        }
        S[method][problem].push_back(std::move(s));
        normed[method][problem].push_back(std::move(n));
      }
    }
  }
  // ECDF of runtime-to-target.
  for (const auto& [method, per_problem] : S) {
    std::vector<double> reached(T, 0);
    double total = 0;
    for (const auto& [problem, trials] : per_problem) {
      const std::vector<double>& targets = board.baselines.at(problem).rand_mean_perf;
      for (const auto& s : trials) {
        for (double target : targets) {
          total += 1;
          for (int t = 0; t < T; ++t) {
            if (s[t] <= target) {
              for (int u = t; u < T; ++u) reached[u] += 1;
              break;
            }
          }
        }
      }
    }
    for (double& r : reached) r = total > 0 ? r / total : 0;
    out.ecdf[method] = reached;
  }
  // Bootstrap average fractional rank. Per problem, the methods with trials there and their
  // clipped normalized curves as one flat [trial][batch] array each.
  std::vector<std::string> methods;
  for (const auto& [m, unused] : normed) methods.push_back(m);
  struct Entry {
    int method;
    uint32_t trials;
    std::vector<double> flat;  // trials x T
  };
  std::vector<std::vector<Entry>> by_problem;
  for (const auto& [problem, unused] : input.problems) {
    std::vector<Entry> entries;
    for (size_t m = 0; m < methods.size(); ++m) {
      auto it = normed[methods[m]].find(problem);
      if (it == normed[methods[m]].end() || it->second.empty()) continue;
      Entry e{static_cast<int>(m), static_cast<uint32_t>(it->second.size()), {}};
      for (const auto& curve : it->second) e.flat.insert(e.flat.end(), curve.begin(), curve.end());
      entries.push_back(std::move(e));
    }
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
    std::vector<std::vector<double>> means;
    std::vector<std::pair<double, int>> order;
    for (size_t p = next_problem++; p < P; p = next_problem++) {
      internal::Xoshiro rng = internal::Xoshiro::ForReplicate(seed, p);
      for (int rep = 0; rep < bootstrap_replicates; ++rep) {
        const std::vector<Entry>& entries = by_problem[p];
        means.assign(entries.size(), std::vector<double>(T));
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
          // Sum the picked curves eight batches at a time in local accumulators (kept in
          // registers: no store-to-load chain through memory per pick).
          const double* flat = en.flat.data();
          for (int t0 = 0; t0 < T; t0 += 8) {
            double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            if (T - t0 >= 8) {
              // Named locals: GCC keeps these in registers, an array it leaves on the stack.
              double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
              for (uint32_t i : picks) {
                const double* row = flat + static_cast<size_t>(i) * T + t0;
                a0 += row[0];
                a1 += row[1];
                a2 += row[2];
                a3 += row[3];
                a4 += row[4];
                a5 += row[5];
                a6 += row[6];
                a7 += row[7];
              }
              a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3, a[4] = a4, a[5] = a5, a[6] = a6,
              a[7] = a7;
            } else {
              for (uint32_t i : picks) {
                const double* row = flat + static_cast<size_t>(i) * T + t0;
                for (int j = 0; j < T - t0; ++j) a[j] += row[j];
              }
            }
            for (int j = 0; j < 8 && t0 + j < T; ++j) means[e][t0 + j] = a[j] / en.trials;
          }
        }
        for (int t = 0; t < T; ++t) {
          order.clear();
          for (size_t e = 0; e < entries.size(); ++e) order.push_back({means[e][t], static_cast<int>(e)});
          std::sort(order.begin(), order.end());
          // Ties share the average rank: positions i..j-1 (0-based) get 2 (rank - 1) = i + j - 1.
          for (size_t i = 0; i < order.size();) {
            size_t j = i;
            while (j < order.size() && order[j].first == order[i].first) ++j;
            for (size_t x = i; x < j; ++x) {
              twice_rank[index(p, entries[order[x].second].method, t)] +=
                  static_cast<int64_t>(i + j - 1);
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
