#include "scoring/plackett_luce/racing.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo::scoring::pl {

bool RaceState::Resolved(int a, int b, int t) const {
  if (a > b) std::swap(a, b);
  return resolved[static_cast<size_t>(PairIndex(a, b)) * T + t];
}

namespace {

void MarkPair(RaceState& s, int a, int b) {
  if (a > b) std::swap(a, b);
  const size_t base = static_cast<size_t>(PairIndex(a, b)) * s.T;
  for (int t = 0; t < s.T; ++t) s.resolved[base + t] = true;
}

bool PairResolved(const RaceState& s, int a, int b) {
  for (int t = 0; t < s.T; ++t) {
    if (!s.Resolved(a, b, t)) return false;
  }
  return true;
}

// Fills the runs of `plan` from plan.state: every surviving candidate with an unresolved pair,
// up to its tau; catch-up ranges for late admissions; counts the fresh instances.
void ScheduleRuns(RoundPlan& plan) {
  RaceState& s = plan.state;
  const int n = s.n();
  std::vector<int> tau(n, -1);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (!s.candidate(a) || !s.candidate(b)) continue;
      for (int t = s.T - 1; t >= 0; --t) {
        if (!s.Resolved(a, b, t)) {
          tau[a] = std::max(tau[a], t);
          tau[b] = std::max(tau[b], t);
          break;
        }
      }
    }
  }
  const int b = s.batch_size;
  const int first_new = s.instances_sampled;
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (tau[i] < 0) continue;
    MethodRun r;
    r.method = s.methods[i];
    r.tau = tau[i];
    r.new_instances = true;
    r.new_begin = first_new;
    r.new_end = first_new + b;
    r.cached_begin = s.backfilled[i];
    r.cached_end = std::min(s.first_instance[i], s.backfilled[i] + b);
    s.backfilled[i] = r.cached_end;
    plan.runs.push_back(r);
    any = true;
  }
  plan.stop = !any;
  plan.new_instances = any ? b : 0;
  s.instances_sampled += plan.new_instances;
}

}  // namespace

absl::StatusOr<RaceState> StartRace(const std::vector<std::string>& methods, int T,
                                    const RacingOptions& o) {
  if (o.b_min < 1) return absl::InvalidArgumentError("b_min: must be >= 1");
  if (o.b_max < o.b_min) return absl::InvalidArgumentError("b_max: must be >= b_min");
  if (o.initial_batch < o.b_min || o.initial_batch > o.b_max) {
    return absl::InvalidArgumentError("initial_batch: must be in [b_min, b_max]");
  }
  if (!(o.shrink_fraction > 0 && o.shrink_fraction <= 1)) {
    return absl::InvalidArgumentError("shrink_fraction: must be in (0, 1]");
  }
  if (T < 1) return absl::InvalidArgumentError("T: must be >= 1");
  if (methods.empty()) return absl::InvalidArgumentError("methods: empty");
  std::set<std::string> seen;
  for (const std::string& m : methods) {
    if (m.empty()) return absl::InvalidArgumentError("methods: empty name");
    if (!seen.insert(m).second) {
      return absl::InvalidArgumentError(absl::StrCat("methods: duplicate name ", m));
    }
  }
  RaceState s;
  s.methods = methods;
  s.T = T;
  const int n = s.n();
  s.eliminated_round.assign(n, -1);
  s.eliminated_by.assign(n, "");
  s.resolved.assign(static_cast<size_t>(n) * (n - 1) / 2 * T, false);
  s.batch_size = o.initial_batch;
  s.first_instance.assign(n, 0);
  s.backfilled.assign(n, 0);
  return s;
}

RoundPlan FirstRound(const RaceState& state) {
  RoundPlan plan;
  plan.state = state;
  ScheduleRuns(plan);
  return plan;
}

