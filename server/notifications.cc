#include "server/notifications.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/phase.h"
#include "server/submission_state.h"

namespace bbo {

namespace {

std::string Utc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d %H:%M UTC", t, absl::UTCTimeZone());
}

std::string Rfc3339(const std::optional<absl::Time>& t) {
  return t ? absl::FormatTime(absl::RFC3339_sec, *t, absl::UTCTimeZone()) : "";
}

// The submission's notice: what ended, how (DescribeState's sentence) and where to look.
notify::Notification SubmissionNotice(const SubmissionStatus& s, const std::string& phase,
                                      const std::string& event, const std::string& state) {
  const SubmissionRecord& sub = s.submission;
  const std::string sentence = DescribeState(s);
  notify::Notification n;
  n.team = sub.team;
  n.event = event;
  n.subject = absl::StrCat("submission \"", sub.name, "\" ", state);
  n.text = absl::StrCat("Your submission \"", sub.name, "\" (id ", sub.id, ") in phase \"", phase,
                        "\" has ended.\n\n", sentence,
                        "\n\nWhy each of its studies ended as it did: bbo logs ", sub.id, "\n");
  n.details = {{"submission_id", sub.id},
               {"submission", sub.name},
               {"phase", phase},
               {"state", state},
               {"description", sentence},
               {"jobs_done", s.jobs.done},
               {"jobs_lost", s.jobs.lost()},
               {"jobs_total", s.jobs.total}};
  return n;
}

notify::Notification PhaseNotice(const NoticePhase& p, const std::string& event) {
  const bool opened = event == "phase_opened";
  const std::string title = p.title.empty() || p.title == p.name
                                ? absl::StrCat("\"", p.name, "\"")
                                : absl::StrCat("\"", p.name, "\" (", p.title, ")");
  notify::Notification n;
  n.event = event;
  n.subject = absl::StrCat("phase \"", p.name, "\" ", opened ? "opened" : "closed");
  if (opened) {
    n.text = absl::StrCat("Phase ", title, " opened at ", Utc(*p.start),
                          p.end ? absl::StrCat(" and closes at ", Utc(*p.end)) : "",
                          ".\n\nIts rules and windows: bbo phases\n");
  } else {
    n.text = absl::StrCat("Phase ", title, " closed at ", Utc(*p.end),
                          ": it takes no more submissions.\n\nThe phases: bbo phases\n");
  }
  n.details = {
      {"phase", p.name}, {"title", p.title}, {"start", Rfc3339(p.start)}, {"end", Rfc3339(p.end)}};
  return n;
}

}  // namespace

Notifications::Notifications(NotificationsOptions options, Store* store, Clock* calendar,
                             std::vector<NoticePhase> phases)
    : options_(options),
      store_(store),
      calendar_(calendar),
      phases_(std::move(phases)),
      notifier_(std::move(options.notifier)) {}

std::string Notifications::PhaseName(const std::string& key) const {
  for (const NoticePhase& p : phases_) {
    if (p.key == key) return p.name;
  }
  return key;
}

absl::Status Notifications::SubmissionEnded(int64_t submission_id, const std::string& state) {
  const std::string event = state == "finished" || state == "partial" ? "submission_finished"
                            : state == "failed"                       ? "submission_failed"
                                                                      : "";
  if (event.empty()) return absl::OkStatus();
  SubmissionStatus s;
  ASSIGN_OR_RETURN(s.submission, store_->GetSubmission(submission_id));
  if (s.submission.is_baseline || s.submission.team.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::optional<TeamContact> contact, store_->GetTeamContact(s.submission.team));
  if (!contact || (contact->email.empty() && contact->webhook_url.empty())) {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(s.jobs, store_->CountJobs(submission_id));
  ASSIGN_OR_RETURN(s.studies_with_errors, store_->CountStudiesWithErrors(submission_id));
  // Once per submission and event: concurrent job ends (and a race's later rounds) repeat it.
  ASSIGN_OR_RETURN(bool first, store_->MarkNotified(absl::StrCat(event, ":", submission_id),
                                                    calendar_->NowSeconds()));
  if (!first) return absl::OkStatus();
  return Send(SubmissionNotice(s, PhaseName(s.submission.phase), event, state), *contact);
}

absl::Status Notifications::CheckCalendar() {
  const absl::Time now = calendar_->Now();
  auto recent = [&](const std::optional<absl::Time>& t) {
    return t && now >= *t && now - *t <= kPhaseNoticeAge;
  };
  absl::Status status;
  for (const NoticePhase& p : phases_) {
    if (recent(p.start)) status.Update(AnnouncePhase(p, "phase_opened"));
    if (recent(p.end)) status.Update(AnnouncePhase(p, "phase_closed"));
  }
  return status;
}

absl::Status Notifications::AnnouncePhase(const NoticePhase& phase, const std::string& event) {
  const std::string key = absl::StrCat(event, ":", phase.name);
  {
    absl::MutexLock l(&mu_);
    if (marked_.count(key)) return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(bool first, store_->MarkNotified(key, calendar_->NowSeconds()));
  {
    absl::MutexLock l(&mu_);
    marked_.insert(key);
  }
  if (!first) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<TeamContact> contacts, store_->ListTeamContacts());
  const notify::Notification notice = PhaseNotice(phase, event);
  absl::Status status;
  for (const TeamContact& c : contacts) {
    notify::Notification n = notice;
    n.team = c.team;
    status.Update(Send(std::move(n), c));
  }
  return status;
}

absl::Status Notifications::Send(notify::Notification n, const TeamContact& contact) {
  if (options_.notifier.smtp) n.email = contact.email;
  if (options_.webhooks) n.webhook_url = contact.webhook_url;
  return notifier_.Enqueue(std::move(n));
}

}  // namespace bbo
