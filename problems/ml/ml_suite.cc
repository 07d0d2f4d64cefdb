#include "problems/ml/ml_suite.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/prepared_dataset.h"
#include "problems/ml/ml_problem.h"

namespace bbo::ml {
namespace {

bool Selected(const std::vector<std::string>& filter, absl::string_view name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

// The datasets of the suite that load, in suite order; the others are reported in `skipped`.
std::vector<Dataset> LoadDatasets(const MlSuiteOptions& options,
                                  std::vector<std::string>* skipped) {
  std::vector<Dataset> datasets;
  auto keep = [&](absl::string_view name, absl::StatusOr<Dataset> dataset) {
    if (dataset.ok()) {
      datasets.push_back(*std::move(dataset));
    } else if (skipped != nullptr) {
      skipped->push_back(
          absl::StrCat("dataset \"", name, "\" skipped: ", dataset.status().ToString()));
    }
  };
  if (options.include_classic) {
    for (const std::string& name : ClassicDatasetNames()) {
      if (Selected(options.dataset_names, name)) {
        keep(name, LoadClassicDataset(name, options.sklearn_data_dir));
      }
    }
  }
  for (uint64_t seed : options.generated_seeds) {
    const std::string name = absl::StrCat("gen-clf-s", seed);
    if (Selected(options.dataset_names, name)) {
      ClassificationSpec spec = options.classification;
      spec.seed = seed;
      keep(name, MakeClassificationDataset(spec));
    }
  }
  for (uint64_t seed : options.generated_seeds) {
    const std::string name = absl::StrCat("gen-reg-s", seed);
    if (Selected(options.dataset_names, name)) {
      RegressionSpec spec = options.regression;
      spec.seed = seed;
      keep(name, MakeRegressionDataset(spec));
    }
  }
  return datasets;
}

std::vector<const ml_internal::Model*> SelectedModels(const MlSuiteOptions& options, MlTask task) {
  std::vector<const ml_internal::Model*> models;
  for (const auto& model : ml_internal::AllModels()) {
    if (model->Supports(task) && Selected(options.model_ids, model->id())) {
      models.push_back(model.get());
    }
  }
  return models;
}

// The loaded datasets cut into their splits; failures are reported in `skipped`.
std::vector<std::shared_ptr<const ml_internal::PreparedDataset>> PrepareDatasets(
    const MlSuiteOptions& options, std::vector<std::string>* skipped) {
  std::vector<std::shared_ptr<const ml_internal::PreparedDataset>> out;
  for (const Dataset& dataset : LoadDatasets(options, skipped)) {
    absl::StatusOr<ml_internal::PreparedDataset> prepared = ml_internal::PrepareDataset(
        dataset,
        {.folds = options.cv_folds, .test_fraction = options.test_fraction, .seed = options.seed});
    if (prepared.ok()) {
      out.push_back(std::make_shared<const ml_internal::PreparedDataset>(*std::move(prepared)));
    } else if (skipped != nullptr) {
      skipped->push_back(
          absl::StrCat("dataset \"", dataset.name, "\" skipped: ", prepared.status().ToString()));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> MlModelIds() {
  std::vector<std::string> ids;
  for (const auto& model : ml_internal::AllModels()) ids.emplace_back(model->id());
  return ids;
}

std::vector<std::unique_ptr<Problem>> MakeMlSuite(const MlSuiteOptions& options,
                                                  std::vector<std::string>* skipped) {
  std::vector<std::unique_ptr<Problem>> problems;
  for (const auto& data : PrepareDatasets(options, skipped)) {
    for (const ml_internal::Model* model : SelectedModels(options, data->task)) {
      for (MlMetric metric : MetricsFor(data->task)) {
        problems.push_back(std::make_unique<MlProblem>(data, model, metric, options.seed));
      }
    }
  }
  return problems;
}

std::vector<std::string> MlSuiteProblemNames(const MlSuiteOptions& options) {
  std::vector<std::string> names;
  for (const auto& data : PrepareDatasets(options, nullptr)) {
    for (const ml_internal::Model* model : SelectedModels(options, data->task)) {
      for (MlMetric metric : MetricsFor(data->task)) {
        names.push_back(MlProblemName(model->id(), data->name, metric));
      }
    }
  }
  return names;
}

int MlSuiteSize(const MlSuiteOptions& options) {
  return static_cast<int>(MlSuiteProblemNames(options).size());
}

}  // namespace bbo::ml
