// Generated tasks (Klein et al. (2019, Profet), Profet-style): how fast 1,000 tasks are generated
// and evaluated, and how their value distributions compare with the real tasks they come from.
//
// Family 1: the 24 noiseless BBOB functions in 5-d (instance 1), a 128-point Sobol design.
// Comparison on 1,000 random points per task: the quantiles of each task's standardized values
// (z = (f - mean) / sd, pooled over the tasks of each kind), and for every generated task the
// Spearman correlation with its most similar real task (resemblance, not copies).
//
// Family 2 (with --ml-family): an ML family (registry.h GeneratedFamilies(), e.g. ml-svm-nll:
// one model and metric over several datasets). The design is run here (--ml-points, default
// 128) or loaded from a `bbo tasks design` file (--ml-design). The same comparison on
// --ml-random random points (default 200), plus the raw value quantiles (the metric's own
// units), and the cost of one generated-task evaluation as a ratio to one real task's
// cross-validated evaluation, both timed in this run on the same points.
//
// Usage: generated_tasks_bench [tasks] [--ml-family=F] [--ml-points=N] [--ml-random=N]
//                              [--ml-design=FILE]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>

#include "problems/generated/task_generator.h"
#include "problems/registry.h"

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

// Standardized values with two decimals, raw values with 3 significant digits.
void PrintQuantiles(const char* what, std::vector<double> pooled, bool raw = false) {
  std::sort(pooled.begin(), pooled.end());
  auto q = [&](double p) { return pooled[static_cast<size_t>(p * (pooled.size() - 1))]; };
  std::printf(raw ? "%-22s %7.3g %7.3g %7.3g %7.3g %7.3g %7.3g %7.3g\n"
                  : "%-22s %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f\n",
              what, q(0.01), q(0.05), q(0.25), q(0.5), q(0.75), q(0.95), q(0.99));
}

void PrintQuantileHeader() {
  std::printf("%-22s %7s %7s %7s %7s %7s %7s %7s\n", "tasks", "1%", "5%", "25%", "50%", "75%",
              "95%", "99%");
}

std::vector<double> Pooled(const std::vector<std::vector<double>>& values, bool standardize) {
  std::vector<double> pooled;
  for (const auto& v : values) {
    for (double x : standardize ? Standardized(v) : v) {
      if (std::isfinite(x)) pooled.push_back(x);
    }
  }
  return pooled;
}

