// The participant build's stand-in for server/notify (which needs libcurl, absent from the
// participant's packages): the same API, refusing everything. Its `bbo local` coordinator never
// turns notifications on, so nothing here runs but the contact checks, which refuse too.

#include "server/notify/notifier.h"

namespace bbo::notify {
namespace {

absl::Status Unavailable() {
  return absl::UnimplementedError("this build has no notifications (participant build)");
}

}  // namespace

absl::Status ValidateWebhookUrl(absl::string_view, bool) { return Unavailable(); }
absl::Status ValidateEmailAddress(absl::string_view) { return Unavailable(); }
absl::Status ValidateNotifierOptions(const NotifierOptions&) { return Unavailable(); }

Notifier::Notifier(NotifierOptions options)
    : options_(std::move(options)), smtp_status_(Unavailable()), logger_(options_.logger) {}
Notifier::~Notifier() = default;  // no sender thread was started
absl::Status Notifier::Enqueue(Notification) { return Unavailable(); }
absl::Status Notifier::Flush(absl::Duration) { return absl::OkStatus(); }
NotifierCounters Notifier::Counters() const {
  absl::MutexLock l(&mu_);
  return counters_;
}

}  // namespace bbo::notify
