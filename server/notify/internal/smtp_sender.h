#ifndef BBO_SERVER_NOTIFY_INTERNAL_SMTP_SENDER_H_
#define BBO_SERVER_NOTIFY_INTERNAL_SMTP_SENDER_H_

// Sending one e-mail through the organizer's SMTP server with libcurl. Plain functions;
// thread-safe (each call makes its own transfer).

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/notify/notifier.h"

namespace bbo::notify::internal {

// OK when `smtp` can be used: a smtp:// or smtps:// URL with a host, a valid `from`, a positive
// timeout. InvalidArgument naming the field otherwise.
absl::Status CheckSmtpOptions(const SmtpOptions& smtp);

// Whether the transfer must be encrypted (libcurl's CURLUSESSL_ALL): smtps://, or smtp:// with
// require_tls and a host that is not loopback. Otherwise TLS is used when the server offers
// STARTTLS (CURLUSESSL_TRY). `smtp` must have passed CheckSmtpOptions.
bool SmtpTlsRequired(const SmtpOptions& smtp);

// Sends `message` (a full RFC 5322 message, CRLF line ends; libcurl dot-stuffs it) from
// smtp.from to `to`. OK once the server accepted the message; Cancelled when `abort` became
// true, DeadlineExceeded after smtp.timeout_s, Unavailable with the server's or libcurl's reason
// otherwise (a refused recipient included).
absl::Status SendEmail(const SmtpOptions& smtp, absl::string_view to, absl::string_view message,
                       const std::atomic<bool>& abort);

}  // namespace bbo::notify::internal

#endif  // BBO_SERVER_NOTIFY_INTERNAL_SMTP_SENDER_H_
