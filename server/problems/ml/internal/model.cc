#include "server/problems/ml/internal/model.h"

#include <cmath>
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

const Model* FindModel(std::string_view id) {
  for (const auto& m : AllModels()) {
    if (m->id() == id) return m.get();
  }
  return nullptr;
}

void NormalizeRows(std::vector<double>& p, int k) {
  for (size_t row = 0; row + k <= p.size(); row += k) {
    double sum = 0.0;
    for (int j = 0; j < k; ++j) {
      double& v = p[row + j];
      if (!(v > 0.0)) v = 0.0;  // also catches NaN
      sum += v;
    }
    for (int j = 0; j < k; ++j) {
      p[row + j] = sum > 0.0 && std::isfinite(sum) ? p[row + j] / sum : 1.0 / k;
    }
  }
}

double Sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

}  // namespace bbo::ml_internal
