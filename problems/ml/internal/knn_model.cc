// k-nearest neighbours: cv::ml::KNearest (brute force, Euclidean distance).
//
// Probabilities: the fraction of the k neighbours in each class, or, with distance_weighted, of
// their inverse-distance weights (sklearn's weights="distance": a neighbour at distance 0 takes
// all the weight, shared with any other neighbour at distance 0). Regression predicts the
// (weighted) mean of the neighbours' targets. k is capped at the number of training rows.

#include <algorithm>
#include <cmath>
#include <memory>
#include <opencv2/ml.hpp>

#include "problems/internal/params.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/opencv_util.h"

namespace bbo::ml_internal {
namespace {

using problems_internal::BoolParam;
using problems_internal::IntParam;

struct Neighbours {
  int k = 0;
  cv::Mat responses;  // test rows x k, CV_32F
  cv::Mat weights;    // test rows x k, CV_64F
};

Neighbours FindNeighbours(Rows train_x, const cv::Mat& responses, Rows test, const Point& p,
                          uint64_t seed) {
  SeedOpenCvRng(seed);
  Neighbours out;
  out.k = static_cast<int>(std::min<int64_t>(IntParam(p, "n_neighbors"), train_x.rows));
  cv::Ptr<cv::ml::KNearest> knn = cv::ml::KNearest::create();
  knn->setAlgorithmType(cv::ml::KNearest::BRUTE_FORCE);
  knn->setDefaultK(out.k);
  knn->train(MatView(train_x), cv::ml::ROW_SAMPLE, responses);
  cv::Mat results, squared_distances;
  knn->findNearest(MatView(test), out.k, results, out.responses, squared_distances);
  out.weights = cv::Mat::ones(test.rows, out.k, CV_64F);
  if (BoolParam(p, "distance_weighted")) {
    for (int i = 0; i < test.rows; ++i) {
      bool exact = false;
      for (int j = 0; j < out.k; ++j) exact |= squared_distances.at<float>(i, j) <= 0.0f;
      for (int j = 0; j < out.k; ++j) {
        const double d = std::sqrt(std::max(0.0f, squared_distances.at<float>(i, j)));
        out.weights.at<double>(i, j) = exact ? (d == 0.0 ? 1.0 : 0.0) : 1.0 / d;
      }
    }
  }
  return out;
}

class KnnModel : public Model {
 public:
  absl::string_view id() const override { return "knn"; }
  std::string description() const override { return "k-nearest neighbours"; }
  bool Supports(MlTask) const override { return true; }
  nlohmann::json ApiConfig(MlTask) const override {
    return {
        {"n_neighbors", {{"type", "int"}, {"space", "linear"}, {"range", {1, 25}}}},
        {"distance_weighted", {{"type", "bool"}}},
    };
  }

  std::vector<double> FitPredictProba(const ClassificationTrainSet& train, Rows test,
                                      const Point& p, uint64_t seed) const override {
    std::vector<float> labels(train.labels.begin(), train.labels.end());
    const Neighbours nb = FindNeighbours(train.x, FloatColumn(labels), test, p, seed);
    const int k = train.num_classes;
    std::vector<double> proba(static_cast<size_t>(test.rows) * k, 0.0);
    for (int i = 0; i < test.rows; ++i) {
      for (int j = 0; j < nb.k; ++j) {
        const int label = static_cast<int>(std::lround(nb.responses.at<float>(i, j)));
        proba[static_cast<size_t>(i) * k + label] += nb.weights.at<double>(i, j);
      }
    }
    NormalizeRows(proba, k);
    return proba;
  }

  std::vector<double> FitPredict(const RegressionTrainSet& train, Rows test, const Point& p,
                                 uint64_t seed) const override {
    const Neighbours nb = FindNeighbours(train.x, FloatColumn(train.targets), test, p, seed);
    std::vector<double> out(test.rows);
    for (int i = 0; i < test.rows; ++i) {
      double sum = 0.0, weight = 0.0;
      for (int j = 0; j < nb.k; ++j) {
        sum += nb.weights.at<double>(i, j) * nb.responses.at<float>(i, j);
        weight += nb.weights.at<double>(i, j);
      }
      out[i] = sum / weight;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Model> MakeKnnModel() { return std::make_unique<KnnModel>(); }

}  // namespace bbo::ml_internal
