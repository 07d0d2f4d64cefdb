// Scoring benchmark: the full scoring report for 65 methods x 60 problems x 100 trials x 16
// batches of 8 (leaderboard with error bars and RS-equivalents, B bootstrap rank replicates,
// Mann-Whitney/Borda ranking), timed against a straightforward single-threaded bootstrap of the
// same math in the same run. Usage: scoring_bench [B] [methods] [problems] [trials].

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "nlohmann/json.hpp"
#include "scoring/anytime.h"
#include "scoring/bootstrap.h"
#include "scoring/borda.h"
#include "scoring/leaderboard.h"
#include "report/report.h"
#include "report/report_files.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Method m draws values from an exponential with a method-specific scale: better methods find
// lower values. Random search supplies 100 trials x 128 pooled evaluations per problem.
bbo::scoring::ScoringInput Generate(int methods, int problems, int trials) {
  bbo::scoring::ScoringInput in;
  in.batch_size = 8;
  in.n_batches = 16;
  std::mt19937_64 rng(7);
  for (int p = 0; p < problems; ++p) {
    std::string problem = "p" + std::to_string(p);
    std::exponential_distribution<double> rs(1.0);
    auto& base = in.problems[problem];
    for (int i = 0; i < trials * 128; ++i) base.random_evals.push_back(rs(rng));
    for (int m = 0; m < methods; ++m) {
      std::exponential_distribution<double> draw(1.0 + 0.05 * m);
      auto& data = in.methods["m" + std::to_string(m)][problem];
      for (int t = 0; t < trials; ++t) {
        bbo::scoring::TrialCurve c;
        for (int b = 0; b < 16; ++b) {
          double best = HUGE_VAL;
          for (int k = 0; k < 8; ++k) best = std::min(best, draw(rng));
          c.batch_min.push_back(best);
        }
        data.trials.push_back(std::move(c));
      }
    }
  }
  return in;
}

// The straightforward version: one thread, std::mt19937_64, std::uniform_int_distribution.
double NaiveBootstrapSeconds(const bbo::scoring::Leaderboard& board,
                             const bbo::scoring::ScoringInput& in, int B) {
  auto start = Clock::now();
  std::vector<std::vector<std::vector<double>>> scores;
  for (const auto& r : board.rows) {
    if (r.is_baseline) continue;
    std::vector<std::vector<double>> per_problem;
    for (const auto& p : r.problems) {
      const auto& base = board.baselines.at(p.problem);
      std::vector<double> v;
      for (const auto& c : in.methods.at(r.method).at(p.problem).trials) {
        double s = bbo::scoring::BestSoFar(c).back();
        v.push_back(std::clamp((s - base.opt) / (base.clip - base.opt), -1.0, 1.0));
      }
      per_problem.push_back(v);
    }
    scores.push_back(per_problem);
  }
  std::mt19937_64 rng(1);
  std::vector<int> rank1(scores.size(), 0);
  for (int i = 0; i < B; ++i) {
    std::vector<double> score(scores.size());
    for (size_t m = 0; m < scores.size(); ++m) {
      double sum = 0;
      for (const auto& trials : scores[m]) {
        std::uniform_int_distribution<size_t> pick(0, trials.size() - 1);
        double s = 0;
        for (size_t n = 0; n < trials.size(); ++n) s += trials[pick(rng)];
        sum += s / trials.size();
      }
      score[m] = sum / scores[m].size();
    }
    rank1[std::min_element(score.begin(), score.end()) - score.begin()]++;
  }
  return Seconds(start, Clock::now());
}

}  // namespace

