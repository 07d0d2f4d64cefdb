#ifndef BBO_SERVER_COMPETITION_FILE_H_
#define BBO_SERVER_COMPETITION_FILE_H_

// The competition file: one competition as a sequence of phases, in one reviewable, versionable
// JSON file (comments allowed) that `bbo-server --competition_file` serves from one coordinator
// and one database. Each phase has its problems, budgets, trials, visibility, anonymisation,
// quotas and its window (start and end, UTC, RFC 3339). docs/organizers.md documents every key;
// deploy/competition.json is a three-phase example (practice, feedback, final).
//
//   {
//     "name": "bbo-2026",
//     "seed": 20201,
//     "phases": [
//       {"name": "feedback", "start": "2026-07-01T00:00:00Z", "end": "2026-10-01T00:00:00Z",
//        "suite": "synthetic", "hidden": true, "max_submissions_per_team_per_day": 5},
//       {"name": "final", "migrate_from": "feedback", "suite_file": "final-suite.json",
//        "hidden": true, "anonymize": true, "evaluate_once": true, "default_trials": 10,
//        "board": "hidden_until_published", "end": "2026-10-15T00:00:00Z"}
//     ]
//   }
//
// Plain value types; parsing is a pure function of the text (and the directory relative paths
// are resolved against).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/optimizer_limits.h"
#include "nlohmann/json.hpp"
#include "common/study_budget.h"
#include "problems/definition.h"
#include "problems/problem.h"

namespace bbo {

// Which problems a phase runs: exactly one of suite, suite_file and problem_set.
struct PhaseProblems {
  std::string suite;        // a built-in suite (bbo problems list), or
  std::string suite_file;   // a suite file (docs/problems.md), or
  std::string problem_set;  // "practice" (the default) or "test"
  std::vector<std::string> problems;  // a subset of the suite ([] = all)
  uint64_t suite_seed = 0;
  std::string generated_family = "bbob-d5";
  std::string design_file;
  int generated_tasks = 50;

  friend bool operator==(const PhaseProblems&, const PhaseProblems&) = default;
};

// Racing (Wurth et al., "Pareto-Optimal Anytime Algorithms via Bayesian Racing", Algorithm 1):
// instead of running every submission on every problem and trial, the coordinator runs them in
// rounds on b fresh (problem, trial) instances at a time, stops a submission once the Bayesian
// Plackett-Luce posterior shows another one dominates it (or, from its tau_A on, once every later
// batch is decided), and ends when every pair is decided or every instance has run
// (server/race.h). "racing": true takes these defaults.
struct RacingSpec {
  bool enabled = false;
  // Decision threshold alpha in (0.5, 1] and ROPE half-width epsilon in [0, 0.5).
  double alpha = 0.99;
  double epsilon = 0.05;
  // "pointwise" or "joint" elimination; "strict" or "crossing" resolution.
  std::string elimination = "pointwise";
  std::string resolution = "strict";
  // Instances per round: the first round's b and its bounds.
  int initial_batch = 8;
  int b_min = 8;
  int b_max = 64;
  // Halve b when more than this fraction of the unresolved pairs resolve in one round.
  double shrink_fraction = 0.2;
  // Round 0 waits for this many entries (a phase taking direct submissions), or for the end of
  // the phase's window when it has one and fewer arrived; entries migrated into the phase arrive
  // together.
  int quorum = 2;

  // The object form of the competition file's "racing" (every key); FromJson reads that form
  // (InvalidArgument naming the key).
  nlohmann::json ToJson() const;
  static absl::StatusOr<RacingSpec> FromJson(const nlohmann::json& j);

