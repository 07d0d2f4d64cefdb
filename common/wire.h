#ifndef BBO_COMMON_WIRE_H_
#define BBO_COMMON_WIRE_H_

// The wire converter: bbo.v1 ParamValue / Suggestion <-> Point (common/search_space.h) <-> JSON,
// with one set of rules for every process that speaks the protocol (the coordinator's handlers,
// the worker's coordinator client).
//
// Rules:
//   - bool <-> bool_value, int64 <-> int_value, double <-> real_value, string <-> cat_value.
//     Ints and reals stay apart: the JSON number 3 is an int, 3.0 a real (PointFromJson).
//   - NaN and +/-inf reals travel unchanged; rejecting them is the search space's job
//     (SearchSpace::Canonicalize), so the coordinator can name the parameter in its reply.
//   - Values that cannot be represented (a ParamValue with no member set; a JSON array, object
//     or null; a suggestion that is not a JSON object) are InvalidArgument naming the
//     parameter: `parameter "x": ...`. Nothing is silently emptied.
// The JSON side is search_space.h's PointFromJson / PointToJson; this file adds the proto side.
//
// Includes only the generated message headers (no gRPC). Stateless and thread-safe.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bbo/v1/common.pb.h"
#include "bbo/v1/study_service.pb.h"
#include "common/batch_figures.h"
#include "common/search_space.h"
#include "nlohmann/json.hpp"

namespace bbo {

// One parameter value. InvalidArgument `parameter "<name>": no value set` for an empty
// ParamValue.
absl::StatusOr<ParamValue> ParamValueFromProto(absl::string_view name, const v1::ParamValue& v);
v1::ParamValue ParamValueToProto(const ParamValue& v);

// A whole suggestion. The first parameter (in the map's iteration order) that fails decides the
// error.
absl::StatusOr<Point> PointFromProto(const v1::Suggestion& s);
// Replaces `out`'s params with `p`'s.
void PointToProto(const Point& p, v1::Suggestion* out);

// JSON object (parameter name -> value, as an optimizer printed it) -> Suggestion. On
// InvalidArgument (the message names the first refused parameter, or says the suggestion is not
// an object), `out` still carries what the coordinator must see to replace the point by random
// search and name the parameter: every representable parameter, and each refused one as an
// empty ParamValue (the wire's "no value" marker); a non-object gives an empty suggestion.
absl::Status SuggestionFromJson(const nlohmann::json& j, v1::Suggestion* out);
// Suggestion -> JSON object. InvalidArgument naming the parameter for an empty ParamValue.
absl::StatusOr<nlohmann::json> SuggestionToJson(const v1::Suggestion& s);

// A host's report of the optimizer's turn <-> its fields of SubmitBatchRequest (the wall times
// and one optional field per batch figure, common/batch_figures.h). From the wire the figures
// are as sent: CheckedFigures is the coordinator's rule.
void TurnReportToProto(const TurnReport& turn, v1::SubmitBatchRequest* out);
TurnReport TurnReportFromProto(const v1::SubmitBatchRequest& in);

}  // namespace bbo

#endif  // BBO_COMMON_WIRE_H_
