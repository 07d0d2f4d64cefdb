#include "server/competition.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"

namespace bbo {
Competition::Competition(Store* store, Clock* calendar, int64_t seed)
    : store_(store), calendar_(calendar), seed_(seed) {}

void Competition::Add(Phase* phase, const PhaseSpec& spec) {
  phases_.push_back({phase, &spec});
}

const Competition::Entry* Competition::Find(const std::string& name) const {
  for (const Entry& e : phases_) {
    if (e.phase->options().phase == name) return &e;
  }
  return nullptr;
}

absl::StatusOr<Phase*> Competition::Get(const std::string& name) {
  if (name.empty()) return Current();
  if (const Entry* e = Find(name)) return e->phase;
  std::vector<std::string> names;
  for (const Entry& e : phases_) names.push_back(e.phase->options().phase);
  return absl::NotFoundError(absl::StrCat("no phase \"", name, "\" (the phases: ",
                                          absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<int> Competition::Withdraw(const Identity& who, int64_t submission_id) {
  absl::StatusOr<Phase*> phase = PhaseOfSubmission(submission_id);
  // An unknown id goes to the current phase, whose answer for it is the one for another team's.
  return (phase.ok() ? *phase : Current())->Withdraw(who, submission_id);
}

Phase* Competition::Current() {
  const absl::Time now = calendar_->Now();
  Phase* current = phases_.front().phase;
  for (const Entry& e : phases_) {
    const auto& start = e.phase->options().window_start;
    if (!start || *start <= now) current = e.phase;
  }
  return current;
}

absl::StatusOr<Phase*> Competition::ForSubmission(const std::string& name) {
  if (!name.empty() || phases_.size() == 1) return Get(name);
  Phase* current = Current();
  std::vector<Phase*> open;
  for (const Entry& e : phases_) {
    if (e.phase->CheckOpen().ok()) open.push_back(e.phase);
  }
  if (open.empty()) {
    std::vector<std::string> windows;
    for (const Entry& e : phases_) {
      const PhaseOptions& o = e.phase->options();
      if (!o.accepts_submissions) continue;
      windows.push_back(absl::StrCat(o.phase, " ", e.spec->WindowText()));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "no phase takes submissions now (", FormatUtc(calendar_->Now()), "); the windows: ",
        windows.empty() ? std::string("none") : absl::StrJoin(windows, "; ")));
  }
  for (Phase* c : open) {
    if (c == current) return c;
  }
  return open.front();
}

QueueView Competition::Queue(const Identity& who) {
  QueueView v;
  if (gauges_ && SeesQueueDetails(who)) v.details = gauges_();
  if (queue_ == nullptr) return v;
  const JobQueue::Connected c = queue_->ConnectedWorkers();
  v.workers_connected = c.workers;
  v.worker_slots = c.slots;
  if (absl::StatusOr<std::vector<SubmissionRecord>> subs = store_->ListSubmissions(); subs.ok()) {
    for (const SubmissionRecord& s : *subs) {
      if (s.is_baseline) continue;  // the coordinator runs those itself
      absl::StatusOr<JobCounts> n = store_->CountJobs(s.id);
      if (!n.ok()) continue;
      v.jobs_queued += n->queued;
      v.jobs_running += n->leased;
    }
  }
  const double mean = queue_->MeanJobSeconds();
  if (v.jobs_queued == 0) {
    v.estimated_wait_s = 0;
  } else if (mean > 0 && v.worker_slots > 0) {
    v.estimated_wait_s = mean * v.jobs_queued / v.worker_slots;
  }
  return v;
}

double Competition::SecondsUntil(absl::Time t) {
  return absl::ToDoubleSeconds(t - calendar_->Now());
}

const PhaseSpec* Competition::SpecOf(const Phase* phase) const {
  for (const Entry& e : phases_) {
    if (e.phase == phase) return e.spec;
  }
  return nullptr;
}

std::vector<PhaseView> Competition::Describe() {
  std::vector<PhaseView> out;
  Phase* current = Current();
  for (const Entry& e : phases_) {
    const PhaseOptions& o = e.phase->options();
    PhaseView v;
    v.name = o.phase;
    v.title = e.spec->title;
    v.rules = e.spec->rules;
    v.migrate_from = e.spec->migrate_from;
    v.start = o.window_start;
    v.end = o.window_end;
    v.current = e.phase == current;
    v.open = e.phase->CheckOpen().ok();
    v.accepts_submissions = o.accepts_submissions;
    v.hidden = o.hidden_phase;
    v.board_hidden_until_published = o.board_hidden_until_published;
    v.racing = o.racing;
    absl::StatusOr<PublicationState> pub = e.phase->Publication();
    v.published = pub.ok() && pub->published;
    if (!v.migrate_from.empty()) {
      absl::StatusOr<std::vector<PhaseEvent>> events = store_->PhaseEvents(o.phase_key);
      if (events.ok()) {
        for (const PhaseEvent& ev : *events) {
          if (ev.kind == "migrated") v.migrated_at = ev.at;
        }
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

absl::StatusOr<SubmissionLog> Competition::Log(const Identity& who, int64_t submission_id,
                                          int limit) {
  RETURN_IF_ERROR(AccessPolicy(false, phases_.front().phase->options().allow_anonymous)
                      .RequireParticipant(who, "submission logs"));
  const auto unknown = absl::NotFoundError(absl::StrCat("no submission ", submission_id,
                                                        " of yours"));
  absl::StatusOr<SubmissionRecord> sub = store_->GetSubmission(submission_id);
  if (!sub.ok() || sub->is_baseline) return unknown;
  for (const Entry& e : phases_) {
    const PhaseOptions& o = e.phase->options();
    if (o.phase_key != sub->phase) continue;
    const AccessPolicy access(o.hidden_phase, o.allow_anonymous);
    if (!access.SeesSubmissionsOf(who, sub->team)) return unknown;
    return ReadSubmissionLog(*store_, *sub, e.phase->problems(),
                             o.hidden_phase && !who.is_organizer(), std::max(0, limit));
  }
  return unknown;
}

absl::StatusOr<std::vector<PhaseSubmission>> Competition::List(const Identity& who,
                                                           const std::string& name) {
  std::vector<PhaseSubmission> out;
  for (const Entry& e : phases_) {
    const PhaseOptions& o = e.phase->options();
    if (!name.empty() && o.phase != name) continue;
    ASSIGN_OR_RETURN(std::vector<SubmissionStatus> list, e.phase->List(who));
    ASSIGN_OR_RETURN(auto choices, store_->Choices(o.phase_key));
    // Which of them goes on (or went on), so a team sees it before the deadline.
    const Entry* next = Successor(e);
    FinalistMap finalists;
    if (next != nullptr && !list.empty()) {
      ASSIGN_OR_RETURN(bool migrated, Migrated(*next));
      ASSIGN_OR_RETURN(finalists, migrated ? MigratedFinalists(*next) : PlannedFinalists(e));
    }
    for (SubmissionStatus& s : list) {
      PhaseSubmission p;
      auto it = choices.find(s.submission.team);
      p.chosen = it != choices.end() && it->second == s.submission.id;
      auto f = finalists.find(s.submission.team);
      if (f != finalists.end() && f->second.submission_id == s.submission.id) {
        p.finalist = f->second.how == "default" ? "by default: " + f->second.why : f->second.why;
        p.next_phase = next->phase->options().phase;
      }
      p.phase = o.phase;
      p.status = std::move(s);
      out.push_back(std::move(p));
    }
  }
  if (!name.empty() && Find(name) == nullptr) return Get(name).status();
  std::stable_sort(out.begin(), out.end(), [](const PhaseSubmission& a, const PhaseSubmission& b) {
    return a.status.submission.id < b.status.submission.id;
  });
  return out;
}

absl::StatusOr<int> Competition::MigrateDue() {
  absl::MutexLock l(&migrate_mu_);
  int moved = 0;
  const absl::Time now = calendar_->Now();
  for (const Entry& target : phases_) {
    if (target.spec->migrate_from.empty()) continue;
    const Entry* source = Find(target.spec->migrate_from);
    if (source == nullptr) continue;
    const std::optional<absl::Time>& end = source->phase->options().window_end;
    if (!end || now < *end) continue;
    ASSIGN_OR_RETURN(std::vector<PhaseEvent> events,
                     store_->PhaseEvents(target.phase->options().phase_key));
    bool done = false;
    for (const PhaseEvent& e : events) done = done || e.kind == "migrated";
    if (done) continue;
    ASSIGN_OR_RETURN(int n, MigrateInto(target, *source));
    moved += n;
  }
  return moved;
}

absl::StatusOr<int> Competition::MigrateInto(const Entry& target, const Entry& source) {
  const PhaseOptions& from = source.phase->options();
  const PhaseOptions& to = target.phase->options();
  ASSIGN_OR_RETURN(std::vector<SubmissionStatus> subs, source.phase->List());
  ASSIGN_OR_RETURN(FinalistMap chosen, PlannedFinalists(source));
  std::vector<Migration> moves;
  std::vector<std::string> lines;
  std::set<std::string> teams;
  for (const SubmissionStatus& s : subs) {
    if (!s.submission.is_baseline && !s.submission.team.empty()) teams.insert(s.submission.team);
  }
  for (const std::string& team : teams) {
    auto pick = chosen.find(team);
    if (pick == chosen.end()) {
      lines.push_back(absl::StrCat(team, ": not entered (no choice, and no submission whose every "
                                         "study completed without an error)"));
      continue;
    }
    moves.push_back({pick->second.submission_id, to.default_trials});
    lines.push_back(absl::StrCat(team, ": submission ", pick->second.submission_id, " (",
                                 pick->second.why, ")"));
  }
  const std::string detail = absl::StrCat("from phase \"", from.phase, "\": ",
                                          lines.empty() ? "no team had a submission"
                                                        : absl::StrJoin(lines, "; "));
  std::vector<std::string> boards = {MainBoardKey(to.phase_key)};
  if (to.warm_start_board) boards.push_back(WarmStartBoardKey(to.phase_key));
  absl::StatusOr<std::vector<int64_t>> ids =
      store_->MigrateInto(to.phase_key, moves,
                          // A race queues the jobs itself, round by round (server/race.h).
                          to.racing ? std::vector<std::string>{}
                                    : target.phase->problems().names(),
                          seed_,
                          boards, calendar_->NowSeconds(),
                          detail);
  if (absl::IsAlreadyExists(ids.status())) return 0;  // another call did it
  if (!ids.ok()) return ids.status();
  spdlog::info("event=phase_migrated phase={} from={} submissions={} detail=\"{}\"", to.phase,
               from.phase, ids->size(), detail);
  if (on_jobs_changed_ && !ids->empty()) on_jobs_changed_();
  return static_cast<int>(ids->size());
}

}  // namespace bbo
