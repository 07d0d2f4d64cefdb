#include "scoring/bootstrap.h"

#include <algorithm>
#include <atomic>
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

// Each non-baseline method's trial scores, in leaderboard order; its name goes to `methods`. On
// a raced board only the trials that ran the last batch have a score there (TrialCurve::horizon),
// and a problem where none did is left out of the method's mean, as on the leaderboard.
TrialScores CollectScores(const Leaderboard& board, const ScoringInput& input,
                          std::vector<std::string>* methods) {
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
        if (BatchesRun(c, input.n_batches) < input.n_batches) continue;
        std::vector<double> s = BestSoFar(c);
        trials.push_back(std::clamp((s.back() - b.opt) / (b.clip - b.opt), -1.0, 1.0));
      }
      if (!trials.empty()) per_problem.push_back(std::move(trials));
    }
    if (per_problem.empty()) continue;
    methods->push_back(r.method);
    scores.push_back(std::move(per_problem));
  }
  return scores;
}

// Replicates are processed in blocks: for each (method, problem) the block's replicates draw
// one after the other while that method's trial scores sit in L1 (all of them together do not
// fit in L2). Every replicate keeps its own generators and draws in the same (method, problem)
// order as if it ran alone, so the result does not depend on the blocking or on threads.
constexpr int kBlock = 64;

// Ranks the replicates of one thread; not thread-safe (one per thread).
class BlockRanker {
 public:
  BlockRanker(const TrialScores& scores, uint64_t seed)
      : scores_(scores),
        seed_(seed),
        M_(static_cast<int>(scores.size())),
        score_(static_cast<size_t>(kBlock) * M_),
        order_(M_) {}

  // ranks[i * M + m] = rank (0-based) of method m in replicate i, for i in [begin, end).
  void Rank(int begin, int end, std::vector<int>* ranks) {
    for (int first = begin; first < end; first += kBlock) {
      const int R = std::min(kBlock, end - first);
      SeedBlock(first, R);
      SumScores(R);
      for (int r = 0; r < R; ++r) RankReplicate(r, static_cast<size_t>(first + r), ranks);
    }
  }

 private:
  void SeedBlock(int first, int R) {
    draws_.clear();
    tie_breaks_.clear();
    for (int r = 0; r < R; ++r) {
      // Replicate i's own streams: one for the resampling, one for breaking ties.
      const uint64_t replicate_seed = SplitMix(seed_ ^ SplitMix(static_cast<uint64_t>(first + r)));
      draws_.emplace_back(replicate_seed);
      tie_breaks_.emplace_back(replicate_seed ^ 0x5851f42d4c957f2dULL);
    }
  }

  // score_[r * M + m]: the sum over method m's problems of its resampled mean score.
  void SumScores(int R) {
    std::fill(score_.begin(), score_.end(), 0.0);
    for (int m = 0; m < M_; ++m) {
      for (const auto& trials : scores_[m]) {
        const uint32_t n_trials = static_cast<uint32_t>(trials.size());
        for (int r = 0; r < R; ++r) {
          const double s = n_trials <= 65535
                               ? internal::ResampledSum(draws_[r], trials.data(), n_trials)
                               : LargeResampledSum(tie_breaks_[r], trials.data(), n_trials);
          score_[static_cast<size_t>(r) * M_ + m] += s / static_cast<double>(n_trials);
        }
      }
    }
  }

  void RankReplicate(int r, size_t i, std::vector<int>* ranks) {
    double* sc = score_.data() + static_cast<size_t>(r) * M_;
    for (int m = 0; m < M_; ++m) {
      sc[m] /= static_cast<double>(scores_[m].size());  // mean-perf: lower is better
    }
    // Ties (frequent with few trials) are broken at random, not in favour of the first
    // method.
    std::iota(order_.begin(), order_.end(), 0);
    std::shuffle(order_.begin(), order_.end(), tie_breaks_[r]);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return sc[a] < sc[b]; });
    for (int k = 0; k < M_; ++k) (*ranks)[i * M_ + order_[k]] = k;
  }

  const TrialScores& scores_;
  const uint64_t seed_;
  const int M_;
  std::vector<double> score_;
  std::vector<int> order_;
  std::vector<internal::Xoshiro4> draws_;
  std::vector<Xoshiro> tie_breaks_;
};

