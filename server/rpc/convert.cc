#include "server/rpc/convert.h"

#include <string>
#include <utility>

namespace bbo::rpc {

IncomingPoint FromProto(const v1::Suggestion& s) {
  absl::StatusOr<Point> point = PointFromProto(s);
  if (!point.ok()) return IncomingPoint{Point(), std::string(point.status().message())};
  return IncomingPoint{*std::move(point), ""};
}

v1::SubmissionKind ToProto(SubmissionKind k) {
  switch (k) {
    case SubmissionKind::kPython: return v1::SUBMISSION_KIND_PYTHON;
    case SubmissionKind::kExecutable: return v1::SUBMISSION_KIND_EXECUTABLE;
    default: return v1::SUBMISSION_KIND_UNSPECIFIED;
  }
}

}  // namespace bbo::rpc
