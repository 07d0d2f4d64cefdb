#include "scoring/bootstrap.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "scoring/internal/resample.h"
#include "scoring/internal/rng.h"

namespace bbo::scoring {
namespace {

// The clipped normalized performance at the last batch of each trial: per method, per problem.
using TrialScores = std::vector<std::vector<std::vector<double>>>;

using internal::SplitMix;
using internal::Xoshiro;

// More trials than 16-bit indices can address (not a realistic competition; kept correct).
double LargeResampledSum(Xoshiro& rng, const double* x, uint32_t n) {
  double s = 0;
  for (uint32_t k = 0; k < n; ++k) s += x[rng.Below(n)];
  return s;
}

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
  // Replicates are processed in blocks: for each (method, problem) the block's replicates draw
  // one after the other while that method's trial scores sit in L1 (all of them together do not
  // fit in L2). Every replicate keeps its own generators and draws in the same (method, problem)
  // order as if it ran alone, so the result does not depend on the blocking or on threads.
  constexpr int kBlock = 64;
  auto run = [&](int begin, int end) {
    std::vector<double> score(static_cast<size_t>(kBlock) * M);
    std::vector<int> order(M);
    std::vector<internal::Xoshiro4> draws;
    std::vector<Xoshiro> tie_breaks;
    for (int first = begin; first < end; first += kBlock) {
      const int R = std::min(kBlock, end - first);
      draws.clear();
      tie_breaks.clear();
      for (int r = 0; r < R; ++r) {
        // Replicate i's own streams: one for the resampling, one for breaking ties.
        const uint64_t replicate_seed =
            SplitMix(options.seed ^ SplitMix(static_cast<uint64_t>(first + r)));
        draws.emplace_back(replicate_seed);
        tie_breaks.emplace_back(replicate_seed ^ 0x5851f42d4c957f2dULL);
      }
      std::fill(score.begin(), score.end(), 0.0);
      for (int m = 0; m < M; ++m) {
        for (const auto& trials : scores[m]) {
          const uint32_t n_trials = static_cast<uint32_t>(trials.size());
          for (int r = 0; r < R; ++r) {
            const double s = n_trials <= 65535
                                 ? internal::ResampledSum(draws[r], trials.data(), n_trials)
                                 : LargeResampledSum(tie_breaks[r], trials.data(), n_trials);
            score[static_cast<size_t>(r) * M + m] += s / static_cast<double>(n_trials);
          }
        }
      }
      for (int r = 0; r < R; ++r) {
        double* sc = score.data() + static_cast<size_t>(r) * M;
        for (int m = 0; m < M; ++m) {
          sc[m] /= static_cast<double>(scores[m].size());  // mean-perf: lower is better
        }
        // Ties (frequent with few trials) are broken at random, not in favour of the first
        // method.
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), tie_breaks[r]);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return sc[a] < sc[b]; });
        const size_t i = static_cast<size_t>(first + r);
        for (int k = 0; k < M; ++k) ranks[i * M + order[k]] = k;
      }
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
