#include "problems/ml/classic_datasets.h"

#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "problems/ml/internal/table_reader.h"

namespace bbo::ml {
namespace {

using ml_internal::NonEmptyLines;
using ml_internal::ParseNumberRow;
using ml_internal::ReadMaybeGzipFile;

std::string JoinPath(const std::string& dir, absl::string_view file) {
  if (dir.empty() || dir.back() == '/') return absl::StrCat(dir, file);
  return absl::StrCat(dir, "/", file);
}

// Appends one row "features..., label" to `dataset` (whose num_features is set).
absl::Status AppendLabelledRow(absl::string_view line, absl::string_view what, Dataset& dataset) {
  ASSIGN_OR_RETURN(std::vector<double> row, ParseNumberRow(line, what));
  if (row.size() != static_cast<size_t>(dataset.num_features) + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", row.size(), " fields, expected ", dataset.num_features + 1));
  }
  for (int j = 0; j < dataset.num_features; ++j) {
    dataset.features.push_back(static_cast<float>(row[j]));
  }
  dataset.targets.push_back(row.back());
  return absl::OkStatus();
}

// The "n_samples,n_features,class names..." files (iris, wine, breast_cancer).
absl::StatusOr<Dataset> LoadHeaderedCsv(const std::string& data_dir, absl::string_view file,
                                        std::string name) {
  const std::string path = JoinPath(data_dir, file);
  ASSIGN_OR_RETURN(std::string text, ReadMaybeGzipFile(path));
  std::vector<absl::string_view> lines = NonEmptyLines(text);
  if (lines.empty()) return absl::InvalidArgumentError(absl::StrCat(path, " is empty"));

  std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  Dataset dataset;
  dataset.name = std::move(name);
  dataset.task = MlTask::kClassification;
  if (header.size() < 4 ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(header[0]), &dataset.num_samples) ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(header[1]), &dataset.num_features)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " line 1: expected \"n_samples,n_features,class names...\", got \"", lines[0], "\""));
  }
  for (size_t i = 2; i < header.size(); ++i) {
    dataset.class_names.emplace_back(absl::StripAsciiWhitespace(header[i]));
  }
  dataset.num_classes = static_cast<int>(dataset.class_names.size());
  if (lines.size() - 1 != static_cast<size_t>(dataset.num_samples)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": header says ", dataset.num_samples,
                                                   " rows, file has ", lines.size() - 1));
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    RETURN_IF_ERROR(AppendLabelledRow(lines[i], absl::StrCat(path, " line ", i + 1), dataset));
  }
  RETURN_IF_ERROR(ValidateDataset(dataset));
  return dataset;
}

}  // namespace

std::vector<std::string> ClassicDatasetNames() {
  return {"iris", "wine", "breast", "digits", "diabetes"};
}

absl::StatusOr<Dataset> LoadClassicDataset(absl::string_view name, const std::string& data_dir) {
  if (name == "iris") return LoadIris(data_dir);
  if (name == "wine") return LoadWine(data_dir);
  if (name == "breast") return LoadBreastCancer(data_dir);
  if (name == "digits") return LoadDigits(data_dir);
  if (name == "diabetes") return LoadDiabetes(data_dir);
  return absl::NotFoundError(absl::StrCat("unknown classic dataset \"", name, "\""));
}

absl::StatusOr<Dataset> LoadIris(const std::string& data_dir) {
  return LoadHeaderedCsv(data_dir, "iris.csv", "iris");
}

absl::StatusOr<Dataset> LoadWine(const std::string& data_dir) {
  return LoadHeaderedCsv(data_dir, "wine_data.csv", "wine");
}

absl::StatusOr<Dataset> LoadBreastCancer(const std::string& data_dir) {
  return LoadHeaderedCsv(data_dir, "breast_cancer.csv", "breast");
}

absl::StatusOr<Dataset> LoadDigits(const std::string& data_dir) {
  const std::string path = JoinPath(data_dir, "digits.csv.gz");
  ASSIGN_OR_RETURN(std::string text, ReadMaybeGzipFile(path));
  Dataset dataset;
  dataset.name = "digits";
  dataset.task = MlTask::kClassification;
  dataset.num_features = 64;
  dataset.num_classes = 10;
  for (int d = 0; d < 10; ++d) dataset.class_names.push_back(absl::StrCat(d));
  std::vector<absl::string_view> lines = NonEmptyLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    RETURN_IF_ERROR(AppendLabelledRow(lines[i], absl::StrCat(path, " line ", i + 1), dataset));
  }
  dataset.num_samples = static_cast<int>(lines.size());
  RETURN_IF_ERROR(ValidateDataset(dataset));
  return dataset;
}

absl::StatusOr<Dataset> LoadDiabetes(const std::string& data_dir) {
  const std::string x_path = JoinPath(data_dir, "diabetes_data_raw.csv.gz");
  const std::string y_path = JoinPath(data_dir, "diabetes_target.csv.gz");
  ASSIGN_OR_RETURN(std::string x_text, ReadMaybeGzipFile(x_path));
  ASSIGN_OR_RETURN(std::string y_text, ReadMaybeGzipFile(y_path));
  std::vector<absl::string_view> x_lines = NonEmptyLines(x_text);
  std::vector<absl::string_view> y_lines = NonEmptyLines(y_text);
  if (x_lines.size() != y_lines.size()) {
    return absl::InvalidArgumentError(absl::StrCat(x_path, " has ", x_lines.size(), " rows but ",
                                                   y_path, " has ", y_lines.size()));
  }
  Dataset dataset;
  dataset.name = "diabetes";
  dataset.task = MlTask::kRegression;
  dataset.num_features = 10;
  dataset.num_samples = static_cast<int>(x_lines.size());
  for (size_t i = 0; i < x_lines.size(); ++i) {
    const std::string what = absl::StrCat(x_path, " line ", i + 1);
    ASSIGN_OR_RETURN(std::vector<double> row, ParseNumberRow(x_lines[i], what));
    if (row.size() != 10) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", row.size(), " fields, expected 10"));
    }
    for (double v : row) dataset.features.push_back(static_cast<float>(v));
    const std::string y_what = absl::StrCat(y_path, " line ", i + 1);
    ASSIGN_OR_RETURN(std::vector<double> y, ParseNumberRow(y_lines[i], y_what));
    if (y.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(y_what, ": ", y.size(), " fields, expected 1"));
    }
    dataset.targets.push_back(y[0]);
  }
  RETURN_IF_ERROR(ValidateDataset(dataset));
  return dataset;
}

}  // namespace bbo::ml
