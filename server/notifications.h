#ifndef BBO_SERVER_NOTIFICATIONS_H_
#define BBO_SERVER_NOTIFICATIONS_H_

// Notifications: tells teams by e-mail and/or webhook (server/notify/notifier.h) what happened
// to them, from the contacts they registered (ContactStore; `bbo contact`,
// Competition::SetContact):
//
//   submission_finished  a submission of the team ended "finished" or "partial"
//   submission_failed    a submission of the team ended "failed"
//   phase_opened         a phase's window started (every team with a contact)
//   phase_closed         a phase's window ended (every team with a contact)
//
// A withdrawn submission, the baseline and submissions without a team tell no one. Each notice
// goes out at most once (ContactStore::MarkNotified, recorded before it is queued), across
// restarts and coordinators on one database. A phase's notices go out only within kPhaseNoticeAge
// after its boundary, so a coordinator restarted after a long outage does not announce old news;
// a phase without a start ("open from the beginning") is never announced as opened.
//
// The Coordinator owns one when notifications are configured (CoordinatorOptions::notify).
// Sending never blocks a caller (the Notifier's own thread sends); errors are returned for the
// caller to log and never change anything else. Thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "server/notify/notifier.h"
#include "server/store/store.h"

namespace bbo {

struct NotificationsOptions {
  // The sender's settings. E-mail is sent when notifier.smtp is set.
  notify::NotifierOptions notifier;
  // Webhooks are sent (to teams that registered one).
  bool webhooks = false;
};

// A phase as the notices name it: its name, the key its submissions carry (SubmissionRecord::
// phase), its title and its window on the competition's calendar (unset = unbounded).
struct NoticePhase {
  std::string name;
  std::string key;
  std::string title;
  std::optional<absl::Time> start;
  std::optional<absl::Time> end;
};

class Notifications {
 public:
  // How long after a phase's start or end its notice may still go out.
  static constexpr absl::Duration kPhaseNoticeAge = absl::Hours(1);

  // `store` and `calendar` are not owned and outlive this object; `phases` in the competition's
  // order.
  Notifications(NotificationsOptions options, Store* store, Clock* calendar,
                std::vector<NoticePhase> phases);
  Notifications(const Notifications&) = delete;
  Notifications& operator=(const Notifications&) = delete;

  // Submission `submission_id` ended in `state` (SubmissionStateName: "finished", "partial",
  // "failed", "withdrawn"): tells its team, once per submission and event. OK without doing
  // anything when there is nothing to tell (withdrawn, baseline, no team, no contact); store
  // errors and the Notifier's refusals otherwise.
  absl::Status SubmissionEnded(int64_t submission_id, const std::string& state);
  // Sends the notices of the phases whose start or end passed within kPhaseNoticeAge on the
  // calendar and that went out to no one yet (the sweep calls it; cheap when there are none).
  absl::Status CheckCalendar();

  // Deliveries so far, per channel.
  notify::NotifierCounters Counters() const { return notifier_.Counters(); }
  // Waits until every queued delivery is done (tests): OK or DeadlineExceeded.
  absl::Status Flush(absl::Duration timeout) { return notifier_.Flush(timeout); }

 private:
  // The phase's notice `event` ("phase_opened" / "phase_closed"), to every team with a contact.
  absl::Status AnnouncePhase(const NoticePhase& phase, const std::string& event);
  // Queues `n` on the channels that are on and that `contact` names (none: nothing).
  absl::Status Send(notify::Notification n, const TeamContact& contact);
  // The display name of the phase of key `key`.
  std::string PhaseName(const std::string& key) const;

  const NotificationsOptions options_;
  Store* const store_;
  Clock* const calendar_;
  const std::vector<NoticePhase> phases_;
  // The phase notices this coordinator already marked (saves the store a write per sweep).
  absl::Mutex mu_;
  std::set<std::string> marked_ ABSL_GUARDED_BY(mu_);
  notify::Notifier notifier_;  // last: its thread stops first
};

}  // namespace bbo

#endif  // BBO_SERVER_NOTIFICATIONS_H_