int main(int argc, char** argv) {
  const int B = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int methods = argc > 2 ? std::atoi(argv[2]) : 65;
  const int problems = argc > 3 ? std::atoi(argv[3]) : 60;
  const int trials = argc > 4 ? std::atoi(argv[4]) : 100;
  std::printf("scoring report: %d methods x %d problems x %d trials x 16 batches of 8, B = %d\n",
              methods, problems, trials, B);
  auto g0 = Clock::now();
  bbo::scoring::ScoringInput in = Generate(methods, problems, trials);
  std::printf("(generating the data: %.1f s, not counted)\n", Seconds(g0, Clock::now()));

  // `scoring_bench B M P N report-only` times only the whole report (for profiling it).
  const bool report_only = argc > 5 && std::string(argv[5]) == "report-only";
  if (report_only) {
    bbo::scoring::ReportOptions ro;
    ro.baseline_row_name = "random-search";
    ro.bootstrap.replicates = B;
    auto r0 = Clock::now();
    auto report = bbo::scoring::ComputeReport(in, ro);
    if (!report.ok()) {
      std::fprintf(stderr, "report failed: %s\n", std::string(report.status().message()).c_str());
      return 1;
    }
    std::printf("full report: compute                          : %8.3f s\n", Seconds(r0, Clock::now()));
    return 0;
  }
  // The parts, one after the other, then the whole report as the service computes it.
  auto t0 = Clock::now();
  auto board = bbo::scoring::ComputeLeaderboard(in, "random-search");
  auto t1 = Clock::now();
  if (!board.ok()) {
    std::fprintf(stderr, "leaderboard failed: %s\n", board.status().ToString().c_str());
    return 1;
  }
  bbo::scoring::BootstrapOptions opts;
  opts.replicates = B;
  auto ranks = bbo::scoring::BootstrapRanks(*board, in, opts);
  auto t2 = Clock::now();
  auto borda = bbo::scoring::RankMethods(in, 0.05);
  auto t3 = Clock::now();
  auto anytime = bbo::scoring::ComputeAnytime(*board, in, 200, 1);
  auto t4 = Clock::now();
  bbo::scoring::ReportOptions ro;
  const bbo::scoring::PlackettLuceFits fits =
      bbo::scoring::FitPlackettLuce(in, ro.plackett_luce_options);
  auto t5 = Clock::now();
  for (const auto& [what, status] :
       {std::pair<const char*, absl::Status>{"bootstrap ranks", ranks.status()},
        {"Mann-Whitney / Borda", borda.status()},
        {"anytime", anytime.status()}}) {
    if (!status.ok()) {
      std::fprintf(stderr, "%s failed: %s\n", what, status.ToString().c_str());
      return 1;
    }
  }
  if (!fits.batches.ok()) {
    std::fprintf(stderr, "Plackett-Luce ranking failed: %s\n",
                 std::string(fits.batches.status().message()).c_str());
    return 1;
  }
  ro.baseline_row_name = "random-search";
  ro.bootstrap = opts;
  auto r0 = Clock::now();
  auto report = bbo::scoring::ComputeReport(in, ro);
  if (!report.ok()) {
    std::fprintf(stderr, "report failed: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  auto r1 = Clock::now();
  nlohmann::json j = bbo::scoring::ReportJson(*report, in);
  auto r2 = Clock::now();
  auto html = bbo::scoring::RenderReportFiles(j, "html");
  auto r3 = Clock::now();
  // A report that did not render is a failed case: no figure for it, and no total either.
  if (!html.ok() || html->empty() || (*html)[0].content.empty()) {
    std::fprintf(stderr, "HTML rendering failed: %s\n",
                 html.ok() ? "no file, or an empty one" : html.status().ToString().c_str());
    return 1;
  }
  const double total = Seconds(r0, r3);
  // The server's case: the leaderboard is cached and only the problems a finished study
  // touched are rescored. One new trial of one method on one problem:
  bbo::scoring::ScoringCache cache;
  (void)bbo::scoring::ComputeLeaderboard(in, "random-search", &cache);
  auto& first_trials = in.methods.begin()->second.begin()->second.trials;
  first_trials.push_back(first_trials.front());
  first_trials.back().batch_min.back() += 1e-3;  // a new, different study
  auto i0 = Clock::now();
  auto incremental = bbo::scoring::ComputeLeaderboard(in, "random-search", &cache);
  auto i1 = Clock::now();
  if (!incremental.ok()) {
    std::fprintf(stderr, "incremental leaderboard failed: %s\n",
                 incremental.status().ToString().c_str());
    return 1;
  }
  // `scoring_bench B M P N skip-naive` leaves out the slow reference (for profiling).
  const bool skip_naive = argc > 5 && std::string(argv[5]) == "skip-naive";
  const double naive_s = skip_naive ? NAN : NaiveBootstrapSeconds(*board, in, B);
  std::printf("leaderboard (error bars, CIs, RS-equivalents): %8.3f s\n", Seconds(t0, t1));
  std::printf("bootstrap ranks, B = %d (all cores)        : %8.3f s\n", B, Seconds(t1, t2));
  std::printf("Mann-Whitney / Borda                          : %8.3f s\n", Seconds(t2, t3));
  std::printf("anytime (ECDF, fractional rank, 200 reps)     : %8.3f s\n", Seconds(t3, t4));
  std::printf("Plackett-Luce ranking over batches (%s)  : %8.3f s\n",
              fits.batches->inference.c_str(), Seconds(t4, t5));
  std::printf("full report: compute                          : %8.3f s\n", Seconds(r0, r1));
  std::printf("full report: JSON                             : %8.3f s\n", Seconds(r1, r2));
  std::printf("full report: HTML with SVG plots (%5.2f MB)    : %8.3f s\n",
              (*html)[0].content.size() / 1e6, Seconds(r2, r3));
  std::printf("full report, total                            : %8.3f s  (goal <= 2 s)\n", total);
  std::printf("leaderboard after one new study (incremental) : %8.3f s\n", Seconds(i0, i1));
  std::printf("straightforward single-threaded bootstrap     : %8.3f s\n", naive_s);
  std::printf("ratio bootstrap / straightforward bootstrap   : %8.3f\n", Seconds(t1, t2) / naive_s);
  std::printf("ratio full report / straightforward bootstrap : %8.3f\n", total / naive_s);
  return 0;
}
