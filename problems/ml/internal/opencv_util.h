#ifndef BBO_PROBLEMS_ML_INTERNAL_OPENCV_UTIL_H_
#define BBO_PROBLEMS_ML_INTERNAL_OPENCV_UTIL_H_

// Glue between the models' plain buffers and OpenCV ml. Thread safety: pure functions, except
// SeedOpenCvRng, which writes the calling thread's cv::theRNG() (thread-local in OpenCV 4).

#include <cstdint>
#include <opencv2/core.hpp>
#include <opencv2/ml.hpp>
#include <vector>

#include "absl/types/span.h"
#include "problems/ml/internal/model.h"

namespace bbo::ml_internal {

// A CV_32F header over `rows` (no copy). OpenCV only reads it: ml training copies what it keeps.
cv::Mat MatView(Rows rows);
// The rows of `x` whose index is in `rows`, copied into a new CV_32F matrix.
cv::Mat SelectRows(Rows x, absl::Span<const int> rows);
// A rows x 1 CV_32S column of class labels (what OpenCV classifiers take as responses).
cv::Mat LabelColumn(absl::Span<const int> labels);
// A rows x 1 CV_32F column.
cv::Mat FloatColumn(absl::Span<const float> values);
// The elements of a CV_32F / CV_64F / CV_32S matrix in row-major order, as doubles.
std::vector<double> ToDoubles(const cv::Mat& m);
// The model's predictions for `rows` (one per row, or the matrix predict() returns), as doubles.
std::vector<double> Predict(const cv::ml::StatModel& model, Rows rows);
// cv::theRNG() = cv::RNG(seed) for the calling thread, so OpenCV code that draws from it is
// reproducible.
void SeedOpenCvRng(uint64_t seed);

}  // namespace bbo::ml_internal

#endif  // BBO_PROBLEMS_ML_INTERNAL_OPENCV_UTIL_H_
