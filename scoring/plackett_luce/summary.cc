#include "scoring/plackett_luce/summary.h"

#include <cmath>

#include "common/status_macros.h"
#include "scoring/plackett_luce/rankings.h"
#include "scoring/plackett_luce/selection.h"
#include "scoring/plackett_luce/traces.h"

namespace bbo::scoring::pl {
namespace {

nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json Numbers(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(Number(x));
  return a;
}

template <typename V>
nlohmann::json ByMethod(const std::map<std::string, V>& m) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<V, double>) {
      o[k] = Number(v);
    } else if constexpr (std::is_same_v<V, std::vector<double>>) {
      o[k] = Numbers(v);
    } else {
      o[k] = v;
    }
  }
  return o;
}

const char* RelationName(Relation r) {
  switch (r) {
    case Relation::kFirstDominates:
      return "a";
    case Relation::kSecondDominates:
      return "b";
    case Relation::kEquivalent:
      return "equivalent";
    case Relation::kUnresolved:
      break;
  }
  return "unresolved";
}

}  // namespace

absl::StatusOr<PlackettLuceSummary> SummarizePlackettLuce(const RatingPosterior& post,
                                                          const SummaryOptions& o) {
  if (!(o.band > 0 && o.band < 1)) return absl::InvalidArgumentError("band: must be in (0, 1)");
  PlackettLuceSummary s;
  s.options = o;
  s.model = post.model;
  s.inference = post.inference;
  s.methods = post.methods;
  s.grid = post.grid;
  s.diagnostics = post.diagnostics;
  const int n = post.n(), T = post.T();
  const RatingSummary sum = Summarize(post, (1 - o.band) / 2, (1 + o.band) / 2);
  for (int i = 0; i < n; ++i) {
    const std::string& m = post.methods[i];
    for (int t = 0; t < T; ++t) {
      s.mean[m].push_back(sum.mean[t * n + i]);
      s.lower[m].push_back(sum.lower[t * n + i]);
      s.upper[m].push_back(sum.upper[t * n + i]);
    }
    s.final_mean[m] = s.mean[m].back();
    s.final_lower[m] = s.lower[m].back();
    s.final_upper[m] = s.upper[m].back();
  }
  std::vector<int> candidates;
  for (int i = 0; i < n; ++i) {
    if (!o.excluded.count(post.methods[i])) candidates.push_back(i);
  }
  if (candidates.empty()) {
    return absl::FailedPreconditionError("every method of the posterior was decided before");
  }
  ASSIGN_OR_RETURN(s.decisions, Decide(post, o.decisions, candidates));
  for (int i : s.decisions.pareto_set) s.pareto_set.push_back(post.methods[i]);
  for (int i = 0; i < n; ++i) {
    s.p_pareto[post.methods[i]] = s.decisions.p_pareto[i];
    if (s.decisions.dominated_by[i] >= 0) {
      s.eliminated_by[post.methods[i]] = post.methods[s.decisions.dominated_by[i]];
    }
    auto out = o.excluded.find(post.methods[i]);
    if (out == o.excluded.end()) continue;
    if (out->second.empty()) {
      s.withdrawn.push_back(out->first);
    } else {
      s.eliminated_by[out->first] = out->second;
    }
  }
  const RiskProfile expected{RiskProfile::Kind::kExpected};
  for (const auto& [name, pref] : {std::pair{"uniform", TimePreference::Uniform()},
                                   std::pair{"final", TimePreference::Final()}}) {
    ASSIGN_OR_RETURN(std::vector<double> w, PreferenceWeights(post.grid, pref));
    ASSIGN_OR_RETURN(SelectionResult r, SelectMethod(post, w, nullptr, expected));
    for (size_t k = 0; k < r.options.size(); ++k) {
      s.expected_value[name][r.options[k]] = r.expected[k];
      s.p_best[name][r.options[k]] = r.p_best[k];
    }
    s.best[name] = r.options[r.best];
  }
  return s;
}

