// Benchmark of the ML problems.
//
//   ml_problems_bench [--data_dir=DIR] [--random=N] [--datasets=a,b,...]
//
// Default: times one 5-fold cross-validated evaluation (5 fits) per model family on iris, wine,
// breast, diabetes and one generated dataset of each task, at the centre of each search space in
// warped coordinates (log-scaled parameters at their geometric midpoint), and the same point
// through EvaluateWithGeneralization (CV plus the refit on the whole training part).
// --random=N instead evaluates N random points per problem (seeded, one metric per task) and
// reports mean / max time and how many evaluations threw or returned a non-finite value.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "problems/ml/ml_problem.h"
#include "problems/ml/ml_suite.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

bbo::Point CentrePoint(const bbo::SearchSpace& space) {
  std::vector<double> centre;
  for (const auto& [lo, hi] : space.WarpedBounds()) centre.push_back(0.5 * (lo + hi));
  return space.Unwarp(centre);
}

// nll and err (mae and mse) share the same fits, so one metric per task is timed.
bool SkipMetric(const std::string& name) {
  return name.ends_with("_err") || name.ends_with("_mse");
}

void RunCentre(const std::vector<std::unique_ptr<bbo::Problem>>& problems) {
  std::printf("%-30s %10s %12s %12s\n", "problem (centre point)", "cv loss", "one CV eval",
              "CV + refit");
  double worst = 0.0;
  for (const auto& problem : problems) {
    if (SkipMetric(problem->name())) continue;
    const auto& ml_problem = dynamic_cast<const bbo::ml::MlProblem&>(*problem);
    const bbo::Point point = CentrePoint(problem->space());
    const auto t0 = Clock::now();
    double value;
    try {
      value = problem->Evaluate(point);
    } catch (const std::exception& e) {
      std::printf("%-30s failed: %s\n", problem->name().c_str(), e.what());
      continue;
    }
    const auto t1 = Clock::now();
    absl::StatusOr<bbo::ml::MlEvaluation> full = ml_problem.EvaluateWithGeneralization(point);
    const auto t2 = Clock::now();
    worst = std::max(worst, Ms(t0, t1));
    std::printf("%-30s %10.4f %9.1f ms %9.1f ms%s\n", problem->name().c_str(), value, Ms(t0, t1),
                Ms(t1, t2), full.ok() ? "" : " (EvaluateWithGeneralization failed)");
  }
  std::printf("slowest CV evaluation: %.1f ms\n", worst);
}

void RunRandom(const std::vector<std::unique_ptr<bbo::Problem>>& problems, int n) {
  std::printf("%-30s %8s %10s %10s %8s %s\n", "problem (random points)", "best", "mean ms",
              "max ms", "failed", "first failure");
  std::mt19937_64 rng(12345);
  for (const auto& problem : problems) {
    if (SkipMetric(problem->name())) continue;
    double best = INFINITY, total = 0.0, worst = 0.0;
    int failed = 0;
    std::string first_failure;
    for (const bbo::Point& point : problem->space().SampleRandom(n, rng)) {
      const auto t0 = Clock::now();
      double value = NAN;
      try {
        value = problem->Evaluate(point);
      } catch (const std::exception& e) {
        if (first_failure.empty()) first_failure = e.what();
      }
      const double ms = Ms(t0, Clock::now());
      total += ms;
      worst = std::max(worst, ms);
      if (!std::isfinite(value)) {
        ++failed;
        if (first_failure.empty()) first_failure = "non-finite: " + bbo::PointToJson(point).dump();
      } else {
        best = std::min(best, value);
      }
    }
    if (first_failure.size() > 100) first_failure.resize(100);
    std::printf("%-30s %8.4f %10.1f %10.1f %8d %s\n", problem->name().c_str(), best, total / n,
                worst, failed, first_failure.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bbo::ml::MlSuiteOptions options;
  options.generated_seeds = {1};
  options.dataset_names = {"iris", "wine", "breast", "diabetes", "gen-clf-s1", "gen-reg-s1"};
  int random_points = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("--data_dir=")) {
      options.sklearn_data_dir = arg.substr(11);
    } else if (arg.starts_with("--random=")) {
      random_points = std::atoi(arg.c_str() + 9);
    } else if (arg.starts_with("--datasets=")) {
      options.dataset_names = absl::StrSplit(arg.substr(11), ',');
    } else {
      std::fprintf(stderr, "usage: %s [--data_dir=DIR] [--random=N] [--datasets=a,b]\n", argv[0]);
      return 2;
    }
  }
  std::vector<std::string> skipped;
  const auto t0 = Clock::now();
  std::vector<std::unique_ptr<bbo::Problem>> problems = bbo::ml::MakeMlSuite(options, &skipped);
  std::printf("built %zu problems in %.1f ms\n", problems.size(), Ms(t0, Clock::now()));
  for (const std::string& line : skipped) std::printf("%s\n", line.c_str());
  if (random_points > 0) {
    RunRandom(problems, random_points);
  } else {
    RunCentre(problems);
  }
  return 0;
}
