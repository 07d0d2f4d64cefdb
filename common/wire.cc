#include "common/wire.h"

#include <string>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo {

absl::StatusOr<ParamValue> ParamValueFromProto(absl::string_view name, const v1::ParamValue& v) {
  switch (v.kind_case()) {
    case v1::ParamValue::kRealValue: return ParamValue(v.real_value());
    case v1::ParamValue::kIntValue: return ParamValue(static_cast<int64_t>(v.int_value()));
    case v1::ParamValue::kBoolValue: return ParamValue(v.bool_value());
    case v1::ParamValue::kCatValue: return ParamValue(v.cat_value());
    case v1::ParamValue::KIND_NOT_SET: break;
  }
  return absl::InvalidArgumentError(absl::StrCat("parameter \"", name, "\": no value set"));
}

v1::ParamValue ParamValueToProto(const ParamValue& v) {
  v1::ParamValue pv;
  if (const bool* b = std::get_if<bool>(&v)) {
    pv.set_bool_value(*b);
  } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
    pv.set_int_value(*i);
  } else if (const double* d = std::get_if<double>(&v)) {
    pv.set_real_value(*d);
  } else {
    pv.set_cat_value(std::get<std::string>(v));
  }
  return pv;
}

absl::StatusOr<Point> PointFromProto(const v1::Suggestion& s) {
  Point p;
  for (const auto& [name, v] : s.params()) {
    ASSIGN_OR_RETURN(p[name], ParamValueFromProto(name, v));
  }
  return p;
}

void PointToProto(const Point& p, v1::Suggestion* out) {
  auto* params = out->mutable_params();
  params->clear();
  for (const auto& [name, v] : p) (*params)[name] = ParamValueToProto(v);
}

absl::Status SuggestionFromJson(const nlohmann::json& j, v1::Suggestion* out) {
  out->Clear();
  absl::StatusOr<Point> whole = PointFromJson(j);
  if (whole.ok()) {
    PointToProto(*whole, out);
    return absl::OkStatus();
  }
  if (!j.is_object()) return whole.status();
  // Encode parameter by parameter so the representable ones still travel and each refused one
  // is marked; the error is the first refusal, as PointFromJson reports it.
  auto* params = out->mutable_params();
  for (auto it = j.begin(); it != j.end(); ++it) {
    absl::StatusOr<Point> one = PointFromJson(nlohmann::json{{it.key(), it.value()}});
    (*params)[it.key()] = one.ok() ? ParamValueToProto(one->begin()->second) : v1::ParamValue();
  }
  return whole.status();
}

absl::StatusOr<nlohmann::json> SuggestionToJson(const v1::Suggestion& s) {
  ASSIGN_OR_RETURN(Point p, PointFromProto(s));
  return PointToJson(p);
}

void TurnReportToProto(const TurnReport& turn, v1::SubmitBatchRequest* out) {
  out->set_suggest_time_s(turn.suggest_s);
  out->set_observe_time_s(turn.observe_s);
  const BatchFigures& f = turn.figures;
  if (f.optimizer_cpu_s) out->set_optimizer_cpu_s(*f.optimizer_cpu_s);
  if (f.optimizer_peak_memory_mb) out->set_optimizer_peak_memory_mb(*f.optimizer_peak_memory_mb);
}

TurnReport TurnReportFromProto(const v1::SubmitBatchRequest& in) {
  TurnReport turn;
  turn.suggest_s = in.suggest_time_s();
  turn.observe_s = in.observe_time_s();
  BatchFigures& f = turn.figures;
  if (in.has_optimizer_cpu_s()) f.optimizer_cpu_s = in.optimizer_cpu_s();
  if (in.has_optimizer_peak_memory_mb()) f.optimizer_peak_memory_mb = in.optimizer_peak_memory_mb();
  return turn;
}

}  // namespace bbo