// Generates n_tasks tasks from the design, evaluates them and the real tasks at n_random
// random points, and prints the comparison. Returns false, printing no figure, when the generator
// does not fit or an evaluation fails (throws, or is not finite).
bool Compare(const std::string& family, const std::vector<const bbo::Problem*>& tasks,
             const bbo::TaskFamilyDesign& design, double design_seconds, int n_tasks, int n_random,
             bool raw_quantiles) {
  const auto t1 = Clock::now();
  auto generator = bbo::TaskGenerator::Fit(design);
  const auto t2 = Clock::now();
  if (!generator.ok()) {
    std::fprintf(stderr, "%s: %s\n", family.c_str(), generator.status().ToString().c_str());
    return false;
  }
  std::vector<std::unique_ptr<bbo::Problem>> generated;
  for (int i = 0; i < n_tasks; ++i) generated.push_back((*generator)->Generate(i));
  const auto t3 = Clock::now();

  std::mt19937_64 rng(11);
  const auto& space = tasks[0]->space();
  std::vector<bbo::Point> points;
  for (int i = 0; i < n_random; ++i) {
    points.push_back(*space.Canonicalize(space.SampleRandom(rng)));
  }
  // An evaluation that throws or is not finite fails the run: quantiles, correlations and the
  // cost per evaluation would be figures of the evaluations that happened to work.
  long failed = 0;
  std::string first_failure;
  auto values = [&](const bbo::Problem& p) {
    std::vector<double> v;
    for (const auto& x : points) {
      double f;
      std::string why;
      try {
        f = p.Evaluate(x);
        if (!std::isfinite(f)) why = "value " + std::to_string(f);
      } catch (const std::exception& e) {
        f = NAN;
        why = std::string("threw: ") + e.what();
      } catch (...) {
        f = NAN;
        why = "threw a non-exception";
      }
      if (!why.empty() && failed++ == 0) first_failure = p.name() + ": " + why;
      v.push_back(f);
    }
    return v;
  };
  const auto e0 = Clock::now();
  std::vector<std::vector<double>> gen_values;
  for (const auto& g : generated) gen_values.push_back(values(*g));
  const auto e1 = Clock::now();
  std::vector<std::vector<double>> real_values;
  for (const auto* t : tasks) real_values.push_back(values(*t));
  const auto r1 = Clock::now();
  if (failed > 0) {
    std::fprintf(stderr, "%s: %ld of %zu evaluations failed (first: %s); no figures\n",
                 family.c_str(), failed, (generated.size() + tasks.size()) * points.size(),
                 first_failure.c_str());
    return false;
  }
  const double gen_eval = Seconds(e0, e1) / (static_cast<double>(n_tasks) * points.size());
  const double real_eval = Seconds(e1, r1) / (static_cast<double>(tasks.size()) * points.size());

  std::printf(
      "family %s: %zu real tasks, design of %zu points (%.2f s), fit %.3f s, "
      "latent dimensions %d\n",
      family.c_str(), tasks.size(), design.unit_points.size(), design_seconds, Seconds(t1, t2),
      (*generator)->latent_dims());
  std::printf("generated %d tasks in %.3f s (%.1f us per task)\n", n_tasks, Seconds(t2, t3),
              1e6 * Seconds(t2, t3) / n_tasks);
  std::printf("evaluated %d x %zu points in %.3f s: %.2f us per evaluation\n", n_tasks,
              points.size(), Seconds(e0, e1), 1e6 * gen_eval);
  std::printf("real tasks: %zu x %zu points in %.3f s: %.2f us per evaluation\n", tasks.size(),
              points.size(), Seconds(e1, r1), 1e6 * real_eval);
  std::printf("one generated-task evaluation / one real evaluation in this run: %.3g\n",
              gen_eval / real_eval);

  const std::string real_label = "real (" + std::to_string(tasks.size()) + ")";
  if (raw_quantiles) {
    std::printf("\nvalues f on %zu random points, pooled:\n", points.size());
    PrintQuantileHeader();
    PrintQuantiles(real_label.c_str(), Pooled(real_values, false), true);
    PrintQuantiles("generated", Pooled(gen_values, false), true);
  }
  std::printf("\nstandardized values z = (f - mean) / sd on %zu random points, pooled:\n",
              points.size());
  PrintQuantileHeader();
  PrintQuantiles(real_label.c_str(), Pooled(real_values, true));
  PrintQuantiles("generated", Pooled(gen_values, true));

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
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int n_tasks = 1000, ml_points = bbo::kDefaultDesignPoints, ml_random = 200;
  std::string ml_family, ml_design;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& flag) -> const char* {
      return arg.rfind(flag + "=", 0) == 0 ? argv[i] + flag.size() + 1 : nullptr;
    };
    if (const char* v = value("--ml-family")) {
      ml_family = v;
    } else if (const char* v = value("--ml-points")) {
      ml_points = std::atoi(v);
    } else if (const char* v = value("--ml-random")) {
      ml_random = std::atoi(v);
    } else if (const char* v = value("--ml-design")) {
      ml_design = v;
    } else if (!arg.empty() && arg[0] != '-') {
      n_tasks = std::atoi(arg.c_str());
    } else {
      std::fprintf(stderr,
                   "usage: generated_tasks_bench [tasks] [--ml-family=F] "
                   "[--ml-points=N] [--ml-random=N] [--ml-design=FILE]\n");
      return 2;
    }
  }

  auto real = bbo::MakeFamilyTasks("bbob-d5", 0);
  if (!real.ok()) {
    std::fprintf(stderr, "%s\n", real.status().ToString().c_str());
    return 1;
  }
  std::vector<const bbo::Problem*> tasks;
  for (const auto& p : *real) tasks.push_back(p.get());
  const auto t0 = Clock::now();
  auto design = bbo::RunDesign("bbob-d5", tasks, 128);
  const auto t1 = Clock::now();
  if (!design.ok()) {
    std::fprintf(stderr, "%s\n", design.status().ToString().c_str());
    return 1;
  }
  if (!Compare("bbob-d5", tasks, *design, Seconds(t0, t1), n_tasks, 1000, false)) return 1;
  if (ml_family.empty()) return 0;

  std::printf("\n");
  auto ml_real = bbo::MakeFamilyTasks(ml_family, 0);
  if (!ml_real.ok()) {
    std::fprintf(stderr, "%s\n", ml_real.status().ToString().c_str());
    return 1;
  }
  std::vector<const bbo::Problem*> ml_tasks;
  for (const auto& p : *ml_real) ml_tasks.push_back(p.get());
  const auto m0 = Clock::now();
  auto ml = ml_design.empty()
                ? bbo::RunDesign(ml_family, ml_tasks, ml_points,
                                 [&](int done, int total, const std::string& task) {
                                   std::fprintf(stderr, "design %d/%d (%s), %.1f s\n", done, total,
                                                task.c_str(), Seconds(m0, Clock::now()));
                                 })
                : bbo::LoadDesign(ml_design, ml_family);
  const auto m1 = Clock::now();
  if (!ml.ok()) {
    std::fprintf(stderr, "%s\n", ml.status().ToString().c_str());
    return 1;
  }
  return Compare(ml_family, ml_tasks, *ml, Seconds(m0, m1), n_tasks, ml_random, true) ? 0 : 1;
}
