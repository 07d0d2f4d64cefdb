#include "report/report_csv.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "report/internal/json_view.h"

namespace bbo::scoring {
namespace {

using internal::Arr;
using internal::At;
using internal::Get;
using internal::Num;
using internal::Obj;
using internal::Str;
using nlohmann::json;

// CSV field: numbers at full precision (empty for null), strings quoted when needed.
std::string Field(const json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return absl::StrCat(v.get<int64_t>());
  if (v.is_number()) return absl::StrFormat("%.17g", v.get<double>());
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

class CsvWriter {
 public:
  explicit CsvWriter(const std::vector<std::string>& header) {
    out_ << absl::StrJoin(header, ",") << "\n";
  }
  void Row(const std::vector<json>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out_ << ',';
      out_ << Field(fields[i]);
    }
    out_ << '\n';
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

// The columns of a Plackett-Luce view's summary: one row per method.
const char* const kPlackettLuceColumns[] = {
    "method", "time", "posterior_mean", "lower", "upper", "band", "pareto", "p_pareto",
    "eliminated_by", "resolved", "expected_uniform", "p_best_uniform", "expected_final",
    "p_best_final", "model", "inference", "prior_alpha", "chains", "draws_per_chain", "warmup",
    "seed", "runs", "alpha", "epsilon", "max_rhat", "min_ess_bulk", "seconds", "error"};

// `prefix`.csv of a Plackett-Luce view: the final ratings, decisions, selection and model.
std::string PlackettLuceSummaryCsv(const json& pl) {
  const json& fin = Get(pl, "final");
  const json& model = Get(pl, "model");
  const json& dec = Get(pl, "decisions");
  const json& diag = Get(pl, "diagnostics");
  const json& uniform = Get(Get(pl, "selection"), "uniform");
  const json& last = Get(Get(pl, "selection"), "final");
  std::map<std::string, bool> pareto;
  for (const json& m : Arr(Get(pl, "pareto_set"))) pareto[Str(m)] = true;
  const std::vector<std::string> header(std::begin(kPlackettLuceColumns),
                                        std::end(kPlackettLuceColumns));
  CsvWriter w(header);
  const json& methods = Arr(Get(pl, "methods"));
  for (const json& m : methods) {
    const std::string name = Str(m);
    w.Row({name,
           Get(fin, "time"),
           Get(Get(fin, "posterior_mean"), name),
           Get(Get(fin, "lower"), name),
           Get(Get(fin, "upper"), name),
           Get(fin, "band"),
           pareto.count(name) > 0,
           Get(Get(pl, "p_pareto"), name),
           Get(Get(dec, "eliminated_by"), name),
           Get(Get(dec, "resolved"), name),
           Get(Get(uniform, "expected"), name),
           Get(Get(uniform, "p_best"), name),
           Get(Get(last, "expected"), name),
           Get(Get(last, "p_best"), name),
           Get(model, "name"),
           Get(model, "inference"),
           Get(model, "alpha"),
           Get(model, "chains"),
           Get(model, "draws_per_chain"),
           Get(model, "warmup"),
           Get(model, "seed"),
           Get(model, "runs"),
           Get(dec, "alpha"),
           Get(dec, "epsilon"),
           Get(diag, "max_rhat"),
           Get(diag, "min_ess_bulk"),
           Get(diag, "seconds"),
           Get(pl, "error")});
  }
  // The reason it was not computed, on a row of its own.
  if (methods.empty() && Get(pl, "error").is_string()) {
    std::vector<json> row(header.size() - 1, json());
    row.push_back(Get(pl, "error"));
    w.Row(row);
  }
  return w.str();
}

// `prefix`_anytime.csv: each method's rating at each timepoint.
std::string PlackettLuceAnytimeCsv(const json& pl, const std::string& index) {
  CsvWriter a({"method", index, "time", "mean", "lower", "upper"});
  const json& any = Get(pl, "anytime");
  const json& times = Get(any, "time");
  for (const json& m : Arr(Get(pl, "methods"))) {
    const std::string name = Str(m);
    const json& mean = Arr(Get(Get(any, "mean"), name));
    for (size_t t = 0; t < mean.size(); ++t) {
      a.Row({name, static_cast<int>(t), At(times, t), mean[t], At(Get(Get(any, "lower"), name), t),
             At(Get(Get(any, "upper"), name), t)});
    }
  }
  return a.str();
}

// `prefix`_pairs.csv: each pair's decision at each timepoint.
std::string PlackettLucePairsCsv(const json& pl, const std::string& index) {
  const json& times = Get(Get(pl, "anytime"), "time");
  CsvWriter p({"a", "b", index, "time", "p_a_better", "p_equivalent", "relation", "p_a_dominates",
               "p_b_dominates", "crossing"});
  for (const json& pair : Arr(Get(Get(pl, "decisions"), "pairs"))) {
    const json& better = Arr(Get(pair, "p_a_better"));
    for (size_t t = 0; t < better.size(); ++t) {
      p.Row({Get(pair, "a"), Get(pair, "b"), static_cast<int>(t), At(times, t), better[t],
             At(Get(pair, "p_equivalent"), t), At(Get(pair, "relation"), t),
             Get(pair, "p_a_dominates"), Get(pair, "p_b_dominates"), Get(pair, "crossing")});
    }
  }
  return p.str();
}

// The files of one Plackett-Luce view (PlackettLuceJson) of the report: `prefix`.csv,
// `prefix`_anytime.csv and `prefix`_pairs.csv; `index` names the timepoint column.
void AddPlackettLuce(const json& pl, const std::string& prefix, const std::string& index,
                     std::map<std::string, std::string>& files) {
  if (!pl.is_object()) return;
  files[prefix + ".csv"] = PlackettLuceSummaryCsv(pl);
  files[prefix + "_anytime.csv"] = PlackettLuceAnytimeCsv(pl, index);
  files[prefix + "_pairs.csv"] = PlackettLucePairsCsv(pl, index);
}

// racing.csv: what the race of a racing phase did (server/race.h), one row per submission.
void AddRacing(const json& race, std::map<std::string, std::string>& files) {
  if (!race.is_object()) return;
  CsvWriter w({"submission", "state", "eliminated_by", "eliminated_round", "rounds", "stopped",
               "note", "batch_size", "instances_sampled", "instances_total", "jobs_queued",
               "evaluations_queued", "evaluations_full", "evaluations_saved", "saved_fraction"});
  auto row = [&](const std::string& name, const char* state, const json& by, const json& round) {
    w.Row({name, state, by, round, Get(race, "rounds"), Get(race, "stopped"), Get(race, "note"),
           Get(race, "batch_size"), Get(race, "instances_sampled"), Get(race, "instances_total"),
           Get(race, "jobs_queued"), Get(race, "evaluations_queued"), Get(race, "evaluations_full"),
           Get(race, "evaluations_saved"), Get(race, "saved_fraction")});
  };
  for (const json& c : Arr(Get(race, "candidates"))) row(Str(c), "candidate", json(), json());
  const json& by = Obj(Get(race, "eliminated_by"));
  for (auto it = by.begin(); it != by.end(); ++it) {
    row(it.key(), "eliminated", it.value(), Get(Get(race, "eliminated_round"), it.key()));
  }
  files["racing.csv"] = w.str();
}

// leaderboard.csv: one row per method, in leaderboard order.
std::string LeaderboardCsv(const json& r) {
  CsvWriter w({"rank", "method", "baseline", "complete", "leaderboard_score", "error_bar",
               "median_score", "table2_median_score", "rs_equivalent_evals",
               "rs_equivalent_bound", "rs_efficiency", "phase"});
  int rank = 0;
  for (const json& m : Arr(Get(r, "methods"))) {
    const json& eb = Arr(Get(m, "mean_perf_error_bar"));
    const json eb_last = !eb.empty() && eb.back().is_number() ? json(100 * Num(eb.back())) : json();
    w.Row({++rank, Get(m, "method"), Get(m, "baseline"), Get(m, "complete"),
           Get(m, "leaderboard_score"), eb_last, Get(m, "median_score"),
           Get(m, "table2_median_score"), Get(m, "rs_equivalent_evals"),
           Get(m, "rs_equivalent_bound"), Get(m, "rs_efficiency"), Get(r, "phase")});
  }
  return w.str();
}

// curves.csv: each method's performance after each batch.
std::string CurvesCsv(const json& r) {
  CsvWriter w({"method", "batch", "mean_perf", "mean_perf_error_bar", "normalized_mean_perf",
               "median_perf", "rand_mean_perf"});
  for (const json& m : Arr(Get(r, "methods"))) {
    const json& mp = Arr(Get(m, "mean_perf"));
    for (size_t t = 0; t < mp.size(); ++t) {
      w.Row({Get(m, "method"), static_cast<int>(t), mp[t], At(Get(m, "mean_perf_error_bar"), t),
             At(Get(m, "normalized_mean_perf"), t), At(Get(m, "median_perf"), t),
             At(Get(r, "rand_mean_perf"), t)});
    }
  }
  return w.str();
}

// method_problems.csv: each method's performance on each problem after each batch.
std::string MethodProblemsCsv(const json& r) {
  CsvWriter w({"method", "problem", "trials", "score", "batch", "normalized_mean",
               "normalized_median", "normalized_median_lb", "normalized_median_ub"});
  for (const json& m : Arr(Get(r, "methods"))) {
    for (const json& p : Arr(Get(m, "problems"))) {
      const json& nm = Arr(Get(p, "normalized_mean"));
      for (size_t t = 0; t < nm.size(); ++t) {
        w.Row({Get(m, "method"), Get(p, "problem"), Get(p, "trials"), Get(p, "score"),
               static_cast<int>(t), nm[t], At(Get(p, "normalized_median"), t),
               At(Get(p, "normalized_median_lb"), t), At(Get(p, "normalized_median_ub"), t)});
      }
    }
  }
  return w.str();
}

// problems.csv: each problem's baseline after each batch.
std::string ProblemsCsv(const json& r) {
  CsvWriter w({"problem", "dimension", "attributes", "opt", "clip", "batch", "rand_mean_perf",
               "rand_med_perf"});
  for (const json& p : Arr(Get(r, "problems"))) {
    std::vector<std::string> attrs;
    for (const json& a : Arr(Get(p, "attributes"))) attrs.push_back(Str(a));
    const json& rm = Arr(Get(p, "rand_mean_perf"));
    for (size_t t = 0; t < rm.size(); ++t) {
      w.Row({Get(p, "problem"), Get(p, "dimension"), absl::StrJoin(attrs, ";"), Get(p, "opt"),
             Get(p, "clip"), static_cast<int>(t), rm[t], At(Get(p, "rand_med_perf"), t)});
    }
  }
  return w.str();
}

// bootstrap_ranks.csv and top_rankings.csv.
void AddBootstrap(const json& boot, std::map<std::string, std::string>& files) {
  if (!boot.is_object()) return;
  CsvWriter w({"method", "rank", "count", "frequency", "p_top_k", "top_k", "rank_interval_lo",
               "rank_interval_hi", "replicates", "seed"});
  const double reps = Num(Get(boot, "replicates"));
  for (const json& m : Arr(Get(boot, "methods"))) {
    const json& counts = Arr(Get(m, "rank_counts"));
    for (size_t k = 0; k < counts.size(); ++k) {
      const json frequency =
          reps > 0 && counts[k].is_number() ? json(Num(counts[k]) / reps) : json();
      w.Row({Get(m, "method"), static_cast<int>(k + 1), counts[k], frequency, Get(m, "p_top_k"),
             Get(boot, "top_k"), At(Get(m, "rank_interval"), 0), At(Get(m, "rank_interval"), 1),
             Get(boot, "replicates"), Get(boot, "seed")});
    }
  }
  files["bootstrap_ranks.csv"] = w.str();
  CsvWriter tops({"ranking", "frequency"});
  for (const json& t : Arr(Get(boot, "top_rankings"))) {
    std::vector<std::string> names;
    for (const json& n : Arr(Get(t, "ranking"))) names.push_back(Str(n));
    tops.Row({absl::StrJoin(names, " > "), Get(t, "frequency")});
  }
  files["top_rankings.csv"] = tops.str();
}

// borda.csv (overall and per group) and ballots.csv (per problem).
void AddNonparametric(const json& np, std::map<std::string, std::string>& files) {
  if (!np.is_object()) return;
  CsvWriter w({"kind", "group", "problems", "method", "borda", "firsts", "top_three",
               "familywise_alpha", "pairwise_alpha"});
  const json& ballots = Obj(Get(np, "ballots"));
  const int n_ballots = static_cast<int>(ballots.size());
  for (const json& row : Arr(Get(np, "rows"))) {
    w.Row({"overall", "all", n_ballots, Get(row, "method"), Get(row, "borda"), Get(row, "firsts"),
           Get(row, "top_three"), Get(np, "familywise_alpha"), Get(np, "pairwise_alpha")});
  }
  for (const json& g : Arr(Get(np, "groups"))) {
    for (const json& row : Arr(Get(g, "rows"))) {
      w.Row({Get(g, "kind"), Get(g, "group"), static_cast<int>(Arr(Get(g, "problems")).size()),
             Get(row, "method"), Get(row, "borda"), Get(row, "firsts"), Get(row, "top_three"),
             Get(np, "familywise_alpha"), Get(np, "pairwise_alpha")});
    }
  }
  files["borda.csv"] = w.str();
  CsvWriter b({"problem", "method", "position", "borda"});
  for (const auto& [problem, rows] : ballots.items()) {
    for (const json& row : Arr(rows)) {
      b.Row({problem, Get(row, "method"), Get(row, "position"), Get(row, "borda")});
    }
  }
  files["ballots.csv"] = b.str();
}

// anytime.csv: each method's ECDF and average fractional rank after each batch.
void AddAnytime(const json& any, std::map<std::string, std::string>& files) {
  if (!any.is_object()) return;
  CsvWriter w({"method", "batch", "ecdf_runtime_to_target", "avg_fractional_rank"});
  for (const auto& [method, v] : any.items()) {
    const json& e = Arr(Get(v, "ecdf_runtime_to_target"));
    for (size_t t = 0; t < e.size(); ++t) {
      w.Row({method, static_cast<int>(t), e[t], At(Get(v, "avg_fractional_rank"), t)});
    }
  }
  files["anytime.csv"] = w.str();
}

// attainment.csv: each method's attainment curve at each level.
void AddAttainment(const json& att, std::map<std::string, std::string>& files) {
  if (!att.is_object()) return;
  CsvWriter w({"method", "level", "batch", "normalized"});
  const json& levels = Get(att, "levels");
  for (const auto& [method, curves] : Obj(Get(att, "methods")).items()) {
    const json& per_level = Arr(curves);
    for (size_t l = 0; l < per_level.size(); ++l) {
      const json& curve = Arr(per_level[l]);
      for (size_t t = 0; t < curve.size(); ++t) {
        w.Row({method, At(levels, l), static_cast<int>(t), curve[t]});
      }
    }
  }
  files["attainment.csv"] = w.str();
}

// resources.csv: per submission and per-batch figure (common/batch_figures.h), the batches
// measured and the median and maximum per batch.
void AddResources(const json& res, std::map<std::string, std::string>& files) {
  if (!res.is_object()) return;
  CsvWriter w({"method", "figure", "batches", "median", "max"});
  for (const json& m : Arr(Get(res, "methods"))) {
    for (const json& f : Arr(Get(res, "figures"))) {
      const json& use = Get(m, Str(Get(f, "name")));
      w.Row({Get(m, "method"), Get(f, "name"), Get(use, "batches"), Get(use, "median"),
             Get(use, "max")});
    }
  }
  files["resources.csv"] = w.str();
}

}  // namespace

std::map<std::string, std::string> ReportCsv(const json& r) {
  std::map<std::string, std::string> files;
  files["leaderboard.csv"] = LeaderboardCsv(r);
  files["curves.csv"] = CurvesCsv(r);
  files["method_problems.csv"] = MethodProblemsCsv(r);
  files["problems.csv"] = ProblemsCsv(r);
  AddBootstrap(Get(r, "bootstrap"), files);
  AddNonparametric(Get(r, "nonparametric"), files);
  AddAnytime(Get(Get(r, "anytime"), "methods"), files);
  AddAttainment(Get(r, "attainment"), files);
  AddResources(Get(r, "resources"), files);
  AddPlackettLuce(Get(r, "plackett_luce"), "plackett_luce", "batch", files);
  AddPlackettLuce(Get(r, "plackett_luce_seconds"), "plackett_luce_seconds", "timepoint", files);
  AddRacing(Get(r, "racing"), files);
  return files;
}

}  // namespace bbo::scoring
