#ifndef BBO_PROBLEMS_ML_ML_SUITE_H_
#define BBO_PROBLEMS_ML_ML_SUITE_H_

// The ML hyperparameter-tuning suite: the Cartesian product
//   {models} x {datasets: classic + generated} x {metrics of the dataset's task}
// restricted to the models that support the dataset's task. Problem names are
// "ml_<model>_<dataset>_<metric>" (see ml_problem.h).
//
//   models (MlModelIds order): svm, svm-kernel, dt, rf, ada*, knn, mlp, logreg*, xgb
//                              (* classification only)
//   datasets: iris, wine, breast, digits, diabetes (classic_datasets.h), then
//             gen-clf-s<seed> and gen-reg-s<seed> for each generated seed
//   metrics: nll, err (classification); mae, mse (regression)
//
// With the default options that is 7 classification datasets x 9 models x 2 metrics + 4
// regression datasets x 7 models x 2 metrics = 126 + 56 = 182 problems.
//
// A classic dataset whose file is missing (or unreadable) is skipped, not fatal: its problems are
// left out and the reason is reported through `skipped`.
// Thread safety: the functions are safe to call concurrently; each call returns new problems,
// which share their prepared datasets.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "problems/ml/classic_datasets.h"
#include "problems/ml/generated_datasets.h"
#include "problems/problem.h"

namespace bbo::ml {

struct MlSuiteOptions {
  // Where the sklearn data files are; default Debian's python3-sklearn directory.
  std::string sklearn_data_dir = kDefaultSklearnDataDir;
  // Include iris, wine, breast, digits and diabetes. Default true.
  bool include_classic = true;
  // One gen-clf-s<seed> and one gen-reg-s<seed> dataset per seed. Default {1, 2, 3}.
  std::vector<uint64_t> generated_seeds = {1, 2, 3};
  // Templates of the generated datasets (their seed field is replaced by each generated seed).
  ClassificationSpec classification;
  RegressionSpec regression;
  // Restrict to these model ids / dataset names; empty = all.
  std::vector<std::string> model_ids;
  std::vector<std::string> dataset_names;
  // Cross-validation folds, held-out share and split/model seed of every problem.
  int cv_folds = 5;
  double test_fraction = 0.2;
  uint64_t seed = 0;
};

// The ids of every model, in suite order.
std::vector<std::string> MlModelIds();

// Every problem of the suite, dataset-major (datasets in the order above, then models, then
// metrics). Each is an MlProblem (dynamic_cast for EvaluateWithGeneralization). When
// `skipped` is non-null, it receives one line per dataset left out, e.g.
//   dataset "wine" skipped: NOT_FOUND: file not found: /usr/lib/.../wine_data.csv
// Invalid options (bad generated specs, folds, test_fraction) also skip the datasets they break.
std::vector<std::unique_ptr<Problem>> MakeMlSuite(const MlSuiteOptions& options,
                                                  std::vector<std::string>* skipped = nullptr);

// The names MakeMlSuite(options) would produce, in the same order (loads and splits the
// datasets, but builds no problem).
std::vector<std::string> MlSuiteProblemNames(const MlSuiteOptions& options);

// MlSuiteProblemNames(options).size().
int MlSuiteSize(const MlSuiteOptions& options);

}  // namespace bbo::ml

#endif  // BBO_PROBLEMS_ML_ML_SUITE_H_