// ranks[i * M + m] = rank (0-based) of method m in replicate i, over `options.threads`. The
// threads take blocks of kBlock replicates as they finish the previous one (not fixed halves):
// a core shared with other work (the report fits the Plackett-Luce ranking beside the
// bootstrap) then takes fewer blocks instead of holding up the rest.
std::vector<int> ReplicateRanks(const TrialScores& scores, const BootstrapOptions& options) {
  const int M = static_cast<int>(scores.size());
  const int B = options.replicates;
  std::vector<int> ranks(static_cast<size_t>(B) * M);
  std::atomic<int> next{0};
  auto run = [&] {
    BlockRanker ranker(scores, options.seed);
    for (int first; (first = next.fetch_add(kBlock)) < B;) {
      ranker.Rank(first, std::min(B, first + kBlock), &ranks);
    }
  };
  int threads = options.threads > 0 ? options.threads
                                    : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, (B + kBlock - 1) / kBlock);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& th : pool) th.join();
  return ranks;
}

// Fills out->rank_counts and out->p_top_k; returns how often each top-k order occurred.
std::map<std::vector<int>, int> CountRanks(const std::vector<int>& ranks, int B, int M, int k,
                                           BootstrapResult* out) {
  out->rank_counts.assign(M, std::vector<int>(M, 0));
  std::map<std::vector<int>, int> top_orders;
  for (int i = 0; i < B; ++i) {
    std::vector<int> top(k);
    for (int m = 0; m < M; ++m) {
      int r = ranks[static_cast<size_t>(i) * M + m];
      out->rank_counts[m][r]++;
      if (r < k) top[r] = m;
    }
    top_orders[top]++;
  }
  for (int m = 0; m < M; ++m) {
    int in_top = 0;
    for (int r = 0; r < k; ++r) in_top += out->rank_counts[m][r];
    out->p_top_k.push_back(static_cast<double>(in_top) / B);
  }
  return top_orders;
}

// Fills out->top_rankings with the `top_rankings` most frequent top-k orders.
void AddTopRankings(const std::map<std::vector<int>, int>& top_orders, int B, int top_rankings,
                    BootstrapResult* out) {
  std::vector<std::pair<int, std::vector<int>>> freq;
  for (auto& [order, count] : top_orders) freq.push_back({count, order});
  std::stable_sort(freq.begin(), freq.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int i = 0; i < static_cast<int>(freq.size()) && i < top_rankings; ++i) {
    std::vector<std::string> names;
    for (int m : freq[i].second) names.push_back(out->methods[m]);
    out->top_rankings.push_back({names, static_cast<double>(freq[i].first) / B});
  }
}

}  // namespace

absl::StatusOr<BootstrapResult> BootstrapRanks(const Leaderboard& board, const ScoringInput& input,
                                               const BootstrapOptions& options) {
  if (options.replicates < 1) return absl::InvalidArgumentError("replicates: must be >= 1");
  if (options.top_k < 1) return absl::InvalidArgumentError("top_k: must be >= 1");
  BootstrapResult out;
  const TrialScores scores = CollectScores(board, input, &out.methods);
  if (out.methods.empty()) return absl::InvalidArgumentError("board: no methods to rank");
  const int M = static_cast<int>(out.methods.size());
  const int B = options.replicates;
  const int k = std::min(options.top_k, M);
  const std::vector<int> ranks = ReplicateRanks(scores, options);
  out.replicates = B;
  const std::map<std::vector<int>, int> top_orders = CountRanks(ranks, B, M, k, &out);
  AddTopRankings(top_orders, B, options.top_rankings, &out);
  return out;
}

}  // namespace bbo::scoring
