#ifndef BBO_SERVER_COMPETITION_H_
#define BBO_SERVER_COMPETITION_H_

// Competition: the phases of the one competition a coordinator serves (its CompetitionSpec,
// server/competition_file.h: a competition file's phases, or the one phase a coordinator's flags
// describe), on its calendar, each with its own Phase (submissions, quotas, boards,
// visibility) over one Store. Competition picks the phase a call is
// about (named, or the current one), enforces the windows, records teams' choices of the
// submission that goes on, and migrates those submissions into the next phase, exactly once,
// when the earlier phase ends. Thread-safe.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "server/access.h"
#include "server/phase.h"
#include "server/competition_file.h"
#include "server/job_queue.h"
#include "server/metrics.h"
#include "server/store/store.h"
#include "server/submission_log.h"

namespace bbo {

// A phase as participants and organizers see it.
// The job queue as `bbo status` shows it.
struct QueueView {
  int workers_connected = 0;
  int worker_slots = 0;
  int jobs_queued = 0;
  int jobs_running = 0;
  // How long a job queued now waits for a worker, roughly: the queued jobs times the mean job
  // time, over the connected slots. -1 when unknown (no job has finished yet, or no worker).
  double estimated_wait_s = -1;
  // The operational details (jobs by state, running studies, registered workers): for those
  // who may see them (SeesQueueDetails: organizers), else unset.
  std::optional<MetricsGauges> details;
};

struct PhaseView {
  std::string name;
  std::string title;
  std::string rules;
  std::optional<absl::Time> start;
  std::optional<absl::Time> end;
  bool current = false;
  // Submissions are accepted now (window open, direct submissions allowed).
  bool open = false;
  bool accepts_submissions = true;
  bool hidden = false;
  bool board_hidden_until_published = false;
  bool published = true;
  std::string migrate_from;
  // When the submissions of migrate_from were migrated into it (0 = not yet).
  double migrated_at = 0;
  // Raced rather than run in full (server/race.h).
  bool racing = false;
};

// The submission of a team that goes on to the next phase (or went on).
struct Finalist {
  int64_t submission_id = 0;
  // "chosen" (by the team, `bbo choose`), "organizer" (set by an organizer), "default" (the
  // team's best healthy submission: Competition::DefaultFinalists).
  std::string how;
  // In words: "chosen by the team", "set by organizer alice: <reason>", "best complete
  // submission without errors, score 93.125".
  std::string why;
};

// Team -> its finalist.
using FinalistMap = std::map<std::string, Finalist>;

// A submission as its team (or an organizer) sees it across phases.
struct PhaseSubmission {
  SubmissionStatus status;
  std::string phase;
  // Its team chose it to go on to the next phase.
  bool chosen = false;
  // It goes on to `next_phase` if the phase ended now (or went on): how and why, "" when not.
  std::string finalist;
  std::string next_phase;
};

class Competition {
 public:
  // `calendar` decides windows; `seed` seeds migrated jobs. Not owned.
  Competition(Store* store, Clock* calendar, int64_t seed);

  // Adds a phase (in the competition's order) with its spec (not owned). Before use.
  void Add(Phase* phase, const PhaseSpec& spec);
  // Called after a migration queued jobs.
  void set_on_jobs_changed(std::function<void()> f) { on_jobs_changed_ = std::move(f); }

