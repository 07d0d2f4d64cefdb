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

// A submission as its team (or an organizer) sees it across phases.
struct PhaseSubmission {
  SubmissionStatus status;
  std::string phase;
  // Its team chose it to go on to the next phase.
  bool chosen = false;
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
  // Every phase as `who` sees it.
  std::vector<PhaseView> Describe();
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
  // The team of `who` chooses which of its submissions goes on to the next phase: the
  // submission must be its own, in a phase that some later phase migrates from, before that
  // phase's end. Returns the phase name.
  absl::StatusOr<std::string> Choose(const Identity& who, int64_t submission_id);
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
  // Per team of `subs` (a phase's submissions), the finalist when it chose none: its best
  // healthy submission (every job done and no study with an error, so a crashed or random-filled
  // study never makes a finalist by default) by the phase's leaderboard score, the latest among
  // equals or while the board cannot be read. Teams with no healthy submission are absent.
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
  JobQueue* queue_ = nullptr;
  std::function<MetricsGauges()> gauges_;
  // One migration at a time.
  absl::Mutex migrate_mu_;
};

}  // namespace bbo

#endif  // BBO_SERVER_COMPETITION_H_
