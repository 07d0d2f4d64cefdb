#include "server/notify/notifier.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "server/notify/internal/address_guard.h"
#include "server/notify/internal/email_message.h"
#include "server/notify/internal/smtp_sender.h"
#include "server/notify/internal/url.h"
#include "server/notify/internal/webhook_sender.h"
#include "spdlog/spdlog.h"

namespace bbo::notify {
namespace {

constexpr absl::string_view kEvents[] = {"submission_finished", "submission_failed", "phase_opened",
                                         "phase_closed"};

// A team's name in a key=value log line: one token, no controls.
std::string LogValue(absl::string_view text) {
  std::string clean = internal::CleanHeaderText(text, 64);
  if (clean.empty()) return "-";
  return absl::StrReplaceAll(clean, {{" ", "_"}, {"=", "_"}});
}

absl::Status SmtpStatus(const NotifierOptions& options) {
  if (!options.smtp) return absl::FailedPreconditionError("email: no SMTP server is configured");
  absl::Status s = internal::CheckSmtpOptions(*options.smtp);
  if (s.ok()) return s;
  return absl::FailedPreconditionError(absl::StrCat("email: bad SMTP options: ", s.message()));
}

enum class Outcome { kSent, kRetry, kFailed, kRefused, kDropped };

}  // namespace

absl::Status ValidateWebhookUrl(absl::string_view url, bool allow_private) {
  absl::StatusOr<internal::UrlParts> parts = internal::ParseUrl(url);
  if (!parts.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("webhook_url: ", parts.status().message()));
  }
  if (parts->scheme != "https" && parts->scheme != "http") {
    return absl::InvalidArgumentError("webhook_url: the scheme must be https://");
  }
  if (allow_private) return absl::OkStatus();
  if (parts->scheme == "http") {
    return absl::InvalidArgumentError("webhook_url: plain http:// is refused; use https://");
  }
  std::string range = internal::NonPublicRange(parts->host);
  if (range == "not an IP address") range = internal::IsLoopbackHost(parts->host) ? "loopback" : "";
  if (!range.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("webhook_url: the host is ", range));
  }
  return absl::OkStatus();
}

absl::Status ValidateEmailAddress(absl::string_view address) {
  return internal::CheckEmailAddress(address, "email");
}

absl::Status ValidateNotifierOptions(const NotifierOptions& options) {
  if (options.smtp) {
    if (absl::Status s = internal::CheckSmtpOptions(*options.smtp); !s.ok()) return s;
  }
  if (options.max_queue < 1) return absl::InvalidArgumentError("max_queue: must be >= 1");
  if (options.max_attempts < 1) return absl::InvalidArgumentError("max_attempts: must be >= 1");
  if (!(options.retry_delay_s >= 0)) {
    return absl::InvalidArgumentError("retry_delay_s: must be >= 0 (seconds)");
  }
  if (!(options.webhook_timeout_s > 0)) {
    return absl::InvalidArgumentError("webhook_timeout_s: must be positive (seconds)");
  }
  return absl::OkStatus();
}

Notifier::Notifier(NotifierOptions options)
    : options_(std::move(options)),
      smtp_status_(SmtpStatus(options_)),
      logger_(options_.logger != nullptr ? options_.logger : spdlog::default_logger()),
      thread_([this] { Run(); }) {}

Notifier::~Notifier() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.SignalAll();
  }
  abort_.store(true);
  thread_.join();
  DropPending();
}

absl::Status Notifier::CheckNotification(const Notification& n) const {
  if (std::find(std::begin(kEvents), std::end(kEvents), n.event) == std::end(kEvents)) {
    return absl::InvalidArgumentError(absl::StrCat("event: unknown '", LogValue(n.event),
                                                   "' (want one of ", absl::StrJoin(kEvents, ", "),
                                                   ")"));
  }
  if (!n.email.empty()) {
    if (absl::Status s = ValidateEmailAddress(n.email); !s.ok()) return s;
    if (!smtp_status_.ok()) return smtp_status_;
  }
  // The text alone: what the policy allows is decided when sending, on the address connected
  // to, and a refusal is counted there.
  if (!n.webhook_url.empty()) return ValidateWebhookUrl(n.webhook_url, /*allow_private=*/true);
  return absl::OkStatus();
}

absl::Status Notifier::Enqueue(Notification notification) {
  if (absl::Status s = CheckNotification(notification); !s.ok()) return s;
  std::vector<Channel> channels;
  if (!notification.email.empty()) channels.push_back(Channel::kEmail);
  if (!notification.webhook_url.empty()) channels.push_back(Channel::kWebhook);
  if (channels.empty()) return absl::OkStatus();
  const size_t max_queue = static_cast<size_t>(std::max(1, options_.max_queue));
  auto shared = std::make_shared<const Notification>(std::move(notification));
  {
    absl::MutexLock lock(&mu_);
    const size_t pending = queue_.size() + static_cast<size_t>(in_flight_);
    if (!stopping_ && pending + channels.size() <= max_queue) {
      for (Channel channel : channels) {
        queue_.push_back(Delivery{channel, shared, 0, absl::InfinitePast(), ""});
      }
      wake_.Signal();
      return absl::OkStatus();
    }
    for (Channel channel : channels) ++CountersOf(channel).dropped;
  }
  logger_->warn("event=notify_dropped team={} notify_event={} reason=queue_full max_queue={}",
                LogValue(shared->team), LogValue(shared->event), max_queue);
  return absl::ResourceExhaustedError(
      absl::StrCat("notification queue full (max_queue=", max_queue, "): notification dropped"));
}

