#ifndef BBO_SERVER_PHASE_H_
#define BBO_SERVER_PHASE_H_

// Phase: submissions and the leaderboard. Registering a submission validates its files
// (optimizer.py or an executable `optimizer` at the top), stores a normalised archive and queues
// one job per problem x trial. The leaderboard is computed from the Store with the Bayesmark
// scoring of scoring/leaderboard.h (Turner et al. (2021) eq. 7) against the coordinator's own
// random-search baseline studies. Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "nlohmann/json.hpp"
#include "report/report_files.h"
#include "scoring/leaderboard.h"
#include "server/access.h"
#include "server/metrics.h"
#include "server/problem_set.h"
#include "server/publication.h"
#include "server/scoreboard.h"
#include "server/store/store.h"

namespace bbo {

struct PhaseOptions {
  // No identities: anonymous callers may submit (AccessPolicy).
  bool allow_anonymous = false;
  // Trials per problem for a submission that does not ask for a number.
  int default_trials = 3;
  // Upper bound on trials a submission may ask for.
  int max_trials = 100;
  // Random-search baseline trials per problem run by the coordinator (each gives
  // batch_size x n_batches pooled evaluations).
  int baseline_trials = 10;
  // Name of the baseline's leaderboard row.
  std::string baseline_name = "random-search-baseline";
  // Seeds every job (reproducible competitions).
  int64_t seed = 20201;
  // opt_p: false (default) -> Bayesmark's estimator, the best value any method (random search
  // included) has observed on the problem; true -> the lower of that and the problem's best
  // known optimum, so 100 means "the best known optimum every time" (Turner et al. (2021) §3.3).
  bool use_known_optimum = false;
  // Name of the competition phase this coordinator runs (reports are labelled with it).
  std::string phase = "practice";
  // Maximum size of a submission archive, bytes.
  int64_t max_archive_bytes = 24ll << 20;
  // Submissions one team may register in this phase; 0 = no limit. With a limit, a submission
  // must name its team.
  int max_submissions_per_team = 0;
  // Submissions per team per UTC day (0 = no daily limit); counted by registration time.
  int max_submissions_per_team_per_day = 0;
  // The final phase's rule (Turner et al. (2021) §3): every submission is evaluated once, with the
  // phase's number of trials (default_trials; a submission cannot choose), and an archive identical
  // to one already registered is refused rather than run again.
  bool evaluate_once = false;
  // Also run every submission, on the same problems and seeds, with the real parameter names
  // for a second, "warm-start" board (Turner et al. (2021) §4.7). Only meaningful with anonymized
  // studies.
  bool warm_start_board = false;
  // A hidden phase: per-problem results and the scoring reports are for organizers only
  // (server/access.h).
  bool hidden_phase = false;
  // The phase's key in the store (PhaseSpec::key). Submissions (their names, quotas, the
  // evaluate-once rule) and boards (MainBoardKey / WarmStartBoardKey) are per key.
  std::string phase_key;
  // Teams may submit into this phase directly (false: it is fed by migration only).
  bool accepts_submissions = true;
  // Submissions are accepted in [window_start, window_end), UTC, by the calendar clock
  // (set_calendar); unset = open on that side.
  std::optional<absl::Time> window_start;
  std::optional<absl::Time> window_end;
  // The board is hidden until published: participants see neither scores nor ranks, only their
  // own submissions' states, until an organizer publishes it (Publish).
  bool board_hidden_until_published = false;
  // PhaseSpec::leaderboard_rows: one row per submission, or per team.
  std::string leaderboard_rows = "submission";
  // A racing phase (server/race.h): a submission is registered without jobs and with the
  // phase's trials; the race queues its jobs round by round, deciding as `racing_spec` says (the
  // board's Plackett-Luce ranking decides the same way).
  bool racing = false;
  RacingSpec racing_spec;
};

// What a phase records about itself (PhaseRecord::spec) so that its database, opened offline,
// applies the phase's rules as its coordinator does: how its boards are scored and whether its
// board is hidden until published.
struct RecordedPhaseRules {
  ScoreboardSpec scoreboard;
  bool board_hidden_until_published = false;
  nlohmann::json ToJson() const;
  // InvalidArgument naming the field when `j` is not ToJson's layout.
  static absl::StatusOr<RecordedPhaseRules> FromJson(const nlohmann::json& j);
};

struct RegisteredSubmission {
  int64_t submission_id = 0;
  SubmissionKind kind = SubmissionKind::kUnspecified;
  int jobs = 0;
  int trials = 0;
};

// A board's public name: "warm-start" for a warm-start board (of any phase), else "main".
std::string BoardDisplayName(const std::string& board);

struct SubmissionStatus {
  SubmissionRecord submission;
  JobCounts jobs;
  int studies_with_errors = 0;
  // No job is queued or running.
  bool finished() const { return jobs.queued == 0 && jobs.leased == 0; }
};

struct LeaderboardReport {
  std::string phase;
  // The board's public name ("main", "warm-start").
  std::string board_name;
  scoring::Leaderboard board;
  int batch_size = 0;
  int n_batches = 0;
  // False when the reader may not see problem names or per-problem results (a hidden phase):
  // the rows then carry no per-problem scores.
  bool per_problem = true;
  // Submissions not on the board yet (no final study on this board), with their jobs: those
  // the reader may see (AccessPolicy::SeesSubmissionsOf: its own team's, or all for organizers).
  struct Pending {
    std::string name;
    JobCounts jobs;
  };
  std::vector<Pending> pending;
  // The submissions of the rows (by name): id, team and state (SubmissionStateName).
  struct Entry {
    int64_t id = 0;
    std::string team;
    std::string state;
  };
  std::map<std::string, Entry> entries;
  // The phase's submissions that are off the board: withdrawn by their team, hidden by the
  // organizers or of a disqualified team, each with why (public, as the board is).
  struct Removed {
    std::string name;
    std::string team;
    std::string why;
  };
  std::vector<Removed> removed;
  // PhaseOptions::leaderboard_rows; with a per-team rule, the rows not shown are counted here.
  std::string rows = "submission";
  int rows_not_shown = 0;
};

// The bootstrap replicates a caller other than an organizer may ask for (with ReportRequest's
// seed 1 and top-k 5): the default and three cheaper ones.
inline constexpr int kPublicReplicates[] = {10, 100, 1000, 10000};
// OK when `who` may ask for `request`'s bootstrap settings: organizers any (Scoreboard::Report
// bounds them), everyone else one of kPublicReplicates with the default seed and top-k, so
// anonymous and team callers share at most 4 cached computations per board and store change,
// none dearer than the default. PermissionDenied naming the fields otherwise.
absl::Status RequireDefaultReportSettings(const Identity& who, const ReportRequest& request);

// A submission or team name: 1-64 of A-Z a-z 0-9 '-' '_' '.'.
bool ValidName(const std::string& name);
// How moderation records `who` ("organizer alice"; Identity::Describe for others).
std::string ActorName(const Identity& who);
// OK for a moderation reason: one line of text, 1-500 bytes; InvalidArgument saying what to give.
absl::Status CheckModerationReason(const std::string& reason);

class Phase {
 public:
  Phase(Store* store, const ProblemSet* problems, Clock* clock, int batch_size,
              int n_batches, PhaseOptions options);

