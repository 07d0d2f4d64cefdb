#include "server/web/internal/http.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "server/web/internal/assets.h"

namespace bbo::web::internal {

int HttpStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted: return 409;
    case absl::StatusCode::kResourceExhausted: return 429;
    case absl::StatusCode::kUnavailable: return 503;
    case absl::StatusCode::kDeadlineExceeded: return 504;
    default: return 500;
  }
}

std::string SafeJson(const nlohmann::json& value) {
  // Invalid UTF-8 (a name stored by an older version, say) is replaced, not thrown on.
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

nlohmann::json ErrorBody(const absl::Status& status) {
  std::string code = absl::StatusCodeToString(status.code());
  absl::AsciiStrToUpper(&code);
  for (char& c : code) {
    if (c == ' ') c = '_';
  }
  return {{"error", std::string(status.message())}, {"code", code}};
}

absl::StatusOr<std::string> BearerToken(absl::string_view header) {
  constexpr absl::string_view kPrefix = "Bearer ";
  if (!absl::StartsWith(header, kPrefix) || header.size() == kPrefix.size()) {
    return absl::UnauthenticatedError("the Authorization header is not \"Bearer <token>\"");
  }
  const absl::string_view token = header.substr(kPrefix.size());
  for (char c : token) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return absl::UnauthenticatedError("the token has spaces or control characters");
    }
  }
  return std::string(token);
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view address, absl::string_view flag) {
  const size_t colon = address.rfind(':');
  HostPort out;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &out.port) || out.port < 0 ||
      out.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": \"", address, "\" is not host:port"));
  }
  out.host = std::string(address.substr(0, colon));
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  return out;
}

bool ValidName(absl::string_view value) {
  if (value.size() > 64) return false;
  for (char c : value) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

absl::StatusOr<nlohmann::json> ParseJsonBody(absl::string_view content_type,
                                             absl::string_view body, int max_depth) {
  const absl::string_view type = content_type.substr(0, content_type.find(';'));
  if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(type), "application/json")) {
    return absl::InvalidArgumentError("the body must be JSON (Content-Type: application/json)");
  }
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return absl::InvalidArgumentError(
            absl::StrCat("the body nests deeper than ", max_depth, " levels"));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  nlohmann::json out = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return absl::InvalidArgumentError("the body is not valid JSON");
  return out;
}

absl::Status CheckRoutesDescribed(const std::vector<std::string>& routes) {
  const std::set<std::string> served(routes.begin(), routes.end());
  std::set<std::string> described;
  for (const Asset& a : Assets()) {
    if (a.path != "/openapi.json") continue;
    const nlohmann::json doc = nlohmann::json::parse(a.content, nullptr, false);
    if (!doc.is_object() || !doc.contains("paths")) {
      return absl::InternalError("openapi.json: not an OpenAPI description with paths");
    }
    for (const auto& [path, ops] : doc["paths"].items()) {
      for (const auto& [method, unused] : ops.items()) described.insert(method + " " + path);
    }
  }
  for (const std::string& r : served) {
    if (!described.count(r)) {
      return absl::InternalError(absl::StrCat("the web route \"", r,
                                              "\" is not described in openapi.json"));
    }
  }
  for (const std::string& d : described) {
    if (!served.count(d)) {
      return absl::InternalError(
          absl::StrCat("openapi.json describes \"", d, "\", which the web server does not serve"));
    }
  }
  return absl::OkStatus();
}

}  // namespace bbo::web::internal
