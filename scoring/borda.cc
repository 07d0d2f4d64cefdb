#include "scoring/borda.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <cmath>
#include <map>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "scoring/leaderboard.h"
#include "scoring/mann_whitney.h"

namespace bbo::scoring {
namespace {

// losses[i] = number of methods in `group` significantly better (lower) than group[i] on the
// metric.
absl::StatusOr<std::vector<int>> Losses(const std::vector<const std::vector<double>*>& samples,
                                        double alpha) {
  const size_t k = samples.size();
  std::vector<int> losses(k, 0);
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = i + 1; j < k; ++j) {
      absl::StatusOr<MannWhitneyResult> t = MannWhitneyUSorted(*samples[i], *samples[j]);
      if (!t.ok()) return t.status();
      if (t->p_value >= alpha) continue;
      const double half = samples[i]->size() * static_cast<double>(samples[j]->size()) / 2;
      // U_x counts pairs where x is larger: a small U_x means x tends to be lower (better).
      if (t->u_x < half) {
        losses[j]++;
      } else if (t->u_x > half) {
        losses[i]++;
      }
    }
  }
  return losses;
}

}  // namespace

double TraceAuc(const std::vector<double>& best_so_far) {
  return std::accumulate(best_so_far.begin(), best_so_far.end(), 0.0);
}

absl::StatusOr<Ballot> RankProblem(const std::vector<MethodTrials>& methods, double alpha) {
  if (methods.empty()) return absl::InvalidArgumentError("methods: none to rank");
  for (const auto& m : methods) {
    if (m.best_found.empty() || m.auc.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("methods: \"", m.method, "\" has no trials"));
    }
  }
  const size_t k = methods.size();
  // Sorted once per method; the pairwise tests then merge in O(n).
  std::vector<std::vector<double>> best_sorted, auc_sorted;
  for (const auto& m : methods) {
    for (const auto* v : {&m.best_found, &m.auc}) {
      for (double x : *v) {
        if (std::isnan(x)) {
          return absl::InvalidArgumentError(absl::StrCat("methods: \"", m.method, "\" has NaN"));
        }
      }
    }
    best_sorted.push_back(m.best_found);
    std::sort(best_sorted.back().begin(), best_sorted.back().end());
    auc_sorted.push_back(m.auc);
    std::sort(auc_sorted.back().begin(), auc_sorted.back().end());
  }
  std::vector<const std::vector<double>*> best;
  for (const auto& v : best_sorted) best.push_back(&v);
  absl::StatusOr<std::vector<int>> losses = Losses(best, alpha);
  if (!losses.ok()) return losses.status();
  // Secondary key: AUC losses within each group tied on Best Found losses.
  std::vector<int> auc_losses(k, 0);
  std::map<int, std::vector<size_t>> groups;
  for (size_t i = 0; i < k; ++i) groups[(*losses)[i]].push_back(i);
  for (const auto& [l, members] : groups) {
    if (members.size() < 2) continue;
    std::vector<const std::vector<double>*> aucs;
    for (size_t i : members) aucs.push_back(&auc_sorted[i]);
    absl::StatusOr<std::vector<int>> al = Losses(aucs, alpha);
    if (!al.ok()) return al.status();
    for (size_t g = 0; g < members.size(); ++g) auc_losses[members[g]] = (*al)[g];
  }
  std::vector<size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](size_t i) { return std::make_pair((*losses)[i], auc_losses[i]); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (key(a) != key(b)) return key(a) < key(b);
    return methods[a].method < methods[b].method;
  });
  Ballot ballot;
  for (size_t idx = 0; idx < k; ++idx) {
    const size_t i = order[idx];
    int ahead = 0, behind = 0;
    for (size_t j = 0; j < k; ++j) {
      if (key(j) < key(i)) ++ahead;
      if (key(i) < key(j)) ++behind;
    }
    ballot.methods.push_back(methods[i].method);
    ballot.position.push_back(1 + ahead);
    ballot.borda.push_back(behind);
  }
  return ballot;
}

std::vector<BordaRow> AggregateBallots(const std::vector<Ballot>& ballots) {
  std::map<std::string, BordaRow> rows;
  for (const Ballot& b : ballots) {
    for (size_t i = 0; i < b.methods.size(); ++i) {
      BordaRow& r = rows[b.methods[i]];
      r.method = b.methods[i];
      r.borda += b.borda[i];
      r.firsts += b.position[i] == 1 ? 1 : 0;
      r.top_three += b.position[i] <= 3 ? 1 : 0;
    }
  }
  std::vector<BordaRow> out;
  for (auto& [name, r] : rows) out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const BordaRow& a, const BordaRow& b) {
    return std::make_tuple(a.borda, a.firsts, a.top_three) >
           std::make_tuple(b.borda, b.firsts, b.top_three);
  });
  return out;
}

absl::StatusOr<NonparametricRanking> RankMethods(const ScoringInput& input,
                                                 double familywise_alpha) {
  NonparametricRanking out;
  out.familywise_alpha = familywise_alpha;
  out.pairwise_alpha = PairwiseAlpha(familywise_alpha, static_cast<int>(input.methods.size()));
  // Problems are independent: rank them on all cores, keep the problems' order.
  std::vector<std::string> problems;
  for (const auto& [problem, unused] : input.problems) problems.push_back(problem);
  std::vector<absl::StatusOr<std::optional<Ballot>>> results(problems.size(),
                                                             std::optional<Ballot>());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t p = next++; p < problems.size(); p = next++) {
      std::vector<MethodTrials> methods;
      for (const auto& [method, per_problem] : input.methods) {
        auto it = per_problem.find(problems[p]);
        if (it == per_problem.end() || it->second.trials.empty()) continue;
        MethodTrials mt;
        mt.method = method;
        for (const TrialCurve& c : it->second.trials) {
          // On a raced board, a trial the race shortened has no best found over the whole
          // study, nor an area under its whole curve: only complete trials are compared.
          if (BatchesRun(c, input.n_batches) < input.n_batches) continue;
          std::vector<double> s = BestSoFar(c);
          if (s.empty()) continue;
          mt.best_found.push_back(s.back());
          mt.auc.push_back(TraceAuc(s));
        }
        if (!mt.best_found.empty()) methods.push_back(std::move(mt));
      }
      if (methods.empty()) continue;
      absl::StatusOr<Ballot> b = RankProblem(methods, out.pairwise_alpha);
      if (!b.ok()) {
        results[p] = b.status();
      } else {
        results[p] = std::optional<Ballot>(*std::move(b));
      }
    }
  };
  const unsigned threads = std::min<unsigned>(
      std::max(1u, std::thread::hardware_concurrency()), std::max<size_t>(1, problems.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  for (size_t p = 0; p < problems.size(); ++p) {
    if (!results[p].ok()) return results[p].status();
    if (results[p]->has_value()) out.ballots.push_back({problems[p], **results[p]});
  }
  std::vector<Ballot> ballots;
  for (const auto& pb : out.ballots) ballots.push_back(pb.ballot);
  out.rows = AggregateBallots(ballots);
  return out;
}

}  // namespace bbo::scoring
