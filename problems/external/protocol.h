#ifndef BBO_PROBLEMS_EXTERNAL_PROTOCOL_H_
#define BBO_PROBLEMS_EXTERNAL_PROTOCOL_H_

// The messages of "bbo-problem/1" (docs/external-problems.md): JSON lines between the
// coordinator and an organizer's problem executable. Encoding of the requests (describe,
// evaluate, exit) and checked decoding of the replies; no I/O. Every decode error is
// InvalidArgument naming the field and why (garbage from the executable), except a reply's own
// {"error": ...}, which is FailedPrecondition carrying the problem's message. Stateless and
// thread-safe.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/search_space.h"
#include "nlohmann/json.hpp"

namespace bbo {

// One evaluated point.
struct ExternalEvaluation {
  // The objective to minimize: +inf when the evaluation failed or the problem said "inf", NaN
  // when it said "nan" (callers map NaN to +inf).
  double value = 0;
  // The problem's held-out loss for the same point, when its reply carries "generalization"
  // (NaN/+inf as for `value`). Unset for failed requests.
  std::optional<double> generalization;
};

namespace external {

inline constexpr char kProtocol[] = "bbo-problem/1";

// The checked content of a describe reply.
struct DescribeInfo {
  std::string name;
  SearchSpace space;
  std::optional<double> known_optimum;
  std::string description;
  std::vector<std::string> attributes;
  std::string family = "external";
};

// `text` as a JSON string literal, at most `max` bytes of it ("..." after a cut): safe to put
// in an error message.
std::string Quote(absl::string_view text, size_t max = 200);
// `v` as compact JSON, cut after 80 bytes.
std::string ShortDump(const nlohmann::json& v);

// {"type":"describe","protocol":"bbo-problem/1"}
std::string DescribeRequest();
// {"type":"evaluate","id":id,"points":[...]}. InvalidArgument when a point cannot be encoded.
absl::StatusOr<std::string> EvaluateRequest(int64_t id, const std::vector<Point>& points);
// {"type":"exit"}
std::string ExitRequest();

// A reply line as a JSON object. InvalidArgument ("reply is not JSON: ...", with a hint for bare
// NaN/Infinity; "reply is not a JSON object: ...").
absl::StatusOr<nlohmann::json> ParseReplyObject(const std::string& line);
// The describe reply's fields, checked ("describe reply: field "name" ..."); an {"error"} reply
// or an unsupported protocol is InvalidArgument too (the problem cannot start).
absl::StatusOr<DescribeInfo> ParseDescribe(const nlohmann::json& reply);
// What a restarted process must repeat: {"name", "api_config"} of a describe reply that
// ParseDescribe accepted.
nlohmann::json DescribeIdentity(const nlohmann::json& reply);
// The "values" (and "generalization") of the evaluate reply to request `id` with `n` points.
absl::StatusOr<std::vector<ExternalEvaluation>> ParseEvaluateReply(const std::string& line,
                                                                   int64_t id, size_t n);

}  // namespace external
}  // namespace bbo

#endif  // BBO_PROBLEMS_EXTERNAL_PROTOCOL_H_