  // Creates the baseline submission and its jobs if they do not exist yet.
  absl::Status EnsureBaseline();

  // InvalidArgument: bad name (letters, digits, '-', '_', '.', 1-64 chars) or team (same
  // rules, may be empty), unreadable archive, no optimizer.py / executable `optimizer` at the
  // top, trials out of range or (evaluate_once) not the phase's. AlreadyExists: name taken, or
  // (evaluate_once) the same archive already registered. ResourceExhausted: the team has used
  // its submissions. FailedPrecondition: the phase limits submissions per team and no team was
  // given. Jobs are queued on every board of the phase.
  absl::StatusOr<RegisteredSubmission> Register(const std::string& name,
                                                const std::string& archive, int trials,
                                                const std::string& team = "");
  // The same for a remote caller: the team comes from `who` (AccessPolicy::SubmittingTeam).
  absl::StatusOr<RegisteredSubmission> Register(const Identity& who, const std::string& name,
                                                const std::string& archive, int trials,
                                                const std::string& requested_team);
  // Withdraws a submission: its queued jobs are cancelled (studies already running finish).
  // Its team's token or an organizer's; a team asking for another team's submission gets the
  // same NotFound as for an unknown id. Returns how many jobs were cancelled (0 when every job
  // had started or finished).
  absl::StatusOr<int> Withdraw(const Identity& who, int64_t submission_id);
  // Called after jobs were queued or cancelled (the coordinator wakes its waiting workers).
  // Set before use; not thread-safe to change.
  void set_on_jobs_changed(std::function<void()> f) { on_jobs_changed_ = std::move(f); }
  // A racing phase: what its race has done (RaceView::ToJson), added to every report as
  // "racing" (rounds, eliminations, the evaluations saved against running everything).
  void set_race_view(std::function<absl::StatusOr<nlohmann::json>()> f) {
    race_view_ = std::move(f);
  }
  // A racing phase: OK while its race runs new entries, else why not (RaceDriver::AcceptsEntries);
  // Register refuses an entry the race would never run.
  void set_race_entries(std::function<absl::Status()> f) { race_entries_ = std::move(f); }
  // OK unless this is a racing phase whose race takes no more entries (why, then).
  absl::Status CheckRaceEntries() { return race_entries_ ? race_entries_() : absl::OkStatus(); }
  // Where accepted and refused submissions are counted (not owned; null = nowhere).
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }
  // The clock the phase's window is read on (not owned; default: the constructor's clock). A
  // seam: tests move the calendar without moving the clock studies are timed on.
  void set_calendar(Clock* calendar) { calendar_ = calendar; }
  // OK when submissions are accepted now; FailedPrecondition with the window (or the reason)
  // otherwise.
  absl::Status CheckOpen();
  // The board's publication (hidden-until-published phases); always published otherwise.
  absl::StatusOr<PublicationState> Publication();
  // Publishes the board (or, with `undo`, withdraws a publication: `reason` required). Organizers
  // only; recorded as a phase event with who and why. FailedPrecondition when the phase's board
  // is not hidden until published, or already is in the asked state.
  absl::Status Publish(const Identity& who, bool undo, const std::string& reason);
  // --- Organizers' moderation (phase_moderation.cc). Each needs an organizer (PermissionDenied,
  // or Unauthenticated without a token) and a reason (CheckModerationReason: it is recorded
  // with who and when as a phase event, and shown), and takes effect on the next read of the
  // board: the entries it takes off are not scored at all.
  // Takes a submission of this phase off its board, or with `undo` puts it back. NotFound: not a
  // submission of this phase; FailedPrecondition: already in that state, or off the board
  // because its team is disqualified (requalify the team instead).
  absl::Status Hide(const Identity& who, int64_t submission_id, const std::string& reason,
                    bool undo);
  // Disqualifies a team from this phase (its submissions leave the board; it may not submit), or
  // with `undo` requalifies it. FailedPrecondition: already in that state.
  absl::Status Disqualify(const Identity& who, const std::string& team, const std::string& reason,
                          bool undo);
  // Why `team` may not take part in this phase ("" when it may). Errors: the store's.
  absl::StatusOr<std::string> Disqualification(const std::string& team);
  // Every event of this phase but its migration (publication, moderation, choices), oldest
  // first: organizers only.
  absl::StatusOr<std::vector<PhaseEvent>> ModerationLog(const Identity& who);
  // Whether `who` may see problem names and per-problem results (AccessPolicy).
  bool ShowsPerProblemResults(const Identity& who) const {
    return access_.ShowsPerProblemResults(who);
  }
  // Whether `who` may see scores and ranks now (organizers always; others once published).
  absl::StatusOr<bool> ShowsScores(const Identity& who);
  // The store key of a board name ("" or "main", "warm-start") in this phase.
  std::string BoardKey(const std::string& name) const;
  // Every submission (trusted callers).
  absl::StatusOr<std::vector<SubmissionStatus>> List();
  // The submissions `who` may see: a team its own, an organizer all.
  absl::StatusOr<std::vector<SubmissionStatus>> List(const Identity& who);
  // The leaderboard of a board (its Scoreboard's, cached per store change). FailedPrecondition
  // while the baseline has not finished on some problem; NotFound: the phase has no such board.
  absl::StatusOr<LeaderboardReport> Leaderboard(const std::string& board = kMainBoard);
  // The leaderboard as `who` may see it: PermissionDenied while the board is hidden from `who`;
  // in a hidden phase, non-organizers get the overall scores only
  // (AccessPolicy::ShowsPerProblemResults).
  absl::StatusOr<LeaderboardReport> Leaderboard(const Identity& who, const std::string& board);
  // The boards of this phase: kMainBoard, then kWarmStartBoard when warm_start_board.
  const std::vector<std::string>& boards() const { return boards_; }
  // The Scoreboard of a board name ("" or "main", "warm-start"); NotFound for another.
  absl::StatusOr<Scoreboard*> Board(const std::string& name) const;
  // The full scoring report of the phase (report/report.h layout), rendered once per change of
  // the board or of the race: the Scoreboard's typed report, with a racing phase's race view.
  // NotFound: another phase or board; InvalidArgument: bad replicates / top_k;
  // FailedPrecondition: baseline not finished. Computed outside the locks the leaderboard takes.
  absl::StatusOr<std::shared_ptr<const nlohmann::json>> Report(const ReportRequest& request);
  // Report() rendered as the files of `format` (html, json, csv; report/report_files.h), for
  // `who`: PermissionDenied in a hidden phase unless `who` is an organizer, and for anyone but
  // an organizer who asks for bootstrap settings outside kPublicReplicates with the default seed
  // and top-k (RequireDefaultReportSettings).
  absl::StatusOr<std::vector<scoring::ReportFile>> ReportFiles(const Identity& who,
                                                              const ReportRequest& request,
                                                              const std::string& format);
  // The board's Plackett-Luce rankings (the fits the report uses), under exactly
  // Leaderboard(who, board)'s rule: PermissionDenied while the board is hidden from `who`,
  // NotFound for no such board, FailedPrecondition until the baseline has finished.
  absl::StatusOr<std::shared_ptr<const scoring::PlackettLuceFits>> PlackettLuce(
      const Identity& who, const std::string& board);
  // How many times the leaderboard / report was actually computed (for tests and metrics).
  int leaderboard_computations() const;
  int report_computations() const;
  // Per-problem scoring work reused / redone (incremental recomputation).
  int64_t scoring_cache_hits() const;
  int64_t scoring_cache_misses() const;

