// Gradient-boosted trees: XGBoost through its C API (xgboost/c_api.h).
//
// Probabilities: XGBoost's own, binary:logistic (P(class 1)) for two classes and
// multi:softprob (a distribution over the K classes) otherwise. Regression uses
// reg:squarederror on the standardized target.
//
// Determinism: nthread = 1 and the seed parameter; the exact tree method.

#include <xgboost/c_api.h>

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "problems/internal/params.h"
#include "problems/ml/internal/model.h"

namespace bbo::ml_internal {
namespace {

using problems_internal::IntParam;
using problems_internal::RealParam;

void Check(int rc, const char* call) {
  if (rc != 0) throw std::runtime_error(absl::StrCat("XGBoost ", call, ": ", XGBGetLastError()));
}

struct DMatrixDeleter {
  void operator()(void* h) const { XGDMatrixFree(h); }
};
struct BoosterDeleter {
  void operator()(void* h) const { XGBoosterFree(h); }
};
using DMatrix = std::unique_ptr<void, DMatrixDeleter>;
using Booster = std::unique_ptr<void, BoosterDeleter>;

DMatrix MakeDMatrix(Rows x) {
  DMatrixHandle h = nullptr;
  Check(XGDMatrixCreateFromMat(x.data, x.rows, x.cols, std::numeric_limits<float>::quiet_NaN(), &h),
        "XGDMatrixCreateFromMat");
  return DMatrix(h);
}

std::string Num(double v) { return absl::StrCat(v); }

// Trains on (x, labels) and predicts `test`; `objective_params` sets the objective.
std::vector<double> TrainPredict(Rows x, absl::Span<const float> labels, Rows test,
                                 const std::vector<std::pair<std::string, std::string>>& objective,
                                 const Point& p, uint64_t seed) {
  DMatrix train = MakeDMatrix(x);
  Check(XGDMatrixSetFloatInfo(train.get(), "label", labels.data(), labels.size()),
        "XGDMatrixSetFloatInfo");
  DMatrixHandle train_handle = train.get();
  BoosterHandle bh = nullptr;
  Check(XGBoosterCreate(&train_handle, 1, &bh), "XGBoosterCreate");
  Booster booster(bh);
  std::vector<std::pair<std::string, std::string>> params = {
      {"nthread", "1"},
      {"verbosity", "0"},
      {"tree_method", "exact"},
      {"seed", absl::StrCat(seed & 0x7fffffff)},
      {"eta", Num(RealParam(p, "learning_rate"))},
      {"max_depth", absl::StrCat(IntParam(p, "max_depth"))},
      {"subsample", Num(RealParam(p, "subsample"))},
      {"colsample_bytree", Num(RealParam(p, "colsample_bytree"))},
      {"min_child_weight", Num(RealParam(p, "min_child_weight"))},
      {"lambda", Num(RealParam(p, "reg_lambda"))},
  };
  params.insert(params.end(), objective.begin(), objective.end());
  for (const auto& [key, value] : params) {
    Check(XGBoosterSetParam(bh, key.c_str(), value.c_str()), "XGBoosterSetParam");
  }
  const int rounds = static_cast<int>(IntParam(p, "n_rounds"));
  for (int i = 0; i < rounds; ++i) Check(XGBoosterUpdateOneIter(bh, i, train_handle), "update");

  DMatrix test_matrix = MakeDMatrix(test);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  Check(XGBoosterPredictFromDMatrix(
            bh, test_matrix.get(),
            R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0,
                "strict_shape": false})",
            &shape, &dim, &result),
        "XGBoosterPredictFromDMatrix");
  size_t total = 1;
  for (bst_ulong i = 0; i < dim; ++i) total *= shape[i];
  return std::vector<double>(result, result + total);
}

class XgbModel : public Model {
 public:
  absl::string_view id() const override { return "xgb"; }
  std::string description() const override { return "XGBoost (gradient-boosted trees)"; }
  bool Supports(MlTask) const override { return true; }
  nlohmann::json ApiConfig(MlTask) const override {
    return {
        {"learning_rate", {{"type", "real"}, {"space", "log"}, {"range", {1e-2, 1.0}}}},
        {"max_depth", {{"type", "int"}, {"space", "linear"}, {"range", {1, 10}}}},
        {"subsample", {{"type", "real"}, {"space", "linear"}, {"range", {0.5, 1.0}}}},
        {"colsample_bytree", {{"type", "real"}, {"space", "linear"}, {"range", {0.5, 1.0}}}},
        {"min_child_weight", {{"type", "real"}, {"space", "log"}, {"range", {1e-2, 1e1}}}},
        {"reg_lambda", {{"type", "real"}, {"space", "log"}, {"range", {1e-3, 1e2}}}},
        {"n_rounds", {{"type", "int"}, {"space", "log"}, {"range", {5, 200}}}},
    };
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    const int k = train.num_classes;
    std::vector<float> labels(train.labels.begin(), train.labels.end());
    if (k == 2) {
      std::vector<double> p1 =
          TrainPredict(train.x, labels, test, {{"objective", "binary:logistic"}}, p, seed);
      std::vector<double> proba(static_cast<size_t>(test.rows) * 2);
      for (int i = 0; i < test.rows; ++i) {
        proba[static_cast<size_t>(i) * 2] = 1.0 - p1.at(i);
        proba[static_cast<size_t>(i) * 2 + 1] = p1.at(i);
      }
      return proba;
    }
    std::vector<double> proba =
        TrainPredict(train.x, labels, test,
                     {{"objective", "multi:softprob"}, {"num_class", absl::StrCat(k)}}, p, seed);
    if (proba.size() != static_cast<size_t>(test.rows) * k) {
      throw std::runtime_error("XGBoost: unexpected prediction shape");
    }
    // XGBoost's softmax is in float; renormalize in double so rows sum to 1 to ~1e-16.
    NormalizeRows(proba, k);
    return proba;
  }

  std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                 uint64_t seed) const override {
    return TrainPredict(train.x, train.targets, test, {{"objective", "reg:squarederror"}}, p, seed);
  }
};

}  // namespace

std::unique_ptr<Model> MakeXgbModel() { return std::make_unique<XgbModel>(); }

}  // namespace bbo::ml_internal
