#ifndef BBO_PROBLEMS_ML_GENERATED_DATASETS_H_
#define BBO_PROBLEMS_ML_GENERATED_DATASETS_H_

// Synthetic datasets in the spirit of scikit-learn's make_classification / make_regression, with
// controlled size and noise. Deterministic given the spec (same spec -> identical dataset on
// every platform: all draws come from std::mt19937_64 through fixed formulas).
//
// Classification (Guyon 2003, the design behind make_classification): num_classes *
// clusters_per_class Gaussian clusters centred on distinct random vertices of the hypercube
// [-class_sep, class_sep]^num_informative; each cluster's points are z * A_c + centre with
// z ~ N(0, I) and A_c a random matrix with U(-1, 1) entries (a random covariance). Clusters are
// assigned to classes round-robin and get equal shares of the rows. Then num_redundant features
// are the random linear combinations x_inf * B (B with U(-1, 1) entries), num_noise features are
// N(0, 1), a fraction flip_y of the labels is replaced by a uniformly random class, and rows and
// columns are shuffled.
//
// Regression: X ~ N(0, I) with num_features columns; a random subset of num_informative columns
// has coefficients w_j ~ 100 * U(0, 1) (the others 0); y = bias + X w + noise * N(0, 1).
//
// Thread safety: pure functions.

#include <cstdint>

#include "absl/status/statusor.h"
#include "problems/ml/dataset.h"

namespace bbo::ml {

struct ClassificationSpec {
  int num_samples = 400;       // rows; at least num_classes * clusters_per_class
  int num_informative = 5;     // >= 1; 2^num_informative >= num_classes * clusters_per_class
  int num_redundant = 3;       // >= 0
  int num_noise = 12;          // >= 0
  int num_classes = 3;         // >= 2
  int clusters_per_class = 2;  // >= 1
  double class_sep = 1.0;      // > 0; larger separates the classes more
  double flip_y = 0.05;        // in [0, 1]: fraction of labels replaced by random ones
  uint64_t seed = 1;
};

struct RegressionSpec {
  int num_samples = 400;    // >= 1
  int num_features = 20;    // >= 1
  int num_informative = 8;  // in [0, num_features]
  double noise = 10.0;      // >= 0: standard deviation of the Gaussian noise added to y
  double bias = 0.0;
  uint64_t seed = 1;
};

// The dataset named "gen-clf-s<seed>". InvalidArgument naming the spec field that is out of range.
absl::StatusOr<Dataset> MakeClassificationDataset(const ClassificationSpec& spec);
// The dataset named "gen-reg-s<seed>". InvalidArgument naming the spec field that is out of range.
absl::StatusOr<Dataset> MakeRegressionDataset(const RegressionSpec& spec);

}  // namespace bbo::ml

#endif  // BBO_PROBLEMS_ML_GENERATED_DATASETS_H_
