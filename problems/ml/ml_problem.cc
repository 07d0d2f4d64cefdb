#include "problems/ml/ml_problem.h"

#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "problems/ml/internal/fit_split.h"
#include "problems/ml/internal/model.h"
#include "problems/ml/internal/prepared_dataset.h"
#include "problems/ml/internal/random.h"

namespace bbo::ml {
namespace {

using ml_internal::DeriveSeed;
using ml_internal::FitPredictSplit;
using ml_internal::ScoreSplit;

constexpr uint64_t kHeldoutModelStream = 99;
constexpr uint64_t kFoldModelStream = 100;

std::string Describe(const ml_internal::PreparedDataset& data, const ml_internal::Model& model,
                     MlMetric metric, int folds) {
  std::string shape = absl::StrCat(data.num_samples, " x ", data.num_features);
  if (data.task == MlTask::kClassification) {
    absl::StrAppend(&shape, ", ", data.num_classes, " classes");
  }
  return absl::StrCat(model.description(), " on ", data.name, " (", shape, "): ", folds,
                      "-fold CV ", MetricDescription(metric));
}

}  // namespace

std::string MlProblemName(absl::string_view model_id, absl::string_view dataset_name,
                          MlMetric metric) {
  return absl::StrCat("ml_", model_id, "_", dataset_name, "_", MetricId(metric));
}

MlProblem::MlProblem(std::shared_ptr<const ml_internal::PreparedDataset> data,
                     const ml_internal::Model* model, MlMetric metric, uint64_t seed)
    : BuiltinProblem(MlProblemName(model->id(), data->name, metric),
                     Describe(*data, *model, metric, static_cast<int>(data->folds.size())),
                     model->ApiConfig(data->task), std::nullopt),
      data_(std::move(data)),
      model_(model),
      metric_(metric),
      seed_(seed) {}

MlProblem::~MlProblem() = default;

absl::string_view MlProblem::model_id() const { return model_->id(); }
const std::string& MlProblem::dataset_name() const { return data_->name; }
MlTask MlProblem::task() const { return data_->task; }
int MlProblem::cv_folds() const { return static_cast<int>(data_->folds.size()); }

std::vector<std::string> MlProblem::attributes() const {
  std::vector<std::string> tags;
  bool has_int = false, has_cat = false;
  for (const ParamSpec& spec : space().params()) {
    has_int |= spec.type == ParamType::kInt;
    has_cat |= spec.type == ParamType::kCat || spec.type == ParamType::kBool;
  }
  if (has_int) tags.push_back("mixed integer");
  if (has_cat) tags.push_back("categorical");
  tags.push_back("nonsmooth");
  tags.emplace_back(MlTaskName(data_->task));
  tags.push_back(data_->name.rfind("gen-", 0) == 0 ? "generated" : "classic");
  return tags;
}

double MlProblem::FoldLoss(int fold, const Point& p) const {
  const ml_internal::SplitData& split = data_->folds[fold];
  const std::vector<double> predictions =
      FitPredictSplit(*model_, data_->task, data_->num_classes, split, p,
                      DeriveSeed(seed_, kFoldModelStream + fold));
  return ScoreSplit(metric_, predictions, split, data_->num_classes);
}

double MlProblem::HeldoutLoss(const Point& p) const {
  const ml_internal::SplitData& split = *data_->holdout;
  const std::vector<double> predictions = FitPredictSplit(
      *model_, data_->task, data_->num_classes, split, p, DeriveSeed(seed_, kHeldoutModelStream));
  return ScoreSplit(metric_, predictions, split, data_->num_classes);
}

double MlProblem::Evaluate(const Point& canonical_point) const {
  double sum = 0.0;
  for (int f = 0; f < cv_folds(); ++f) sum += FoldLoss(f, canonical_point);
  return sum / cv_folds();
}

ProblemEvaluation MlProblem::EvaluateWithHeldOut(const Point& canonical_point) const {
  ProblemEvaluation out{Evaluate(canonical_point), std::nullopt};
  if (data_->holdout.has_value()) out.generalization = HeldoutLoss(canonical_point);
  return out;
}

absl::StatusOr<MlEvaluation> MlProblem::EvaluateWithGeneralization(
    const Point& canonical_point) const {
  if (absl::Status s = space().Validate(canonical_point); !s.ok()) return s;
  MlEvaluation out;
  try {
    double sum = 0.0;
    for (int f = 0; f < cv_folds(); ++f) {
      out.fold_losses.push_back(FoldLoss(f, canonical_point));
      sum += out.fold_losses.back();
    }
    out.cv_loss = sum / cv_folds();
    if (data_->holdout.has_value()) out.heldout_loss = HeldoutLoss(canonical_point);
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(absl::StrCat(name(), ": ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(name(), ": model \"", model_->id(),
                                            "\" failed on dataset \"", data_->name,
                                            "\": ", e.what()));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<MlProblem>> MakeMlProblem(const Dataset& dataset,
                                                         absl::string_view model_id,
                                                         MlMetric metric,
                                                         const MlProblemOptions& options) {
  const ml_internal::Model* model = ml_internal::FindModel(model_id);
  if (model == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown model \"", model_id, "\""));
  }
  if (MetricTask(metric) != dataset.task) {
    return absl::InvalidArgumentError(
        absl::StrCat("metric \"", MetricId(metric), "\" does not apply to the ",
                     MlTaskName(dataset.task), " dataset \"", dataset.name, "\""));
  }
  if (!model->Supports(dataset.task)) {
    return absl::FailedPreconditionError(
        absl::StrCat("model \"", model_id, "\" does not support ", MlTaskName(dataset.task)));
  }
  absl::StatusOr<ml_internal::PreparedDataset> prepared = ml_internal::PrepareDataset(
      dataset,
      {.folds = options.cv_folds, .test_fraction = options.test_fraction, .seed = options.seed});
  if (!prepared.ok()) return prepared.status();
  return std::make_unique<MlProblem>(
      std::make_shared<const ml_internal::PreparedDataset>(*std::move(prepared)), model, metric,
      options.seed);
}

}  // namespace bbo::ml