  // The rules this phase records with itself (Coordinator::RecordPhaseRules).
  RecordedPhaseRules Rules() const;
  const PhaseOptions& options() const { return options_; }
  const ProblemSet& problems() const { return *problems_; }

 private:
  Store* store_;
  Clock* calendar_ = nullptr;
  const ProblemSet* problems_;
  Clock* clock_;
  const int batch_size_;
  const int n_batches_;
  const PhaseOptions options_;
  const AccessPolicy access_;

  // Register's steps: the request's fields and the window (returns the trials to run); the
  // archive unpacked, checked and normalised; the team's quotas and the evaluate-once rule
  // (both under register_mu_).
  struct Unpacked {
    SubmissionKind kind = SubmissionKind::kUnspecified;
    std::string normalized;
  };
  // Leaderboard(who)'s per-team row rule (PhaseOptions::leaderboard_rows) on `out`.
  absl::Status ApplyRowRule(const std::vector<SubmissionStatus>& all, LeaderboardReport* out);
  // The refusal of a board hidden from a participant: never published, or withdrawn (when, why).
  absl::Status HiddenBoardError();
  absl::StatusOr<int> CheckRegistration(const std::string& name, const std::string& team,
                                        int trials, size_t archive_bytes);
  absl::StatusOr<Unpacked> Unpack(const std::string& archive) const;
  absl::Status CheckQuotas(const std::string& team) ABSL_EXCLUSIVE_LOCKS_REQUIRED(register_mu_);
  absl::Status CheckEvaluatedOnce(const std::string& digest, const std::string& team)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(register_mu_);
  // What Publish and Publication are about (server/publication.h holds the rule).
  BoardPublication PublicationRule() const;
  // PermissionDenied unless `who` may see the board's scores and ranks now (ShowsScores): the
  // one rule of Leaderboard(who, board) and PlackettLuce().
  absl::Status RequireBoardShown(const Identity& who);
  // The Scoreboard of a board's store key. NotFound for another board.
  absl::StatusOr<Scoreboard*> FindBoard(const std::string& board) const;
  std::vector<std::string> boards_;
  // Serializes registrations, so per-team limits and the evaluate-once rule hold under
  // concurrent calls.
  absl::Mutex register_mu_;
  std::function<void()> on_jobs_changed_;
  std::function<absl::StatusOr<nlohmann::json>()> race_view_;
  std::function<absl::Status()> race_entries_;
  Metrics* metrics_ = nullptr;
  // One per board, keyed by its store key; made in the constructor.
  std::map<std::string, std::unique_ptr<Scoreboard>> scoreboards_;
  // The latest rendering of Report() and what it rendered.
  absl::Mutex render_mu_;
  std::shared_ptr<const nlohmann::json> rendered_ ABSL_GUARDED_BY(render_mu_);
  std::shared_ptr<const scoring::Report> rendered_report_ ABSL_GUARDED_BY(render_mu_);
  nlohmann::json rendered_racing_ ABSL_GUARDED_BY(render_mu_);
};

// Detects the kind of an extracted submission folder. InvalidArgument with a clear message when
// it has neither optimizer.py nor an executable file named `optimizer`.
absl::StatusOr<SubmissionKind> DetectSubmissionKind(const std::string& dir);

// JSON for a leaderboard (rows sorted best first).
nlohmann::json LeaderboardToJson(const scoring::Leaderboard& board, int batch_size,
                                 int n_batches);
// The same for a phase's board, with "phase" and "board".
nlohmann::json LeaderboardReportJson(const LeaderboardReport& report);

}  // namespace bbo

#endif  // BBO_SERVER_PHASE_H_
