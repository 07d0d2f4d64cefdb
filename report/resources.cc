#include "report/resources.h"

#include <algorithm>
#include <cmath>

#include "report/report_json.h"

namespace bbo::scoring {
namespace {

FigureUse Summarize(std::vector<double>& values) {
  FigureUse use;
  use.batches = static_cast<int>(values.size());
  if (values.empty()) return use;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  use.median = values[mid];
  if (values.size() % 2 == 0) {
    use.median = (*std::max_element(values.begin(), values.begin() + mid) + use.median) / 2;
  }
  use.max = *std::max_element(values.begin(), values.end());
  return use;
}

}  // namespace

std::vector<MethodResources> ComputeResources(const ScoringInput& input) {
  std::vector<MethodResources> out;
  for (const auto& [method, problems] : input.methods) {
    std::array<std::vector<double>, kNumBatchFigures> values;
    for (const auto& [problem, data] : problems) {
      for (const TrialCurve& trial : data.trials) {
        for (const BatchFigures& batch : trial.batch_figures) {
          for (size_t f = 0; f < kNumBatchFigures; ++f) {
            const std::optional<double>& v = batch.*kBatchFigures[f].value;
            if (v.has_value() && std::isfinite(*v)) values[f].push_back(*v);
          }
        }
      }
    }
    MethodResources row;
    row.method = method;
    bool any = false;
    for (size_t f = 0; f < kNumBatchFigures; ++f) {
      row.figures[f] = Summarize(values[f]);
      any |= row.figures[f].batches > 0;
    }
    if (any) out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json ResourcesJson(const std::vector<MethodResources>& resources) {
  nlohmann::json figures = nlohmann::json::array();
  for (const BatchFigure& f : kBatchFigures) {
    figures.push_back({{"name", f.name}, {"heading", f.heading}});
  }
  nlohmann::json methods = nlohmann::json::array();
  for (const MethodResources& r : resources) {
    nlohmann::json m = {{"method", r.method}};
    for (size_t f = 0; f < kNumBatchFigures; ++f) {
      const FigureUse& u = r.figures[f];
      m[kBatchFigures[f].name] = {
          {"batches", u.batches}, {"median", JsonNumber(u.median)}, {"max", JsonNumber(u.max)}};
    }
    methods.push_back(std::move(m));
  }
  return {{"figures", figures}, {"methods", methods}};
}

}  // namespace bbo::scoring
