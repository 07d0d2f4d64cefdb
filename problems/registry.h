#ifndef BBO_PROBLEMS_REGISTRY_H_
#define BBO_PROBLEMS_REGISTRY_H_

// The problem library behind one Problem interface, as named suites. A coordinator runs one
// suite (a competition phase); `bbo problems list --suite S` lists one.
//
//   practice   the 13 built-in practice problems (visible; `bbo local` uses it)
//   synthetic  >= 40 attribute-tagged functions with known optima, shifted/rotated per seed
//   bbob       the 24 noiseless BBOB functions in 2, 5, 10 and 20 dimensions, instance = seed + 1
//   ml         OpenCV / XGBoost models x datasets x metrics, scored by cross-validation
//   sklearn    Bayesmark's scikit-learn grid, run by python/problems/sklearn_pack.py as external
//              problems (/usr/bin/python3)
//   generated  tasks generated from a family of real tasks (Klein et al. (2019, Profet);
//   task_generator.h): the
//              built-in families are listed by GeneratedFamilies(); `bbo tasks design` stores a
//              family's design in a file that SuiteOptions::design_file loads
//
// A suite file (JSON) picks problems from these with per-problem seeds:
//   {"name": "feedback", "problems": [{"suite": "synthetic", "problem": "syn_...", "seed": 7},
//                                     {"suite": "ml", "problem": "ml_svm_wine_nll"}, ...]}

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "problems/problem.h"

namespace bbo {

struct SuiteOptions {
  // Instance seed: shifts/rotations of synthetic functions, BBOB instance, ML split seed,
  // generated-task seeds.
  uint64_t seed = 0;
  // The repository's python/ folder (for the scikit-learn pack); "" = next to the binary's
  // source tree default BBO_PYTHON_DIR.
  std::string python_dir;
  // Restrict the sklearn suite to these problems (starting each costs a Python process).
  std::vector<std::string> sklearn_problems;
  // External problems (sklearn suite): how many evaluations of one problem may run at once
  // (>= 1). Each runs in its own process, started on demand (importing scikit-learn takes about a
  // second); idle ones are kept. Default 1.
  int max_processes_per_problem = 1;
  // Generated suite: how many tasks, and the family they come from (GeneratedFamilies():
  // "bbob-d5" = the 24 BBOB functions in 5-d, "ml-<model>-<metric>" = one ML model and metric
  // on several datasets; with design_file, any family stored in that file).
  int generated_tasks = 50;
  std::string generated_family = "bbob-d5";
  // Generated suite: a SQLite design file written by `bbo tasks design` (SaveDesign). When set,
  // the family's design is loaded from it; when "" (default), the family's real tasks are
  // evaluated at kDefaultDesignPoints points first (0.01 s for bbob-d5, seconds to minutes for
  // an ML family, depending on the model).
  std::string design_file;
};

// Sobol points of a design run when SuiteOptions::design_file is "" (and the default of
// `bbo tasks design --points`).
inline constexpr int kDefaultDesignPoints = 128;

// Names of the built-in suites, in the order above.
std::vector<std::string> SuiteNames();

// The task families whose design can be run here: "bbob-d5", then (in builds with the ML
// problems) "ml-<model>-<metric>" for every model of the ml suite and every metric it supports,
// models in ml suite order, e.g. "ml-svm-nll", "ml-svm-kernel-err", "ml-xgb-mse".
std::vector<std::string> GeneratedFamilies();

// The real tasks of a family of GeneratedFamilies(), all on one search space, with instance
// seed `seed` (BBOB instance = seed + 1; ML split and model seed). An ML family holds the ml suite
// problems of its model and metric on every dataset of the metric's task except digits (slow):
// iris, wine, breast and gen-clf-s1..s3 (classification, K = 6), diabetes and gen-reg-s1..s3
// (regression, K = 4); a classic dataset whose file is missing is left out. NotFound for an
// unknown family (the message lists the known ones); FailedPrecondition when fewer than 2 of
// its tasks can be built.
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakeFamilyTasks(const std::string& family,
                                                                      uint64_t seed);

// NotFound for an unknown suite (the message lists the known ones), and for "generated", an
// unknown family or one missing from the design file (the message lists the known or stored
// ones); other errors when a suite's data or programs are missing.
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakeSuite(const std::string& name,
                                                               const SuiteOptions& options);

// The scikit-learn pack's problems as the pack describes them (name, api_config, description,
// attributes, family), without loading any data set or starting a process per problem: what a
// listing needs, in about a second. Unavailable when the pack cannot run.
absl::StatusOr<std::vector<nlohmann::json>> DescribeSklearnPack(const SuiteOptions& options);

// A suite file as described above. InvalidArgument naming the entry for a bad entry, NotFound
// for an unknown problem.
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakeSuiteFromFile(const std::string& path,
                                                                       const SuiteOptions& options);

}  // namespace bbo

#endif  // BBO_PROBLEMS_REGISTRY_H_
