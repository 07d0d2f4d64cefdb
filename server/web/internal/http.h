#ifndef BBO_SERVER_WEB_INTERNAL_HTTP_H_
#define BBO_SERVER_WEB_INTERNAL_HTTP_H_

// Small pure helpers of the web server's transport (server/web/web_server.cc), apart so that
// they are tested without a socket. Plain functions; thread-safe.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace bbo::web::internal {

// The HTTP status of a domain answer: InvalidArgument 400, Unauthenticated 401,
// PermissionDenied 403, NotFound 404, FailedPrecondition and AlreadyExists 409,
// ResourceExhausted 429, Unavailable 503, DeadlineExceeded 504, anything else 500; OK 200.
int HttpStatus(const absl::Status& status);

// `value` as JSON text in which '<', '>' and '&' (which JSON allows only inside strings) are
// written \u003c, \u003e and \u0026: no part of an answer can be taken for markup, whatever a
// participant put in a name.
std::string SafeJson(const nlohmann::json& value);

// {"error": message, "code": "PERMISSION_DENIED", ...}: the body of a refusal.
nlohmann::json ErrorBody(const absl::Status& status);

// The token of an `Authorization` header's value "Bearer <token>". Unauthenticated, saying what
// is wrong, for anything else (another scheme, no token, spaces or control characters).
absl::StatusOr<std::string> BearerToken(absl::string_view header);

struct HostPort {
  std::string host;  // without IPv6 brackets
  int port = 0;
};
// "host:port" or "[v6]:port" with port 0..65535. InvalidArgument naming `flag` otherwise.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view address, absl::string_view flag);

// Whether a query parameter's value is acceptable as a phase or board name: at most 64 bytes of
// [A-Za-z0-9._-] (phase names are narrower still; the domain answers NotFound for the rest).
bool ValidName(absl::string_view value);

// OK when the embedded OpenAPI description (/openapi.json) has an operation for each route
// ("get /api/x", "post /api/y", "get /api/z/{id}") and no operation the routes lack; Internal
// naming the first difference otherwise (bbo-server then refuses to start, so an undescribed
// route cannot ship).
absl::Status CheckRoutesDescribed(const std::vector<std::string>& routes);

// The JSON object of a request body whose Content-Type is `content_type`: InvalidArgument for a
// type other than application/json (CORS-safelisted types cannot reach an action), for text
// that is not JSON, and for arrays or objects nested deeper than `max_depth` (checked before
// parsing, so a deep body cannot exhaust the handler's stack).
absl::StatusOr<nlohmann::json> ParseJsonBody(absl::string_view content_type,
                                             absl::string_view body, int max_depth = 8);

}  // namespace bbo::web::internal

#endif  // BBO_SERVER_WEB_INTERNAL_HTTP_H_
