#include "common/search_space.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace bbo {
namespace {

absl::Status ParamError(const std::string& name, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("parameter \"", name, "\": ", what));
}

// Warp x -> warped space. Precondition: x in the warp's domain.
double WarpValue(WarpKind w, double x) {
  switch (w) {
    case WarpKind::kLinear: return x;
    case WarpKind::kLog: return std::log(x);
    case WarpKind::kLogit: return std::log(x / (1 - x));
    case WarpKind::kBilog: return std::copysign(std::log1p(std::abs(x)), x);
  }
  return x;
}

double UnwarpValue(WarpKind w, double y) {
  switch (w) {
    case WarpKind::kLinear: return y;
    case WarpKind::kLog: return std::exp(y);
    case WarpKind::kLogit: return 1 / (1 + std::exp(-y));
    case WarpKind::kBilog: return std::copysign(std::expm1(std::abs(y)), y);
  }
  return y;
}

absl::StatusOr<WarpKind> ParseWarp(const std::string& name, const nlohmann::json& spec) {
  if (!spec.contains("space")) return WarpKind::kLinear;
  if (!spec["space"].is_string()) return ParamError(name, "\"space\" must be a string");
  std::string s = spec["space"].get<std::string>();
  if (s == "linear") return WarpKind::kLinear;
  if (s == "log") return WarpKind::kLog;
  if (s == "logit") return WarpKind::kLogit;
  if (s == "bilog") return WarpKind::kBilog;
  return ParamError(name, absl::StrCat("unknown space \"", s,
                                       "\" (expected linear, log, logit or bilog)"));
}

absl::Status CheckDomain(const ParamSpec& p, double v) {
  if (p.space == WarpKind::kLog && !(v > 0)) {
    return ParamError(p.name, absl::StrCat("value ", v, " is outside the log space's domain (> 0)"));
  }
  if (p.space == WarpKind::kLogit && !(v > 0 && v < 1)) {
    return ParamError(p.name,
                      absl::StrCat("value ", v, " is outside the logit space's domain (0, 1)"));
  }
  return absl::OkStatus();
}

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return absl::StrCat(v);
}

std::string TypeName(const ParamValue& v) {
  if (std::holds_alternative<bool>(v)) return "a bool";
  if (std::holds_alternative<int64_t>(v)) return "an int";
  if (std::holds_alternative<double>(v)) return "a real";
  return "a string";
}

// Numeric view of a value for real/int parameters. Bools are not numbers here.
std::optional<double> AsNumber(const ParamValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const double* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

double Snap(const std::vector<double>& values, double x) {
  auto it = std::lower_bound(values.begin(), values.end(), x);
  if (it == values.end()) return values.back();
  if (it == values.begin()) return *it;
  double hi = *it, lo = *(it - 1);
  return (x - lo <= hi - x) ? lo : hi;
}

}  // namespace

std::string ParamValueToString(const ParamValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return absl::StrCat(*i);
  if (const double* d = std::get_if<double>(&v)) return FormatNumber(*d);
  return absl::StrCat("\"", std::get<std::string>(v), "\"");
}

absl::StatusOr<Point> PointFromJson(const nlohmann::json& j) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a suggestion must be a JSON object, got ", j.type_name()));
  }
  Point p;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const nlohmann::json& v = it.value();
    if (v.is_boolean()) {
      p[it.key()] = v.get<bool>();
    } else if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        p[it.key()] = v.get<double>();
      } else {
        p[it.key()] = v.get<int64_t>();
      }
    } else if (v.is_number_float()) {
      p[it.key()] = v.get<double>();
    } else if (v.is_string()) {
      p[it.key()] = v.get<std::string>();
    } else {
      return ParamError(it.key(),
                        absl::StrCat("value must be a bool, number or string, got ", v.type_name()));
    }
  }
  return p;
}

nlohmann::json PointToJson(const Point& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, v] : p) {
    if (const bool* b = std::get_if<bool>(&v)) {
      j[name] = *b;
    } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
      j[name] = *i;
    } else if (const double* d = std::get_if<double>(&v)) {
      j[name] = *d;
    } else {
      j[name] = std::get<std::string>(v);
    }
  }
  return j;
}

