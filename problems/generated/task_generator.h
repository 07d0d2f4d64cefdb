#ifndef BBO_PROBLEMS_GENERATED_TASK_GENERATOR_H_
#define BBO_PROBLEMS_GENERATED_TASK_GENERATOR_H_

// Generated benchmark tasks in the spirit of Profet (Klein et al. (2019, Profet)): new objective
// functions that resemble a family of real tasks (e.g. one model tuned on several datasets), cheap
// to evaluate and deterministic given a seed, so a hidden suite can hold any number of tasks nobody
// has seen.
//
//  1. Design: every real task of the family is evaluated at the same n scrambled-free Sobol
//     points of their shared search space (in warped coordinates scaled to [0, 1]^d). The design
//     is stored in SQLite and can be reloaded without re-running the (slow) real tasks.
//  2. Meta-model: each task's values are standardized (its own mean and standard deviation);
//     the standardized value vectors of the K tasks are decomposed by PCA, which gives every
//     task latent coordinates h_k (Profet's task embedding).
//  3. A new task draws latent coordinates from the Gaussian fitted to the h_k (a seeded
//     perturbation of the task parameters), maps them back to standardized values at the design
//     points, takes the output mean and scale of a real task picked at random, jittered (scale
//     times exp(0.25 N(0, 1)), mean plus 0.25 scale N(0, 1)), and interpolates the values over
//     the space with a Gaussian-process posterior mean (squared-exponential kernel,
//     length scale by the median-distance heuristic). Evaluating it is a kernel sum over the n
//     design points: a few microseconds.
//
// Thread-safe after construction.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "problems/problem.h"

namespace bbo {

struct TaskFamilyDesign {
  std::string family;
  nlohmann::json api_config;
  // n x d design points in [0, 1]^d (warped coordinates scaled by the warped bounds).
  std::vector<std::vector<double>> unit_points;
  std::vector<std::string> tasks;
  // K x n values; a crashed evaluation (inf / NaN) is replaced by the task's worst finite value.
  std::vector<std::vector<double>> values;
};

// Called by RunDesign after each task's evaluations, on the calling thread: how many tasks are
// done, out of how many, and the name of the one just finished.
using DesignProgress =
    std::function<void(int tasks_done, int tasks_total, const std::string& task)>;

// Evaluates every task at the first `n_points` Sobol points, tasks in the given order;
// `progress` (may be empty) is told after each task. InvalidArgument: no tasks, tasks whose
// api_configs differ, n_points < 4, or a task without any finite value.
absl::StatusOr<TaskFamilyDesign> RunDesign(const std::string& family,
                                           const std::vector<const Problem*>& tasks, int n_points,
                                           const DesignProgress& progress = {});

// Stores / loads a design in the SQLite file `path` (tables task_families and task_designs; a
// family is replaced as a whole, other families in the file are kept). LoadDesign returns the
// tasks in the order they were saved. NotFound: no such file, no design in it, or no such
// family in it.
absl::Status SaveDesign(const TaskFamilyDesign& design, const std::string& path);
absl::StatusOr<TaskFamilyDesign> LoadDesign(const std::string& path, const std::string& family);

// One family stored in a design file.
struct DesignSummary {
  std::string family;
  int tasks = 0;   // real tasks K
  int points = 0;  // design points n
  int dims = 0;    // parameters of the shared search space
};

// The families stored in the design file `path`, by name. NotFound: no such file or no design
// in it.
absl::StatusOr<std::vector<DesignSummary>> ListDesigns(const std::string& path);

class TaskGenerator {
 public:
  // InvalidArgument: fewer than 2 tasks, or every task constant.
  static absl::StatusOr<std::unique_ptr<TaskGenerator>> Fit(const TaskFamilyDesign& design);
  ~TaskGenerator();

  // A new task named "gen_<family>_<seed>", family "generated". Deterministic in `seed`.
  std::unique_ptr<Problem> Generate(uint64_t seed) const;
  // The task with latent coordinates `latent` (size latent_dims()), output mean and scale: its
  // standardized values at the design points are re-standardized (mean 0, sd 1, as every real
  // task's are), so its values there have exactly that mean and standard deviation. With a real
  // task's own coordinates, mean and scale this reproduces it at the design points.
  std::unique_ptr<Problem> GenerateFromLatent(const std::string& name,
                                              const std::vector<double>& latent, double mean,
                                              double scale) const;

  int latent_dims() const;
  // Latent coordinates, mean and scale of real task k (k < the number of non-constant tasks).
  std::vector<double> task_latent(int k) const;
  double task_mean(int k) const;
  double task_scale(int k) const;

 private:
  struct Model;  // the fitted meta-model (Eigen matrices; task_generator.cc)
  explicit TaskGenerator(std::unique_ptr<const Model> model);
  std::unique_ptr<const Model> model_;
};

}  // namespace bbo

#endif  // BBO_PROBLEMS_GENERATED_TASK_GENERATOR_H_
