// A raced board (TrialCurve::horizon): the batches a race did not run are no view's results. An
// identical copy of an entry, entered late into a race that had shortened the original's studies,
// ranks level with it in every section of the report; carrying the shortened studies' last values
// forward (what the views did before) ranks the copy clearly ahead, so the test can fail.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "report/report.h"

namespace bbo::scoring {
namespace {

constexpr int kT = 16;
constexpr int kProblems = 6;
constexpr int kTrials = 12;
constexpr int kShortenedFrom = 6;  // the original's trials 6..11 stopped after batch 8
constexpr int kHorizon = 8;

// Batch minima of one study: values shrink steadily over the batches, so a study stopped at
// batch 8 and carried forward looks much worse at batch 16 than one that ran on.
TrialCurve Study(std::mt19937_64& rng, double scale, int trial) {
  std::exponential_distribution<double> draw(1.0);
  TrialCurve c;
  c.trial = trial;
  for (int t = 0; t < kT; ++t) {
    c.batch_min.push_back(scale * (1 + draw(rng)) * (kT + 1 - t) / (kT + 1));
  }
  return c;
}

// "original" ran every trial but was shortened to 8 batches on the later ones (batches beyond
// are +inf, as the store pads them); "copy" (the same optimizer, other seeds) ran everything;
// "worse" is clearly worse. `as_raced` = false drops the horizons: the old carry-forward.
ScoringInput RacedInput(bool as_raced) {
  ScoringInput in;
  in.n_batches = kT;
  in.batch_size = 8;
  std::mt19937_64 rng(2026);
  std::exponential_distribution<double> rs(0.5);
  for (int p = 0; p < kProblems; ++p) {
    const std::string problem = "p" + std::to_string(p);
    for (int i = 0; i < 20 * 8 * kT; ++i) in.problems[problem].random_evals.push_back(1 + rs(rng));
    for (int n = 0; n < kTrials; ++n) {
      TrialCurve original = Study(rng, 1.0, n);
      if (n >= kShortenedFrom) {
        std::fill(original.batch_min.begin() + kHorizon, original.batch_min.end(), HUGE_VAL);
        if (as_raced) original.horizon = kHorizon;
      }
      in.methods["original"][problem].trials.push_back(std::move(original));
      in.methods["copy"][problem].trials.push_back(Study(rng, 1.0, n));
      in.methods["worse"][problem].trials.push_back(Study(rng, 3.0, n));
    }
  }
  return in;
}

absl::StatusOr<Report> RacedReport(bool as_raced) {
  ReportOptions o;
  o.bootstrap.replicates = 2000;
  o.anytime_replicates = 100;
  return ComputeReport(RacedInput(as_raced), o);
}

const MethodResult& Row(const Leaderboard& board, const std::string& method) {
  for (const MethodResult& r : board.rows) {
    if (r.method == method) return r;
  }
  ADD_FAILURE() << "no row " << method;
  return board.rows.front();
}

double PTop1(const BootstrapResult& boot, const std::string& method) {
  for (size_t m = 0; m < boot.methods.size(); ++m) {
    if (boot.methods[m] == method) return boot.rank_counts[m][0] / double(boot.replicates);
  }
  ADD_FAILURE() << "no bootstrap row " << method;
  return NAN;
}

// P(original beats copy) at the last batch, and whether either eliminated the other.
double PlOriginalBetter(const pl::PlackettLuceSummary& s) {
  const auto& d = s.decisions;
  int a = -1, b = -1;
  for (size_t i = 0; i < d.methods.size(); ++i) {
    if (d.methods[i] == "copy") a = static_cast<int>(i);
    if (d.methods[i] == "original") b = static_cast<int>(i);
  }
  const pl::PairDecision* pair = d.Pair(std::min(a, b), std::max(a, b));
  if (pair == nullptr) return NAN;
  const double p_copy_better = a < b ? pair->p_a_better.back() : 1 - pair->p_a_better.back();
  return 1 - p_copy_better;
}

TEST(RacedBoardTest, AnIdenticalCopyRanksLevelWithTheShortenedOriginalInEverySection) {
  absl::StatusOr<Report> report = RacedReport(true);
  ASSERT_TRUE(report.ok()) << report.status();
  // Leaderboard: both are scored at batch 16 on the studies that ran it; their error bars
  // overlap, and each is complete (every problem has studies that ran batch 16).
  const MethodResult& original = Row(report->board, "original");
  const MethodResult& copy = Row(report->board, "copy");
  EXPECT_TRUE(original.complete);
  EXPECT_LE(std::abs(original.score - copy.score),
            100 * (original.mean_perf_eb.back() + copy.mean_perf_eb.back()))
      << original.score << " vs " << copy.score;
  EXPECT_GT(original.score, Row(report->board, "worse").score);
  for (const ProblemResult& p : original.problems) {
    EXPECT_EQ(p.trials_run[kHorizon - 1], kTrials) << p.problem;
    EXPECT_EQ(p.trials_run[kHorizon], kShortenedFrom) << p.problem;
    EXPECT_EQ(p.trials, kTrials);
  }
  // Bootstrap ranks: either may come first.
  EXPECT_GT(PTop1(report->bootstrap, "original"), 0.1);
  EXPECT_GT(PTop1(report->bootstrap, "copy"), 0.1);
  // Mann-Whitney / Borda: no problem separates them.
  for (const ProblemBallot& pb : report->ranking.ballots) {
    const auto& m = pb.ballot.methods;
    const size_t o = std::find(m.begin(), m.end(), "original") - m.begin();
    const size_t c = std::find(m.begin(), m.end(), "copy") - m.begin();
    ASSERT_LT(o, m.size());
    ASSERT_LT(c, m.size());
    EXPECT_EQ(pb.ballot.position[o], pb.ballot.position[c]) << pb.problem;
  }
  // Anytime: the same average fractional rank at the last batch, within resampling noise.
  EXPECT_NEAR(report->anytime.avg_fractional_rank.at("original").back(),
              report->anytime.avg_fractional_rank.at("copy").back(), 0.15);
  // Attainment at batch 16: from the studies that ran it.
  EXPECT_NEAR(report->attainment.curves.at("original")[2].back(),
              report->attainment.curves.at("copy")[2].back(), 0.15);
  // Plackett-Luce: neither eliminates the other, and no decision between them at batch 16.
  ASSERT_NE(report->plackett_luce, nullptr);
  ASSERT_TRUE(report->plackett_luce->batches.ok()) << report->plackett_luce->batches.status();
  const pl::PlackettLuceSummary& s = *report->plackett_luce->batches;
  EXPECT_EQ(s.eliminated_by.count("original"), 0u);
  EXPECT_EQ(s.eliminated_by.count("copy"), 0u);
  const double p = PlOriginalBetter(s);
  EXPECT_GT(p, 1 - s.options.decisions.alpha);
  EXPECT_LT(p, s.options.decisions.alpha);
  EXPECT_EQ(s.eliminated_by.at("worse").empty(), false);
}

TEST(RacedBoardTest, CarryingTheShortenedStudiesForwardWouldRankTheCopyAhead) {
  // The control: the same results without the horizons (the views before this change).
  absl::StatusOr<Report> report = RacedReport(false);
  ASSERT_TRUE(report.ok()) << report.status();
  const MethodResult& original = Row(report->board, "original");
  const MethodResult& copy = Row(report->board, "copy");
  EXPECT_GT(copy.score - original.score,
            100 * (original.mean_perf_eb.back() + copy.mean_perf_eb.back()));
  const double p = PlOriginalBetter(*report->plackett_luce->batches);
  EXPECT_LT(p, 1 - report->plackett_luce->batches->options.decisions.alpha);
}

}  // namespace
}  // namespace bbo::scoring