absl::StatusOr<PlackettLuceSummary> SummarizePlackettLuce(const ScoringInput& input,
                                                          const SummaryOptions& o) {
  ASSIGN_OR_RETURN(RankingSet rankings, BatchRankings(input));
  ASSIGN_OR_RETURN(RatingPosterior fitted, FitIndependentDirichlet(rankings, o.model));
  auto post = std::make_shared<const RatingPosterior>(std::move(fitted));
  ASSIGN_OR_RETURN(PlackettLuceSummary s, SummarizePlackettLuce(*post, o));
  s.runs = rankings.runs;
  s.posterior = std::move(post);
  return s;
}

nlohmann::json PlackettLuceJson(const PlackettLuceSummary& s) {
  nlohmann::json j;
  j["layout"] = "bbo-arena/plackett-luce/1";
  const DirichletOptions& m = s.options.model;
  j["model"] = {{"name", s.model},
                {"inference", s.inference},
                {"alpha", m.alpha},
                {"chains", m.chains},
                {"draws_per_chain", m.draws_per_chain},
                {"warmup", m.warmup},
                {"seed", m.seed},
                {"runs", s.runs}};
  j["methods"] = s.methods;
  j["final"] = {{"time", s.grid.points.empty() ? nlohmann::json() : Number(s.grid.points.back())},
                {"band", s.options.band},
                {"posterior_mean", ByMethod(s.final_mean)},
                {"lower", ByMethod(s.final_lower)},
                {"upper", ByMethod(s.final_upper)}};
  j["anytime"] = {{"time", Numbers(s.grid.points)},
                  {"unit", s.grid.unit},
                  {"mean", ByMethod(s.mean)},
                  {"lower", ByMethod(s.lower)},
                  {"upper", ByMethod(s.upper)}};
  j["pareto_set"] = s.pareto_set;
  j["p_pareto"] = ByMethod(s.p_pareto);
  const Decisions& d = s.decisions;
  nlohmann::json dec = {
      {"alpha", d.options.alpha},
      {"epsilon", d.options.epsilon},
      {"elimination", d.options.elimination == Elimination::kPointwise ? "pointwise" : "joint"},
      {"resolution", d.options.resolution == Resolution::kStrict ? "strict" : "crossing"},
      {"eliminated_by", ByMethod(s.eliminated_by)},
      {"withdrawn", s.withdrawn}};
  nlohmann::json resolved = nlohmann::json::object();
  for (int i : d.candidates) resolved[d.methods[i]] = static_cast<bool>(d.resolved[i]);
  dec["resolved"] = resolved;
  if (s.options.include_pairs) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const PairDecision& p : d.pairs) {
      nlohmann::json rel = nlohmann::json::array();
      for (Relation r : p.relation) rel.push_back(RelationName(r));
      pairs.push_back({{"a", d.methods[p.a]},
                       {"b", d.methods[p.b]},
                       {"p_a_better", Numbers(p.p_a_better)},
                       {"p_equivalent", Numbers(p.p_equivalent)},
                       {"p_a_dominates", Number(p.p_a_dominates)},
                       {"p_b_dominates", Number(p.p_b_dominates)},
                       {"relation", rel},
                       {"crossing", p.crossing}});
    }
    dec["pairs"] = pairs;
  }
  j["decisions"] = dec;
  nlohmann::json sel = nlohmann::json::object();
  for (const auto& [pref, values] : s.expected_value) {
    sel[pref] = {{"expected", ByMethod(values)},
                 {"p_best", ByMethod(s.p_best.at(pref))},
                 {"best", s.best.at(pref)}};
  }
  j["selection"] = sel;
  j["diagnostics"] = {{"max_rhat", Number(s.diagnostics.max_rhat)},
                      {"min_ess_bulk", Number(s.diagnostics.min_ess_bulk)},
                      {"seconds", Number(s.diagnostics.seconds)}};
  return j;
}

}  // namespace bbo::scoring::pl
