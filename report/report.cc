#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "report/report_json.h"

namespace bbo::scoring {
namespace {

nlohmann::json BordaRowsJson(const std::vector<BordaRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const BordaRow& r : rows) {
    out.push_back({{"method", r.method}, {"borda", r.borda}, {"firsts", r.firsts},
                   {"top_three", r.top_three}});
  }
  return out;
}

std::string NowIso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The central (1 - alpha) interval of a rank distribution: the smallest rank whose cumulative
// frequency exceeds alpha / 2 and the smallest whose cumulative frequency reaches 1 - alpha / 2.
std::pair<int, int> RankInterval(const std::vector<int>& counts, double alpha) {
  int64_t total = 0;
  for (int c : counts) total += c;
  if (total == 0) return {0, 0};
  const double lo_mass = alpha / 2 * static_cast<double>(total);
  const double hi_mass = (1 - alpha / 2) * static_cast<double>(total);
  int lo = 0, hi = 0;
  int64_t cum = 0;
  bool have_lo = false;
  for (size_t r = 0; r < counts.size(); ++r) {
    cum += counts[r];
    if (!have_lo && static_cast<double>(cum) > lo_mass) {
      lo = static_cast<int>(r) + 1;
      have_lo = true;
    }
    if (static_cast<double>(cum) >= hi_mass) {
      hi = static_cast<int>(r) + 1;
      break;
    }
  }
  if (hi == 0) hi = static_cast<int>(counts.size());
  return {lo, hi};
}

// CSV field: numbers at full precision (empty for null), strings quoted when needed.
std::string Field(const nlohmann::json& v) {
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
  void Row(const std::vector<nlohmann::json>& fields) {
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

const nlohmann::json& Get(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

const nlohmann::json& At(const nlohmann::json& j, size_t i) {
  static const nlohmann::json kNull;
  return j.is_array() && i < j.size() ? j[i] : kNull;
}

}  // namespace

std::string DimensionBand(int dimension) {
  if (dimension <= 0) return "unknown";
  if (dimension <= 3) return "1-3";
  if (dimension <= 7) return "4-7";
  if (dimension <= 15) return "8-15";
  return "16+";
}

Attainment ComputeAttainment(const Leaderboard& board, const ScoringInput& input,
                             const std::vector<double>& levels) {
  Attainment out;
  out.levels = levels;
  const size_t T = static_cast<size_t>(input.n_batches);
  for (const auto& [method, per_problem] : input.methods) {
    std::vector<std::vector<double>> sum(levels.size(), std::vector<double>(T, 0.0));
    int problems = 0;
    for (const auto& [problem, data] : per_problem) {
      auto bit = board.baselines.find(problem);
      if (bit == board.baselines.end() || data.trials.empty()) continue;
      const ProblemBaseline& b = bit->second;
      // norm[t][n]: clipped normalized best so far of trial n after batch t.
      std::vector<std::vector<double>> norm(T);
      for (const TrialCurve& c : data.trials) {
        std::vector<double> s = BestSoFar(c);
        for (size_t t = 0; t < T && t < s.size(); ++t) {
          norm[t].push_back(std::clamp((s[t] - b.opt) / (b.clip - b.opt), -1.0, 1.0));
        }
      }
      for (size_t t = 0; t < T; ++t) {
        std::vector<double>& v = norm[t];
        std::sort(v.begin(), v.end());
        const size_t n = v.size();
        for (size_t l = 0; l < levels.size(); ++l) {
          // Order statistic ceil(level * n) (1-based), level 0 -> the best trial.
          size_t k = static_cast<size_t>(std::ceil(levels[l] * static_cast<double>(n)));
          k = std::clamp<size_t>(k, 1, n);
          sum[l][t] += n == 0 ? 1.0 : v[k - 1];
        }
      }
      ++problems;
    }
    if (problems == 0) continue;
    for (auto& row : sum) {
      for (double& x : row) x /= problems;
    }
    out.curves[method] = std::move(sum);
  }
  return out;
}

absl::StatusOr<Report> ComputeReport(const ScoringInput& input, const ReportOptions& options,
                                     ScoringCache* cache) {
  Report report;
  report.options = options;
  report.generated_at = NowIso8601();
  auto board = ComputeLeaderboard(input, options.baseline_row_name, cache);
  if (!board.ok()) return board.status();
  report.board = *std::move(board);
  bool any_method = false;
  for (const MethodResult& r : report.board.rows) any_method |= !r.is_baseline;
  if (any_method) {
    auto boot = BootstrapRanks(report.board, input, options.bootstrap);
    if (!boot.ok()) return boot.status();
    report.bootstrap = *std::move(boot);
  }
  auto ranking = RankMethods(input, options.familywise_alpha);
  if (!ranking.ok()) return ranking.status();
  report.ranking = *std::move(ranking);

  // Grouped Borda tables: the ballots of the problems in each dimension band / attribute.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> members;
  for (size_t i = 0; i < report.ranking.ballots.size(); ++i) {
    const std::string& problem = report.ranking.ballots[i].problem;
    auto it = options.problem_info.find(problem);
    const ProblemInfo info = it == options.problem_info.end() ? ProblemInfo{} : it->second;
    members[{"dimension", DimensionBand(info.dimension)}].push_back(i);
    for (const std::string& a : std::set<std::string>(info.attributes.begin(),
                                                      info.attributes.end())) {
      members[{"attribute", a}].push_back(i);
    }
  }
  for (const auto& [key, idx] : members) {
    GroupRanking g;
    g.kind = key.first;
    g.group = key.second;
    std::vector<Ballot> ballots;
    for (size_t i : idx) {
      g.problems.push_back(report.ranking.ballots[i].problem);
      ballots.push_back(report.ranking.ballots[i].ballot);
    }
    g.rows = AggregateBallots(ballots);
    report.groups.push_back(std::move(g));
  }

  auto anytime = ComputeAnytime(report.board, input, options.anytime_replicates,
                                options.bootstrap.seed);
  if (!anytime.ok()) return anytime.status();
  report.anytime = *std::move(anytime);
  report.attainment = ComputeAttainment(report.board, input, {0, 0.25, 0.5, 0.75, 1});
  return report;
}

nlohmann::json ReportJson(const Report& report, const ScoringInput& input) {
  const ReportOptions& o = report.options;
  nlohmann::json j = LeaderboardJson(report.board, input);
  j["schema"] = "bbo-arena/report/1";
  j["phase"] = o.phase;
  j["source"] = o.source;
  j["generated_at"] = report.generated_at;
  j["warnings"] = o.warnings;

  nlohmann::json problems = nlohmann::json::array();
  for (const auto& [name, b] : report.board.baselines) {
    auto it = o.problem_info.find(name);
    const ProblemInfo info = it == o.problem_info.end() ? ProblemInfo{} : it->second;
    problems.push_back({{"problem", name},
                        {"dimension", info.dimension},
                        {"attributes", info.attributes},
                        {"opt", JsonNumber(b.opt)},
                        {"clip", JsonNumber(b.clip)},
                        {"rand_mean_perf", JsonNumbers(b.rand_mean_perf)},
                        {"rand_med_perf", JsonNumbers(b.rand_med_perf)}});
  }
  j["problems"] = problems;

  const BootstrapResult& boot = report.bootstrap;
  if (boot.replicates > 0) {
    nlohmann::json bm = nlohmann::json::array();
    for (size_t m = 0; m < boot.methods.size(); ++m) {
      auto [lo, hi] = RankInterval(boot.rank_counts[m], input.alpha);
      bm.push_back({{"method", boot.methods[m]},
                    {"rank_counts", boot.rank_counts[m]},
                    {"p_top_k", boot.p_top_k[m]},
                    {"rank_interval", {lo, hi}}});
    }
    nlohmann::json tops = nlohmann::json::array();
    for (const auto& [names, freq] : boot.top_rankings) {
      tops.push_back({{"ranking", names}, {"frequency", freq}});
    }
    j["bootstrap"] = {{"replicates", boot.replicates},
                      {"seed", o.bootstrap.seed},
                      {"top_k", std::min<int>(o.bootstrap.top_k,
                                              static_cast<int>(boot.methods.size()))},
                      {"methods", bm},
                      {"top_rankings", tops}};
  }

  nlohmann::json ballots = nlohmann::json::object();
  for (const ProblemBallot& pb : report.ranking.ballots) {
    nlohmann::json b = nlohmann::json::array();
    for (size_t i = 0; i < pb.ballot.methods.size(); ++i) {
      b.push_back({{"method", pb.ballot.methods[i]}, {"position", pb.ballot.position[i]},
                   {"borda", pb.ballot.borda[i]}});
    }
    ballots[pb.problem] = b;
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupRanking& g : report.groups) {
    groups.push_back({{"kind", g.kind}, {"group", g.group}, {"problems", g.problems},
                      {"rows", BordaRowsJson(g.rows)}});
  }
  j["nonparametric"] = {{"familywise_alpha", report.ranking.familywise_alpha},
                        {"pairwise_alpha", report.ranking.pairwise_alpha},
                        {"rows", BordaRowsJson(report.ranking.rows)},
                        {"ballots", ballots},
                        {"groups", groups}};

  nlohmann::json any = nlohmann::json::object();
  for (const auto& [method, ecdf] : report.anytime.ecdf) {
    auto it = report.anytime.avg_fractional_rank.find(method);
    any[method] = {{"ecdf_runtime_to_target", JsonNumbers(ecdf)},
                   {"avg_fractional_rank",
                    it == report.anytime.avg_fractional_rank.end() ? nlohmann::json::array()
                                                                    : JsonNumbers(it->second)}};
  }
  j["anytime"] = {{"rank_bootstrap_replicates", o.anytime_replicates}, {"methods", any}};

  nlohmann::json att = nlohmann::json::object();
  for (const auto& [method, levels] : report.attainment.curves) {
    nlohmann::json l = nlohmann::json::array();
    for (const auto& curve : levels) l.push_back(JsonNumbers(curve));
    att[method] = l;
  }
  j["attainment"] = {{"levels", report.attainment.levels}, {"methods", att}};
  return j;
}

std::map<std::string, std::string> ReportCsv(const nlohmann::json& r) {
  std::map<std::string, std::string> files;
  const nlohmann::json& methods = Get(r, "methods");
  {
    CsvWriter w({"rank", "method", "baseline", "complete", "leaderboard_score", "error_bar",
                 "median_score", "table2_median_score", "rs_equivalent_evals",
                 "rs_equivalent_bound", "rs_efficiency", "phase"});
    int rank = 0;
    for (const auto& m : methods) {
      const nlohmann::json& eb = Get(m, "mean_perf_error_bar");
      nlohmann::json eb_last = eb.is_array() && !eb.empty() && eb.back().is_number()
                                   ? nlohmann::json(100 * eb.back().get<double>())
                                   : nlohmann::json();
      w.Row({++rank, Get(m, "method"), Get(m, "baseline"), Get(m, "complete"),
             Get(m, "leaderboard_score"), eb_last, Get(m, "median_score"),
             Get(m, "table2_median_score"), Get(m, "rs_equivalent_evals"),
             Get(m, "rs_equivalent_bound"), Get(m, "rs_efficiency"), Get(r, "phase")});
    }
    files["leaderboard.csv"] = w.str();
  }
  {
    CsvWriter w({"method", "batch", "mean_perf", "mean_perf_error_bar", "normalized_mean_perf",
                 "median_perf", "rand_mean_perf"});
    for (const auto& m : methods) {
      const nlohmann::json& mp = Get(m, "mean_perf");
      for (size_t t = 0; mp.is_array() && t < mp.size(); ++t) {
        w.Row({Get(m, "method"), static_cast<int>(t), At(mp, t),
               At(Get(m, "mean_perf_error_bar"), t), At(Get(m, "normalized_mean_perf"), t),
               At(Get(m, "median_perf"), t), At(Get(r, "rand_mean_perf"), t)});
      }
    }
    files["curves.csv"] = w.str();
  }
  {
    CsvWriter w({"method", "problem", "trials", "score", "batch", "normalized_mean",
                 "normalized_median", "normalized_median_lb", "normalized_median_ub"});
    for (const auto& m : methods) {
      for (const auto& p : Get(m, "problems")) {
        const nlohmann::json& nm = Get(p, "normalized_mean");
        for (size_t t = 0; nm.is_array() && t < nm.size(); ++t) {
          w.Row({Get(m, "method"), Get(p, "problem"), Get(p, "trials"), Get(p, "score"),
                 static_cast<int>(t), At(nm, t), At(Get(p, "normalized_median"), t),
                 At(Get(p, "normalized_median_lb"), t), At(Get(p, "normalized_median_ub"), t)});
        }
      }
    }
    files["method_problems.csv"] = w.str();
  }
  {
    CsvWriter w({"problem", "dimension", "attributes", "opt", "clip", "batch", "rand_mean_perf",
                 "rand_med_perf"});
    for (const auto& p : Get(r, "problems")) {
      std::vector<std::string> attrs;
      for (const auto& a : Get(p, "attributes")) attrs.push_back(a.get<std::string>());
      const nlohmann::json& rm = Get(p, "rand_mean_perf");
      for (size_t t = 0; rm.is_array() && t < rm.size(); ++t) {
        w.Row({Get(p, "problem"), Get(p, "dimension"), absl::StrJoin(attrs, ";"), Get(p, "opt"),
               Get(p, "clip"), static_cast<int>(t), At(rm, t), At(Get(p, "rand_med_perf"), t)});
      }
    }
    files["problems.csv"] = w.str();
  }
  const nlohmann::json& boot = Get(r, "bootstrap");
  if (boot.is_object()) {
    CsvWriter w({"method", "rank", "count", "frequency", "p_top_k", "top_k", "rank_interval_lo",
                 "rank_interval_hi", "replicates", "seed"});
    const double reps = Get(boot, "replicates").is_number()
                            ? Get(boot, "replicates").get<double>()
                            : 0.0;
    for (const auto& m : Get(boot, "methods")) {
      const nlohmann::json& counts = Get(m, "rank_counts");
      for (size_t k = 0; counts.is_array() && k < counts.size(); ++k) {
        w.Row({Get(m, "method"), static_cast<int>(k + 1), counts[k],
               reps > 0 ? nlohmann::json(counts[k].get<double>() / reps) : nlohmann::json(),
               Get(m, "p_top_k"), Get(boot, "top_k"), At(Get(m, "rank_interval"), 0),
               At(Get(m, "rank_interval"), 1), Get(boot, "replicates"), Get(boot, "seed")});
      }
    }
    files["bootstrap_ranks.csv"] = w.str();
    CsvWriter tops({"ranking", "frequency"});
    for (const auto& t : Get(boot, "top_rankings")) {
      std::vector<std::string> names;
      for (const auto& n : Get(t, "ranking")) names.push_back(n.get<std::string>());
      tops.Row({absl::StrJoin(names, " > "), Get(t, "frequency")});
    }
    files["top_rankings.csv"] = tops.str();
  }
  const nlohmann::json& np = Get(r, "nonparametric");
  if (np.is_object()) {
    CsvWriter w({"kind", "group", "problems", "method", "borda", "firsts", "top_three",
                 "familywise_alpha", "pairwise_alpha"});
    const int n_ballots = static_cast<int>(Get(np, "ballots").size());
    for (const auto& row : Get(np, "rows")) {
      w.Row({"overall", "all", n_ballots, Get(row, "method"), Get(row, "borda"),
             Get(row, "firsts"), Get(row, "top_three"), Get(np, "familywise_alpha"),
             Get(np, "pairwise_alpha")});
    }
    for (const auto& g : Get(np, "groups")) {
      for (const auto& row : Get(g, "rows")) {
        w.Row({Get(g, "kind"), Get(g, "group"), static_cast<int>(Get(g, "problems").size()),
               Get(row, "method"), Get(row, "borda"), Get(row, "firsts"), Get(row, "top_three"),
               Get(np, "familywise_alpha"), Get(np, "pairwise_alpha")});
      }
    }
    files["borda.csv"] = w.str();
    CsvWriter b({"problem", "method", "position", "borda"});
    const nlohmann::json& ballots = Get(np, "ballots");
    if (ballots.is_object()) {
      for (const auto& [problem, rows] : ballots.items()) {
        for (const auto& row : rows) {
          b.Row({problem, Get(row, "method"), Get(row, "position"), Get(row, "borda")});
        }
      }
    }
    files["ballots.csv"] = b.str();
  }
  const nlohmann::json& any = Get(Get(r, "anytime"), "methods");
  if (any.is_object()) {
    CsvWriter w({"method", "batch", "ecdf_runtime_to_target", "avg_fractional_rank"});
    for (const auto& [method, v] : any.items()) {
      const nlohmann::json& e = Get(v, "ecdf_runtime_to_target");
      for (size_t t = 0; e.is_array() && t < e.size(); ++t) {
        w.Row({method, static_cast<int>(t), e[t], At(Get(v, "avg_fractional_rank"), t)});
      }
    }
    files["anytime.csv"] = w.str();
  }
  const nlohmann::json& att = Get(r, "attainment");
  if (att.is_object()) {
    CsvWriter w({"method", "level", "batch", "normalized"});
    const nlohmann::json& levels = Get(att, "levels");
    const nlohmann::json& am = Get(att, "methods");
    if (am.is_object()) {
      for (const auto& [method, curves] : am.items()) {
        for (size_t l = 0; l < curves.size(); ++l) {
          for (size_t t = 0; t < curves[l].size(); ++t) {
            w.Row({method, At(levels, l), static_cast<int>(t), curves[l][t]});
          }
        }
      }
    }
    files["attainment.csv"] = w.str();
  }
  return files;
}

}  // namespace bbo::scoring
