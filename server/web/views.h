#ifndef BBO_SERVER_WEB_VIEWS_H_
#define BBO_SERVER_WEB_VIEWS_H_

// WebViews: the read-only answers of the web leaderboard's JSON API (docs/web.md), as `who` may
// see them. Each view is one or a few calls of the domain (Competition, Phase, the Coordinator's
// gauges and store), which decide what `who` may see: the same rules as the gRPC API
// (server/access.h, Phase::ShowsScores, Competition::Log). No HTTP here;
// server/web/web_server.h is the transport. The views add one rule of their own: the queue and
// the workers are for organizers only.
//
// Work per call is bounded: lists are cut to kMaxSubmissions / kMaxErrors / kMaxStudies entries
// (the answer says so), leaderboards and reports come from the Phase's caches.
//
// Thread-safe (the domain objects are).

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/access.h"
#include "server/coordinator.h"
#include "server/submission_log.h"
#include "server/web/plackett_luce_rankings.h"

namespace bbo::web {

class WebViews {
 public:
  // Submissions listed per call (the most recent ones).
  static constexpr int kMaxSubmissions = 500;
  // A submission log's errors shown in full, and studies listed (the first ones).
  static constexpr int kMaxErrors = 50;
  static constexpr int kMaxStudies = 200;

  // `coordinator` is not owned and must outlive the views.
  explicit WebViews(Coordinator* coordinator)
      : coordinator_(coordinator), rankings_(std::make_unique<PlackettLuceRankings>()) {}

  // Who `who` is: {role, name, competition}.
  nlohmann::json Me(const Identity& who) const;
  // The competition and every phase: title, rules, window (seconds since the epoch on the
  // calendar), whether it is current and open, its boards, whether `who` sees scores there.
  absl::StatusOr<nlohmann::json> Competition(const Identity& who) const;
  // The board `board` ("" or "main", "warm-start") of phase `phase` ("" = current). NotFound
  // for an unknown phase or board; PermissionDenied for a board hidden until published (to
  // non-organizers); FailedPrecondition while the baseline runs. Per-problem scores only where
  // `who` may see them. "plackett_luce": the board's Bayesian Plackett-Luce ranking
  // (PlackettLuceRankings, under the same rule): {band, time, unit, runs, inference,
  // pareto_set, methods: [{name, posterior_mean, lower, upper, p_pareto, pareto, eliminated_by}]}
  // highest mean first, or {error} saying why there is none. Cached per board until a study
  // ends (PlackettLuceRankings).
  absl::StatusOr<nlohmann::json> Leaderboard(const Identity& who, const std::string& phase,
                                             const std::string& board) const;
  // The submissions `who` may see (a team its own, an organizer all; "" = every phase), newest
  // first, each with its score where `who` sees the scores of its phase's main board.
  // Unauthenticated for an anonymous caller (Phase::List).
  absl::StatusOr<nlohmann::json> Submissions(const Identity& who, const std::string& phase) const;
  // The log of submission `id` (Competition::Log, as `bbo logs`): its studies by state, its errors
  // by kind, the first kMaxErrors errors in full and the first kMaxStudies studies. NotFound
  // unless `who` is its team or an organizer (the same answer as for no such submission); a
  // team in a hidden phase sees problems as "problem-K".
  absl::StatusOr<nlohmann::json> Log(const Identity& who, int64_t id) const;
  // The page of submission `id` (its team's or an organizer's; NotFound otherwise, as Log):
  // {id, name, team, phase, state, state_detail, created_at_s, log (as Log), verdict {ok,
  // failure, traceback, text} (`bbo check`'s words, common/submission_verdict.h), curves,
  // timing, rating}. curves: {available, why?, per_problem, n_batches, problems: [{problem,
  // submission: [..], random_search: [..]}]}: per problem (or over all problems where `who` may
  // not see them one by one) the normalized best-so-far mean by batch (Bayesmark's
  // norm-mean-perf: 1 = one random guess, 0 = the best value found) of the submission and of the
  // random-search baseline; only where `who` sees the board's scores. timing: {suggest_budget_s,
  // study_budget_s, studies, batches: [{batch, median_s, max_s}], slowest_study_s}: the
  // optimizer's time per batch over the submission's studies on the main board. rating: its row
  // of the board's Plackett-Luce ranking ({error} when there is none).
  absl::StatusOr<nlohmann::json> Submission(const Identity& who, int64_t id) const;
  // Jobs queued / leased / done / failed, running studies and workers. Organizers only
  // (PermissionDenied otherwise).
  absl::StatusOr<nlohmann::json> Queue(const Identity& who) const;
  // The full scoring report of phase `phase`, board `board`, as one self-contained HTML page:
  // {phase, board, html}. Phase::ReportFiles decides who may see it.
  absl::StatusOr<nlohmann::json> Report(const Identity& who, const std::string& phase,
                                        const std::string& board) const;

  // How many Plackett-Luce rankings were computed (for tests).
  int plackett_luce_computations() const { return rankings_->computations(); }

 private:
  // Log's answer for a log already read.
  static nlohmann::json LogJson(const bbo::SubmissionLog& log);
  // The "plackett_luce" of Leaderboard for the main board of `phase`, without the rest of it.
  nlohmann::json PlackettLuceOf(Phase* phase, const Identity& who) const;

  Coordinator* coordinator_;
  std::unique_ptr<PlackettLuceRankings> rankings_;
};

}  // namespace bbo::web

#endif  // BBO_SERVER_WEB_VIEWS_H_
