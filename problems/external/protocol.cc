#include "problems/external/protocol.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace bbo::external {
namespace {

using json = nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Decodes one entry of "values"/"generalization": a JSON number, "inf" or "nan".
bool DecodeValue(const json& v, double* out) {
  if (v.is_number()) {
    *out = v.get<double>();
    return true;
  }
  if (!v.is_string()) return false;
  std::string s = absl::AsciiStrToLower(v.get<std::string>());
  if (s == "inf" || s == "+inf" || s == "infinity") {
    *out = kInf;
    return true;
  }
  if (s == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;
}

}  // namespace

// `text` as a JSON string literal, at most `max` bytes of it: safe to put in an error message.
std::string Quote(absl::string_view text, size_t max) {
  std::string s(text.substr(0, max));
  std::string q = json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() > max ? absl::StrCat(q, "...") : q;
}

// `v` as compact JSON, cut after 80 bytes.
std::string ShortDump(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 80 ? s.substr(0, 80) + "..." : s;
}

// Parses a reply line into a JSON object; InvalidArgument describing the garbage otherwise.
absl::StatusOr<json> ParseReplyObject(const std::string& line) {
  json reply = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded()) {
    std::string hint;
    if (absl::StrContains(line, "NaN") || absl::StrContains(line, "Infinity")) {
      hint = " (bare NaN/Infinity are not JSON: send the strings \"nan\"/\"inf\")";
    }
    return absl::InvalidArgumentError(absl::StrCat("reply is not JSON", hint, ": ", Quote(line)));
  }
  if (!reply.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("reply is not a JSON object: ", Quote(line)));
  }
  return reply;
}

std::string DescribeRequest() {
  return json{{"type", "describe"}, {"protocol", kProtocol}}.dump();
}

absl::StatusOr<std::string> EvaluateRequest(int64_t id, const std::vector<Point>& points) {
  try {
    json encoded = json::array();
    for (const Point& p : points) encoded.push_back(PointToJson(p));
    return json{{"type", "evaluate"}, {"id", id}, {"points", std::move(encoded)}}.dump();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot encode the points: ", e.what()));
  }
}

std::string ExitRequest() { return R"({"type":"exit"})"; }

json DescribeIdentity(const json& reply) {
  return {{"name", reply["name"]}, {"api_config", reply["api_config"]}};
}

namespace {

bool ValidProblemName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

}  // namespace

absl::StatusOr<DescribeInfo> ParseDescribe(const json& reply) {
  auto field_error = [](absl::string_view field, absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("describe reply: field \"", field, "\" ", why));
  };
  if (reply.contains("error")) {
    return absl::InvalidArgumentError(
        absl::StrCat("the problem answered describe with an error: ",
                     reply["error"].is_string() ? Quote(reply["error"].get<std::string>(), 2000)
                                                : ShortDump(reply["error"])));
  }
  if (!reply.contains("protocol")) return field_error("protocol", "is missing");
  if (reply["protocol"] != kProtocol) {
    return absl::InvalidArgumentError(
        absl::StrCat("describe reply: unsupported protocol ", ShortDump(reply["protocol"]),
                     " (this coordinator speaks \"", kProtocol, "\")"));
  }
  DescribeInfo info;
  if (!reply.contains("name") || !reply["name"].is_string()) {
    return field_error("name", "is missing or not a string");
  }
  info.name = reply["name"].get<std::string>();
  if (!ValidProblemName(info.name)) {
    return field_error(
        "name", absl::StrCat(Quote(info.name), " must be 1-64 characters of A-Z a-z 0-9 . _ -"));
  }
  if (!reply.contains("api_config") || !reply["api_config"].is_object()) {
    return field_error("api_config", "is missing or not an object");
  }
  absl::StatusOr<SearchSpace> space = SearchSpace::FromJson(reply["api_config"]);
  if (!space.ok())
    return field_error("api_config", absl::StrCat("is invalid: ", space.status().message()));
  info.space = *std::move(space);
  if (reply.contains("description")) {
    if (!reply["description"].is_string()) return field_error("description", "is not a string");
    info.description = reply["description"].get<std::string>();
  }
  if (reply.contains("known_optimum") && !reply["known_optimum"].is_null()) {
    if (!reply["known_optimum"].is_number()) {
      return field_error("known_optimum", "is neither null nor a number");
    }
    info.known_optimum = reply["known_optimum"].get<double>();
  }
  if (reply.contains("attributes")) {
    const json& a = reply["attributes"];
    if (!a.is_array()) return field_error("attributes", "is not an array of strings");
    for (const json& tag : a) {
      if (!tag.is_string()) return field_error("attributes", "is not an array of strings");
      info.attributes.push_back(tag.get<std::string>());
    }
  }
  if (reply.contains("family")) {
    if (!reply["family"].is_string() || reply["family"].get<std::string>().empty()) {
      return field_error("family", "is not a non-empty string");
    }
    info.family = reply["family"].get<std::string>();
  }
  return info;
}

// The "values" (and "generalization") of an evaluate reply for `n` points. InvalidArgument for
// garbage; FailedPrecondition carrying the problem's own {"error": ...} message.
absl::StatusOr<std::vector<ExternalEvaluation>> ParseEvaluateReply(const std::string& line,
                                                                   int64_t id, size_t n) {
  absl::StatusOr<json> parsed = ParseReplyObject(line);
  if (!parsed.ok()) return parsed.status();
  const json& reply = *parsed;
  if (reply.contains("id") && reply["id"] != id) {
    return absl::InvalidArgumentError(
        absl::StrCat("reply \"id\" is ", ShortDump(reply["id"]), ", expected ", id));
  }
  if (reply.contains("error")) {
    return absl::FailedPreconditionError(
        reply["error"].is_string() ? reply["error"].get<std::string>() : ShortDump(reply["error"]));
  }
  std::vector<ExternalEvaluation> out(n);
  for (const char* field : {"values", "generalization"}) {
    const bool primary = field[0] == 'v';
    if (!reply.contains(field)) {
      if (primary) return absl::InvalidArgumentError("reply has no \"values\"");
      continue;
    }
    const json& arr = reply[field];
    if (!arr.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat("reply \"", field, "\" is not an array"));
    }
    if (arr.size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("reply \"", field, "\" has ", arr.size(), " entries for ", n, " points"));
    }
    for (size_t i = 0; i < n; ++i) {
      double v;
      if (!DecodeValue(arr[i], &v)) {
        return absl::InvalidArgumentError(absl::StrCat("reply \"", field, "\"[", i, "] is ",
                                                       ShortDump(arr[i]),
                                                       "; expected a number, \"inf\" or \"nan\""));
      }
      if (primary) {
        out[i].value = v;
      } else {
        out[i].generalization = v;
      }
    }
  }
  return out;
}

}  // namespace bbo::external
