#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <future>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/report_json.h"
#include "scoring/estimators.h"
#include "scoring/plackett_luce/seconds.h"

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
    std::vector<int> problems_at(T, 0);  // problems on which a trial ran batch t
    int problems = 0;
    for (const auto& [problem, data] : per_problem) {
      auto bit = board.baselines.find(problem);
      if (bit == board.baselines.end() || data.trials.empty()) continue;
      const ProblemBaseline& b = bit->second;
      // norm[t][n]: clipped normalized best so far of trial n after batch t.
      std::vector<std::vector<double>> norm(T);
      for (const TrialCurve& c : data.trials) {
        std::vector<double> s = BestSoFar(c);
        // A race's shortened trial has no result after its horizon.
        const size_t run = static_cast<size_t>(BatchesRun(c, static_cast<int>(T)));
        for (size_t t = 0; t < run && t < s.size(); ++t) {
          norm[t].push_back(std::clamp((s[t] - b.opt) / (b.clip - b.opt), -1.0, 1.0));
        }
      }
      for (size_t t = 0; t < T; ++t) {
        std::vector<double>& v = norm[t];
        const size_t n = v.size();
        // Order statistic ceil(level * n) (1-based) of each level, level 0 -> the best trial.
        std::vector<long> ks;
        for (double level : levels) {
          const size_t k = static_cast<size_t>(std::ceil(level * static_cast<double>(n)));
          ks.push_back(static_cast<long>(std::clamp<size_t>(k, 1, std::max<size_t>(n, 1))));
        }
        if (n == 0) continue;  // no trial ran batch t here (a raced board)
        SelectOrderStats(v, ks);
        for (size_t l = 0; l < levels.size(); ++l) sum[l][t] += v[ks[l] - 1];
        ++problems_at[t];
      }
      ++problems;
    }
    if (problems == 0) continue;
    for (auto& row : sum) {
      for (size_t t = 0; t < T; ++t) row[t] = problems_at[t] > 0 ? row[t] / problems_at[t] : NAN;
    }
    out.curves[method] = std::move(sum);
  }
  return out;
}

// Every section of the report but the Plackett-Luce rankings.
static absl::StatusOr<Report> ComputeSections(const ScoringInput& input, const ReportOptions& options,
                                              ScoringCache* cache, Report report);

absl::StatusOr<Report> ComputeReport(const ScoringInput& input, const ReportOptions& options,
                                     ScoringCache* cache,
                                     std::shared_ptr<const PlackettLuceFits> fits) {
  Report report;
  report.options = options;
  report.generated_at = NowIso8601();
  // The Plackett-Luce rankings need nothing else of the report: fitted on a thread of their own
  // while the other sections compute (several of their steps use one core).
  std::future<std::shared_ptr<const PlackettLuceFits>> pl;
  if (options.plackett_luce && fits == nullptr) {
    pl = std::async(std::launch::async, [&input, &options] {
      return std::make_shared<const PlackettLuceFits>(
          FitPlackettLuce(input, options.plackett_luce_options));
    });
  }
  absl::StatusOr<Report> out = ComputeSections(input, options, cache, std::move(report));
  if (pl.valid()) fits = pl.get();  // joined before returning, whatever the sections gave
  if (out.ok() && options.plackett_luce) out->plackett_luce = std::move(fits);
  return out;
}

static absl::StatusOr<Report> ComputeSections(const ScoringInput& input, const ReportOptions& options,
                                              ScoringCache* cache, Report report) {
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
  report.resources = ComputeResources(input);
  return report;
}

namespace {

nlohmann::json ProblemsJson(const Report& report) {
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& [name, b] : report.board.baselines) {
    auto it = report.options.problem_info.find(name);
    const ProblemInfo info =
        it == report.options.problem_info.end() ? ProblemInfo{} : it->second;
    problems.push_back({{"problem", name},
                        {"dimension", info.dimension},
                        {"attributes", info.attributes},
                        {"opt", JsonNumber(b.opt)},
                        {"clip", JsonNumber(b.clip)},
                        {"rand_mean_perf", JsonNumbers(b.rand_mean_perf)},
                        {"rand_med_perf", JsonNumbers(b.rand_med_perf)}});
  }
  return problems;
}