absl::StatusOr<SearchSpace> SearchSpace::Parse(std::string_view api_config_json) {
  nlohmann::json j = nlohmann::json::parse(api_config_json, nullptr, false);
  if (j.is_discarded()) return absl::InvalidArgumentError("api_config is not valid JSON");
  return FromJson(j);
}

namespace {

absl::Status CheckSpecKeys(const std::string& name, const nlohmann::json& spec) {
  for (auto k = spec.begin(); k != spec.end(); ++k) {
    if (k.key() != "type" && k.key() != "space" && k.key() != "range" &&
        k.key() != "values") {
      return ParamError(name, absl::StrCat("unknown key \"", k.key(), "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseCatValues(const std::string& name, const nlohmann::json& spec, ParamSpec* p) {
  if (spec.contains("range") || spec.contains("space")) {
    return ParamError(name, "a cat takes only \"values\"");
  }
  if (!spec.contains("values") || !spec["values"].is_array() || spec["values"].empty()) {
    return ParamError(name, "a cat needs a non-empty list of string \"values\"");
  }
  // Repeated values count once, as in Bayesmark's JointSpace (np.unique); it needs two.
  std::set<std::string> seen;
  for (const auto& v : spec["values"]) {
    if (!v.is_string()) return ParamError(name, "cat \"values\" must be strings");
    if (seen.insert(v.get<std::string>()).second) p->cat_values.push_back(v.get<std::string>());
  }
  if (p->cat_values.size() < 2) {
    return ParamError(name, "a cat needs at least two distinct \"values\" (as Bayesmark's "
                            "JointSpace does); a parameter with one value is a constant");
  }
  return absl::OkStatus();
}

// "range": [lo, hi] of a real or int (an int's bounds are rounded inwards).
absl::Status ParseRange(const std::string& name, const nlohmann::json& spec, ParamSpec* p) {
  const auto& r = spec["range"];
  if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number()) {
    return ParamError(name, "\"range\" must be [lo, hi] with two numbers");
  }
  double lo = r[0].get<double>(), hi = r[1].get<double>();
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    return ParamError(name, "\"range\" bounds must be finite");
  }
  if (lo > hi) {
    return ParamError(name, absl::StrCat("range lower bound ", FormatNumber(lo),
                                         " is above the upper bound ", FormatNumber(hi)));
  }
  if (p->type == ParamType::kInt) {
    lo = std::ceil(lo);
    hi = std::floor(hi);
    if (lo > hi) return ParamError(name, "\"range\" holds no integer");
  }
  p->lo = lo;
  p->hi = hi;
  RETURN_IF_ERROR(CheckDomain(*p, lo));
  return CheckDomain(*p, hi);
}

// "values" of a real or int: kept sorted and distinct.
absl::Status ParseNumericValues(const std::string& name, const nlohmann::json& spec,
                                ParamSpec* p) {
  const auto& vals = spec["values"];
  if (!vals.is_array() || vals.empty()) {
    return ParamError(name, "\"values\" must be a non-empty list of numbers");
  }
  for (const auto& v : vals) {
    if (!v.is_number()) return ParamError(name, "\"values\" must be numbers");
    double x = v.get<double>();
    if (!std::isfinite(x)) return ParamError(name, "\"values\" must be finite");
    if (p->type == ParamType::kInt && x != std::floor(x)) {
      return ParamError(name, absl::StrCat("int value ", FormatNumber(x),
                                           " is not an integer"));
    }
    RETURN_IF_ERROR(CheckDomain(*p, x));
    p->numeric_values.push_back(x);
  }
  std::sort(p->numeric_values.begin(), p->numeric_values.end());
  p->numeric_values.erase(std::unique(p->numeric_values.begin(), p->numeric_values.end()),
                          p->numeric_values.end());
  if (p->numeric_values.size() < 2) {
    return ParamError(name, "\"values\" needs at least two distinct numbers (as "
                            "Bayesmark's JointSpace does); a parameter with one value is a "
                            "constant");
  }
  return absl::OkStatus();
}

// A real or int: its space, then exactly one of "range" and "values".
absl::Status ParseNumeric(const std::string& name, const std::string& type,
                          const nlohmann::json& spec, ParamSpec* p) {
  p->type = type == "real" ? ParamType::kReal : ParamType::kInt;
  const bool has_range = spec.contains("range");
  if (has_range == spec.contains("values")) {
    return ParamError(name, "needs exactly one of \"range\" and \"values\"");
  }
  // Bayesmark's JointSpace has no default warp for real and int ("warp/space not
  // specified"): an api_config that omits it would crash every Bayesmark optimizer.
  if (!spec.contains("space")) {
    return ParamError(name, absl::StrCat("a", type == "int" ? "n int" : " real",
                                         " needs \"space\": \"linear\", \"log\", "
                                         "\"logit\" or \"bilog\" (Bayesmark's JointSpace "
                                         "has no default)"));
  }
  ASSIGN_OR_RETURN(p->space, ParseWarp(name, spec));
  if (p->type == ParamType::kInt && p->space == WarpKind::kLogit) {
    return ParamError(name, "an int cannot use the logit space");
  }
  return has_range ? ParseRange(name, spec, p) : ParseNumericValues(name, spec, p);
}

// One parameter of the api_config; `normalized` is its spec with "ordinal" spelled "cat".
absl::StatusOr<ParamSpec> ParseParam(const std::string& name, const nlohmann::json& spec,
                                     nlohmann::json* normalized) {
  if (!spec.is_object()) return ParamError(name, "spec must be a JSON object");
  RETURN_IF_ERROR(CheckSpecKeys(name, spec));
  if (!spec.contains("type") || !spec["type"].is_string()) {
    return ParamError(name, "missing \"type\"");
  }
  std::string type = spec["type"].get<std::string>();
  *normalized = spec;
  ParamSpec p;
  p.name = name;
  if (type == "ordinal") {
    type = "cat";
    (*normalized)["type"] = "cat";
  }
  if (type == "bool") {
    p.type = ParamType::kBool;
    if (spec.size() != 1) return ParamError(name, "a bool takes no key other than \"type\"");
  } else if (type == "cat") {
    p.type = ParamType::kCat;
    RETURN_IF_ERROR(ParseCatValues(name, spec, &p));
  } else if (type == "real" || type == "int") {
    RETURN_IF_ERROR(ParseNumeric(name, type, spec, &p));
  } else {
    return ParamError(name, absl::StrCat("unknown type \"", type,
                                         "\" (expected real, int, bool, cat or ordinal)"));
  }
  return p;
}

}  // namespace

absl::StatusOr<SearchSpace> SearchSpace::FromJson(const nlohmann::json& api_config) {
  if (!api_config.is_object()) {
    return absl::InvalidArgumentError("api_config must be a JSON object");
  }
  if (api_config.empty()) return absl::InvalidArgumentError("api_config has no parameters");
  SearchSpace space;
  space.api_config_ = nlohmann::json::object();
  for (auto it = api_config.begin(); it != api_config.end(); ++it) {
    nlohmann::json normalized;
    ASSIGN_OR_RETURN(ParamSpec p, ParseParam(it.key(), it.value(), &normalized));
    space.api_config_[it.key()] = normalized;
    space.params_.push_back(std::move(p));
  }
  std::sort(space.params_.begin(), space.params_.end(),
            [](const ParamSpec& a, const ParamSpec& b) { return a.name < b.name; });
  return space;
}

absl::Status SearchSpace::Validate(const Point& p) const { return Canonicalize(p).status(); }

namespace {

// A bool, or a number 0 or 1.
absl::StatusOr<ParamValue> CanonicalBool(const ParamSpec& p, const ParamValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return ParamValue(*b);
  if (std::optional<double> x = AsNumber(v); x && (*x == 0 || *x == 1)) {
    return ParamValue(*x == 1);
  }
  return ParamError(p.name, absl::StrCat("expected a bool, got ", TypeName(v), " ",
                                         ParamValueToString(v)));
}

// One of the cat's string values.
absl::StatusOr<ParamValue> CanonicalCat(const ParamSpec& p, const ParamValue& v) {
  const std::string* s = std::get_if<std::string>(&v);
  if (s == nullptr) {
    return ParamError(p.name, absl::StrCat("expected one of the string values, got ",
                                           TypeName(v), " ", ParamValueToString(v)));
  }
  if (std::find(p.cat_values.begin(), p.cat_values.end(), *s) == p.cat_values.end()) {
    std::vector<std::string> quoted;
    for (const auto& c : p.cat_values) quoted.push_back(absl::StrCat("\"", c, "\""));
    return ParamError(p.name, absl::StrCat("value \"", *s, "\" is not one of [",
                                           absl::StrJoin(quoted, ", "), "]"));
  }
  return ParamValue(*s);
}

// A finite `val` within the parameter's range (up to a relative tolerance), snapped to the
// nearest listed value or clamped to the range.
absl::StatusOr<double> SnapToDomain(const ParamSpec& p, double val) {
  if (!p.numeric_values.empty()) {
    double lo = p.numeric_values.front(), hi = p.numeric_values.back();
    double tol = 1e-9 * std::max(1.0, hi - lo);
    if (val < lo - tol || val > hi + tol) {
      return ParamError(p.name, absl::StrCat("value ", FormatNumber(val),
                                             " is outside the listed values' range [",
                                             FormatNumber(lo), ", ", FormatNumber(hi), "]"));
    }
    return Snap(p.numeric_values, val);
  }
  double tol = 1e-9 * std::max(std::abs(*p.hi - *p.lo), 1e-300);
  if (val < *p.lo - tol || val > *p.hi + tol) {
    return ParamError(p.name, absl::StrCat("value ", FormatNumber(val),
                                           " is outside range [", FormatNumber(*p.lo),
                                           ", ", FormatNumber(*p.hi), "]"));
  }
  return std::clamp(val, *p.lo, *p.hi);
}

// A finite number in the domain of a real or int parameter.
absl::StatusOr<ParamValue> CanonicalNumber(const ParamSpec& p, const ParamValue& v) {
  std::optional<double> x = AsNumber(v);
  if (!x) {
    return ParamError(p.name, absl::StrCat("expected a number, got ", TypeName(v), " ",
                                           ParamValueToString(v)));
  }
  if (!std::isfinite(*x)) {
    return ParamError(p.name, absl::StrCat("value ", FormatNumber(*x), " is not finite"));
  }
  if (p.type == ParamType::kInt && *x != std::floor(*x)) {
    return ParamError(p.name, absl::StrCat("value ", FormatNumber(*x), " is not an integer"));
  }
  ASSIGN_OR_RETURN(double val, SnapToDomain(p, *x));
  if (p.type == ParamType::kInt) return ParamValue(static_cast<int64_t>(std::llround(val)));
  return ParamValue(val);
}

absl::StatusOr<ParamValue> CanonicalValue(const ParamSpec& p, const ParamValue& v) {
  switch (p.type) {
    case ParamType::kBool: return CanonicalBool(p, v);
    case ParamType::kCat: return CanonicalCat(p, v);
    case ParamType::kReal:
    case ParamType::kInt: return CanonicalNumber(p, v);
  }
  return CanonicalNumber(p, v);
}

}  // namespace

absl::StatusOr<Point> SearchSpace::Canonicalize(const Point& point) const {
  for (const auto& [name, v] : point) {
    bool known = std::any_of(params_.begin(), params_.end(),
                             [&](const ParamSpec& s) { return s.name == name; });
    if (!known) return absl::InvalidArgumentError(absl::StrCat("unexpected parameter \"", name, "\""));
  }
  Point out;
  for (const ParamSpec& p : params_) {
    auto it = point.find(p.name);
    if (it == point.end()) {
      return absl::InvalidArgumentError(absl::StrCat("missing parameter \"", p.name, "\""));
    }
    ASSIGN_OR_RETURN(out[p.name], CanonicalValue(p, it->second));
  }
  return out;
}

std::vector<std::pair<double, double>> SearchSpace::WarpedBounds() const {
  std::vector<std::pair<double, double>> b;
  for (const ParamSpec& p : params_) {
    switch (p.type) {
      case ParamType::kBool: b.emplace_back(0, 1); break;
      case ParamType::kCat: b.emplace_back(0, static_cast<double>(p.cat_values.size()) - 1); break;
      default:
        if (!p.numeric_values.empty()) {
          b.emplace_back(WarpValue(p.space, p.numeric_values.front()),
                         WarpValue(p.space, p.numeric_values.back()));
        } else {
          b.emplace_back(WarpValue(p.space, *p.lo), WarpValue(p.space, *p.hi));
        }
    }
  }
  return b;
}

std::vector<double> SearchSpace::Warp(const Point& point) const {
  std::vector<double> out;
  for (const ParamSpec& p : params_) {
    const ParamValue& v = point.at(p.name);
    switch (p.type) {
      case ParamType::kBool: {
        const bool* b = std::get_if<bool>(&v);
        out.push_back(b ? (*b ? 1.0 : 0.0) : AsNumber(v).value_or(0));
        break;
      }
      case ParamType::kCat: {
        auto it = std::find(p.cat_values.begin(), p.cat_values.end(), std::get<std::string>(v));
        out.push_back(static_cast<double>(it - p.cat_values.begin()));
        break;
      }
      default:
        out.push_back(WarpValue(p.space, AsNumber(v).value_or(0)));
    }
  }
  return out;
}

Point SearchSpace::Unwarp(const std::vector<double>& warped) const {
  Point out;
  auto bounds = WarpedBounds();
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& p = params_[i];
    double y = i < warped.size() && std::isfinite(warped[i]) ? warped[i] : bounds[i].first;
    y = std::clamp(y, bounds[i].first, bounds[i].second);
    switch (p.type) {
      case ParamType::kBool: out[p.name] = y >= 0.5; break;
      case ParamType::kCat:
        out[p.name] = p.cat_values[static_cast<size_t>(std::llround(y))];
        break;
      default: {
        double x = UnwarpValue(p.space, y);
        if (!p.numeric_values.empty()) {
          x = Snap(p.numeric_values, x);
        } else {
          x = std::clamp(x, *p.lo, *p.hi);
        }
        if (p.type == ParamType::kInt) {
          int64_t n = static_cast<int64_t>(std::llround(x));
          if (p.numeric_values.empty()) {
            n = std::clamp<int64_t>(n, static_cast<int64_t>(*p.lo), static_cast<int64_t>(*p.hi));
          }
          out[p.name] = n;
        } else {
          out[p.name] = x;
        }
      }
    }
  }
  return out;
}

Point SearchSpace::SampleRandom(std::mt19937_64& rng) const {
  Point out;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const ParamSpec& p : params_) {
    switch (p.type) {
      case ParamType::kBool: out[p.name] = unit(rng) < 0.5; break;
      case ParamType::kCat: {
        std::uniform_int_distribution<size_t> pick(0, p.cat_values.size() - 1);
        out[p.name] = p.cat_values[pick(rng)];
        break;
      }
      default: {
        if (!p.numeric_values.empty()) {
          std::uniform_int_distribution<size_t> pick(0, p.numeric_values.size() - 1);
          double x = p.numeric_values[pick(rng)];
          if (p.type == ParamType::kInt) {
            out[p.name] = static_cast<int64_t>(std::llround(x));
          } else {
            out[p.name] = x;
          }
          break;
        }
        double a = WarpValue(p.space, *p.lo), b = WarpValue(p.space, *p.hi);
        double x = std::clamp(UnwarpValue(p.space, a + (b - a) * unit(rng)), *p.lo, *p.hi);
        if (p.type == ParamType::kInt) {
          out[p.name] = std::clamp<int64_t>(static_cast<int64_t>(std::llround(x)),
                                            static_cast<int64_t>(*p.lo),
                                            static_cast<int64_t>(*p.hi));
        } else {
          out[p.name] = x;
        }
      }
    }
  }
  return out;
}

std::vector<Point> SearchSpace::SampleRandom(int n, std::mt19937_64& rng) const {
  std::vector<Point> out;
  out.reserve(std::max(0, n));
  for (int i = 0; i < n; ++i) out.push_back(SampleRandom(rng));
  return out;
}

}  // namespace bbo
