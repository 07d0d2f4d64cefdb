#ifndef BBO_COMMON_JSON_NUMBER_H_
#define BBO_COMMON_JSON_NUMBER_H_

// Objective values on the JSON wire. JSON has no infinity or NaN: non-finite values travel as
// the strings "inf", "-inf" and "nan" (docs/hosting-protocol.md).

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace bbo {

// A number, or "inf" / "-inf" / "nan".
nlohmann::json ValueToJson(double v);
// Accepts numbers and the strings "inf", "-inf", "nan" (also "Infinity", "-Infinity", "NaN",
// any case). InvalidArgument otherwise.
absl::StatusOr<double> ValueFromJson(const nlohmann::json& j);

}  // namespace bbo

#endif  // BBO_COMMON_JSON_NUMBER_H_