nlohmann::json BootstrapJson(const Report& report, double alpha) {
  const BootstrapResult& boot = report.bootstrap;
  nlohmann::json bm = nlohmann::json::array();
  for (size_t m = 0; m < boot.methods.size(); ++m) {
    auto [lo, hi] = RankInterval(boot.rank_counts[m], alpha);
    bm.push_back({{"method", boot.methods[m]},
                  {"rank_counts", boot.rank_counts[m]},
                  {"p_top_k", boot.p_top_k[m]},
                  {"rank_interval", {lo, hi}}});
  }
  nlohmann::json tops = nlohmann::json::array();
  for (const auto& [names, freq] : boot.top_rankings) {
    tops.push_back({{"ranking", names}, {"frequency", freq}});
  }
  return {{"replicates", boot.replicates},
          {"seed", report.options.bootstrap.seed},
          {"top_k", std::min<int>(report.options.bootstrap.top_k,
                                  static_cast<int>(boot.methods.size()))},
          {"methods", bm},
          {"top_rankings", tops}};
}

nlohmann::json NonparametricJson(const Report& report) {
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
  return {{"familywise_alpha", report.ranking.familywise_alpha},
          {"pairwise_alpha", report.ranking.pairwise_alpha},
          {"rows", BordaRowsJson(report.ranking.rows)},
          {"ballots", ballots},
          {"groups", groups}};
}

nlohmann::json AnytimeJson(const Report& report) {
  nlohmann::json any = nlohmann::json::object();
  for (const auto& [method, ecdf] : report.anytime.ecdf) {
    auto it = report.anytime.avg_fractional_rank.find(method);
    any[method] = {{"ecdf_runtime_to_target", JsonNumbers(ecdf)},
                   {"avg_fractional_rank",
                    it == report.anytime.avg_fractional_rank.end() ? nlohmann::json::array()
                                                                    : JsonNumbers(it->second)}};
  }
  return {{"rank_bootstrap_replicates", report.options.anytime_replicates}, {"methods", any}};
}

nlohmann::json AttainmentJson(const Attainment& attainment) {
  nlohmann::json att = nlohmann::json::object();
  for (const auto& [method, levels] : attainment.curves) {
    nlohmann::json l = nlohmann::json::array();
    for (const auto& curve : levels) l.push_back(JsonNumbers(curve));
    att[method] = l;
  }
  return {{"levels", attainment.levels}, {"methods", att}};
}

void AddPlackettLuce(const Report& report, nlohmann::json& j) {
  if (report.plackett_luce == nullptr) {
    j["plackett_luce"] = PlackettLuceReportJson(
        absl::FailedPreconditionError("the Plackett-Luce ranking was not computed"));
    return;
  }
  j["plackett_luce"] = PlackettLuceReportJson(report.plackett_luce->batches);
  if (report.plackett_luce->seconds) {
    j["plackett_luce_seconds"] = pl::PlackettLuceSecondsJson(*report.plackett_luce->seconds);
  }
}

}  // namespace

nlohmann::json ReportJson(const Report& report, const ScoringInput& input,
                          const nlohmann::json& racing) {
  const ReportOptions& o = report.options;
  nlohmann::json j = LeaderboardJson(report.board, input);
  j["schema"] = "bbo-arena/report/1";
  j["phase"] = o.phase;
  j["source"] = o.source;
  j["generated_at"] = report.generated_at;
  j["warnings"] = o.warnings;
  j["problems"] = ProblemsJson(report);
  if (report.bootstrap.replicates > 0) j["bootstrap"] = BootstrapJson(report, input.alpha);
  j["nonparametric"] = NonparametricJson(report);
  j["anytime"] = AnytimeJson(report);
  j["attainment"] = AttainmentJson(report.attainment);
  j["resources"] = ResourcesJson(report.resources);
  AddPlackettLuce(report, j);
  if (!racing.is_null()) j["racing"] = racing;
  return j;
}

}  // namespace bbo::scoring
