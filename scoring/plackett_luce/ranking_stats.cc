#include "scoring/plackett_luce/ranking_stats.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "scoring/plackett_luce/internal/random.h"
#include "scoring/plackett_luce/internal/parallel.h"

namespace bbo::scoring::pl {
namespace {

using Mask = std::vector<uint64_t>;

// Accumulates stage sets in first-seen order (so sampling is reproducible across processes:
// absl's hash seed changes per process, the insertion order does not).
class StageAccumulator {
 public:
  explicit StageAccumulator(int n) : n_(n) {}
  void Add(const Mask& m, double w) {
    auto [it, inserted] = index_.try_emplace(m, static_cast<int>(weights_.size()));
    if (inserted) {
      masks_.push_back(m);
      weights_.push_back(0);
    }
    weights_[it->second] += w;
  }
  size_t size() const { return masks_.size(); }
  const Mask& mask(size_t k) const { return masks_[k]; }
  double weight(size_t k) const { return weights_[k]; }
  std::vector<StageSet> Take() const {
    std::vector<StageSet> out(masks_.size());
    for (size_t s = 0; s < masks_.size(); ++s) {
      for (int i = 0; i < n_; ++i) {
        if (masks_[s][i / 64] >> (i % 64) & 1) out[s].members.push_back(i);
      }
      out[s].weight = weights_[s];
    }
    return out;
  }

 private:
  int n_;
  absl::flat_hash_map<Mask, int> index_;
  std::vector<Mask> masks_;
  std::vector<double> weights_;
};

void Set(Mask& m, int i) { m[i / 64] |= uint64_t{1} << (i % 64); }
void Clear(Mask& m, int i) { m[i / 64] &= ~(uint64_t{1} << (i % 64)); }

double Binomial(int k, int s) {
  double c = 1;
  for (int j = 1; j <= s; ++j) c = c * (k - s + j) / j;
  return c;
}

absl::Status CheckRanking(const Ranking& r, int n, int T, size_t index) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("rankings[", index, "]: ", why));
  };
  if (r.timepoint < 0 || r.timepoint >= T) return bad("timepoint out of range");
  if (r.order.size() != r.group.size()) return bad("order and group differ in length");
  if (!(r.weight > 0) || !std::isfinite(r.weight)) return bad("weight must be > 0 and finite");
  std::vector<bool> seen(n, false);
  for (size_t k = 0; k < r.order.size(); ++k) {
    const int i = r.order[k];
    if (i < 0 || i >= n) return bad("method index out of range");
    if (seen[i]) return bad("method listed twice");
    seen[i] = true;
    if (k == 0 ? r.group[k] != 0
               : (r.group[k] != r.group[k - 1] && r.group[k] != r.group[k - 1] + 1)) {
      return bad("group must start at 0 and grow by 0 or 1");
    }
  }
  return absl::OkStatus();
}

// Strict-prefix stages as chains keyed by the full ordering, in first-seen order.
class ChainAccumulator {
 public:
  // Adds w to stages 0 .. stages - 1 of the chain of `order`.
  void Add(const std::vector<int>& order, size_t stages, double w) {
    auto [it, inserted] = index_.try_emplace(order, static_cast<int>(chains_.size()));
    if (inserted) chains_.push_back(StageChain{order, std::vector<double>(order.size() - 1, 0.0)});
    for (size_t k = 0; k < stages; ++k) chains_[it->second].weights[k] += w;
  }
  const std::vector<StageChain>& chains() const { return chains_; }

 private:
  absl::flat_hash_map<std::vector<int>, int> index_;
  std::vector<StageChain> chains_;
};

// StageForm::kAuto weighs the sets form against the chains only up to this many methods.
constexpr int kMaxSetsMethods = 20;

// Sampling cost estimates in units of one addition; a gamma variate costs about this many.
constexpr double kVariateCost = 8;

absl::Status CheckStatsOptions(const StatsOptions& ties) {
  if (ties.max_exact_tie < 1 || ties.max_exact_tie > 20) {
    return absl::InvalidArgumentError("ties.max_exact_tie: must be in [1, 20]");
  }
  if (ties.sampled_orderings < 1) {
    return absl::InvalidArgumentError("ties.sampled_orderings: must be >= 1");
  }
  if (ties.max_sampled_orderings < 1) {
    return absl::InvalidArgumentError("ties.max_sampled_orderings: must be >= 1");
  }
  return absl::OkStatus();
}

// A tie group G with the methods R ranked after it. A group's expansion depends only on (G, R):
// configurations are collected per timepoint with their total weight and count, and expanded
// once each.
struct TieConfig {
  std::vector<int> group;  // G, in ranking order
  Mask rest;               // R
  int rest_size = 0;
  double weight = 0;
  int count = 0;
};

// What the rankings of one timepoint contribute, before the ties are expanded.
struct Timepoint {
  explicit Timepoint(int n) : sets(n), strict(n) {}

