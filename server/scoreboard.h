#ifndef BBO_SERVER_SCOREBOARD_H_
#define BBO_SERVER_SCOREBOARD_H_

// Scoreboard: one board of a phase (its main board, or its warm-start board) as one typed snapshot
// of the store, read once per change, and every view of it computed from that snapshot once:
//
//   Snapshot()      the scoring input: per method, problem and trial the batch minima and the
//                   optimizer's time at each batch's end (scoring::ScoringInput), with the store
//                   sequence number it reflects. Only the problems on which a study reached a
//                   final state since the last snapshot are reread.
//   Leaderboard()   scoring::ComputeLeaderboard of the snapshot (Turner et al. (2021) eq. 7).
//   PlackettLuce()  both Plackett-Luce rankings (over batches and over optimizer seconds), fitted
//                   once per snapshot and shared by the report and the web board.
//   Report()        the full scoring report (report/report.h), typed, for a request's bootstrap
//                   settings, with the snapshot's fits.
//
// Every view is a pure function in scoring/ or report/ of the snapshot; the Scoreboard only
// decides when to recompute. Who may see a board is not decided here (Phase does). The same
// class serves a running coordinator and a database opened offline (`bbo report --db`), so both
// give the same report. Thread-safe: views of a snapshot are computed outside the lock that
// guards the snapshot, one computation of a kind at a time (of a report: per bootstrap setting).

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "report/report.h"
#include "scoring/leaderboard.h"
#include "server/competition_file.h"
#include "server/store/race_store.h"
#include "server/store/scoring_store.h"

namespace bbo {

class ProblemSet;

// A racing phase's board (server/race.h): how its race decides. The board's Plackett-Luce ranking
// is then the race's model and decisions among the entries the race has not taken out, so the
// race, the report and the web board read one posterior; and a database alone shows the race
// (`bbo report --db`).
struct ScoreboardRace {
  // Whose rounds the store holds (the phase's key).
  std::string phase_key;
  RacingSpec racing;
  // Instances are the phase's problems x these trials, in an order fixed by `seed`.
  int trials = 1;
  // The competition's seed: the instance order, the jobs' seeds and the posterior's draws.
  int64_t seed = 0;
  // The independent Dirichlet model's draws.
  int chains = 2;
  int draws_per_chain = 1000;

  // The board's Plackett-Luce settings: the race's decision rule and draws.
  scoring::pl::SummaryOptions SummaryOptions() const;
  nlohmann::json ToJson() const;
  static absl::StatusOr<ScoreboardRace> FromJson(const nlohmann::json& j);
};

// A problem as the scoreboard needs it.
struct ScoreboardProblem {
  std::string name;
  int dimension = 0;  // 0 = unknown
  std::vector<std::string> attributes;
  // Used as opt_p's bound when ScoreboardSpec::use_known_optimum.
  std::optional<double> known_optimum;
};

// What a board is scored on: recorded with the phase (PhaseRecord::spec), so a database opened
// offline scores it exactly as its coordinator does.
struct ScoreboardSpec {
  // The phase's display name (reports are labelled with it).
  std::string phase;
  int batch_size = 8;
  int n_batches = 16;
  // The phase's problems, in its order.
  std::vector<ScoreboardProblem> problems;
  // See PhaseOptions::use_known_optimum.
  bool use_known_optimum = false;
  // Name of the pooled random-search baseline row.
  std::string baseline_name = "random-search-baseline";
  // Set for a racing phase's boards.
  std::optional<ScoreboardRace> race;

  // The spec from a phase's problems.
  static ScoreboardSpec ForProblems(const ProblemSet& problems, std::string phase, int batch_size,
                                    int n_batches, bool use_known_optimum,
                                    std::string baseline_name);
  nlohmann::json ToJson() const;
  // InvalidArgument naming the field when `j` is not ToJson's layout.
  static absl::StatusOr<ScoreboardSpec> FromJson(const nlohmann::json& j);
};

// A board's state at one store sequence number. Immutable once made.
struct ScoreboardSnapshot {
  int64_t seq = 0;
  scoring::ScoringInput input;
  // OK once the random-search baseline has finished on every problem; FailedPrecondition saying
  // which problem it still runs on otherwise. No view but Snapshot() is computed before.
  absl::Status baseline = absl::OkStatus();
  // A racing phase's board: the race's last recorded round (-1: none yet), and the entries it has
  // taken out: name -> the entry that eliminated it, or "" when its team withdrew it.
  int race_round = -1;
  std::map<std::string, std::string> race_excluded;
};

// The report's settings that a caller may choose.
struct ReportRequest {
  // Empty = the current phase (the transport resolves it); another phase is NotFound.
  std::string phase;
  // kMainBoard ("" or "main") or kWarmStartBoard when the phase has one; else NotFound.
  std::string board;
  int bootstrap_replicates = 10000;
  uint64_t seed = 1;
  int top_k = 5;
};

// A report and the snapshot it was computed from (scoring::ReportJson needs both).
struct BoardReport {
  std::shared_ptr<const ScoreboardSnapshot> snapshot;
  std::shared_ptr<const scoring::Report> report;
};

class Scoreboard {
 public:
  // `board` is the store key of the board; `store` is not owned. `races` (not owned) holds the
  // race rounds of a racing phase (spec.race); null otherwise.
  Scoreboard(ScoringStore* store, std::string board, ScoreboardSpec spec,
             RaceStore* races = nullptr);