absl::Status Notifier::Flush(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  if (mu_.AwaitWithTimeout(absl::Condition(this, &Notifier::Idle), timeout)) {
    return absl::OkStatus();
  }
  return absl::DeadlineExceededError(absl::StrCat(queue_.size() + static_cast<size_t>(in_flight_),
                                                  " deliveries still pending after ",
                                                  absl::FormatDuration(timeout)));
}

NotifierCounters Notifier::Counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

bool Notifier::Idle() const { return queue_.empty() && in_flight_ == 0; }

ChannelCounters& Notifier::CountersOf(Channel channel) {
  return channel == Channel::kEmail ? counters_.email : counters_.webhook;
}

void Notifier::Run() {
  while (std::optional<Delivery> delivery = Next()) {
    const absl::Status status = Attempt(*delivery);
    Finish(std::move(*delivery), status);
  }
}

std::optional<Notifier::Delivery> Notifier::Next() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const absl::Time now = absl::Now();
    absl::Time wake_at = absl::InfiniteFuture();
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->not_before <= now) {
        Delivery delivery = std::move(*it);
        queue_.erase(it);
        ++in_flight_;
        return delivery;
      }
      wake_at = std::min(wake_at, it->not_before);
    }
    wake_.WaitWithDeadline(&mu_, wake_at);
  }
  return std::nullopt;
}

absl::Status Notifier::Attempt(Delivery& delivery) {
  const Notification& n = *delivery.notification;
  const absl::Time now = absl::Now();
  if (delivery.channel == Channel::kWebhook) {
    internal::WebhookRequest request{
        n.webhook_url, internal::WebhookBody(options_.competition, n, now), options_.webhook_secret,
        options_.allow_private_webhooks, absl::Seconds(options_.webhook_timeout_s)};
    return internal::SendWebhook(request, abort_);
  }
  if (!smtp_status_.ok()) return smtp_status_;
  if (delivery.message_id.empty()) {
    delivery.message_id = internal::NewMessageId(options_.smtp->from, now);
  }
  internal::MessageFields fields{
      options_.smtp->from, n.email, options_.competition, n.team, n.event, n.subject, n.text,
      n.details,           now,     delivery.message_id};
  return internal::SendEmail(*options_.smtp, n.email, internal::FormatMessage(fields), abort_);
}

void Notifier::Finish(Delivery delivery, const absl::Status& status) {
  ++delivery.attempts;
  const int max_attempts = std::max(1, options_.max_attempts);
  const std::string team = LogValue(delivery.notification->team);
  const char* channel = delivery.channel == Channel::kEmail ? "email" : "webhook";
  const int attempts = delivery.attempts;
  Outcome outcome;
  {
    absl::MutexLock lock(&mu_);
    --in_flight_;
    ChannelCounters& counters = CountersOf(delivery.channel);
    if (status.ok()) {
      outcome = Outcome::kSent;
      ++counters.sent;
    } else if (absl::IsCancelled(status) && stopping_) {
      outcome = Outcome::kDropped;
      ++counters.dropped;
    } else if (absl::IsPermissionDenied(status)) {
      outcome = Outcome::kRefused;
      ++counters.refused;
      ++counters.failed;
    } else if (attempts < max_attempts && stopping_) {
      outcome = Outcome::kDropped;  // it would have been retried
      ++counters.dropped;
    } else if (attempts < max_attempts) {
      outcome = Outcome::kRetry;
      delivery.not_before = absl::Now() + absl::Seconds(std::max(0.0, options_.retry_delay_s));
      queue_.push_back(std::move(delivery));
      wake_.Signal();
    } else {
      outcome = Outcome::kFailed;
      ++counters.failed;
    }
  }
  switch (outcome) {
    case Outcome::kSent:
      logger_->debug("event=notify_sent channel={} team={} attempts={}", channel, team, attempts);
      break;
    case Outcome::kRetry:
      logger_->debug("event=notify_retry channel={} team={} attempts={} reason={}", channel, team,
                     attempts, std::string(status.message()));
      break;
    case Outcome::kDropped:
      logger_->warn("event=notify_dropped channel={} team={} reason=shutdown", channel, team);
      break;
    case Outcome::kFailed:
    case Outcome::kRefused:
      logger_->warn("event=notify_failed channel={} team={} attempts={} reason={}", channel, team,
                    attempts, std::string(status.message()));
      break;
  }
}

void Notifier::DropPending() {
  int64_t email = 0;
  int64_t webhook = 0;
  {
    absl::MutexLock lock(&mu_);
    for (const Delivery& delivery : queue_)
      ++(delivery.channel == Channel::kEmail ? email : webhook);
    counters_.email.dropped += email;
    counters_.webhook.dropped += webhook;
    queue_.clear();
  }
  if (email + webhook > 0) {
    logger_->warn("event=notify_dropped reason=shutdown email={} webhook={}", email, webhook);
  }
}

}  // namespace bbo::notify
