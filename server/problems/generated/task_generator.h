#ifndef BBO_SERVER_PROBLEMS_GENERATED_TASK_GENERATOR_H_
#define BBO_SERVER_PROBLEMS_GENERATED_TASK_GENERATOR_H_

// Generated benchmark tasks in the spirit of Profet (seed 004): new objective functions that
// resemble a family of real tasks (e.g. one model tuned on several datasets), cheap to evaluate
// and deterministic given a seed, so a hidden suite can hold any number of tasks nobody has
// seen.
//
//  1. Design: every real task of the family is evaluated at the same n scrambled-free Sobol
//     points of their shared search space (in warped coordinates scaled to [0, 1]^d). The design
//     is stored in SQLite and can be reloaded without re-running the (slow) real tasks.
//  2. Meta-model: each task's values are standardized (its own mean and standard deviation);
//     the standardized value vectors of the K tasks are decomposed by PCA, which gives every
//     task latent coordinates h_k (Profet's task embedding).
//  3. A new task draws latent coordinates from the Gaussian fitted to the h_k (a seeded
//     perturbation of the task parameters), maps them back to standardized values at the design
//     points, draws an output mean and scale from those of the real tasks, and interpolates the
//     values over the space with a Gaussian-process posterior mean (squared-exponential kernel,
//     length scale by the median-distance heuristic). Evaluating it is a kernel sum over the n
//     design points: a few microseconds.
//
// Thread-safe after construction.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/problems/problem.h"

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

// Evaluates every task at the first `n_points` Sobol points. InvalidArgument: no tasks, tasks
// whose api_configs differ, n_points < 4, or a task without any finite value.
absl::StatusOr<TaskFamilyDesign> RunDesign(const std::string& family,
                                           const std::vector<const Problem*>& tasks,
                                           int n_points);

// Stores / loads a design in the SQLite file `path` (table task_designs; a family is replaced
// as a whole). NotFound: no such family in the file.
absl::Status SaveDesign(const TaskFamilyDesign& design, const std::string& path);
absl::StatusOr<TaskFamilyDesign> LoadDesign(const std::string& path, const std::string& family);

class TaskGenerator {
 public:
  // InvalidArgument: fewer than 2 tasks, or every task constant.
  static absl::StatusOr<std::unique_ptr<TaskGenerator>> Fit(const TaskFamilyDesign& design);

  // A new task named "gen_<family>_<seed>", family "generated". Deterministic in `seed`.
  std::unique_ptr<Problem> Generate(uint64_t seed) const;
  // The task with latent coordinates `latent` (size latent_dims()), output mean and scale; with
  // a real task's own coordinates, mean and scale this reproduces it at the design points.
  std::unique_ptr<Problem> GenerateFromLatent(const std::string& name,
                                              const Eigen::VectorXd& latent, double mean,
                                              double scale) const;

  int latent_dims() const { return static_cast<int>(components_.cols()); }
  // Latent coordinates, mean and scale of real task k.
  Eigen::VectorXd task_latent(int k) const { return latents_.row(k).transpose(); }
  double task_mean(int k) const { return means_[k]; }
  double task_scale(int k) const { return scales_[k]; }

 private:
  TaskGenerator() = default;
  std::string family_;
  std::shared_ptr<const SearchSpace> space_;
  nlohmann::json api_config_;
  Eigen::MatrixXd points_;      // n x d, unit cube
  Eigen::VectorXd center_;      // n: mean standardized values over tasks
  Eigen::MatrixXd components_;  // n x r: principal directions
  Eigen::MatrixXd latents_;     // K x r: task coordinates
  Eigen::VectorXd latent_sd_;   // r
  std::vector<double> means_, scales_;
  double log_scale_mean_ = 0, log_scale_sd_ = 0, mean_mean_ = 0, mean_sd_ = 0;
  double length_scale_ = 1;
  std::shared_ptr<const Eigen::LLT<Eigen::MatrixXd>> kernel_llt_;
};

}  // namespace bbo

#endif  // BBO_SERVER_PROBLEMS_GENERATED_TASK_GENERATOR_H_
