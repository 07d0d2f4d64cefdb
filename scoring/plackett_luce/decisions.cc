#include "scoring/plackett_luce/decisions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scoring/plackett_luce/internal/parallel.h"

namespace bbo::scoring::pl {

bool PairDecision::resolved() const {
  return std::all_of(resolved_at.begin(), resolved_at.end(), [](bool r) { return r; });
}

const PairDecision* Decisions::Pair(int a, int b) const {
  if (a > b) std::swap(a, b);
  for (const PairDecision& p : pairs) {
    if (p.a == a && p.b == b) return &p;
  }
  return nullptr;
}

namespace {

// The draws method by method: Row(t, i)[s] = theta_i of draw s at timepoint t, contiguous, so a
// pair's comparison reads two rows instead of two values of every draw.
class MethodMajor {
 public:
  explicit MethodMajor(const RatingPosterior& post)
      : n_(post.n()), S_(post.S()), v_(static_cast<size_t>(post.T()) * n_ * S_) {
    for (int t = 0; t < post.T(); ++t) {
      for (int s = 0; s < S_; ++s) {
        const double* th = post.Draw(t, s);
        for (int i = 0; i < n_; ++i) v_[(static_cast<size_t>(t) * n_ + i) * S_ + s] = th[i];
      }
    }
  }
  const double* Row(int t, int i) const {
    return v_.data() + (static_cast<size_t>(t) * n_ + i) * S_;
  }

 private:
  int n_, S_;
  std::vector<double> v_;
};

PairDecision ComparePair(const RatingPosterior& post, const MethodMajor& rows, int a, int b,
                         const DecisionOptions& o) {
  const int T = post.T(), S = post.S();
  PairDecision d;
  d.a = a;
  d.b = b;
  d.p_a_better.resize(T);
  d.p_equivalent.resize(T);
  d.relation.resize(T);
  std::vector<uint8_t> a_all(S, 1), b_all(S, 1);
  const double lo = 0.5 - o.epsilon, hi = 0.5 + o.epsilon;
  for (int t = 0; t < T; ++t) {
    int a_better = 0, b_better = 0, equivalent = 0;
    const double* ra = rows.Row(t, a);
    const double* rb = rows.Row(t, b);
    for (int s = 0; s < S; ++s) {
      const double ta = ra[s], tb = rb[s];
      if (ta > tb) {
        ++a_better;
        b_all[s] = 0;
      } else {
        a_all[s] = 0;
        if (tb > ta) ++b_better;
      }
      const double w = ta / (ta + tb);
      if (w >= lo && w <= hi) ++equivalent;
    }
    d.p_a_better[t] = static_cast<double>(a_better) / S;
    d.p_equivalent[t] = static_cast<double>(equivalent) / S;
    const double p_b = static_cast<double>(b_better) / S;
    if (d.p_a_better[t] >= o.alpha) {
      d.relation[t] = Relation::kFirstDominates;
    } else if (p_b >= o.alpha) {
      d.relation[t] = Relation::kSecondDominates;
    } else if (d.p_equivalent[t] >= o.alpha) {
      d.relation[t] = Relation::kEquivalent;
    } else {
      d.relation[t] = Relation::kUnresolved;
    }
  }
  int ja = 0, jb = 0;
  for (int s = 0; s < S; ++s) {
    ja += a_all[s];
    jb += b_all[s];
  }
  d.p_a_dominates = static_cast<double>(ja) / S;
  d.p_b_dominates = static_cast<double>(jb) / S;
  bool a_strict = false, b_strict = false, a_weak = false, b_weak = false;
  for (Relation r : d.relation) {
    a_strict |= r == Relation::kFirstDominates;
    b_strict |= r == Relation::kSecondDominates;
    a_weak |= r == Relation::kFirstDominates || r == Relation::kEquivalent;
    b_weak |= r == Relation::kSecondDominates || r == Relation::kEquivalent;
  }
  d.crossing = (a_strict && b_weak) || (b_strict && a_weak);
  d.resolved_at.resize(T);
  for (int t = 0; t < T; ++t) d.resolved_at[t] = d.relation[t] != Relation::kUnresolved;
  if (o.resolution == Resolution::kCrossing && d.crossing) {
    std::fill(d.resolved_at.begin(), d.resolved_at.end(), true);
  }
  return d;
}

// How strongly `winner` eliminates `loser` in the pair, or -1 if it does not (eqs. 27-28).
double EliminationStrength(const PairDecision& d, int winner, const DecisionOptions& o) {
  const bool first = winner == d.a;
  if (o.elimination == Elimination::kJoint) {
    const double p = first ? d.p_a_dominates : d.p_b_dominates;
    return p >= o.alpha ? p : -1;
  }
  const Relation want = first ? Relation::kFirstDominates : Relation::kSecondDominates;
  double weakest = 1;
  for (size_t t = 0; t < d.relation.size(); ++t) {
    if (d.relation[t] != want) return -1;
    weakest = std::min(weakest, first ? d.p_a_better[t] : 1 - d.p_a_better[t]);
  }
  return weakest;
}

absl::Status ValidateInputs(const RatingPosterior& post, const DecisionOptions& o) {
  if (!(o.alpha > 0.5 && o.alpha <= 1)) {
    return absl::InvalidArgumentError("alpha: must be in (0.5, 1]");
  }
  if (!(o.epsilon >= 0 && o.epsilon < 0.5)) {
    return absl::InvalidArgumentError("epsilon: must be in [0, 0.5)");
  }
  if (o.elimination == Elimination::kJoint && !post.joint_over_time) {
    return absl::InvalidArgumentError(
        "options.elimination: joint elimination needs draws that are joint over time");
  }
  if (post.S() < 1) return absl::InvalidArgumentError("posterior: no draws");
  return absl::OkStatus();
}

// Sorts the candidates (all n methods if empty) and checks that they are distinct indices.
absl::Status NormalizeCandidates(int n, std::vector<int>* candidates) {
  if (candidates->empty()) {
    for (int i = 0; i < n; ++i) candidates->push_back(i);
  }
  std::sort(candidates->begin(), candidates->end());
  for (size_t k = 0; k < candidates->size(); ++k) {
    if ((*candidates)[k] < 0 || (*candidates)[k] >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("candidates: index ", (*candidates)[k], " out of range"));
    }
    if (k > 0 && (*candidates)[k] == (*candidates)[k - 1]) {
      return absl::InvalidArgumentError("candidates: repeated index");
    }
  }
  return absl::OkStatus();
}

// Simultaneous elimination against the whole candidate set: each method is dominated by the
// method that eliminates it most strongly; a pair with an eliminated method is resolved.
void Eliminate(const DecisionOptions& o, int n, Decisions* out) {
  out->dominated_by.assign(n, -1);
  std::vector<double> strength(n, -1);
  for (const PairDecision& d : out->pairs) {
    const double sa = EliminationStrength(d, d.a, o), sb = EliminationStrength(d, d.b, o);
    if (sa > strength[d.b]) {
      strength[d.b] = sa;
      out->dominated_by[d.b] = d.a;
    }
    if (sb > strength[d.a]) {
      strength[d.a] = sb;
      out->dominated_by[d.a] = d.b;
    }
  }
  for (int i : out->candidates) {
    if (out->dominated_by[i] < 0) out->pareto_set.push_back(i);
  }
  for (PairDecision& d : out->pairs) {
    if (out->dominated_by[d.a] >= 0 || out->dominated_by[d.b] >= 0) {
      std::fill(d.resolved_at.begin(), d.resolved_at.end(), true);
    }
  }
}

// A candidate is resolved when all its pairs are; tau is the last batch at which one is not.
void MarkResolved(int n, int T, Decisions* out) {
  out->resolved.assign(n, false);
  out->tau.assign(n, -1);
  for (int i : out->candidates) out->resolved[i] = true;
  for (const PairDecision& d : out->pairs) {
    for (int t = 0; t < T; ++t) {
      if (d.resolved_at[t]) continue;
      out->resolved[d.a] = out->resolved[d.b] = false;
      out->tau[d.a] = std::max(out->tau[d.a], t);
      out->tau[d.b] = std::max(out->tau[d.b], t);
    }
  }
}

// Pareto membership per joint draw: the fraction of draws in which no other candidate rates
// higher at every batch.
void ParetoProbabilities(const RatingPosterior& post, Decisions* out) {
  const int n = post.n(), T = post.T(), S = post.S();
  const std::vector<int>& candidates = out->candidates;
  const int m = static_cast<int>(candidates.size());
  out->p_pareto.assign(n, 0);
  // Draws are independent: counted on every core, one flag per draw and candidate.
  std::vector<uint8_t> non_dominated_in(static_cast<size_t>(S) * m, 0);
  internal::ParallelFor(S, 0, [&](int s) {
    for (int x = 0; x < m; ++x) {
      const int i = candidates[x];
      bool dominated = false;
      for (int y = 0; y < m && !dominated; ++y) {
        const int j = candidates[y];
        if (j == i) continue;
        bool everywhere = true;
        for (int t = 0; t < T && everywhere; ++t)
          everywhere = post.Theta(t, s, j) > post.Theta(t, s, i);
        dominated = everywhere;
      }
      non_dominated_in[static_cast<size_t>(s) * m + x] = !dominated;
    }
  });
  std::vector<int> non_dominated(n, 0);
  for (int s = 0; s < S; ++s) {
    for (int x = 0; x < m; ++x) {
      non_dominated[candidates[x]] += non_dominated_in[static_cast<size_t>(s) * m + x];
    }
  }
  for (int i : candidates) out->p_pareto[i] = static_cast<double>(non_dominated[i]) / S;
}

}  // namespace

