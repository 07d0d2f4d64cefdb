// Plackett-Luce benchmark (issue 14): T = 200 log-spaced timepoints, P = 1,000 instances, n = 7
// methods. Times, in one run: building the rankings from step traces, the independent Dirichlet
// model's 2,000 posterior draws (4 chains x 500 after 200 warmup sweeps) on every core and on one
// thread, its diagnostics, and the random-walk temporal model (Laplace and HMC) on the same data,
// and prints their ratios. Target: the independent model in <= 5 s on 2 cores.
// Usage: pl_bench [T=200] [P=1000] [n=7] [threads=0 (all cores)] [temporal=1 (0: skip it)]

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "scoring/plackett_luce/dirichlet_model.h"
#include "scoring/plackett_luce/random_walk_model.h"
#include "scoring/plackett_luce/ranking_stats.h"
#include "scoring/plackett_luce/rankings.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace pl = bbo::scoring::pl;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds of this process so far (user + system, all threads): the machine may be shared, and
// wall-clock figures are then only upper bounds.
double CpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// A case that failed: says why on stderr and gives main's exit status (no figure for it).
int Failed(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "pl_bench: %s failed: %s\n", what, status.ToString().c_str());
  return 1;
}

double LoadAverage() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

// Method m improves like t^-rate_m from a start level, with per-run log-normal noise; methods
// differ in early and late speed so that their anytime profiles cross. Values are recorded at 60
// log-spaced evaluation times per run (step traces), read on the grid.
pl::TraceSet Generate(int P, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  pl::TraceSet traces;
  for (int m = 0; m < n; ++m) {
    const std::string method = "m" + std::to_string(m);
    const double start = 1.0 + 0.3 * m;  // later methods start worse ...
    const double rate = 0.3 + 0.08 * m;  // ... and improve faster
    for (int p = 0; p < P; ++p) {
      pl::StepTrace tr;
      const double difficulty = std::exp(0.5 * z(rng));
      double best = INFINITY;
      for (int k = 0; k < 60; ++k) {
        const double t = std::pow(10.0, 3.0 * k / 59);  // 1 .. 1000
        const double v = difficulty * start * std::pow(t, -rate) * std::exp(0.4 * z(rng));
        if (v < best) {
          best = v;
          tr.time.push_back(t);
          tr.best.push_back(best);
        }
      }
      traces[method][pl::RunKey{"p" + std::to_string(p), 0}] = std::move(tr);
    }
  }
  return traces;
}

}  // namespace

