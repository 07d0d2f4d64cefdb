#include "problems/ml/generated_datasets.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "problems/ml/internal/random.h"

namespace bbo::ml {
namespace {

using ml_internal::Rng;

absl::Status OutOfRange(absl::string_view field, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat("spec.", field, " ", rule));
}

absl::Status ValidateSpec(const ClassificationSpec& s) {
  if (s.num_classes < 2) return OutOfRange("num_classes", "must be >= 2");
  if (s.clusters_per_class < 1) return OutOfRange("clusters_per_class", "must be >= 1");
  if (s.num_informative < 1 || s.num_informative > 62) {
    return OutOfRange("num_informative", "must be in [1, 62]");
  }
  const int64_t clusters = int64_t{s.num_classes} * s.clusters_per_class;
  if ((int64_t{1} << s.num_informative) < clusters) {
    return OutOfRange("num_informative",
                      "is too small: 2^num_informative must be >= num_classes * "
                      "clusters_per_class (one hypercube vertex per cluster)");
  }
  if (s.num_samples < clusters) {
    return OutOfRange("num_samples", "must be >= num_classes * clusters_per_class");
  }
  if (s.num_redundant < 0) return OutOfRange("num_redundant", "must be >= 0");
  if (s.num_noise < 0) return OutOfRange("num_noise", "must be >= 0");
  if (!(s.class_sep > 0) || !std::isfinite(s.class_sep)) {
    return OutOfRange("class_sep", "must be finite and > 0");
  }
  if (!(s.flip_y >= 0 && s.flip_y <= 1)) return OutOfRange("flip_y", "must be in [0, 1]");
  return absl::OkStatus();
}

// Permutes the columns of a row-major rows x cols matrix: new column j = old column perm[j].
void PermuteColumns(std::vector<float>& x, int rows, int cols, const std::vector<int>& perm) {
  std::vector<float> row(cols);
  for (int i = 0; i < rows; ++i) {
    float* r = &x[static_cast<size_t>(i) * cols];
    for (int j = 0; j < cols; ++j) row[j] = r[perm[j]];
    std::copy(row.begin(), row.end(), r);
  }
}

std::vector<int> Iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Distinct vertices of {-1, +1}^num_informative scaled by class_sep, one per cluster.
std::vector<std::vector<double>> ClusterCentres(const ClassificationSpec& spec, Rng& rng) {
  const int n_inf = spec.num_informative;
  const int n_clusters = spec.num_classes * spec.clusters_per_class;
  std::set<uint64_t> used;
  std::vector<std::vector<double>> centres;
  while (static_cast<int>(centres.size()) < n_clusters) {
    const uint64_t code = rng.Index(uint64_t{1} << n_inf);
    if (!used.insert(code).second) continue;
    std::vector<double> centre(n_inf);
    for (int j = 0; j < n_inf; ++j) {
      centre[j] = ((code >> j) & 1) ? spec.class_sep : -spec.class_sep;
    }
    centres.push_back(std::move(centre));
  }
  return centres;
}

// The informative columns and the labels: each cluster's rows are its centre plus a standard
// normal vector through a random linear map; cluster c has class c % num_classes.
void DrawInformative(const ClassificationSpec& spec,
                     const std::vector<std::vector<double>>& centres, Rng& rng, Dataset* out) {
  const int n = spec.num_samples;
  const int n_inf = spec.num_informative;
  const int n_clusters = static_cast<int>(centres.size());
  const int d = out->num_features;
  std::vector<double> z(n_inf), a(static_cast<size_t>(n_inf) * n_inf);
  int row = 0;
  for (int c = 0; c < n_clusters; ++c) {
    const int rows_in_cluster = n / n_clusters + (c < n % n_clusters ? 1 : 0);
    for (double& v : a) v = rng.Uniform(-1.0, 1.0);
    for (int r = 0; r < rows_in_cluster; ++r, ++row) {
      for (double& v : z) v = rng.Normal();
      float* x = &out->features[static_cast<size_t>(row) * d];
      for (int j = 0; j < n_inf; ++j) {
        double v = centres[c][j];
        for (int k = 0; k < n_inf; ++k) v += z[k] * a[static_cast<size_t>(k) * n_inf + j];
        x[j] = static_cast<float>(v);
      }
      out->targets[row] = c % spec.num_classes;
    }
  }
}

// Redundant columns (random linear combinations of the informative ones) and noise columns.
void DrawRedundantAndNoise(const ClassificationSpec& spec, Rng& rng, Dataset* out) {
  const int n_inf = spec.num_informative;
  const int d = out->num_features;
  std::vector<double> b(static_cast<size_t>(n_inf) * spec.num_redundant);
  for (double& v : b) v = rng.Uniform(-1.0, 1.0);
  for (int i = 0; i < spec.num_samples; ++i) {
    float* x = &out->features[static_cast<size_t>(i) * d];
    for (int j = 0; j < spec.num_redundant; ++j) {
      double v = 0.0;
      for (int k = 0; k < n_inf; ++k)
        v += x[k] * b[static_cast<size_t>(k) * spec.num_redundant + j];
      x[n_inf + j] = static_cast<float>(v);
    }
    for (int j = 0; j < spec.num_noise; ++j) {
      x[n_inf + spec.num_redundant + j] = static_cast<float>(rng.Normal());
    }
  }
}

// Each label is replaced by a random class with probability flip_y.
void FlipLabels(const ClassificationSpec& spec, Rng& rng, Dataset* out) {
  for (int i = 0; i < spec.num_samples; ++i) {
    if (rng.Uniform() < spec.flip_y) {
      out->targets[i] = static_cast<double>(rng.Index(spec.num_classes));
    }
  }
}

// Shuffles rows (so clusters are interleaved) and columns (so informative ones are not first).
void ShuffleRowsAndColumns(Rng& rng, Dataset* out) {
  const int n = out->num_samples;
  const int d = out->num_features;
  std::vector<int> row_perm = Iota(n);
  rng.Shuffle(row_perm);
  std::vector<float> shuffled(out->features.size());
  std::vector<double> shuffled_targets(n);
  for (int i = 0; i < n; ++i) {
    std::copy_n(&out->features[static_cast<size_t>(row_perm[i]) * d], d,
                &shuffled[static_cast<size_t>(i) * d]);
    shuffled_targets[i] = out->targets[row_perm[i]];
  }
  out->features = std::move(shuffled);
  out->targets = std::move(shuffled_targets);
  std::vector<int> col_perm = Iota(d);
  rng.Shuffle(col_perm);
  PermuteColumns(out->features, n, d, col_perm);
}

}  // namespace