  StageAccumulator sets;    // stages after the first tie
  StageAccumulator strict;  // the strict-prefix stages, as sets
  ChainAccumulator chains;  // the strict-prefix stages, as chains
  std::vector<TieConfig> configs;
  absl::flat_hash_map<Mask, int> config_index;

  // Adds weight w to the configuration of tie group G = order[k, end) with `rest` after it.
  void AddTie(const std::vector<int>& order, size_t k, size_t end, const Mask& rest,
              int rest_size, const Mask& key, double w) {
    auto [it, inserted] = config_index.try_emplace(key, static_cast<int>(configs.size()));
    if (inserted) {
      TieConfig c;
      c.group.assign(order.begin() + k, order.begin() + end);
      c.rest = rest;
      c.rest_size = rest_size;
      configs.push_back(std::move(c));
    }
    configs[it->second].weight += w;
    configs[it->second].count += 1;
  }
};

// Adds ranking r's stages to its timepoint (`remaining` and `key`: scratch masks of `words`).
void AddRanking(const Ranking& r, int words, StageForm form, Timepoint* tp, PlStats* st,
                Mask& remaining, Mask& key) {
  const double w = r.weight;
  st->total_weight += w;
  std::fill(remaining.begin(), remaining.end(), 0);
  for (int i : r.order) Set(remaining, i);
  int left = static_cast<int>(r.order.size());
  // Singleton stages before the first tie (the strict prefix) may become a chain; the others are
  // stage sets.
  bool in_prefix = true;
  size_t prefix_stages = 0;
  for (size_t k = 0; k < r.order.size();) {
    size_t end = k;
    while (end < r.order.size() && r.group[end] == r.group[k]) ++end;
    const int gk = static_cast<int>(end - k);
    if (gk == 1) {
      if (left >= 2) {
        if (in_prefix) {
          if (form != StageForm::kChains) tp->strict.Add(remaining, w);
          ++prefix_stages;
        } else {
          tp->sets.Add(remaining, w);
        }
        st->wins[r.order[k]] += w;
      }
      Clear(remaining, r.order[k]);
    } else {
      in_prefix = false;
      // Key: G's mask followed by R's mask.
      key.assign(2 * words, 0);
      for (size_t j = k; j < end; ++j) {
        Set(key, r.order[j]);
        Clear(remaining, r.order[j]);
      }
      std::copy(remaining.begin(), remaining.end(), key.begin() + words);
      tp->AddTie(r.order, k, end, remaining, left - gk, key, w);
    }
    left -= gk;
    k = end;
  }
  if (form != StageForm::kSets && prefix_stages > 0) tp->chains.Add(r.order, prefix_stages, w);
}

// Expands a small tie exactly: every subset S of G (with R) is a stage of weight w / C(|G|, |S|).
void ExpandTieExactly(const TieConfig& c, StageAccumulator& a, PlStats& st, Mask& m) {
  const std::vector<int>& g = c.group;
  const int gk = static_cast<int>(g.size());
  const double w = c.weight;
  for (uint32_t sub = 1; sub < (uint32_t{1} << gk); ++sub) {
    const int s = __builtin_popcount(sub);
    if (s + c.rest_size < 2) continue;
    m = c.rest;
    for (int j = 0; j < gk; ++j) {
      if (sub >> j & 1) Set(m, g[j]);
    }
    a.Add(m, w / Binomial(gk, s));
  }
  const double won = c.rest_size > 0 ? w : w * (gk - 1) / gk;
  for (int i : g) st.wins[i] += won;
}

// Expands a large tie by sampling orderings of G from the stream (seed, t, ci).
void ExpandTieBySampling(const TieConfig& c, const StatsOptions& ties, int t, size_t ci,
                         StageAccumulator& a, PlStats& st, Mask& m) {
  const int gk = static_cast<int>(c.group.size());
  const int64_t draws = std::min<int64_t>(int64_t{ties.sampled_orderings} * c.count,
                                          ties.max_sampled_orderings);
  const double wm = c.weight / static_cast<double>(draws);
  std::mt19937_64 rng = internal::Stream(ties.seed, t, ci);
  std::vector<int> perm = c.group;
  for (int64_t o = 0; o < draws; ++o) {
    std::shuffle(perm.begin(), perm.end(), rng);
    m = c.rest;
    for (int i : perm) Set(m, i);
    int size = gk + c.rest_size;
    for (int i : perm) {
      if (size < 2) break;
      a.Add(m, wm);
      st.wins[i] += wm;
      Clear(m, i);
      --size;
    }
  }
}

// Whether the strict-prefix stages are cheaper to sample as chains than as sets.
bool UseChains(StageForm form, const Timepoint& tp) {
  double set_cost = 0, chain_cost = 0;
  for (size_t k = 0; k < tp.strict.size(); ++k) {
    int members = 0;
    for (uint64_t word : tp.strict.mask(k)) members += __builtin_popcountll(word);
    set_cost += members + kVariateCost;
  }
  for (const StageChain& c : tp.chains.chains()) {
    chain_cost += 2.0 * c.order.size();
    for (double w : c.weights) chain_cost += w > 0 ? kVariateCost : 0;
  }
  return form == StageForm::kChains || (form == StageForm::kAuto && chain_cost < set_cost);
}