absl::StatusOr<Decisions> Decide(const RatingPosterior& post, const DecisionOptions& o,
                                 std::vector<int> candidates) {
  if (absl::Status st = ValidateInputs(post, o); !st.ok()) return st;
  const int n = post.n();
  if (absl::Status st = NormalizeCandidates(n, &candidates); !st.ok()) return st;
  Decisions out;
  out.options = o;
  out.methods = post.methods;
  out.candidates = candidates;
  const int m = static_cast<int>(candidates.size());
  const MethodMajor rows(post);
  std::vector<std::pair<int, int>> pairs;
  for (int x = 0; x < m; ++x) {
    for (int y = x + 1; y < m; ++y) pairs.push_back({candidates[x], candidates[y]});
  }
  // Pairs are independent: compared on every core, kept in order.
  out.pairs.resize(pairs.size());
  internal::ParallelFor(static_cast<int>(pairs.size()), 0, [&](int k) {
    out.pairs[k] = ComparePair(post, rows, pairs[k].first, pairs[k].second, o);
  });
  Eliminate(o, n, &out);
  MarkResolved(n, post.T(), &out);
  ParetoProbabilities(post, &out);
  return out;
}

std::vector<int> PosteriorMeanParetoSet(const RatingPosterior& post) {
  const RatingSummary s = Summarize(post);
  const int n = post.n(), T = post.T();
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    bool dominated = false;
    for (int j = 0; j < n && !dominated; ++j) {
      if (j == i) continue;
      bool everywhere = true;
      for (int t = 0; t < T && everywhere; ++t) everywhere = s.mean[t * n + j] > s.mean[t * n + i];
      dominated = everywhere;
    }
    if (!dominated) out.push_back(i);
  }
  return out;
}

}  // namespace bbo::scoring::pl
