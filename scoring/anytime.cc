#include "scoring/anytime.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace bbo::scoring {
namespace {

// Average ranks (1-based, ties share the mean rank) of `v`, lower is better.
std::vector<double> AverageRanks(const std::vector<double>& v) {
  const size_t k = v.size();
  std::vector<size_t> order(k);
  for (size_t i = 0; i < k; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(k);
  for (size_t i = 0; i < k;) {
    size_t j = i;
    while (j < k && v[order[j]] == v[order[i]]) ++j;
    const double avg = (i + 1 + j) / 2.0;
    for (size_t x = i; x < j; ++x) ranks[order[x]] = avg;
    i = j;
  }
  return ranks;
}

}  // namespace

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
  // Bootstrap average fractional rank.
  std::vector<std::string> methods;
  for (const auto& [m, unused] : normed) methods.push_back(m);
  std::map<std::string, std::vector<double>> sum, counts;
  for (const auto& m : methods) {
    sum[m].assign(T, 0);
    counts[m].assign(T, 0);
  }
  std::mt19937_64 rng(seed);
  for (int rep = 0; rep < bootstrap_replicates; ++rep) {
    for (const auto& [problem, unused] : input.problems) {
      // Methods with trials on this problem, and their resampled trial indices.
      std::vector<const std::vector<std::vector<double>>*> curves;
      std::vector<std::string> present;
      for (const auto& m : methods) {
        auto it = normed[m].find(problem);
        if (it == normed[m].end() || it->second.empty()) continue;
        curves.push_back(&it->second);
        present.push_back(m);
      }
      if (present.size() < 2) continue;
      std::vector<std::vector<size_t>> picks;
      for (const auto* c : curves) {
        std::uniform_int_distribution<size_t> pick(0, c->size() - 1);
        std::vector<size_t> idx(c->size());
        for (size_t& i : idx) i = rep == 0 ? &i - idx.data() : pick(rng);  // replicate 0: data
        picks.push_back(std::move(idx));
      }
      for (int t = 0; t < T; ++t) {
        std::vector<double> means;
        for (size_t m = 0; m < curves.size(); ++m) {
          double s = 0;
          for (size_t i : picks[m]) s += (*curves[m])[i][t];
          means.push_back(s / static_cast<double>(picks[m].size()));
        }
        std::vector<double> ranks = AverageRanks(means);
        for (size_t m = 0; m < present.size(); ++m) {
          sum[present[m]][t] += (ranks[m] - 1) / static_cast<double>(present.size() - 1);
          counts[present[m]][t] += 1;
        }
      }
    }
  }
  for (const auto& m : methods) {
    std::vector<double> v(T, NAN);
    for (int t = 0; t < T; ++t) {
      if (counts[m][t] > 0) v[t] = sum[m][t] / counts[m][t];
    }
    out.avg_fractional_rank[m] = v;
  }
  return out;
}

}  // namespace bbo::scoring