// Expands timepoint t's ties and fills st's stage sets and chains.
void FinishTimepoint(const StatsOptions& ties, int t, Timepoint& tp, PlStats& st, Mask& m) {
  StageAccumulator& a = tp.sets;
  for (size_t ci = 0; ci < tp.configs.size(); ++ci) {
    const TieConfig& c = tp.configs[ci];
    if (static_cast<int>(c.group.size()) <= ties.max_exact_tie) {
      ExpandTieExactly(c, a, st, m);
    } else {
      ExpandTieBySampling(c, ties, t, ci, a, st, m);
    }
  }
  // The strict-prefix stages: as sets or as chains, whichever is cheaper to sample.
  if (UseChains(ties.stage_form, tp)) {
    st.chains = tp.chains.chains();
  } else {
    for (size_t k = 0; k < tp.strict.size(); ++k) a.Add(tp.strict.mask(k), tp.strict.weight(k));
  }
  st.stages = a.Take();
}

}  // namespace

absl::StatusOr<std::vector<PlStats>> ComputePlStats(const RankingSet& set,
                                                    const StatsOptions& ties) {
  if (absl::Status s = CheckStatsOptions(ties); !s.ok()) return s;
  const int n = set.n(), T = set.T();
  const int words = (n + 63) / 64;
  std::vector<Timepoint> timepoints(T, Timepoint(n));
  std::vector<PlStats> out(T);
  for (PlStats& s : out) {
    s.n_methods = n;
    s.wins.assign(n, 0);
  }
  // Beyond kMaxSetsMethods methods, identical stage sets are too rare for the sets form to beat
  // the chains (merged over identical orderings, at O(m) per chain against O(m^2) for its
  // sets): the sets are then not accumulated at all.
  const StageForm form = ties.stage_form == StageForm::kAuto && n > kMaxSetsMethods
                             ? StageForm::kChains
                             : ties.stage_form;
  // Checked first, in order (the first bad ranking is named); then each timepoint's rankings, in
  // their order, on its own thread (timepoints share nothing).
  std::vector<std::vector<size_t>> of_t(T);
  for (size_t ri = 0; ri < set.rankings.size(); ++ri) {
    const Ranking& r = set.rankings[ri];
    if (absl::Status s = CheckRanking(r, n, T, ri); !s.ok()) return s;
    of_t[r.timepoint].push_back(ri);
  }
  StatsOptions finish = ties;
  finish.stage_form = form;
  internal::ParallelFor(T, 0, [&](int t) {
    Mask remaining(words), key(words), m(words);
    for (size_t ri : of_t[t]) {
      AddRanking(set.rankings[ri], words, form, &timepoints[t], &out[t], remaining, key);
    }
    FinishTimepoint(finish, t, timepoints[t], out[t], m);
    timepoints[t] = Timepoint(0);  // its accumulators are no longer needed
  });
  return out;
}

namespace {

double LogSumExp(const std::vector<int>& members, const std::vector<double>& x) {
  double mx = -INFINITY;
  for (int i : members) mx = std::max(mx, x[i]);
  if (!std::isfinite(mx)) return mx;
  double s = 0;
  for (int i : members) s += std::exp(x[i] - mx);
  return mx + std::log(s);
}

}  // namespace

// The suffix sets of a chain as explicit member lists (simple and exact; for the reference
// functions below).
template <typename F>
void ForEachChainStage(const StageChain& c, F&& f) {
  std::vector<int> suffix;
  for (size_t k = 0; k + 1 < c.order.size(); ++k) {
    if (c.weights[k] == 0) continue;
    suffix.assign(c.order.begin() + k, c.order.end());
    f(suffix, c.weights[k]);
  }
}

double PlLogLikelihood(const PlStats& stats, const std::vector<double>& log_lambda) {
  double ll = 0;
  for (int i = 0; i < stats.n_methods; ++i) {
    if (stats.wins[i] != 0) ll += stats.wins[i] * log_lambda[i];
  }
  for (const StageSet& s : stats.stages) ll -= s.weight * LogSumExp(s.members, log_lambda);
  for (const StageChain& c : stats.chains) {
    ForEachChainStage(c, [&](const std::vector<int>& members, double w) {
      ll -= w * LogSumExp(members, log_lambda);
    });
  }
  return ll;
}

std::vector<double> PlLogLikelihoodGradient(const PlStats& stats, const std::vector<double>& mu) {
  std::vector<double> g = stats.wins;
  for (const StageSet& s : stats.stages) {
    const double lse = LogSumExp(s.members, mu);
    for (int i : s.members) g[i] -= s.weight * std::exp(mu[i] - lse);
  }
  for (const StageChain& c : stats.chains) {
    ForEachChainStage(c, [&](const std::vector<int>& members, double w) {
      const double lse = LogSumExp(members, mu);
      for (int i : members) g[i] -= w * std::exp(mu[i] - lse);
    });
  }
  return g;
}

}  // namespace bbo::scoring::pl
