#include "problems/ml/internal/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "absl/strings/str_cat.h"

namespace bbo::ml_internal {

Model::~Model() = default;

std::vector<double> Model::FitPredictProba(const ClassificationTrainSet&, Rows, const Point&,
                                           uint64_t) const {
  throw std::logic_error(absl::StrCat("model \"", id(), "\" does not support classification"));
}

std::vector<double> Model::FitPredict(const RegressionTrainSet&, Rows, const Point&,
                                      uint64_t) const {
  throw std::logic_error(absl::StrCat("model \"", id(), "\" does not support regression"));
}

const std::vector<std::unique_ptr<Model>>& AllModels() {
  static const std::vector<std::unique_ptr<Model>>* const models = [] {
    auto* v = new std::vector<std::unique_ptr<Model>>();
    v->push_back(MakeSvmModel());
    v->push_back(MakeSvmKernelModel());
    v->push_back(MakeDecisionTreeModel());
    v->push_back(MakeRandomForestModel());
    v->push_back(MakeAdaBoostModel());
    v->push_back(MakeKnnModel());
    v->push_back(MakeMlpModel());
    v->push_back(MakeLogRegModel());
    v->push_back(MakeXgbModel());
    return v;
  }();
  return *models;
}

const Model* FindModel(absl::string_view id) {
  for (const auto& m : AllModels()) {
    if (m->id() == id) return m.get();
  }
  return nullptr;
}

void NormalizeRows(std::vector<double>& p, int k) {
  for (size_t row = 0; row + k <= p.size(); row += k) {
    double sum = 0.0;
    bool has_nan = false;
    for (int j = 0; j < k; ++j) {
      double& v = p[row + j];
      has_nan |= std::isnan(v);
      if (v < 0.0) v = 0.0;
      sum += v;
    }
    if (has_nan) {
      std::fill_n(p.begin() + row, k, std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    for (int j = 0; j < k; ++j) {
      p[row + j] = sum > 0.0 && std::isfinite(sum) ? p[row + j] / sum : 1.0 / k;
    }
  }
}

std::vector<double> CouplePairwise(const std::vector<double>& r, int k) {
  auto pair = [&](int i, int j) { return std::clamp(r[i * k + j], 1e-7, 1.0 - 1e-7); };
  // Augmented matrix of the (k+1) x (k+1) system, solved by Gaussian elimination with partial
  // pivoting (k <= 10 here, so O(k^3) is nothing).
  const int n = k + 1;
  std::vector<double> a(static_cast<size_t>(n) * (n + 1), 0.0);
  auto at = [&](int row, int col) -> double& {
    return a[static_cast<size_t>(row) * (n + 1) + col];
  };
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      if (i == j) continue;
      const double r_ji = 1.0 - pair(i, j), r_ij = pair(i, j);
      at(i, i) += r_ji * r_ji;
      at(i, j) = -r_ji * r_ij;
    }
    at(i, k) = 1.0;
    at(k, i) = 1.0;
  }
  at(k, n) = 1.0;
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int row = col + 1; row < n; ++row) {
      if (std::fabs(at(row, col)) > std::fabs(at(pivot, col))) pivot = row;
    }
    for (int c = 0; c <= n; ++c) std::swap(at(col, c), at(pivot, c));
    const double d = at(col, col);
    if (d == 0.0) return std::vector<double>(k, 1.0 / k);  // singular: no information
    for (int row = 0; row < n; ++row) {
      if (row == col) continue;
      const double f = at(row, col) / d;
      if (f == 0.0) continue;
      for (int c = col; c <= n; ++c) at(row, c) -= f * at(col, c);
    }
  }
  std::vector<double> p(k);
  for (int i = 0; i < k; ++i) p[i] = at(i, n) / at(i, i);
  // Wu et al. show the exact solution is non-negative; rounding may leave -1e-17s.
  NormalizeRows(p, k);
  return p;
}

double Sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

}  // namespace bbo::ml_internal
