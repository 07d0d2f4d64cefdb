#ifndef BBO_COMMON_SEARCH_SPACE_H_
#define BBO_COMMON_SEARCH_SPACE_H_

// The search space an optimizer is given: a Bayesmark api_config (see shared PROTOCOL.md).
//
// SearchSpace parses and validates an api_config, validates suggestions (errors name the
// parameter and the offending value), warps points to the continuous space optimizers work in and
// back, and samples random search uniformly in the warped space (the baseline every score is
// normalized against).
//
// Thread safety: a SearchSpace is immutable after construction and safe to share.

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace bbo {

// The value of one parameter. JSON true/false -> bool, JSON integer -> int64_t, JSON float ->
// double, JSON string -> std::string.
using ParamValue = std::variant<bool, int64_t, double, std::string>;

// One point of the search space: parameter name -> value.
using Point = std::map<std::string, ParamValue>;

enum class ParamType { kReal, kInt, kBool, kCat };
enum class WarpKind { kLinear, kLog, kLogit, kBilog };

// One parameter of the api_config.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kReal;
  WarpKind space = WarpKind::kLinear;  // only meaningful for kReal / kInt
  // "range": [lo, hi] for real/int (lo <= hi). Unset when "values" is used.
  std::optional<double> lo, hi;
  // "values" for real/int: sorted ascending, distinct. Points snap to the nearest listed value.
  std::vector<double> numeric_values;
  // "values" for cat, in the api_config's order.
  std::vector<std::string> cat_values;
};

// Converts a JSON object (parameter name -> value) to a Point. InvalidArgument if `j` is not an
// object or a value is not a bool, number or string (the error names the parameter).
absl::StatusOr<Point> PointFromJson(const nlohmann::json& j);
// The inverse of PointFromJson.
nlohmann::json PointToJson(const Point& p);
// Human-readable value for error messages: 3.5, 7, true, "rbf".
std::string ParamValueToString(const ParamValue& v);

class SearchSpace {
 public:
  // Parses a Bayesmark api_config. InvalidArgument naming the parameter for: unknown type or
  // space, both/neither of range and values, lo > hi, log/logit/bilog range outside the warp's
  // domain (log needs lo > 0, logit needs 0 < lo <= hi < 1), int with logit, bool with other keys,
  // cat without string values, an empty config. "ordinal" is accepted as an alias of "cat".
  static absl::StatusOr<SearchSpace> FromJson(const nlohmann::json& api_config);
  static absl::StatusOr<SearchSpace> Parse(std::string_view api_config_json);

  // Parameters sorted by name (Bayesmark's JointSpace order).
  const std::vector<ParamSpec>& params() const { return params_; }
  int dims() const { return static_cast<int>(params_.size()); }
  // The api_config this space was parsed from (normalised: "ordinal" -> "cat").
  const nlohmann::json& api_config() const { return api_config_; }

  // OK iff `p` has exactly the parameter names, every value has the right type (an int parameter
  // accepts an integral double such as 3.0; a bool parameter accepts 0/1), lies within the range
  // (tolerance 1e-9 relative), is one of the listed values, and is finite. Otherwise
  // InvalidArgument whose message names the parameter and the offending value, e.g.
  //   parameter "C": value 2000 is outside range [1, 1000]
  //   parameter "kernel": value "poly" is not one of ["rbf", "linear"]
  //   missing parameter "gamma"; unexpected parameter "foo"
  absl::Status Validate(const Point& p) const;

  // Returns a validated point converted to canonical types (int params -> int64_t, bool ->
  // bool, real -> double, cat -> string; "values" params snapped to the nearest listed value).
  // Same errors as Validate.
  absl::StatusOr<Point> Canonicalize(const Point& p) const;

  // Warped coordinates, one per parameter in params() order: real/int -> warp(x) (log, logit,
  // bilog or identity); bool -> 0 or 1; cat -> index of the value; "values" params -> warp of
  // the value. Precondition: Validate(p).ok().
  std::vector<double> Warp(const Point& p) const;
  // Inverse of Warp for any vector of dims() finite numbers: clips to the warped bounds, unwarps,
  // rounds ints (and clips again to the range), snaps "values" params, rounds bool (>= 0.5 ->
  // true) and cat (nearest index). The result always validates.
  Point Unwarp(const std::vector<double>& warped) const;
  // Per-parameter [lo, hi] of the warped coordinates: real/int -> [warp(lo), warp(hi)]; bool ->
  // [0, 1]; cat -> [0, n_values - 1]; "values" params -> [warp(min), warp(max)].
  std::vector<std::pair<double, double>> WarpedBounds() const;

  // One point sampled uniformly in the warped space (PROTOCOL.md "Random search"): real/int
  // uniform in warped [lo, hi] then unwarped (ints rounded), "values" params uniform over the
  // listed values, cat uniform over values, bool uniform.
  Point SampleRandom(std::mt19937_64& rng) const;
  std::vector<Point> SampleRandom(int n, std::mt19937_64& rng) const;

 private:
  std::vector<ParamSpec> params_;
  nlohmann::json api_config_;
};

}  // namespace bbo

#endif  // BBO_COMMON_SEARCH_SPACE_H_