absl::StatusOr<Dataset> MakeClassificationDataset(const ClassificationSpec& spec) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  Rng rng(spec.seed);
  const int n = spec.num_samples;
  const int d = spec.num_informative + spec.num_redundant + spec.num_noise;
  const std::vector<std::vector<double>> centres = ClusterCentres(spec, rng);

  Dataset out;
  out.name = absl::StrCat("gen-clf-s", spec.seed);
  out.task = MlTask::kClassification;
  out.num_samples = n;
  out.num_features = d;
  out.num_classes = spec.num_classes;
  out.features.assign(static_cast<size_t>(n) * d, 0.0f);
  out.targets.resize(n);

  DrawInformative(spec, centres, rng, &out);
  DrawRedundantAndNoise(spec, rng, &out);
  FlipLabels(spec, rng, &out);
  ShuffleRowsAndColumns(rng, &out);
  return out;
}

absl::StatusOr<Dataset> MakeRegressionDataset(const RegressionSpec& spec) {
  if (spec.num_samples < 1) return OutOfRange("num_samples", "must be >= 1");
  if (spec.num_features < 1) return OutOfRange("num_features", "must be >= 1");
  if (spec.num_informative < 0 || spec.num_informative > spec.num_features) {
    return OutOfRange("num_informative", "must be in [0, num_features]");
  }
  if (!(spec.noise >= 0) || !std::isfinite(spec.noise)) {
    return OutOfRange("noise", "must be finite and >= 0");
  }
  if (!std::isfinite(spec.bias)) return OutOfRange("bias", "must be finite");

  Rng rng(spec.seed);
  const int n = spec.num_samples;
  const int d = spec.num_features;
  std::vector<int> columns = Iota(d);
  rng.Shuffle(columns);
  std::vector<double> w(d, 0.0);
  for (int j = 0; j < spec.num_informative; ++j) w[columns[j]] = 100.0 * rng.Uniform();

  Dataset out;
  out.name = absl::StrCat("gen-reg-s", spec.seed);
  out.task = MlTask::kRegression;
  out.num_samples = n;
  out.num_features = d;
  out.features.resize(static_cast<size_t>(n) * d);
  out.targets.resize(n);
  for (int i = 0; i < n; ++i) {
    double y = spec.bias;
    for (int j = 0; j < d; ++j) {
      const float x = static_cast<float>(rng.Normal());
      out.features[static_cast<size_t>(i) * d + j] = x;
      y += w[j] * x;
    }
    out.targets[i] = y + spec.noise * rng.Normal();
  }
  return out;
}

}  // namespace bbo::ml
