#include "scoring/bootstrap.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "scoring/internal/rng.h"

namespace bbo::scoring {
namespace {

// The clipped normalized performance at the last batch of each trial: per method, per problem.
using TrialScores = std::vector<std::vector<std::vector<double>>>;

using internal::SplitMix;
using internal::Xoshiro;

}  // namespace

absl::StatusOr<BootstrapResult> BootstrapRanks(const Leaderboard& board, const ScoringInput& input,
                                               const BootstrapOptions& options) {
  if (options.replicates < 1) return absl::InvalidArgumentError("replicates: must be >= 1");
  if (options.top_k < 1) return absl::InvalidArgumentError("top_k: must be >= 1");
  BootstrapResult out;
  TrialScores scores;
  for (const MethodResult& r : board.rows) {
    if (r.is_baseline) continue;
    auto mit = input.methods.find(r.method);
    if (mit == input.methods.end()) continue;
    std::vector<std::vector<double>> per_problem;
    for (const ProblemResult& p : r.problems) {
      const ProblemBaseline& b = board.baselines.at(p.problem);
      std::vector<double> trials;
      for (const TrialCurve& c : mit->second.at(p.problem).trials) {
        std::vector<double> s = BestSoFar(c);
        trials.push_back(std::clamp((s.back() - b.opt) / (b.clip - b.opt), -1.0, 1.0));
      }
      per_problem.push_back(std::move(trials));
    }
    out.methods.push_back(r.method);
    scores.push_back(std::move(per_problem));
  }
  if (out.methods.empty()) return absl::InvalidArgumentError("board: no methods to rank");
  const int M = static_cast<int>(out.methods.size());
  const int B = options.replicates;
  const int k = std::min(options.top_k, M);

  // ranks[i * M + m] = rank (0-based) of method m in replicate i.
  std::vector<int> ranks(static_cast<size_t>(B) * M);
  auto run = [&](int begin, int end) {
    std::vector<double> score(M);
    std::vector<int> order(M);
    for (int i = begin; i < end; ++i) {
      Xoshiro rng(SplitMix(options.seed ^ SplitMix(static_cast<uint64_t>(i))));
      for (int m = 0; m < M; ++m) {
        double sum = 0;
        for (const auto& trials : scores[m]) {
          const uint32_t n_trials = static_cast<uint32_t>(trials.size());
          const double* x = trials.data();
          double s = 0;
          if (n_trials <= 65536) {
            // Four 16-bit indices from each 64-bit draw, by Lemire's multiply-shift with
            // rejection: a lane whose low product bits fall below 2^16 mod n is redrawn, so
            // every index is exactly equally likely (rejections: n / 2^16 of lanes at most).
            const uint32_t reject_below = (65536u % n_trials);
            // Four accumulators: one dependent chain of floating-point adds would be the
            // bottleneck otherwise.
            double acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
            uint32_t n = 0;
            while (n < n_trials) {
              const uint64_t r = rng.Next();
              const uint32_t p0 = static_cast<uint32_t>(r & 0xffff) * n_trials;
              const uint32_t p1 = static_cast<uint32_t>((r >> 16) & 0xffff) * n_trials;
              const uint32_t p2 = static_cast<uint32_t>((r >> 32) & 0xffff) * n_trials;
              const uint32_t p3 = static_cast<uint32_t>(r >> 48) * n_trials;
              if (n + 4 <= n_trials && (p0 & 0xffff) >= reject_below &&
                  (p1 & 0xffff) >= reject_below && (p2 & 0xffff) >= reject_below &&
                  (p3 & 0xffff) >= reject_below) {
                acc0 += x[p0 >> 16];
                acc1 += x[p1 >> 16];
                acc2 += x[p2 >> 16];
                acc3 += x[p3 >> 16];
                n += 4;
                continue;
              }
              // Near the end, or a rejected lane: take the accepted lanes one by one.
              for (uint32_t prod : {p0, p1, p2, p3}) {
                if (n == n_trials) break;
                if ((prod & 0xffff) < reject_below) continue;
                acc0 += x[prod >> 16];
                ++n;
              }
            }
            s = (acc0 + acc1) + (acc2 + acc3);
          } else {
            for (uint32_t n = 0; n < n_trials; ++n) s += x[rng.Below(n_trials)];
          }
          sum += s / static_cast<double>(n_trials);
        }
        score[m] = sum / static_cast<double>(scores[m].size());  // mean-perf: lower is better
      }
      // Ties (frequent with few trials) are broken at random, not in favour of the first method.
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return score[a] < score[b]; });
      for (int r = 0; r < M; ++r) ranks[static_cast<size_t>(i) * M + order[r]] = r;
    }
  };
  int threads = options.threads > 0 ? options.threads
                                    : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, B);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back(run, static_cast<int>(static_cast<int64_t>(B) * t / threads),
                      static_cast<int>(static_cast<int64_t>(B) * (t + 1) / threads));
  }
  for (auto& th : pool) th.join();

  out.replicates = B;
  out.rank_counts.assign(M, std::vector<int>(M, 0));
  std::map<std::vector<int>, int> top_orders;
  for (int i = 0; i < B; ++i) {
    std::vector<int> top(k);
    for (int m = 0; m < M; ++m) {
      int r = ranks[static_cast<size_t>(i) * M + m];
      out.rank_counts[m][r]++;
      if (r < k) top[r] = m;
    }
    top_orders[top]++;
  }
  for (int m = 0; m < M; ++m) {
    int in_top = 0;
    for (int r = 0; r < k; ++r) in_top += out.rank_counts[m][r];
    out.p_top_k.push_back(static_cast<double>(in_top) / B);
  }
  std::vector<std::pair<int, std::vector<int>>> freq;
  for (auto& [order, count] : top_orders) freq.push_back({count, order});
  std::stable_sort(freq.begin(), freq.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int i = 0; i < static_cast<int>(freq.size()) && i < options.top_rankings; ++i) {
    std::vector<std::string> names;
    for (int m : freq[i].second) names.push_back(out.methods[m]);
    out.top_rankings.push_back({names, static_cast<double>(freq[i].first) / B});
  }
  return out;
}

}  // namespace bbo::scoring
