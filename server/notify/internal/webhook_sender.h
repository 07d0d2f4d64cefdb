#ifndef BBO_SERVER_NOTIFY_INTERNAL_WEBHOOK_SENDER_H_
#define BBO_SERVER_NOTIFY_INTERNAL_WEBHOOK_SENDER_H_

// Sending one webhook: an HTTP POST of JSON with libcurl, signed when a secret is configured,
// behind the SSRF guard (internal/address_guard.h). Plain functions; thread-safe (each call
// makes its own transfer).

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/notify/notifier.h"

namespace bbo::notify::internal {

// {"competition", "team", "event", "subject", "text", "details", "sent_at_s"} as compact JSON
// (sent_at_s: Unix seconds of `now`); invalid UTF-8 in the strings becomes U+FFFD.
std::string WebhookBody(absl::string_view competition, const Notification& notification,
                        absl::Time now);

// "sha256=" and the lower-case hex HMAC-SHA256 of `body` keyed with `secret`.
std::string WebhookSignature(absl::string_view secret, absl::string_view body);

struct WebhookRequest {
  std::string url;
  std::string body;
  std::string secret;  // "" = no X-BBO-Signature header
  bool allow_private = false;
  absl::Duration timeout = absl::Seconds(10);
};

// POSTs request.body to request.url (no redirect followed, the answer's body read up to a cap
// and discarded). OK for a 2xx answer. PermissionDenied, nothing sent, when the policy refuses
// it (http:// or a non-public address without allow_private; not an http(s) URL); Cancelled
// when `abort` became true; DeadlineExceeded after the timeout; Unavailable otherwise, with the
// HTTP status ("HTTP 500") or libcurl's reason.
absl::Status SendWebhook(const WebhookRequest& request, const std::atomic<bool>& abort);

}  // namespace bbo::notify::internal

#endif  // BBO_SERVER_NOTIFY_INTERNAL_WEBHOOK_SENDER_H_
