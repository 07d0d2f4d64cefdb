#include "problems/ml/internal/opencv_util.h"

#include <algorithm>
#include <stdexcept>

namespace bbo::ml_internal {

cv::Mat MatView(Rows rows) {
  return cv::Mat(rows.rows, rows.cols, CV_32F, const_cast<float*>(rows.data));
}

cv::Mat SelectRows(Rows x, absl::Span<const int> rows) {
  cv::Mat out(static_cast<int>(rows.size()), x.cols, CV_32F);
  for (size_t i = 0; i < rows.size(); ++i) {
    const float* src = x.data + static_cast<size_t>(rows[i]) * x.cols;
    std::copy(src, src + x.cols, out.ptr<float>(static_cast<int>(i)));
  }
  return out;
}

cv::Mat LabelColumn(absl::Span<const int> labels) {
  cv::Mat out(static_cast<int>(labels.size()), 1, CV_32S);
  for (size_t i = 0; i < labels.size(); ++i) out.at<int>(static_cast<int>(i)) = labels[i];
  return out;
}

cv::Mat FloatColumn(absl::Span<const float> values) {
  cv::Mat out(static_cast<int>(values.size()), 1, CV_32F);
  for (size_t i = 0; i < values.size(); ++i) out.at<float>(static_cast<int>(i)) = values[i];
  return out;
}

std::vector<double> ToDoubles(const cv::Mat& m) {
  cv::Mat d;
  m.convertTo(d, CV_64F);
  std::vector<double> out;
  out.reserve(d.total());
  for (int r = 0; r < d.rows; ++r) {
    const double* row = d.ptr<double>(r);
    out.insert(out.end(), row, row + d.cols * d.channels());
  }
  return out;
}

std::vector<double> Predict(const cv::ml::StatModel& model, Rows rows) {
  cv::Mat out;
  model.predict(MatView(rows), out);
  return ToDoubles(out);
}

void SeedOpenCvRng(uint64_t seed) { cv::theRNG() = cv::RNG(seed); }

}  // namespace bbo::ml_internal
