#ifndef BBO_SERVER_NOTIFY_INTERNAL_EMAIL_MESSAGE_H_
#define BBO_SERVER_NOTIFY_INTERNAL_EMAIL_MESSAGE_H_

// The e-mail the notifier sends, as text: an RFC 5322 plain-text message whose headers cannot be
// injected into (every header value is cleaned of CR, LF and other controls, non-ASCII text is
// RFC 2047-encoded) and whose body is 8bit, or quoted-printable when a line is too long for
// SMTP. Dot-stuffing is libcurl's job, not this file's. Plain functions; thread-safe.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace bbo::notify::internal {

// The longest address accepted, in bytes (RFC 5321's path limit less the brackets).
inline constexpr size_t kMaxAddressBytes = 254;

// OK for one plausible bare address "local@domain": exactly one '@', non-empty local part (at
// most 64 bytes) and domain, at most kMaxAddressBytes, printable ASCII only and none of
// whitespace, '<', '>', ',', ';', ':', '"', '(', ')', '[', ']', '\'. InvalidArgument naming
// `field` and the reason otherwise.
absl::Status CheckEmailAddress(absl::string_view address, absl::string_view field);

// `text` as a header value's content: CR, LF and TAB become spaces, other control characters
// (C0, DEL) are removed, runs of spaces become one, ends are trimmed, invalid UTF-8 becomes
// U+FFFD, and the result is cut to `max_bytes` without splitting a character.
std::string CleanHeaderText(absl::string_view text, size_t max_bytes);

// A cleaned value ready to follow "Name: ": itself when it is printable ASCII that cannot be
// mistaken for an encoded word; otherwise RFC 2047 encoded words "=?UTF-8?B?...?=", each at most
// 75 characters and holding whole characters, folded onto continuation lines ("\r\n ").
std::string EncodeHeaderValue(absl::string_view clean);

struct EncodedBody {
  std::string transfer_encoding;  // "8bit" or "quoted-printable"
  std::string body;               // CRLF line ends, ending with CRLF
};
// The body text with line ends made CRLF, controls other than TAB removed and invalid UTF-8
// replaced; quoted-printable (RFC 2045, lines of at most 76 characters) when a line is longer
// than 998 bytes, 8bit otherwise.
EncodedBody EncodeBody(absl::string_view text);

// "Thu, 13 Feb 1989 23:32:00 +0000" (RFC 5322 section 3.3), in UTC.
std::string FormatDate(absl::Time time);

// What one message says; addresses must have passed CheckEmailAddress.
struct MessageFields {
  std::string from;
  std::string to;
  std::string competition;
  std::string team;
  std::string event;
  std::string subject;
  std::string text;
  nlohmann::json details;
  absl::Time date;
  std::string message_id;  // without the angle brackets, e.g. "1f2e...@example.org"
};

// The full message: Date, From, To, Subject ("[competition] subject"), Message-ID,
// MIME-Version, Content-Type text/plain; charset=utf-8, Content-Transfer-Encoding, X-BBO-Team and
// X-BBO-Event headers, a blank line and the body (the text, then a signature block naming the
// competition, team and event, and the details as indented JSON when there are any).
std::string FormatMessage(const MessageFields& fields);

// A fresh "<32 random hex digits>.<unix seconds>@<domain of from>" for Message-ID.
std::string NewMessageId(absl::string_view from, absl::Time now);

}  // namespace bbo::notify::internal

#endif  // BBO_SERVER_NOTIFY_INTERNAL_EMAIL_MESSAGE_H_
