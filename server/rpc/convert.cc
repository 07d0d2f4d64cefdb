#include "server/rpc/convert.h"

#include "absl/strings/str_cat.h"

namespace bbo::rpc {

grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

IncomingPoint FromProto(const v1::Suggestion& s) {
  IncomingPoint out;
  for (const auto& [name, v] : s.params()) {
    switch (v.kind_case()) {
      case v1::ParamValue::kRealValue:
        out.point[name] = v.real_value();
        break;
      case v1::ParamValue::kIntValue:
        out.point[name] = static_cast<int64_t>(v.int_value());
        break;
      case v1::ParamValue::kBoolValue:
        out.point[name] = v.bool_value();
        break;
      case v1::ParamValue::kCatValue:
        out.point[name] = v.cat_value();
        break;
      default:
        if (out.decode_error.empty()) {
          out.decode_error = absl::StrCat("parameter \"", name, "\": no value set");
        }
    }
  }
  return out;
}

void ToProto(const Point& p, v1::Suggestion* out) {
  auto* params = out->mutable_params();
  for (const auto& [name, v] : p) {
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
    (*params)[name] = pv;
  }
}

v1::SubmissionKind ToProto(SubmissionKind k) {
  switch (k) {
    case SubmissionKind::kPython: return v1::SUBMISSION_KIND_PYTHON;
    case SubmissionKind::kExecutable: return v1::SUBMISSION_KIND_EXECUTABLE;
    default: return v1::SUBMISSION_KIND_UNSPECIFIED;
  }
}

}  // namespace bbo::rpc
