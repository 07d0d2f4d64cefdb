#ifndef BBO_SERVER_PROBLEMS_REGISTRY_H_
#define BBO_SERVER_PROBLEMS_REGISTRY_H_

// The problem library behind one Problem interface, as named suites. A coordinator runs one
// suite (a competition phase); `bbo problems list --suite S` lists one.
//
//   practice   the 13 built-in practice problems (visible; `bbo local` uses it)
//   synthetic  >= 40 attribute-tagged functions with known optima, shifted/rotated per seed
//   bbob       the 24 noiseless BBOB functions in 2, 5, 10 and 20 dimensions, instance = seed + 1
//   ml         OpenCV / XGBoost models x datasets x metrics, scored by cross-validation
//   sklearn    Bayesmark's scikit-learn grid, run by python/problems/sklearn_pack.py as external
//              problems (/usr/bin/python3)
//   generated  tasks generated from a family of real tasks (seed 004; task_generator.h)
//
// A suite file (JSON) picks problems from these with per-problem seeds:
//   {"name": "feedback", "problems": [{"suite": "synthetic", "problem": "syn_...", "seed": 7},
//                                     {"suite": "ml", "problem": "ml_svm_wine_nll"}, ...]}

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/problems/problem.h"

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
  // Generated suite: how many tasks, and the family they come from (a suite name whose
  // problems share one search space: "bbob-d5" = the 24 BBOB functions in 5-d).
  int generated_tasks = 50;
  std::string generated_family = "bbob-d5";
};

// Names of the built-in suites, in the order above.
std::vector<std::string> SuiteNames();

// NotFound for an unknown suite (the message lists the known ones); other errors when a suite's
// data or programs are missing.
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakeSuite(const std::string& name,
                                                               const SuiteOptions& options);

// A suite file as described above. InvalidArgument naming the entry for a bad entry, NotFound
// for an unknown problem.
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakeSuiteFromFile(const std::string& path,
                                                                       const SuiteOptions& options);

}  // namespace bbo

#endif  // BBO_SERVER_PROBLEMS_REGISTRY_H_
