// Generated tasks (seed 004, Profet-style): how fast 1,000 tasks are generated and evaluated,
// and how their value distributions compare with the real tasks they come from.
//
// Family: the 24 noiseless BBOB functions in 5-d (instance 1), a 128-point Sobol design.
// Comparison on 1,000 random points per task: the quantiles of each task's standardized values
// (z = (f - mean) / sd, pooled over the tasks of each kind), and for every generated task the
// Spearman correlation with its most similar real task (resemblance, not copies).
// Usage: generated_tasks_bench [tasks]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "server/problems/generated/task_generator.h"
#include "server/problems/registry.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::vector<double> Standardized(std::vector<double> v) {
  double m = 0, s = 0;
  for (double x : v) m += x / v.size();
  for (double x : v) s += (x - m) * (x - m) / (v.size() - 1);
  s = std::sqrt(s);
  for (double& x : v) x = s > 0 ? (x - m) / s : 0;
  return v;
}

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size(); ++i) r[idx[i]] = static_cast<double>(i);
  return r;
}

double Pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const auto za = Standardized(a), zb = Standardized(b);
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += za[i] * zb[i];
  return s / (a.size() - 1);
}

void PrintQuantiles(const char* what, std::vector<double> pooled) {
  std::sort(pooled.begin(), pooled.end());
  auto q = [&](double p) { return pooled[static_cast<size_t>(p * (pooled.size() - 1))]; };
  std::printf("%-22s %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f\n", what, q(0.01), q(0.05),
              q(0.25), q(0.5), q(0.75), q(0.95), q(0.99));
}

}  // namespace

int main(int argc, char** argv) {
  const int n_tasks = argc > 1 ? std::atoi(argv[1]) : 1000;
  auto real = bbo::MakeSuite("bbob-d5", bbo::SuiteOptions{});
  if (!real.ok()) return 1;
  std::vector<const bbo::Problem*> tasks;
  for (const auto& p : *real) tasks.push_back(p.get());
  auto t0 = Clock::now();
  auto design = bbo::RunDesign("bbob-d5", tasks, 128);
  auto t1 = Clock::now();
  auto generator = bbo::TaskGenerator::Fit(*design);
  auto t2 = Clock::now();
  if (!design.ok() || !generator.ok()) return 1;
  std::vector<std::unique_ptr<bbo::Problem>> generated;
  for (int i = 0; i < n_tasks; ++i) generated.push_back((*generator)->Generate(i));
  auto t3 = Clock::now();

  std::mt19937_64 rng(11);
  const auto& space = tasks[0]->space();
  std::vector<bbo::Point> points;
  for (int i = 0; i < 1000; ++i) points.push_back(*space.Canonicalize(space.SampleRandom(rng)));
  auto values = [&](const bbo::Problem& p) {
    std::vector<double> v;
    for (const auto& x : points) v.push_back(p.Evaluate(x));
    return v;
  };
  auto e0 = Clock::now();
  std::vector<std::vector<double>> gen_values;
  for (const auto& g : generated) gen_values.push_back(values(*g));
  auto e1 = Clock::now();
  auto r0 = Clock::now();
  std::vector<std::vector<double>> real_values;
  for (const auto* t : tasks) real_values.push_back(values(*t));
  auto r1 = Clock::now();
  const double gen_eval = Seconds(e0, e1) / (static_cast<double>(n_tasks) * points.size());
  const double real_eval = Seconds(r0, r1) / (static_cast<double>(tasks.size()) * points.size());

  std::printf("family bbob-d5: %zu real tasks, design of %zu points (%.2f s), fit %.3f s, "
              "latent dimensions %d\n",
              tasks.size(), design->unit_points.size(), Seconds(t0, t1), Seconds(t1, t2),
              (*generator)->latent_dims());
  std::printf("generated %d tasks in %.3f s (%.1f us per task)\n", n_tasks, Seconds(t2, t3),
              1e6 * Seconds(t2, t3) / n_tasks);
  std::printf("evaluated %d x %zu points in %.3f s: %.2f us per evaluation\n", n_tasks,
              points.size(), Seconds(e0, e1),
              1e6 * Seconds(e0, e1) / (static_cast<double>(n_tasks) * points.size()));

  std::printf("one generated-task evaluation / one real (BBOB) evaluation in this run: %.2f\n",
              gen_eval / real_eval);
  std::printf("\nstandardized values z = (f - mean) / sd on 1000 random points, pooled:\n");
  std::printf("%-22s %7s %7s %7s %7s %7s %7s %7s\n", "tasks", "1%", "5%", "25%", "50%", "75%",
              "95%", "99%");
  std::vector<double> pooled_real, pooled_gen;
  for (const auto& v : real_values) {
    for (double z : Standardized(v)) pooled_real.push_back(z);
  }
  for (const auto& v : gen_values) {
    for (double z : Standardized(v)) pooled_gen.push_back(z);
  }
  PrintQuantiles("real (24)", pooled_real);
  PrintQuantiles("generated", pooled_gen);

  // Resemblance: Spearman correlation with the most similar real task.
  std::vector<std::vector<double>> real_ranks;
  for (const auto& v : real_values) real_ranks.push_back(Ranks(v));
  std::vector<double> best_corr;
  for (const auto& v : gen_values) {
    const auto r = Ranks(v);
    double best = -1;
    for (const auto& rr : real_ranks) best = std::max(best, Pearson(r, rr));
    best_corr.push_back(best);
  }
  std::sort(best_corr.begin(), best_corr.end());
  std::printf("\nSpearman correlation of each generated task with its most similar real task: "
              "min %.2f, median %.2f, max %.2f\n",
              best_corr.front(), best_corr[best_corr.size() / 2], best_corr.back());
  return 0;
}