  // The phase named `name`; "" = the current phase. NotFound naming the phases otherwise.
  absl::StatusOr<Phase*> Get(const std::string& name);
  // The current phase: the last one (in order) whose window has started, else the first.
  Phase* Current();
  // Where a submission that names no phase goes: the one phase open for submissions now (the
  // current one when several are); FailedPrecondition with every phase's window when none is.
  absl::StatusOr<Phase*> ForSubmission(const std::string& name);
  // The phase a submission belongs to; NotFound for an unknown id or the baseline.
  absl::StatusOr<Phase*> PhaseOfSubmission(int64_t submission_id);
  // Phase::Withdraw in the phase that holds the submission. The same NotFound ("no submission
  // N of yours") for an unknown id, the baseline and another team's submission, so the answer
  // never tells whether an id exists; Unauthenticated for an anonymous caller, whatever the id.
  absl::StatusOr<int> Withdraw(const Identity& who, int64_t submission_id);
  // Every phase as `who` sees it.
  std::vector<PhaseView> Describe();
  // The competition file's spec of `phase` (its budgets, ...); null for a phase not added.
  const PhaseSpec* SpecOf(const Phase* phase) const;
  // The log of submission `submission_id` (server/submission_log.h) with the first `limit`
  // errors in full: its team's or an organizer's (NotFound for another team's, as for an unknown
  // one); in a hidden phase a team sees no problem names.
  absl::StatusOr<SubmissionLog> Log(const Identity& who, int64_t submission_id, int limit);
  // The submissions `who` may see in phase `name` ("" = every phase), oldest first.
  absl::StatusOr<std::vector<PhaseSubmission>> List(const Identity& who, const std::string& name);
  // The queue and the workers serving it (set_queue first; zeros without it), and where its
  // details come from (set_gauges; none without it).
  void set_queue(JobQueue* queue) { queue_ = queue; }
  void set_gauges(std::function<MetricsGauges()> gauges) { gauges_ = std::move(gauges); }
  // The queue as `who` may see it: its summary is public (how long a submission waits), its
  // details are for SeesQueueDetails(who). The one rule of every transport.
  QueueView Queue(const Identity& who);
  // The name of the competition ("" for a coordinator started from flags).
  void set_name(std::string name) { name_ = std::move(name); }
  const std::string& name() const { return name_; }
  // The competition file's title, description and terms (the public landing page).
  void set_about(std::string title, std::string description, std::string terms) {
    title_ = std::move(title);
    description_ = std::move(description);
    terms_ = std::move(terms);
  }
  const std::string& title() const { return title_.empty() ? name_ : title_; }
  const std::string& description() const { return description_; }
  const std::string& terms() const { return terms_; }
  // The team of `who` chooses which of its submissions goes on to the next phase: the
  // submission must be its own, in a phase that some later phase migrates from, before that
  // phase's end. Returns the phase name.
  absl::StatusOr<std::string> Choose(const Identity& who, int64_t submission_id);
  // An organizer sets (or replaces) team's submission that goes on from its phase, with a reason
  // (recorded with who and when, and shown to the team). Before the phase's migration it is the
  // team's choice from then on; after it, the team's entry in the next phase is withdrawn
  // ("replaced by ...") and this submission is migrated in its place, its jobs queued. Returns
  // the next phase's name. PermissionDenied: not an organizer; InvalidArgument: no reason;
  // NotFound: no such submission; FailedPrecondition: no phase takes submissions from its phase,
  // it already is the team's entry, or the next phase's race takes no more entries.
  absl::StatusOr<std::string> SetFinalist(const Identity& who, int64_t submission_id,
                                          const std::string& reason);
  // Each team's submission that goes on from phase `name` (or went on, after the migration):
  // for `who`'s teams (a team sees its own, an organizer every team). Empty for a phase no
  // phase takes submissions from. NotFound: no such phase.
  absl::StatusOr<FinalistMap> Finalists(const Identity& who,
                                                            const std::string& name);
  // Notification contacts (server/notifications.h; competition_contacts.cc). Sets the contact
  // of `team` ("" = `who`'s own team) to `email` and `webhook_url` ("" clears that channel) and
  // returns it as stored. Who: AccessPolicy::ContactTeam (a team its own, an organizer any
  // team's; Unauthenticated, PermissionDenied or InvalidArgument otherwise). InvalidArgument
  // naming the field for a malformed team name, an implausible e-mail address
  // (notify::ValidateEmailAddress) or an unacceptable webhook URL (notify::ValidateWebhookUrl:
  // https to public hosts only unless set_allow_private_webhooks). Stored whether or not
  // notifications are on, for when they are.
  absl::StatusOr<TeamContact> SetContact(const Identity& who, const std::string& team,
                                         const std::string& email, const std::string& webhook_url);
  // The contact of `team` ("" = `who`'s own) by the same rules; empty addresses when none is set.
  absl::StatusOr<TeamContact> Contact(const Identity& who, const std::string& team);
  // Webhook URLs may use http:// and name private addresses (tests, closed networks).
  void set_allow_private_webhooks(bool allow) { allow_private_webhooks_ = allow; }
  // Migrates, for every phase whose source phase has ended and that has not been migrated into,
  // each team's chosen submission, else its default finalist (DefaultFinalists); a team with
  // neither is not entered, and the migration's record says so. Exactly once per phase,
  // whatever the crashes (one store transaction). Returns how many submissions moved.
  absl::StatusOr<int> MigrateDue();
  // The seconds from now until `t` on the calendar.
  double SecondsUntil(absl::Time t);
  Clock* calendar() { return calendar_; }
  size_t size() const { return phases_.size(); }

 private:
  struct Entry {
    Phase* phase = nullptr;
    const PhaseSpec* spec = nullptr;
  };
  absl::StatusOr<int> MigrateInto(const Entry& target, const Entry& source);
  // The phase that takes submissions from `source` (null when none).
  const Entry* Successor(const Entry& source) const;
  // Why a choice in `source` is impossible because no phase follows it (FailedPrecondition).
  absl::Status NoSuccessor(const Entry& source) const;
  // Whether submissions were migrated into `target` already.
  absl::StatusOr<bool> Migrated(const Entry& target);
  // Each team's finalist from `source` before the migration: choices (labelled by the phase
  // events: the team's or an organizer's), else DefaultFinalists.
  absl::StatusOr<FinalistMap> PlannedFinalists(const Entry& source);
  // After it: each team's entry in `target` (not withdrawn), by the source submission.
  absl::StatusOr<FinalistMap> MigratedFinalists(const Entry& target);
  // SetFinalist after the migration.
  absl::Status ReplaceFinalist(const Identity& who, const Entry& target,
                               const SubmissionRecord& sub, const std::string& reason);
  // Per team of `subs` (a phase's submissions), the finalist when it chose none: its best
  // healthy submission (every job done and no study with an error, so a crashed or random-filled
  // study never makes a finalist by default) by the phase's leaderboard score, the latest among
  // equals or while the board cannot be read; while the board is hidden until published, the
  // latest (no score is read, so neither the pick nor its description reveals one). Teams with
  // no healthy submission are absent.
  // team -> (submission id, why).
  static std::map<std::string, std::pair<int64_t, std::string>> DefaultFinalists(
      Phase& phase, const std::vector<SubmissionStatus>& subs);
  const Entry* Find(const std::string& name) const;

  Store* store_;
  Clock* calendar_;
  const int64_t seed_;
  std::vector<Entry> phases_;
  std::function<void()> on_jobs_changed_;
  std::string name_;
  std::string title_, description_, terms_;
  JobQueue* queue_ = nullptr;
  std::function<MetricsGauges()> gauges_;
  bool allow_private_webhooks_ = false;
  // One migration at a time.
  absl::Mutex migrate_mu_;
};

}  // namespace bbo

#endif  // BBO_SERVER_COMPETITION_H_
