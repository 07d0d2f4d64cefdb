#ifndef BBO_SERVER_NOTIFY_INTERNAL_URL_H_
#define BBO_SERVER_NOTIFY_INTERNAL_URL_H_

// The parts of a URL the notifier decides on (scheme, host, port), read by one small strict
// parser: the webhook URL check (ValidateWebhookUrl) and the SMTP server's loopback rule use the
// same reading. Plain functions; thread-safe.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bbo::notify::internal {

// The longest URL accepted, in bytes.
inline constexpr size_t kMaxUrlBytes = 2048;

struct UrlParts {
  std::string scheme;  // lower case, e.g. "https"
  std::string host;    // lower case, without IPv6 brackets
  int port = 0;        // 0 when the URL names none
};

// Splits "scheme://host[:port][/path][?query][#fragment]". InvalidArgument, saying why (callers
// prefix the field's name), for: more
// than kMaxUrlBytes, whitespace, control or non-ASCII bytes, a backslash, no "scheme://", an
// empty host, userinfo ("user@host"), a bad port (not 1..65535) or an unclosed IPv6 bracket.
// The scheme is not checked against any list: callers do.
absl::StatusOr<UrlParts> ParseUrl(absl::string_view url);

// true for "localhost", 127.0.0.0/8 written as a dotted quad, and "::1".
// A name is never resolved here.
bool IsLoopbackHost(absl::string_view host);

}  // namespace bbo::notify::internal

#endif  // BBO_SERVER_NOTIFY_INTERNAL_URL_H_
