#ifndef BBO_PROBLEMS_ML_CLASSIC_DATASETS_H_
#define BBO_PROBLEMS_ML_CLASSIC_DATASETS_H_

// Loaders for the small classic datasets shipped with scikit-learn, read from the data files of
// Debian's python3-sklearn package (nothing is downloaded):
//
//   name       file(s)                                          rows x features  target
//   iris       iris.csv                                         150 x 4          3 classes
//   wine       wine_data.csv                                    178 x 13         3 classes
//   breast     breast_cancer.csv                                569 x 30         2 classes
//   digits     digits.csv.gz                                    1797 x 64        10 classes
//   diabetes   diabetes_data_raw.csv.gz, diabetes_target.csv.gz 442 x 10         real
//
// iris/wine/breast_cancer start with a header line "n_samples,n_features,class names..."; each
// row is the features followed by the class index. digits rows are 64 pixels then the digit.
// diabetes is the raw (unscaled) version: whitespace-separated features and a separate target.
//
// Errors: NotFound naming the missing file (callers skip the dataset); InvalidArgument naming the
// file and line when the content does not match the format above; DataLoss on read errors.
// Thread safety: pure functions (they only read files).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "problems/ml/dataset.h"

namespace bbo::ml {

// Where Debian 12's python3-sklearn installs the data files.
inline constexpr char kDefaultSklearnDataDir[] =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data";

// {"iris", "wine", "breast", "digits", "diabetes"}.
std::vector<std::string> ClassicDatasetNames();

// The dataset called `name` (see the table) from `data_dir`. NotFound for an unknown name.
absl::StatusOr<Dataset> LoadClassicDataset(absl::string_view name, const std::string& data_dir);

absl::StatusOr<Dataset> LoadIris(const std::string& data_dir);
absl::StatusOr<Dataset> LoadWine(const std::string& data_dir);
absl::StatusOr<Dataset> LoadBreastCancer(const std::string& data_dir);
absl::StatusOr<Dataset> LoadDigits(const std::string& data_dir);
absl::StatusOr<Dataset> LoadDiabetes(const std::string& data_dir);

}  // namespace bbo::ml

#endif  // BBO_PROBLEMS_ML_CLASSIC_DATASETS_H_
