#ifndef BBO_SERVER_NOTIFY_NOTIFIER_H_
#define BBO_SERVER_NOTIFY_NOTIFIER_H_

// Telling teams what happened to their submissions and phases, by e-mail through the organizer's
// SMTP server and/or by a webhook (an HTTPS POST of JSON), from one background sender thread so
// that the caller never waits on the network.
//
//   Notifier notifier(options);
//   absl::Status s = notifier.Enqueue({.team = "t1", .event = "submission_finished", ...});
//
// Each notification becomes one delivery per channel it names (email, webhook_url); a failed
// delivery is retried after retry_delay_s up to max_attempts, then counted failed and logged
// ("event=notify_failed channel=... team=... reason=..."). Nothing here throws.

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "spdlog/logger.h"

namespace bbo::notify {

// What happened, for one team. Strings are untrusted (a team chose its name and addresses):
// the e-mail cleans every header value, the webhook sends them JSON-escaped.
struct Notification {
  std::string team;
  // "submission_finished", "submission_failed", "phase_opened" or "phase_closed".
  std::string event;
  std::string subject;  // one line; the e-mail's subject reads "[competition] subject"
  std::string text;     // the e-mail's body and the webhook's "text"
  nlohmann::json details;
  std::string email;        // the recipient's bare address ("team@example.org"); "" = no e-mail
  std::string webhook_url;  // http(s) URL to POST to; "" = no webhook
};

// The organizer's SMTP server.
struct SmtpOptions {
  std::string url;       // "smtp://host:port" (STARTTLS) or "smtps://host:port" (implicit TLS)
  std::string from;      // bare sender address: the envelope's MAIL FROM and the From header
  std::string username;  // "" = no SMTP AUTH
  std::string password;
  // smtp:// must upgrade with STARTTLS (or the send fails), unless the host is loopback
  // ("localhost", 127.0.0.0/8, ::1), where TLS is used only if the server offers it.
  bool require_tls = true;
  double timeout_s = 20;  // seconds per attempt, connection included
};

struct NotifierOptions {
  std::optional<SmtpOptions> smtp;  // unset = e-mail refused at Enqueue (FailedPrecondition)
  int max_queue = 1000;             // deliveries waiting or in progress; beyond it Enqueue refuses
  int max_attempts = 3;             // attempts per delivery, the first included (>= 1)
  double retry_delay_s = 5;         // seconds between attempts of one delivery
  double webhook_timeout_s = 10;    // seconds per webhook attempt, connection included
  // false: webhooks go over https:// only, to public addresses only (never loopback, RFC 1918,
  // link-local, unique-local IPv6, unspecified, ...), checked on the address actually connected
  // to. true (tests, closed networks): http:// and any address.
  bool allow_private_webhooks = false;
  // When not empty, every webhook carries "X-BBO-Signature: sha256=<hex HMAC-SHA256 of the body
  // with this key>" so the receiver can tell it came from us.
  std::string webhook_secret;
  std::string competition;  // named in the e-mail's subject and the webhook's payload
  // Where failures, drops and shutdown are logged; nullptr = spdlog's default logger.
  std::shared_ptr<spdlog::logger> logger;
};

// Per channel. Every delivery accepted by Enqueue ends in exactly one of sent, failed or
// dropped (a delivery dropped at shutdown included); refused ones are also counted failed.
struct ChannelCounters {
  int64_t sent = 0;
  int64_t failed = 0;   // after all attempts, or refused
  int64_t refused = 0;  // not attempted by policy (private address, http://): no retry
  int64_t dropped = 0;  // queue full at Enqueue, or still pending at shutdown
};
struct NotifierCounters {
  ChannelCounters email;
  ChannelCounters webhook;
};

// OK when `url` is acceptable as a team's webhook URL by its text alone (for the domain to call
// when a team registers one): http or https, a host, at most 2048 bytes, no userinfo, no
// whitespace, control, non-ASCII bytes or backslash; unless `allow_private`, also https only and
// no host that is visibly not public ("localhost", an IP literal in a private range).
// InvalidArgument saying why otherwise. Nothing is resolved: where a name leads is checked when
// sending, on the address connected to.
absl::Status ValidateWebhookUrl(absl::string_view url, bool allow_private);

// OK when `address` is one plausible bare e-mail address (one '@', no spaces, none of '<>,;'
// and other specials, at most 254 bytes); InvalidArgument saying why otherwise.
absl::Status ValidateEmailAddress(absl::string_view address);

// OK when the options can work: a smtp(s):// URL with a host, a valid `from`, positive
// timeouts, max_queue and max_attempts >= 1. InvalidArgument naming the field otherwise.
// Binaries call it at startup; a Notifier built with bad SMTP options refuses e-mail.
absl::Status ValidateNotifierOptions(const NotifierOptions& options);

// Thread-safe. Owns one sender thread, started by the constructor and stopped by the
// destructor.
class Notifier {
 public:
  explicit Notifier(NotifierOptions options);
  // Stops promptly, within about a second even while a send is in progress (the transfer is
  // aborted); deliveries still pending are dropped and logged.
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  // Queues one delivery per channel `notification` names, without waiting on the network.
  // InvalidArgument for an unknown event, an implausible address or a malformed webhook URL;
  // FailedPrecondition for an e-mail when no (valid) SMTP server is configured; and
  // ResourceExhausted, the notification dropped (counted and logged), when the queue would hold
  // more than max_queue deliveries. OK with nothing queued when it names no channel.
  absl::Status Enqueue(Notification notification);

  // Waits until no delivery is queued or in progress: OK, or DeadlineExceeded after `timeout`.
  absl::Status Flush(absl::Duration timeout);

  NotifierCounters Counters() const;

 private:
  enum class Channel { kEmail, kWebhook };
  struct Delivery {
    Channel channel;
    std::shared_ptr<const Notification> notification;
    int attempts = 0;        // made so far
    absl::Time not_before;   // a retry waits until then
    std::string message_id;  // e-mail: one Message-ID for every attempt
  };

  void Run();
  std::optional<Delivery> Next();
  absl::Status Attempt(Delivery& delivery);
  void Finish(Delivery delivery, const absl::Status& status);
  void DropPending();
  bool Idle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ChannelCounters& CountersOf(Channel channel) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckNotification(const Notification& notification) const;

  const NotifierOptions options_;
  const absl::Status smtp_status_;  // why e-mail is refused, or OK
  const std::shared_ptr<spdlog::logger> logger_;
  std::atomic<bool> abort_{false};  // read by libcurl's progress callback

  mutable absl::Mutex mu_;
  absl::CondVar wake_;  // new delivery or stop
  std::deque<Delivery> queue_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  NotifierCounters counters_ ABSL_GUARDED_BY(mu_);

  std::thread thread_;  // last: started once everything above is built
};

}  // namespace bbo::notify

#endif  // BBO_SERVER_NOTIFY_NOTIFIER_H_
