#ifndef BBO_SERVER_RACE_H_
#define BBO_SERVER_RACE_H_

// RaceDriver: a racing phase (competition file "racing", server/competition_file.h). Instead of
// queuing every submission on every problem and trial, the race runs the phase's submissions in
// rounds on b fresh instances at a time, an instance being one (problem, trial) of the phase,
// drawn in a fixed seeded order. Round 0 waits for RacingSpec::quorum entries (or the end of the
// phase's window). After each round it reads the phase's main Scoreboard: its Plackett-Luce fit
// (the independent Dirichlet model over the batch grid, rankings per instance and batch by best
// value so far, a shortened study left out after its horizon) is the one posterior the report and
// the web board show, and the race applies Algorithm 1 of Wurth, Stegherr, Kemper, Heider and
// Hähner, "Pareto-Optimal Anytime Algorithms via Bayesian Racing" to it
// (scoring/plackett_luce/racing.h):
//  - a submission dominated by another is eliminated and runs nothing more;
//  - a submission whose later batches are all decided runs only up to its tau_A (its jobs are
//    queued with max_batches; the study ends there);
//  - b doubles when a round resolved no pair and halves when it resolved more than 20%;
//  - a submission registered mid-race is admitted without restarting anything (the independence
//    of irrelevant alternatives): it runs on every new instance and catches up on the earlier ones;
//  - a submission its team withdrew leaves the race (withdrawn, not eliminated): its cancelled
//    jobs are neither results nor work run.
// The race stops when every pair of remaining submissions is decided at every batch, or when every
// instance has run. At any round the remaining candidates are a valid anytime Pareto set.
//
// Crash safety: each round's planner state is written in the transaction that queues its jobs
// (RaceStore::AddRaceRound), so a round is queued exactly once whatever the crashes, and a
// restarted coordinator continues from the last recorded round. Advance() is called by the
// coordinator's sweep; a round is planned only when every job of the phase has finished.
// Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/study_budget.h"
#include "nlohmann/json.hpp"
#include "scoring/plackett_luce/racing.h"
#include "server/competition_file.h"
#include "server/scoreboard.h"
#include "server/store/store.h"

namespace bbo {

// One recorded round as organizers see it.
struct RaceRoundView {
  int round = 0;
  double created_at = 0;  // Unix seconds
  int batch_size = 0;     // b after the round's decisions
  int jobs = 0;           // queued by the round (0: a bookkeeping round, e.g. a stop)
  bool stop = false;
  std::string note;
};

// A race as organizers see it (the report and `bbo report` state it).
struct RaceView {
  std::string phase;
  // Rounds that queued jobs (bookkeeping rounds, such as an organizer's stop, are in `history`
  // only).
  int rounds = 0;
  std::vector<RaceRoundView> history;
  bool stopped = false;
  // Why it stopped, or what the last round decided.
  std::string note;
  // Instances per round now (b) and the instances drawn so far / available.
  int batch_size = 0;
  int instances_sampled = 0;
  int instances_total = 0;
  // Submissions still in the race (the anytime Pareto set at this round), those eliminated, with
  // the one that dominated each and the round, and those their teams withdrew.
  std::vector<std::string> candidates;
  std::map<std::string, std::string> eliminated_by;
  std::map<std::string, int> eliminated_round;
  std::vector<std::string> withdrawn;
  // Main board. Planned: the jobs the race queued that were not cancelled by a withdrawal, each
  // for its batches x batch size. Run: the evaluations the database holds for the race's jobs.
  // Full: every submission not withdrawn on every instance for every batch.
  int64_t evaluations_planned = 0;
  int64_t evaluations_run = 0;
  int64_t evaluations_full = 0;
  int jobs_queued = 0;

  double saved_fraction() const {
    return evaluations_full > 0 ? 1.0 - static_cast<double>(evaluations_planned) /
                                            static_cast<double>(evaluations_full)
                                : 0.0;
  }
  nlohmann::json ToJson() const;
};

struct RaceDriverOptions {
  std::string phase_key;
  // The phase's problems in order (instances are problems x trials).
  std::vector<std::string> problems;
  int trials = 1;
  StudyBudget budget;
  // The boards every job is queued on (the main board first; the warm-start board too).
  std::vector<std::string> boards;
  // Seeds the instance order and the jobs (the competition's seed).
  int64_t seed = 0;
  RacingSpec racing;
  // When the phase stops taking submissions (its window's end): round 0 starts then with fewer
  // than racing.quorum entries. Read on `calendar` (null: the driver's clock).
  std::optional<absl::Time> entries_close;
  Clock* calendar = nullptr;

