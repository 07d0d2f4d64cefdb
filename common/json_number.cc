#include "common/json_number.h"

#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace bbo {

nlohmann::json ValueToJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

absl::StatusOr<double> ValueFromJson(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    std::string s = absl::AsciiStrToLower(j.get<std::string>());
    if (s == "inf" || s == "+inf" || s == "infinity" || s == "+infinity") {
      return std::numeric_limits<double>::infinity();
    }
    if (s == "-inf" || s == "-infinity") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return absl::InvalidArgumentError(absl::StrCat("expected a number or \"inf\", got ", j.dump()));
}

}  // namespace bbo