absl::StatusOr<RoundPlan> PlanNextRound(const RaceState& state, const RatingPosterior& posterior,
                                        const RacingOptions& o) {
  if (posterior.T() != state.T) {
    return absl::InvalidArgumentError("posterior: grid size differs from the race's T");
  }
  RoundPlan plan;
  plan.state = state;
  RaceState& s = plan.state;
  s.round += 1;
  const int n = s.n();
  std::map<std::string, int> post_index;
  for (int i = 0; i < posterior.n(); ++i) post_index[posterior.methods[i]] = i;
  // Race index <-> posterior index of the candidates the posterior knows.
  std::vector<int> to_post(n, -1);
  std::map<int, int> to_race;
  std::vector<int> candidates;
  for (int i = 0; i < n; ++i) {
    auto it = post_index.find(s.methods[i]);
    if (!s.candidate(i) || it == post_index.end()) continue;
    to_post[i] = it->second;
    to_race[it->second] = i;
    candidates.push_back(it->second);
  }
  std::vector<bool> was_unresolved;
  std::vector<std::pair<int, int>> start_pairs;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (!s.candidate(a) || !s.candidate(b)) continue;
      // A pair with a method the posterior does not know yet (admitted this round, no results)
      // cannot be decided this round: it does not count as a pair left undecided.
      if (to_post[a] < 0 || to_post[b] < 0) continue;
      start_pairs.push_back({a, b});
      was_unresolved.push_back(!PairResolved(s, a, b));
      plan.unresolved_pairs_before += was_unresolved.back();
    }
  }
  if (candidates.size() >= 2) {
    ASSIGN_OR_RETURN(Decisions d, Decide(posterior, o.decisions, candidates));
    for (int pi : candidates) {
      if (d.dominated_by[pi] < 0) continue;
      const int i = to_race[pi];
      s.eliminated_round[i] = s.round;
      s.eliminated_by[i] = posterior.methods[d.dominated_by[pi]];
      plan.newly_eliminated.push_back(s.methods[i]);
      plan.eliminated_by.push_back(s.eliminated_by[i]);
    }
    for (const PairDecision& pd : d.pairs) {
      const int a = to_race[pd.a], b = to_race[pd.b];
      const int lo = std::min(a, b), hi = std::max(a, b);
      const size_t base = static_cast<size_t>(PairIndex(lo, hi)) * s.T;
      for (int t = 0; t < s.T; ++t) {
        if (pd.resolved_at[t]) s.resolved[base + t] = true;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (s.candidate(i)) continue;
    for (int j = 0; j < n; ++j) {
      if (j != i) MarkPair(s, i, j);
    }
  }
  for (size_t k = 0; k < start_pairs.size(); ++k) {
    if (was_unresolved[k] && PairResolved(s, start_pairs[k].first, start_pairs[k].second)) {
      ++plan.newly_resolved_pairs;
    }
  }
  if (plan.unresolved_pairs_before > 0) {
    if (plan.newly_resolved_pairs == 0) {
      s.batch_size *= 2;
    } else if (plan.newly_resolved_pairs > o.shrink_fraction * plan.unresolved_pairs_before) {
      s.batch_size /= 2;
    }
    s.batch_size = std::clamp(s.batch_size, o.b_min, o.b_max);
  }
  ScheduleRuns(plan);
  return plan;
}

absl::StatusOr<RaceState> WithdrawMethod(const RaceState& state, const std::string& method) {
  const auto it = std::find(state.methods.begin(), state.methods.end(), method);
  if (it == state.methods.end()) {
    return absl::NotFoundError(absl::StrCat("method: ", method, " is not in the race"));
  }
  RaceState s = state;
  const int i = static_cast<int>(it - state.methods.begin());
  if (!s.candidate(i)) return s;  // eliminated before: it stays eliminated
  s.eliminated_round[i] = s.round;
  s.eliminated_by[i] = "";
  for (int j = 0; j < s.n(); ++j) {
    if (j != i) MarkPair(s, i, j);
  }
  return s;
}

absl::StatusOr<RaceState> AdmitMethod(const RaceState& state, const std::string& method) {
  if (method.empty()) return absl::InvalidArgumentError("method: empty name");
  if (std::find(state.methods.begin(), state.methods.end(), method) != state.methods.end()) {
    return absl::AlreadyExistsError(absl::StrCat("method: ", method, " is already in the race"));
  }
  RaceState s = state;
  const int i = s.n();
  s.methods.push_back(method);
  s.eliminated_round.push_back(-1);
  s.eliminated_by.push_back("");
  s.first_instance.push_back(s.instances_sampled);
  s.backfilled.push_back(0);
  s.resolved.resize(static_cast<size_t>(i + 1) * i / 2 * s.T, false);
  for (int j = 0; j < i; ++j) {
    if (!s.candidate(j)) MarkPair(s, j, i);
  }
  return s;
}

}  // namespace bbo::scoring::pl