  // The race of a racing phase's board as its recorded spec has it (a database opened offline:
  // the view only; the budget's seconds are not recorded). Requires spec.race.
  static RaceDriverOptions OfBoard(const ScoreboardSpec& spec);
};

// The decision rule of a race (alpha, epsilon, elimination, resolution).
scoring::pl::DecisionOptions RaceDecisionOptions(const RacingSpec& racing);

class RaceDriver {
 public:
  // `board` (not owned): the phase's main Scoreboard, whose Plackett-Luce fit the race decides
  // on; null for a driver that only shows the race (View), e.g. offline.
  RaceDriver(Store* store, Clock* clock, RaceDriverOptions options, Scoreboard* board = nullptr);

  // One step: starts the race once the phase has its quorum of submissions (or its window has
  // closed on fewer); plans and queues the next round once every job of the phase has finished;
  // admits submissions registered since and takes out those withdrawn. Returns whether a round
  // was recorded. Store errors as they come (the next call retries). FailedPrecondition without
  // a board.
  absl::StatusOr<bool> Advance();
  // OK while the race may still run a new entry; FailedPrecondition, saying why, once an
  // organizer stopped it (Phase::Register refuses entries then).
  absl::Status AcceptsEntries();
  // The race as recorded (rounds from the store).
  absl::StatusOr<RaceView> View();
  const RaceDriverOptions& options() const { return options_; }

  // The instance order: instance k is (problems[first], second) of Instances()[k].
  const std::vector<std::pair<int, int>>& Instances() const { return instances_; }

  // Stops the race of racing phase `phase` now, for every transport (`bbo admin stop-race` on
  // the database, and any later organizer action): no more rounds are planned, not even for a
  // late submission; jobs already queued still run. `reason` is required (InvalidArgument); it
  // is recorded, with `actor`, as the race's last round at `now` (Unix seconds).
  // FailedPrecondition when the race has not started or an organizer already stopped it.
  static absl::Status Stop(RaceStore& store, const std::string& phase, const std::string& actor,
                           const std::string& reason, double now);
  // How the note of a round recorded by Stop begins ("stopped by an organizer: <reason> (<who>)";
  // older databases: "stopped by <who>: <reason>"); such a round ends the race for good (no late
  // submission restarts it).
  static constexpr char kStoppedByOrganizer[] = "stopped by ";
  static bool StoppedByOrganizer(const RaceRoundRecord& round) {
    return round.stop && round.note.rfind(kStoppedByOrganizer, 0) == 0;
  }

  // RaceState <-> JSON (the race_rounds.state_json column).
  static nlohmann::json StateJson(const scoring::pl::RaceState& state);
  static absl::StatusOr<scoring::pl::RaceState> StateFromJson(const std::string& text);

 private:
  // The phase's submissions: by id, by name, in registration order; those withdrawn by their
  // teams.
  struct Entrants {
    std::map<int64_t, std::string> names;
    std::map<std::string, int64_t> ids;
    std::vector<std::string> in_order;
    std::set<std::string> withdrawn;
  };
  absl::StatusOr<Entrants> ListEntrants();
  // Advance's steps: round 0; whether every job of the last round has finished; the next round
  // (late submissions admitted, the posterior fitted, eliminations noted).
  absl::StatusOr<bool> StartRound(const Entrants& e);
  absl::StatusOr<bool> RoundFinished(const Entrants& e);
  absl::StatusOr<bool> NextRound(const Entrants& e, const RaceRoundRecord& last,
                                 scoring::pl::RaceState state,
                                 const std::vector<std::string>& arrived);
  scoring::pl::RacingOptions PlannerOptions() const;
  // Whether round 0 may start with `entries` submissions (the quorum, or the window closed).
  bool QuorumReached(size_t entries) const;
  // The posterior of every method with results on the phase's main board: the board's fit.
  absl::StatusOr<std::shared_ptr<const scoring::pl::RatingPosterior>> Posterior();
  // The jobs of a plan, instances beyond the pool left out.
  std::vector<RaceJob> JobsOf(const std::vector<scoring::pl::MethodRun>& runs,
                              const std::map<std::string, int64_t>& ids) const;
  absl::Status Record(int round, const scoring::pl::RaceState& state, bool stop,
                      const std::string& note, const std::vector<RaceJob>& jobs);

  Store* store_;
  Clock* clock_;
  const RaceDriverOptions options_;
  Scoreboard* const board_;
  std::vector<std::pair<int, int>> instances_;
  // One Advance at a time.
  absl::Mutex mu_;
};

}  // namespace bbo

#endif  // BBO_SERVER_RACE_H_