int main(int argc, char** argv) {
  const int T = argc > 1 ? std::atoi(argv[1]) : 200;
  const int P = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int n = argc > 3 ? std::atoi(argv[3]) : 7;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 0;
  const bool run_temporal = argc > 5 ? std::atoi(argv[5]) != 0 : true;
  const unsigned cores = std::thread::hardware_concurrency();
  std::printf("pl_bench: T=%d P=%d n=%d cores=%u\n", T, P, n, cores);

  const pl::TraceSet traces = Generate(P, n, 42);
  auto grid = pl::LogGrid(1, 1000, T, "seconds");
  if (!grid.ok()) return Failed("the time grid", grid.status());
  const auto t0 = Clock::now();
  auto rankings = pl::RankingsFromTraces(traces, *grid);
  const auto t1 = Clock::now();
  if (!rankings.ok()) return Failed("the rankings", rankings.status());
  auto stats = pl::ComputePlStats(*rankings);
  const auto t2 = Clock::now();
  if (!stats.ok()) return Failed("the stage statistics", stats.status());
  size_t stage_sets = 0, chains = 0;
  for (const pl::PlStats& s : *stats) {
    stage_sets += s.stages.size();
    chains += s.chains.size();
  }
  std::printf("rankings: %zu (%.3f s), stage statistics: %zu stage sets + %zu chains (%.3f s)\n",
              rankings->rankings.size(), Seconds(t0, t1), stage_sets, chains, Seconds(t1, t2));

  pl::DirichletOptions o;  // 4 chains x 500 draws after 200 warmup sweeps = 2,000 draws
  o.threads = threads;
  const double c3 = CpuSeconds();
  const auto t3 = Clock::now();
  auto post = pl::FitIndependentDirichlet(*rankings, o);
  const auto t4 = Clock::now();
  const double independent_cpu = CpuSeconds() - c3;
  if (!post.ok()) return Failed("the independent Dirichlet model", post.status());
  const double independent = Seconds(t3, t4);
  std::printf(
      "independent Dirichlet: %d draws x %d timepoints: %.3f s wall (sampling %.3f s, diagnostics "
      "%.3f s), %.3f s CPU; max R-hat %.4f, min bulk ESS %.0f\n",
      post->S(), T, independent, post->diagnostics.seconds, independent - post->diagnostics.seconds,
      independent_cpu, post->diagnostics.max_rhat, post->diagnostics.min_ess_bulk);

  o.threads = 1;
  const double c5 = CpuSeconds();
  const auto t5 = Clock::now();
  auto serial = pl::FitIndependentDirichlet(*rankings, o);
  const auto t6 = Clock::now();
  const double one_thread = Seconds(t5, t6), one_thread_cpu = CpuSeconds() - c5;
  if (!serial.ok()) return Failed("the independent Dirichlet model on 1 thread", serial.status());
  std::printf("independent Dirichlet on 1 thread: %.3f s wall, %.3f s CPU\n", one_thread,
              one_thread_cpu);

  if (!run_temporal) return 0;
  pl::RandomWalkOptions rw;  // HMC: 4 chains x 500 draws after 300 warmup iterations
  rw.threads = threads;
  const double c7 = CpuSeconds();
  const auto t7 = Clock::now();
  auto temporal = pl::FitRandomWalk(*rankings, rw);
  const auto t8 = Clock::now();
  const double hmc = Seconds(t7, t8), hmc_cpu = CpuSeconds() - c7;
  if (!temporal.ok()) return Failed("the random walk (HMC)", temporal.status());
  std::printf(
      "random walk (HMC): %d draws: %.3f s wall, %.3f s CPU; sigma %.3f, acceptance %.2f, "
      "divergences %d, max R-hat %.4f, min bulk ESS %.0f\n",
      temporal->S(), hmc, hmc_cpu, temporal->hyper[0], temporal->diagnostics.acceptance_rate,
      temporal->diagnostics.divergences, temporal->diagnostics.max_rhat,
      temporal->diagnostics.min_ess_bulk);
  rw.inference = pl::TemporalInference::kLaplace;
  const double c9 = CpuSeconds();
  const auto t9 = Clock::now();
  auto laplace = pl::FitRandomWalk(*rankings, rw);
  const auto t10 = Clock::now();
  const double lap = Seconds(t9, t10), lap_cpu = CpuSeconds() - c9;
  if (!laplace.ok()) return Failed("the random walk (Laplace)", laplace.status());
  std::printf("random walk (Laplace): %d draws: %.3f s wall, %.3f s CPU\n", laplace->S(), lap,
              lap_cpu);

  const double idle_estimate = independent_cpu / std::max(1u, std::min(cores, 2u));
  std::printf(
      "ratios: independent wall / 5 s target = %.2f (CPU / %u cores = %.2f s -> %s on an idle "
      "machine); 1 thread / all cores = %.2fx wall, %.2fx CPU; HMC / independent = %.1fx wall; "
      "Laplace / independent = %.2fx wall; load average %.1f\n",
      independent / 5.0, std::min(cores, 2u), idle_estimate,
      idle_estimate <= 5.0 ? "within the 5 s target" : "over the 5 s target",
      one_thread / independent, one_thread_cpu / independent_cpu, hmc / independent,
      lap / independent, LoadAverage());
  return 0;
}
