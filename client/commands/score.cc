// bbo score: a results CSV scored offline with Bayesmark's estimators (no server).

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "client/commands/commands.h"
#include "client/commands/offline_input.h"
#include "report/report.h"
#include "report/report_json.h"
#include "scoring/plackett_luce/summary.h"

namespace bbo::client {
namespace {

// The leaderboard, best first, and what its columns mean.
void PrintLeaderboard(const scoring::Leaderboard& board, const scoring::ScoringInput& input) {
  std::printf("%d batches of %d, %zu problems; 100 = best value found every time, 0 = one random "
              "guess\n",
              input.n_batches, input.batch_size, input.problems.size());
  std::printf("%-4s %-28s %9s %9s %9s %9s %11s %9s\n", "rank", "method", "score", "+/-",
              "bm-median", "t2-median", "RS iters", "RS eff.");
  int rank = 0;
  for (const auto& r : board.rows) {
    const char* bound = r.rs_bound == scoring::MethodResult::Bound::kAtLeast  ? ">"
                        : r.rs_bound == scoring::MethodResult::Bound::kAtMost ? "<="
                                                                               : "";
    std::string iters = absl::StrFormat("%s%.0f", bound, r.rs_equivalent_evals);
    std::printf("%-4d %-28s %9.3f %9.3f %9.3f %9.3f %11s %9.3f\n", ++rank, r.method.c_str(),
                r.score, 100 * r.mean_perf_eb.back(), r.median_score, r.table2_median_score,
                iters.c_str(), r.rs_efficiency);
  }
  std::printf(
      "(score: Turner et al. (2021) eq. 7; +/-: Student-t half-width over problems; bm-median: "
      "Bayesmark's median score, as bbo leaderboard shows it (random search is 0 on it); "
      "t2-median: Turner et al. (2021) Table 2, eq. 7 with the median over problems; RS iters: "
      "random-search evaluations with the same expected score, vs %d used)\n",
      input.batch_size * input.n_batches);
}

void PrintBootstrapRanks(const scoring::BootstrapResult& ranks, int top_k) {
  std::printf("\nBootstrap ranks (B = %d, Turner et al. (2021) eq. 1): P(rank 1), P(top %d)\n",
              ranks.replicates, top_k);
  for (size_t m = 0; m < ranks.methods.size(); ++m) {
    std::printf("%-28s %7.3f %7.3f\n", ranks.methods[m].c_str(),
                static_cast<double>(ranks.rank_counts[m][0]) / ranks.replicates,
                ranks.p_top_k[m]);
  }
  if (!ranks.top_rankings.empty()) {
    std::printf("most frequent top-%d ranking (%.1f%%):", top_k,
                100 * ranks.top_rankings[0].second);
    for (const auto& name : ranks.top_rankings[0].first) std::printf(" %s", name.c_str());
    std::printf("\n");
  }
}

void PrintBordaRanking(const scoring::NonparametricRanking& ranking) {
  std::printf("\nMann-Whitney / Borda ranking (familywise alpha %.3g, per test %.3g)\n",
              ranking.familywise_alpha, ranking.pairwise_alpha);
  std::printf("%-28s %7s %7s %9s\n", "method", "Borda", "firsts", "top three");
  for (const auto& r : ranking.rows) {
    std::printf("%-28s %7d %7d %9d\n", r.method.c_str(), r.borda, r.firsts, r.top_three);
  }
}

// The Bayesian Plackett-Luce view (PolarBear; docs/plackett-luce.md): the methods' ratings
// from one ranking per (problem, trial index) at every batch, the Pareto set and decisions.
void PrintPlackettLuce(const scoring::pl::PlackettLuceSummary& pl) {
  std::printf("\nPlackett-Luce ratings at the last batch (independent Dirichlet(1) model, %s, %d "
              "rankings; PolarBear): posterior mean [95%% band], P(in the anytime Pareto set)\n",
              pl.inference.c_str(), pl.runs);
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [m, mean] : pl.final_mean) order.push_back({-mean, m});
  std::sort(order.begin(), order.end());
  for (const auto& [neg, m] : order) {
    std::printf("%-28s %7.4f [%6.4f, %6.4f] %6.3f\n", m.c_str(), -neg, pl.final_lower.at(m),
                pl.final_upper.at(m), pl.p_pareto.count(m) ? pl.p_pareto.at(m) : 0.0);
  }
  std::printf("anytime Pareto set:");
  for (const std::string& m : pl.pareto_set) std::printf(" %s", m.c_str());
  std::printf("\n");
}

}  // namespace

int RunScore(const ScoreArgs& a) {
  auto built = ReadResults("bbo score", a.path, a.random_search, a.generalization);
  if (!built) return 1;
  built->input.alpha = a.alpha;
  scoring::ReportOptions o;
  o.phase = "";
  o.source = a.path;
  o.baseline_row_name = "";  // random search is scored as the method it is in the table
  o.bootstrap = a.bootstrap;
  o.familywise_alpha = a.alpha;
  o.warnings = built->warnings;
  o.problem_info = KnownProblemInfo(built->input);
  auto report = scoring::ComputeReport(built->input, o);
  if (!report.ok()) {
    std::fprintf(stderr, "bbo score: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  // ComputeReport fitted the Plackett-Luce view (ReportOptions::plackett_luce); its JSON is the
  // report's key.
  const absl::StatusOr<scoring::pl::PlackettLuceSummary>& pl = report->plackett_luce->batches;
  if (!pl.ok()) {
    std::fprintf(stderr, "bbo score: Plackett-Luce ranking: %s\n",
                 std::string(pl.status().message()).c_str());
    return 1;
  }
  if (a.json) {
    nlohmann::json j = scoring::ReportJson(*report, built->input);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  PrintLeaderboard(report->board, built->input);
  PrintBootstrapRanks(report->bootstrap, a.bootstrap.top_k);
  PrintBordaRanking(report->ranking);
  PrintPlackettLuce(*pl);
  return 0;
}

Command AddScoreCommand(CLI::App& app) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score a results table offline with Bayesmark's estimators (no server).");
  cmd->add_option("RESULTS_CSV", args->path,
                  "CSV: problem,method,trial,batch,suggestion,value[,generalization]")
      ->required();
  cmd->add_option("--random-search", args->random_search,
                  "The method whose evaluations are the random-search baseline (default: "
                  "random-search, or random-search-baseline as bbo export names it)");
  cmd->add_flag("--json", args->json, "JSON output");
  cmd->add_flag("--generalization", args->generalization,
                "Score the generalization column at the argmin of the visible value");
  cmd->add_option("--alpha", args->alpha, "1 - confidence level of the error bars")
      ->default_val(0.05)
      ->check(CLI::Range(1e-6, 0.5));
  cmd->add_option("--bootstrap", args->bootstrap.replicates, "Bootstrap replicates B")
      ->default_val(10000)
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--seed", args->bootstrap.seed, "Bootstrap seed")->default_val(1);
  cmd->add_option("--top-k", args->bootstrap.top_k, "k of the bootstrap top-k tables")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));
  return {cmd, [args] { return RunScore(*args); }};
}

}  // namespace bbo::client
