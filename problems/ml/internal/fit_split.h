#ifndef BBO_PROBLEMS_ML_INTERNAL_FIT_SPLIT_H_
#define BBO_PROBLEMS_ML_INTERNAL_FIT_SPLIT_H_

// Fitting a Model on one SplitData and scoring it: the unit of work of an ML problem evaluation.
//
// Thread safety: pure functions (the models are stateless).

#include <cstdint>
#include <vector>

#include "common/search_space.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/prepared_dataset.h"
#include "problems/ml/metrics.h"

namespace bbo::ml_internal {

// Fits `model` on the split's training rows and predicts its eval rows.
// Classification: row-major num_eval x num_classes probabilities. Classes absent from the
// training rows get probability 0 (the model is fit on the classes present, relabelled
// 0..K'-1); when only one class is present, it gets probability 1 without fitting.
// Regression: num_eval predictions in the original target units.
// Throws whatever the model throws.
std::vector<double> FitPredictSplit(const Model& model, MlTask task, int num_classes,
                                    const SplitData& split, const Point& p, uint64_t seed);

// The metric of `predictions` (as returned by FitPredictSplit) on the split's eval rows.
// Throws std::invalid_argument when the shapes disagree (a model bug).
double ScoreSplit(ml::MlMetric metric, const std::vector<double>& predictions,
                  const SplitData& split, int num_classes);

}  // namespace bbo::ml_internal

#endif  // BBO_PROBLEMS_ML_INTERNAL_FIT_SPLIT_H_