  friend bool operator==(const RacingSpec&, const RacingSpec&) = default;
};

struct PhaseSpec {
  // 1-32 of [a-z0-9_-], unique in the competition; not "main" or "warm-start".
  std::string name;
  // The phase's key in the store (its submissions, boards and records); nullopt = its name.
  // The one phase of a coordinator started from flags keeps the key "" its databases have
  // always had (Coordinator::FlagsCompetition).
  std::optional<std::string> store_key;
  std::string key() const { return store_key.value_or(name); }
  // What participants read: a title and the phase's rules (plain text or Markdown).
  std::string title;
  std::string rules;
  // The window, UTC: submissions are accepted in [start, end). Unset = open on that side.
  std::optional<absl::Time> start;
  std::optional<absl::Time> end;
  PhaseProblems problems;
  StudyBudget budget;
  double startup_budget_s = 60;
  OptimizerLimits limits;
  int default_trials = 3;
  int max_trials = 100;
  int baseline_trials = 10;
  bool use_known_optimum = false;
  // Problems, per-problem results and reports for organizers only.
  bool hidden = false;
  bool anonymize = false;
  bool warm_start_board = false;
  bool evaluate_once = false;
  // "evaluate_on": "coordinator": the objectives stay on the coordinator instead of being
  // evaluated by the workers hosting the studies (StudyOptions::evaluate_on_coordinator).
  bool evaluate_on_coordinator = false;
  int max_submissions_per_team = 0;
  int max_submissions_per_team_per_day = 0;
  // Teams submit into this phase directly (false for a final phase fed only by migration).
  bool accepts_submissions = true;
  // At the end of that (earlier) phase, each team's chosen submission (chosen with `bbo choose`,
  // else its best healthy one: Competition::DefaultFinalists) is queued into this phase, exactly
  // once.
  std::string migrate_from;
  // The final board: participants see neither scores nor ranks (only their own submissions'
  // states) until an organizer publishes it (`bbo admin publish`).
  bool board_hidden_until_published = false;
  // One leaderboard row per submission ("submission") or per team: its best-scoring
  // ("team_best"), its latest ("team_latest") or its chosen submission ("team_chosen": the one
  // `bbo choose` named, else its best).
  std::string leaderboard_rows = "submission";
  // Racing instead of running everything (RacingSpec); the instances are the problems x
  // default_trials.
  RacingSpec racing;
  // Its problems and budgets are fixed once it has started (Fingerprint): true for a
  // competition file's phases. The phase of a coordinator started from flags may be restarted
  // with other flags (its problems are still checked by their signatures).
  bool fixed_once_started = true;

  // The part of the phase that must not change once it has started: its problems and budgets.
  // A canonical JSON text; equal texts mean the same problems, trials and budgets.
  std::string Fingerprint() const;
  // Whether `now` is inside [start, end).
  bool OpenAt(absl::Time now) const;
  // "2026-07-01 00:00 UTC to 2026-10-01 00:00 UTC" (open sides said as such).
  std::string WindowText() const;
};

// Whether `rule` is a PhaseSpec::leaderboard_rows value.
bool IsLeaderboardRowRule(const std::string& rule);

struct CompetitionSpec {
  std::string name;
  // What the public landing page shows (plain text; "" = none): a title (default: name), a
  // description, and the terms participants accept by taking part.
  std::string title;
  std::string description;
  std::string terms;
  // How teams join (server/registration.h): "closed" (organizers issue tokens), "open",
  // "invite_code" or "approval"; and at most how many teams (0 = no bound).
  std::string registration = "closed";
  int max_teams = 1000;
  int64_t seed = 20201;
  std::vector<PhaseSpec> phases;

  // The phase of that name, or null.
  const PhaseSpec* Find(const std::string& name) const;
};

// Parses a competition file's text. Relative suite_file / design_file paths are resolved against
// `base_dir` ("" = as given). InvalidArgument naming the phase and key for anything wrong: an
// unknown key (with the nearest known one), a bad type or time, a window that ends before it
// starts, a duplicate or reserved name, migrate_from naming a later or unknown phase or one
// without an end, invalid budgets or limits.
absl::StatusOr<CompetitionSpec> ParseCompetitionFile(const std::string& text,
                                                     const std::string& base_dir = "");
// Reads and parses a file (base_dir = its folder).
absl::StatusOr<CompetitionSpec> LoadCompetitionFile(const std::string& path);

// The problems of a phase, built (suites may start Python processes or read design files).
// `max_processes_per_problem`: SuiteOptions::max_processes_per_problem (scikit-learn problems).
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakePhaseProblems(
    const PhaseProblems& p, int max_processes_per_problem = 1);
// How a worker builds each of a phase's `problems` (made by MakePhaseProblems) again, by name
// (problems/library.h SuiteDefinitions).
absl::StatusOr<std::map<std::string, ProblemDefinition>> PhaseProblemDefinitions(
    const PhaseProblems& p, const std::vector<std::unique_ptr<Problem>>& problems);

// RFC 3339 time for messages and JSON: "2026-07-01T00:00:00Z".
std::string FormatUtc(absl::Time t);
// "3 d 4 h", "2 h 5 min", "45 s": how long until a deadline.
std::string FormatTimeLeft(absl::Duration d);

}  // namespace bbo

#endif  // BBO_SERVER_COMPETITION_FILE_H_
