#ifndef BBO_SERVER_RACE_H_
#define BBO_SERVER_RACE_H_

// RaceDriver: a racing phase (competition file "racing", server/competition_file.h). Instead of
// queuing every submission on every problem and trial, the race runs the phase's submissions in
// rounds on b fresh instances at a time, an instance being one (problem, trial) of the phase,
// drawn in a fixed seeded order. After each round it ranks the submissions per instance and batch
// by best value so far, fits the independent Dirichlet Plackett-Luce posterior over the batch grid
// and applies Algorithm 1 of Wurth, Stegherr, Kemper, Heider and Hähner, "Pareto-Optimal Anytime
// Algorithms via Bayesian Racing" (scoring/plackett_luce/racing.h):
//  - a submission dominated by another is eliminated and runs nothing more;
//  - a submission whose later batches are all decided runs only up to its tau_A (its jobs are
//    queued with max_batches; the study ends there);
//  - b doubles when a round resolved no pair and halves when it resolved more than 20%;
//  - a submission registered mid-race is admitted without restarting anything (the independence
//    of irrelevant alternatives): it runs on every new instance and catches up on the earlier ones.
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
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/study_budget.h"
#include "nlohmann/json.hpp"
#include "scoring/plackett_luce/racing.h"
#include "server/competition_file.h"
#include "server/store/store.h"

namespace bbo {

// A race as organizers see it (the report and `bbo report` state it).
struct RaceView {
  std::string phase;
  int rounds = 0;
  bool stopped = false;
  // Why it stopped, or what the last round decided.
  std::string note;
  // Instances per round now (b) and the instances drawn so far / available.
  int batch_size = 0;
  int instances_sampled = 0;
  int instances_total = 0;
  // Submissions still in the race (the anytime Pareto set at this round) and those eliminated,
  // with the one that dominated each and the round.
  std::vector<std::string> candidates;
  std::map<std::string, std::string> eliminated_by;
  std::map<std::string, int> eliminated_round;
  // Evaluations queued by the race (jobs x their batches x batch size, main board) against
  // running every submission on every instance for every batch.
  int64_t evaluations_queued = 0;
  int64_t evaluations_full = 0;
  int jobs_queued = 0;

  double saved_fraction() const {
    return evaluations_full > 0 ? 1.0 - static_cast<double>(evaluations_queued) /
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
  // Posterior draws per round (the independent Dirichlet model, Gibbs).
  int chains = 2;
  int draws_per_chain = 1000;
};

class RaceDriver {
 public:
  RaceDriver(Store* store, Clock* clock, RaceDriverOptions options);

  // One step: starts the race once the phase has a submission; plans and queues the next round
  // once every job of the phase has finished; admits submissions registered since. Returns
  // whether a round was recorded. Store errors as they come (the next call retries).
  absl::StatusOr<bool> Advance();
  // The race as recorded (rounds from the store).
  absl::StatusOr<RaceView> View();
  const RaceDriverOptions& options() const { return options_; }

  // The instance order: instance k is (problems[first], second) of Instances()[k].
  const std::vector<std::pair<int, int>>& Instances() const { return instances_; }

  // How the note of a round recorded by `bbo admin stop-race` begins; such a round ends the race
  // for good (no late submission restarts it).
  // Stops the race of racing phase `phase` now, for every transport (`bbo admin stop-race` on
  // the database, and any later organizer action): no more rounds are planned, not even for a
  // late submission; jobs already queued still run. `reason` is required (InvalidArgument); it
  // is recorded, with `actor`, as the race's last round at `now` (Unix seconds).
  // FailedPrecondition when the race has not started or an organizer already stopped it.
  static absl::Status Stop(RaceStore& store, const std::string& phase, const std::string& actor,
                           const std::string& reason, double now);
  static constexpr char kStoppedByOrganizer[] = "stopped by ";
  static bool StoppedByOrganizer(const RaceRoundRecord& round) {
    return round.stop && round.note.rfind(kStoppedByOrganizer, 0) == 0;
  }

  // RaceState <-> JSON (the race_rounds.state_json column).
  static nlohmann::json StateJson(const scoring::pl::RaceState& state);
  static absl::StatusOr<scoring::pl::RaceState> StateFromJson(const std::string& text);

 private:
  // The phase's submissions: by id, by name, in registration order.
  struct Entrants {
    std::map<int64_t, std::string> names;
    std::map<std::string, int64_t> ids;
    std::vector<std::string> in_order;
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
  // Fits the posterior of every method with results on the phase's main board.
  absl::StatusOr<scoring::pl::RatingPosterior> Fit(
      const std::vector<RaceResultRecord>& results,
      const std::map<int64_t, std::string>& names);
  // The jobs of a plan, instances beyond the pool left out.
  std::vector<RaceJob> JobsOf(const std::vector<scoring::pl::MethodRun>& runs,
                              const std::map<std::string, int64_t>& ids) const;
  absl::Status Record(int round, const scoring::pl::RaceState& state, bool stop,
                      const std::string& note, const std::vector<RaceJob>& jobs);

  Store* store_;
  Clock* clock_;
  const RaceDriverOptions options_;
  std::vector<std::pair<int, int>> instances_;
  // One Advance at a time.
  absl::Mutex mu_;
};

}  // namespace bbo

#endif  // BBO_SERVER_RACE_H_