  const std::string& board() const { return board_; }
  const ScoreboardSpec& spec() const { return spec_; }

  // The board as the store has it now. Errors: the store's.
  absl::StatusOr<std::shared_ptr<const ScoreboardSnapshot>> Snapshot();
  // The leaderboard of the current snapshot (cached per snapshot). FailedPrecondition while the
  // baseline has not finished on some problem.
  absl::StatusOr<std::shared_ptr<const scoring::Leaderboard>> Leaderboard();
  // Both Plackett-Luce rankings of `snapshot` (cached per snapshot; computed once even when
  // several views ask at the same time). A racing phase's board: the race's model and decisions,
  // among the entries the race has not taken out; the race plans its rounds from this fit's
  // posterior. A new race round with the same results summarizes the same posterior again.
  std::shared_ptr<const scoring::PlackettLuceFits> PlackettLuce(
      const std::shared_ptr<const ScoreboardSnapshot>& snapshot);
  // The full report of the current snapshot for `request`'s bootstrap settings (cached per
  // snapshot for the last 8 settings asked for; concurrent callers with one setting share one
  // computation, and different settings compute side by side, so a caller never waits for a
  // report of other settings). InvalidArgument: replicates outside [1, 10^6] or top_k < 1;
  // FailedPrecondition as Leaderboard(). `source` labels where the results came from. Who may
  // choose the settings is the phase's rule (RequireDefaultReportSettings).
  absl::StatusOr<BoardReport> Report(const ReportRequest& request, const std::string& source);

  // How many times each view was actually computed, and the leaderboard's per-problem scoring
  // work reused and redone (incremental recomputation); for tests and metrics.
  int leaderboard_computations() const { return leaderboards_.load(); }
  int report_computations() const { return reports_.load(); }
  int plackett_luce_fits() const { return fits_.load(); }
  int64_t scoring_cache_hits() const;
  int64_t scoring_cache_misses() const;

 private:
  // Brings the working input up to date with the store; a new snapshot when anything changed.
  absl::Status Refresh() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReloadProblems(const std::vector<std::string>& reload)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status BaselineStatus() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  scoring::ReportOptions OptionsFor(const ReportRequest& request, const std::string& source,
                                    const scoring::ScoringInput& input) const;

  // The Plackett-Luce settings of a snapshot (the race's on a racing phase's board).
  scoring::pl::SummaryOptions PlackettLuceOptions(const ScoreboardSnapshot& snapshot) const;
  // The race's standing into `snapshot` (a racing phase's board).
  absl::Status ReadRace(ScoreboardSnapshot* snapshot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  ScoringStore* const store_;
  RaceStore* const races_;
  const std::string board_;
  const ScoreboardSpec spec_;

  absl::Mutex mu_;
  bool loaded_ ABSL_GUARDED_BY(mu_) = false;
  scoring::ScoringInput input_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const ScoreboardSnapshot> snapshot_ ABSL_GUARDED_BY(mu_);

  // The views of the latest snapshot, each with the sequence number it was computed at.
  absl::Mutex leaderboard_mu_;
  scoring::ScoringCache leaderboard_cache_;
  std::shared_ptr<const scoring::Leaderboard> leaderboard_ ABSL_GUARDED_BY(leaderboard_mu_);
  int64_t leaderboard_seq_ ABSL_GUARDED_BY(leaderboard_mu_) = -1;

  absl::Mutex fit_mu_;
  std::shared_ptr<const scoring::PlackettLuceFits> fit_ ABSL_GUARDED_BY(fit_mu_);
  int64_t fit_seq_ ABSL_GUARDED_BY(fit_mu_) = -1;
  int fit_race_round_ ABSL_GUARDED_BY(fit_mu_) = -1;

  // Reports, one slot per bootstrap setting (replicates, seed, top_k, source), at most
  // kReportSettings of them (the least recently asked for is forgotten). A slot's report is
  // computed under the slot's own lock: callers asking for one setting share one computation,
  // and a computation for one setting never waits for another's.
  struct ReportSlot {
    absl::Mutex mu;
    BoardReport report ABSL_GUARDED_BY(mu);
    int64_t seq ABSL_GUARDED_BY(mu) = -1;
    int race_round ABSL_GUARDED_BY(mu) = -1;
  };
  using ReportSettings = std::tuple<int, uint64_t, int, std::string>;
  static constexpr size_t kReportSettings = 8;
  std::shared_ptr<ReportSlot> SlotFor(const ReportSettings& settings);

  absl::Mutex report_mu_;
  scoring::ScoringCache report_cache_;
  // Most recently asked for last.
  std::vector<std::pair<ReportSettings, std::shared_ptr<ReportSlot>>> report_slots_
      ABSL_GUARDED_BY(report_mu_);

  std::atomic<int> leaderboards_{0};
  std::atomic<int> reports_{0};
  std::atomic<int> fits_{0};
};

}  // namespace bbo

#endif  // BBO_SERVER_SCOREBOARD_H_
