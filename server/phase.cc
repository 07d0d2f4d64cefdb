#include "server/phase.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/archive.h"
#include "common/digest.h"
#include "common/status_macros.h"
#include "report/report.h"
#include "server/competition_file.h"
#include "server/requeue.h"
#include "server/submission_state.h"
#include "spdlog/spdlog.h"

namespace bbo {

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

namespace {

namespace fs = std::filesystem;



// A scratch directory removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "bbo-sub-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

nlohmann::json Number(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}

}  // namespace

absl::StatusOr<SubmissionKind> DetectSubmissionKind(const std::string& dir) {
  fs::path py = fs::path(dir) / "optimizer.py";
  fs::path exe = fs::path(dir) / "optimizer";
  std::error_code ec;
  if (fs::is_regular_file(py, ec)) return SubmissionKind::kPython;
  if (fs::is_regular_file(exe, ec)) {
    struct stat st;
    if (stat(exe.c_str(), &st) == 0 && (st.st_mode & S_IXUSR)) return SubmissionKind::kExecutable;
    return absl::InvalidArgumentError(
        "the submission's `optimizer` file is not executable (chmod +x optimizer)");
  }
  return absl::InvalidArgumentError(
      "the submission has neither optimizer.py (a Bayesmark-style Python optimizer) nor an "
      "executable named `optimizer` at its top level");
}

Phase::Phase(Store* store, const ProblemSet* problems, Clock* clock, int batch_size,
                         int n_batches, PhaseOptions options)
    : store_(store),
      problems_(problems),
      clock_(clock),
      batch_size_(batch_size),
      n_batches_(n_batches),
      options_(std::move(options)),
      access_(options_.hidden_phase, options_.allow_anonymous) {
  calendar_ = clock;
  boards_.push_back(MainBoardKey(options_.phase_key));
  if (options_.warm_start_board) boards_.push_back(WarmStartBoardKey(options_.phase_key));
  ScoreboardSpec spec =
      ScoreboardSpec::ForProblems(*problems_, options_.phase, batch_size_, n_batches_,
                                  options_.use_known_optimum, options_.baseline_name);
  if (options_.racing) {
    ScoreboardRace race;
    race.phase_key = options_.phase_key;
    race.racing = options_.racing_spec;
    race.trials = options_.default_trials;
    race.seed = options_.seed;
    spec.race = std::move(race);
  }
  for (const std::string& b : boards_) {
    scoreboards_[b] = std::make_unique<Scoreboard>(store_, b, spec, store_);
  }
}

std::string BoardDisplayName(const std::string& board) {
  return IsWarmStartBoard(board) ? "warm-start" : "main";
}

std::string Phase::BoardKey(const std::string& name) const {
  if (name.empty() || name == "main") return MainBoardKey(options_.phase_key);
  if (name == "warm-start") return WarmStartBoardKey(options_.phase_key);
  return name;  // unknown: FindBoard says which boards exist
}

absl::Status Phase::CheckOpen() {
  if (!options_.accepts_submissions) {
    return absl::FailedPreconditionError(absl::StrCat(
        "phase \"", options_.phase, "\" takes no submissions: each team's chosen submission of "
        "the previous phase is entered automatically when that phase ends"));
  }
  const absl::Time now = calendar_->Now();
  if (options_.window_start && now < *options_.window_start) {
    return absl::FailedPreconditionError(absl::StrCat(
        "phase \"", options_.phase, "\" opens at ", FormatUtc(*options_.window_start), " (in ",
        FormatTimeLeft(*options_.window_start - now), "); submissions are accepted from ",
        FormatUtc(*options_.window_start),
        options_.window_end ? absl::StrCat(" until ", FormatUtc(*options_.window_end)) : ""));
  }
  if (options_.window_end && now >= *options_.window_end) {
    return absl::FailedPreconditionError(absl::StrCat(
        "phase \"", options_.phase, "\" closed at ", FormatUtc(*options_.window_end),
        "; submissions were accepted ",
        options_.window_start ? absl::StrCat("from ", FormatUtc(*options_.window_start), " ")
                              : "",
        "until ", FormatUtc(*options_.window_end)));
  }
  return absl::OkStatus();
}

BoardPublication Phase::PublicationRule() const {
  return {options_.phase, options_.phase_key, options_.board_hidden_until_published};
}

absl::StatusOr<PublicationState> Phase::Publication() {
  return ReadPublication(*store_, PublicationRule());
}

absl::StatusOr<bool> Phase::ShowsScores(const Identity& who) {
  if (who.is_organizer()) return true;
  ASSIGN_OR_RETURN(PublicationState p, Publication());
  return p.published;
}

absl::Status Phase::Publish(const Identity& who, bool undo, const std::string& reason) {
  return bbo::Publish(*store_, PublicationRule(), who, who.Describe(), undo, reason,
                      calendar_->NowSeconds());
}

absl::StatusOr<Scoreboard*> Phase::FindBoard(const std::string& board) const {
  auto it = scoreboards_.find(board);
  if (it == scoreboards_.end()) {
    std::string known;
    for (const std::string& b : boards_) {
      absl::StrAppend(&known, known.empty() ? "" : ", ", BoardDisplayName(b));
    }
    return absl::NotFoundError(absl::StrCat("phase \"", options_.phase, "\" has no board \"",
                                            BoardDisplayName(board), "\" (its boards: ", known,
                                            ")"));
  }
  return it->second.get();
}

absl::StatusOr<Scoreboard*> Phase::Board(const std::string& name) const {
  return FindBoard(BoardKey(name));
}

int64_t Phase::scoring_cache_hits() const {
  int64_t n = 0;
  for (const auto& [name, b] : scoreboards_) n += b->scoring_cache_hits();
  return n;
}

int64_t Phase::scoring_cache_misses() const {
  int64_t n = 0;
  for (const auto& [name, b] : scoreboards_) n += b->scoring_cache_misses();
  return n;
}

int Phase::leaderboard_computations() const {
  int n = 0;
  for (const auto& [name, b] : scoreboards_) n += b->leaderboard_computations();
  return n;
}

int Phase::report_computations() const {
  int n = 0;
  for (const auto& [name, b] : scoreboards_) n += b->report_computations();
  return n;
}

absl::Status Phase::EnsureBaseline() {
  ASSIGN_OR_RETURN(auto existing,
                   store_->FindSubmission(options_.baseline_name, options_.phase_key));
  if (existing) return absl::OkStatus();
  SubmissionRecord rec;
  rec.name = options_.baseline_name;
  rec.kind = SubmissionKind::kBuiltin;
  rec.digest = "builtin";
  rec.trials = options_.baseline_trials;
  rec.is_baseline = true;
  rec.created_at = calendar_->NowSeconds();
  rec.phase = options_.phase_key;
  return store_->AddSubmission(rec, "", problems_->names(), options_.seed,
                               {MainBoardKey(options_.phase_key)})
      .status();
}

absl::StatusOr<int> Phase::CheckRegistration(const std::string& name, const std::string& team,
                                             int trials, size_t archive_bytes) {
  RETURN_IF_ERROR(CheckOpen());
  if (!ValidName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "name: \"", name, "\" is not a valid submission name (1-64 letters, digits, '-', '_', "
        "'.')"));
  }
  if (name == options_.baseline_name) {
    return absl::AlreadyExistsError(absl::StrCat("name: \"", name, "\" is reserved"));
  }
  if (!team.empty() && !ValidName(team)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "team: \"", team, "\" is not a valid team name (1-64 letters, digits, '-', '_', '.')"));
  }
  if ((options_.max_submissions_per_team > 0 || options_.max_submissions_per_team_per_day > 0) &&
      team.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "team: phase \"", options_.phase, "\" limits submissions per team; submit with your "
        "team's token"));
  }
  if ((options_.evaluate_once || options_.racing) && trials != 0 &&
      trials != options_.default_trials) {
    return absl::InvalidArgumentError(absl::StrCat(
        "trials: phase \"", options_.phase, "\" runs every submission with ",
        options_.default_trials, " trials; submissions cannot choose (omit --trials)"));
  }
  if (trials == 0) trials = options_.default_trials;
  if (trials < 1 || trials > options_.max_trials) {
    return absl::InvalidArgumentError(
        absl::StrCat("trials: ", trials, " is outside [1, ", options_.max_trials, "]"));
  }
  if (static_cast<int64_t>(archive_bytes) > options_.max_archive_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("archive: ", archive_bytes,
                                                   " bytes is over the limit of ",
                                                   options_.max_archive_bytes));
  }
  return trials;
}

absl::StatusOr<Phase::Unpacked> Phase::Unpack(const std::string& archive) const {
  TempDir dir;
  if (dir.path().empty()) return absl::UnavailableError("cannot create a scratch directory");
  ExtractOptions eo;
  eo.max_total_bytes = options_.max_archive_bytes * 4;
  if (absl::Status s = ExtractArchive(archive, dir.path(), eo); !s.ok()) {
    // By cause: a malformed archive is the caller's (InvalidArgument), a disk that cannot take
    // it is the server's (Unavailable: try again).
    return absl::Status(s.code(), absl::StrCat("archive: ", s.message()));
  }
  Unpacked out;
  ASSIGN_OR_RETURN(out.kind, DetectSubmissionKind(dir.path()));
  // Store a normalised tar so workers see one format whatever the participant uploaded.
  ASSIGN_OR_RETURN(out.normalized, TarDirectory(dir.path()));
  return out;
}

absl::Status Phase::CheckQuotas(const std::string& team) {
  // Withdrawn submissions and those the platform lost (see CountChargedSubmissions) are free.
  constexpr absl::string_view kFree =
      "; withdrawn submissions and those lost to the platform do not count";
  if (options_.max_submissions_per_team > 0) {
    ASSIGN_OR_RETURN(
        int used, store_->CountChargedSubmissions(team, -std::numeric_limits<double>::infinity(),
                                                  options_.phase_key));
    if (used >= options_.max_submissions_per_team) {
      return absl::ResourceExhaustedError(
          absl::StrCat("team \"", team, "\" has used its ", options_.max_submissions_per_team,
                       " submission(s) in phase \"", options_.phase, "\"", kFree));
    }
  }
  if (options_.max_submissions_per_team_per_day > 0) {
    // The UTC day of now: [day_start, day_start + 1 day).
    const double now = calendar_->NowSeconds();
    const double day_start = std::floor(now / 86400.0) * 86400.0;
    ASSIGN_OR_RETURN(int today,
                     store_->CountChargedSubmissions(team, day_start, options_.phase_key));
    if (today >= options_.max_submissions_per_team_per_day) {
      const int minutes = static_cast<int>(std::ceil((day_start + 86400.0 - now) / 60.0));
      return absl::ResourceExhaustedError(absl::StrCat(
          "team \"", team, "\" has used its ", options_.max_submissions_per_team_per_day,
          " submission(s) of today (UTC) in phase \"", options_.phase,
          "\"; the next day starts at 00:00 UTC, in ", minutes / 60, " h ", minutes % 60, " min",
          kFree));
    }
  }
  return absl::OkStatus();
}

absl::Status Phase::CheckEvaluatedOnce(const std::string& digest, const std::string& team) {
  if (!options_.evaluate_once) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<SubmissionRecord> same, store_->FindSubmissionsByDigest(digest));
  std::erase_if(same, [&](const SubmissionRecord& s) { return s.phase != options_.phase_key; });
  if (same.empty()) return absl::OkStatus();
  // Never name another team's submission.
  const bool own = same.front().team == team && !team.empty();
  return absl::AlreadyExistsError(absl::StrCat(
      "archive: this optimizer is identical to ",
      own ? absl::StrCat("your submission \"", same.front().name, "\"")
          : std::string("one already registered"),
      "; phase \"", options_.phase, "\" evaluates each submission once"));
}

absl::StatusOr<RegisteredSubmission> Phase::Register(const std::string& name,
                                                     const std::string& archive, int trials,
                                                     const std::string& team) {
  ASSIGN_OR_RETURN(trials, CheckRegistration(name, team, trials, archive.size()));
  ASSIGN_OR_RETURN(std::string disqualified, Disqualification(team));
  if (!disqualified.empty()) return absl::PermissionDeniedError(disqualified);
  ASSIGN_OR_RETURN(Unpacked unpacked, Unpack(archive));
  SubmissionRecord rec;
  rec.name = name;
  rec.kind = unpacked.kind;
  rec.digest = Fnv1a64Hex(unpacked.normalized);
  rec.trials = trials;
  rec.team = team;
  rec.phase = options_.phase_key;
  if (race_entries_) RETURN_IF_ERROR(race_entries_());
  absl::MutexLock l(&register_mu_);
  RETURN_IF_ERROR(CheckQuotas(team));
  RETURN_IF_ERROR(CheckEvaluatedOnce(rec.digest, team));
  rec.created_at = calendar_->NowSeconds();
  // A race queues a submission's jobs itself, round by round (server/race.h).
  const std::vector<std::string> no_problems;
  const std::vector<std::string>& job_problems = options_.racing ? no_problems : problems_->names();
  ASSIGN_OR_RETURN(int64_t id, store_->AddSubmission(rec, unpacked.normalized, job_problems,
                                                     options_.seed, boards_));
  if (on_jobs_changed_) on_jobs_changed_();
  RegisteredSubmission out;
  out.submission_id = id;
  out.kind = unpacked.kind;
  out.trials = trials;
  out.jobs = trials * static_cast<int>(job_problems.size() * boards_.size());
  return out;
}

absl::StatusOr<RegisteredSubmission> Phase::Register(const Identity& who,
                                                           const std::string& name,
                                                           const std::string& archive, int trials,
                                                           const std::string& requested_team) {
  absl::StatusOr<std::string> team = access_.SubmittingTeam(who, requested_team);
  absl::StatusOr<RegisteredSubmission> out =
      team.ok() ? Register(name, archive, trials, *team)
                : absl::StatusOr<RegisteredSubmission>(team.status());
  if (out.ok()) {
    spdlog::info("event=submission_accepted submission={} name={} team={} jobs={}",
                 out->submission_id, name, *team, out->jobs);
  } else {
    spdlog::info("event=submission_refused by={} code={} reason=\"{}\"", who.Describe(),
                 absl::StatusCodeToString(out.status().code()),
                 absl::CHexEscape(out.status().message().substr(0, 200)));
  }
  if (metrics_ != nullptr) metrics_->CountSubmission(out.ok() ? "accepted" : "refused");
  return out;
}

absl::StatusOr<int> Phase::Withdraw(const Identity& who, int64_t submission_id) {
  RETURN_IF_ERROR(access_.RequireParticipant(who, "submissions"));
  absl::StatusOr<SubmissionRecord> sub = store_->GetSubmission(submission_id);
  if (!sub.ok() || sub->is_baseline || !access_.SeesSubmissionsOf(who, sub->team)) {
    return absl::NotFoundError(absl::StrCat("no submission ", submission_id, " of yours"));
  }
  absl::StatusOr<int> n =
      store_->CancelQueuedJobs(submission_id, WithdrawnReason(who));
  if (n.ok() && on_jobs_changed_) on_jobs_changed_();
  return n;
}

absl::StatusOr<std::vector<SubmissionStatus>> Phase::List(const Identity& who) {
  RETURN_IF_ERROR(access_.RequireParticipant(who, "submissions"));
  ASSIGN_OR_RETURN(std::vector<SubmissionStatus> all, List());
  std::vector<SubmissionStatus> out;
  for (SubmissionStatus& s : all) {
    if (access_.SeesSubmissionsOf(who, s.submission.team)) out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::vector<SubmissionStatus>> Phase::List() {
  ASSIGN_OR_RETURN(std::vector<SubmissionRecord> subs, store_->ListSubmissions());
  std::vector<SubmissionStatus> out;
  for (auto& s : subs) {
    if (s.phase != options_.phase_key) continue;
    SubmissionStatus st;
    ASSIGN_OR_RETURN(st.jobs, store_->CountJobs(s.id));
    ASSIGN_OR_RETURN(st.studies_with_errors, store_->CountStudiesWithErrors(s.id));
    st.submission = std::move(s);
    out.push_back(std::move(st));
  }
  return out;
}

namespace {

void RankPartialRowsLast(scoring::Leaderboard* board) {
  // A partial row's score is a mean over the problems it ran, not comparable with a mean over
  // all of them: it is ranked after every complete row, in score order among partial rows.
  std::stable_partition(board->rows.begin(), board->rows.end(),
                        [](const scoring::MethodResult& r) { return r.complete || r.is_baseline; });
}

}  // namespace

absl::StatusOr<LeaderboardReport> Phase::Leaderboard(const std::string& board_name) {
  ASSIGN_OR_RETURN(Scoreboard * board, Board(board_name));
  ASSIGN_OR_RETURN(std::shared_ptr<const scoring::Leaderboard> scores, board->Leaderboard());
  LeaderboardReport out;
  out.phase = options_.phase;
  out.board_name = BoardDisplayName(board->board());
  out.batch_size = batch_size_;
  out.n_batches = n_batches_;
  out.board = *scores;
  return out;
}

absl::Status Phase::RequireBoardShown(const Identity& who) {
  ASSIGN_OR_RETURN(bool scores, ShowsScores(who));
  if (!scores) return HiddenBoardError();
  return absl::OkStatus();
}

absl::Status Phase::HiddenBoardError() {
  ASSIGN_OR_RETURN(PublicationState p, Publication());
  const std::string own = "; `bbo status` shows the state of your own submissions";
  if (p.at > 0) {  // published once, then withdrawn
    return absl::PermissionDeniedError(absl::StrCat(
        "the board of phase \"", options_.phase, "\" was withdrawn by the organizers on ",
        FormatUtc(absl::FromUnixSeconds(static_cast<int64_t>(p.at))), ": ", p.detail,
        "; it is hidden until they publish it again", own));
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "the board of phase \"", options_.phase, "\" is hidden until the organizers publish it",
      own));
}

absl::StatusOr<LeaderboardReport> Phase::Leaderboard(const Identity& who,
                                                     const std::string& board) {
  RETURN_IF_ERROR(RequireBoardShown(who));
  ASSIGN_OR_RETURN(LeaderboardReport out, Leaderboard(board));
  // Honest completeness and states, from the jobs as they are now (not cached with the
  // scores): a row is complete once every job of its submission has its final study;
  // registered submissions without a row are listed as pending, those off the board as removed.
  ASSIGN_OR_RETURN(std::vector<SubmissionStatus> all, List());
  std::map<std::string, const SubmissionStatus*> by_name;
  for (const SubmissionStatus& s : all) {
    if (!s.submission.is_baseline) by_name[s.submission.name] = &s;
  }
  std::set<std::string> on_board;
  for (auto& row : out.board.rows) {
    on_board.insert(row.method);
    auto it = by_name.find(row.method);
    if (it == by_name.end()) continue;
    const JobCounts& j = it->second->jobs;
    row.complete = row.complete && j.done == j.total && j.total > 0;
    out.entries[row.method] = {it->second->submission.id, it->second->submission.team,
                               SubmissionStateName(StateOf(*it->second))};
  }
  for (const auto& [name, status] : by_name) {
    const SubmissionRecord& s = status->submission;
    if (on_board.count(name)) continue;
    if (!s.on_board() || !s.withdrawn.empty()) {
      // The reason names who acted and may say why: the team concerned's and the organizers'
      // business; everyone else learns only which kind of removal it was.
      const bool withdrawn = s.on_board();
      std::string why = withdrawn ? s.withdrawn : s.hidden;
      if (!access_.SeesSubmissionsOf(who, s.team)) {
        why = withdrawn ? "withdrawn by its team" : "removed by the organizers";
      }
      out.removed.push_back({name, s.team, std::move(why)});
    } else if (access_.SeesSubmissionsOf(who, s.team)) {
      // Which submissions are pending is one's own business: a team sees its own.
      out.pending.push_back({name, status->jobs});
    }
  }
  RankPartialRowsLast(&out.board);
  RETURN_IF_ERROR(ApplyRowRule(all, &out));
  if (!access_.ShowsPerProblemResults(who)) {
    for (auto& row : out.board.rows) row.problems.clear();
    out.per_problem = false;
  }
  return out;
}


absl::Status Phase::ApplyRowRule(const std::vector<SubmissionStatus>& all,
                                 LeaderboardReport* out) {
  out->rows = options_.leaderboard_rows;
  if (out->rows == "submission") return absl::OkStatus();
  std::map<std::string, int64_t> chosen;
  if (out->rows == "team_chosen") {
    ASSIGN_OR_RETURN(chosen, store_->Choices(options_.phase_key));
  }
  std::map<std::string, const SubmissionStatus*> by_name;
  for (const SubmissionStatus& s : all) by_name[s.submission.name] = &s;
  // Each team's row: rows are best first, so the first of a team is its best.
  std::map<std::string, std::string> pick;  // team -> submission name
  for (const scoring::MethodResult& row : out->board.rows) {
    auto it = by_name.find(row.method);
    if (row.is_baseline || it == by_name.end()) continue;
    const SubmissionRecord& s = it->second->submission;
    const std::string key = s.team.empty() ? "\x01" + s.name : s.team;  // no team: its own row
    auto seen = pick.find(key);
    auto choice = chosen.find(s.team);
    const bool wins =
        seen == pick.end() ||
        (out->rows == "team_latest" && s.id > by_name.at(seen->second)->submission.id) ||
        (out->rows == "team_chosen" && choice != chosen.end() && choice->second == s.id);
    if (wins) pick[key] = s.name;
  }
  std::set<std::string> shown;
  for (const auto& [team, name] : pick) shown.insert(name);
  std::vector<scoring::MethodResult> rows;
  for (scoring::MethodResult& row : out->board.rows) {
    if (row.is_baseline || shown.count(row.method) || !by_name.count(row.method)) {
      rows.push_back(std::move(row));
    } else {
      ++out->rows_not_shown;
    }
  }
  out->board.rows = std::move(rows);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const nlohmann::json>> Phase::Report(
    const ReportRequest& request) {
  if (!request.phase.empty() && request.phase != options_.phase) {
    return absl::NotFoundError(absl::StrCat("this coordinator hosts phase \"", options_.phase,
                                            "\", not \"", request.phase, "\""));
  }
  ASSIGN_OR_RETURN(Scoreboard * board, Board(request.board));
  ASSIGN_OR_RETURN(BoardReport report, board->Report(request, "bbo-server"));
  // The race moves on after the scores last changed (its last round): read it now.
  nlohmann::json racing = nullptr;
  if (race_view_ && !IsWarmStartBoard(board->board())) {
    ASSIGN_OR_RETURN(racing, race_view_());
  }
  absl::MutexLock l(&render_mu_);
  if (rendered_ != nullptr && rendered_report_ == report.report && rendered_racing_ == racing) {
    return rendered_;
  }
  rendered_ = std::make_shared<const nlohmann::json>(
      scoring::ReportJson(*report.report, report.snapshot->input, racing));
  rendered_report_ = report.report;
  rendered_racing_ = std::move(racing);
  return rendered_;
}

absl::StatusOr<std::shared_ptr<const scoring::PlackettLuceFits>> Phase::PlackettLuce(
    const Identity& who, const std::string& board_name) {
  RETURN_IF_ERROR(RequireBoardShown(who));
  ASSIGN_OR_RETURN(Scoreboard * board, Board(board_name));
  ASSIGN_OR_RETURN(std::shared_ptr<const ScoreboardSnapshot> snapshot, board->Snapshot());
  RETURN_IF_ERROR(snapshot->baseline);
  return board->PlackettLuce(snapshot);
}

absl::Status RequireDefaultReportSettings(const Identity& who, const ReportRequest& request) {
  // A report's cost grows with its replicates, and each new setting is a new computation: only
  // organizers choose freely; everyone else picks among kPublicReplicates with the default seed
  // and top-k, a few cached reports shared by all of them, none dearer than the default.
  const ReportRequest defaults;
  const bool listed = std::find(std::begin(kPublicReplicates), std::end(kPublicReplicates),
                                request.bootstrap_replicates) != std::end(kPublicReplicates);
  if (who.is_organizer() ||
      (listed && request.seed == defaults.seed && request.top_k == defaults.top_k)) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "bootstrap_replicates, seed, top_k: only organizers choose the report's bootstrap "
      "settings; others may ask for B = 10, 100, 1000 or ", defaults.bootstrap_replicates,
      " (the default) with seed ", defaults.seed, " and top-k ", defaults.top_k,
      ", or leave them out"));
}

absl::StatusOr<std::vector<scoring::ReportFile>> Phase::ReportFiles(
    const Identity& who, const ReportRequest& request, const std::string& format) {
  RETURN_IF_ERROR(access_.RequireOrganizerIfHidden(who, "the scoring reports"));
  RETURN_IF_ERROR(RequireBoardShown(who));
  RETURN_IF_ERROR(RequireDefaultReportSettings(who, request));
  ASSIGN_OR_RETURN(std::shared_ptr<const nlohmann::json> report, Report(request));
  return scoring::RenderReportFiles(*report, format);
}

nlohmann::json LeaderboardToJson(const scoring::Leaderboard& board, int batch_size,
                                 int n_batches) {
  nlohmann::json j;
  j["batch_size"] = batch_size;
  j["n_batches"] = n_batches;
  j["score_definition"] =
      "100 x (1 - mean over problems of the normalized mean performance at the last batch); "
      "0 = a single random guess, 100 = always the best known optimum (NeurIPS 2020 BBO "
      "challenge, eq. 7)";
  nlohmann::json rows = nlohmann::json::array();
  int rank = 0;
  for (const auto& r : board.rows) {
    nlohmann::json row;
    row["rank"] = ++rank;
    row["name"] = r.method;
    row["score"] = Number(r.score);
    row["median_score"] = Number(r.median_score);
    row["baseline"] = r.is_baseline;
    row["complete"] = r.complete;
    nlohmann::json curve = nlohmann::json::array();
    for (double v : r.mean_perf) curve.push_back(Number(v));
    row["mean_perf_by_batch"] = curve;
    nlohmann::json problems = nlohmann::json::object();
    for (const auto& p : r.problems) {
      nlohmann::json pj;
      pj["score"] = Number(p.score);
      pj["trials"] = p.trials;
      pj["norm_mean_perf_last"] =
          p.norm_mean_perf.empty() ? nlohmann::json(nullptr) : Number(p.norm_mean_perf.back());
      problems[p.problem] = pj;
    }
    row["problems"] = problems;
    rows.push_back(row);
  }
  j["rows"] = rows;
  nlohmann::json baselines = nlohmann::json::object();
  for (const auto& [name, b] : board.baselines) {
    baselines[name] = {{"opt", Number(b.opt)}, {"clip", Number(b.clip)}};
  }
  j["baselines"] = baselines;
  return j;
}

nlohmann::json RecordedPhaseRules::ToJson() const {
  return {{"layout", "bbo-arena/phase-rules/1"},
          {"scoreboard", scoreboard.ToJson()},
          {"board_hidden_until_published", board_hidden_until_published}};
}

absl::StatusOr<RecordedPhaseRules> RecordedPhaseRules::FromJson(const nlohmann::json& j) {
  if (!j.is_object() || j.value("layout", "") != "bbo-arena/phase-rules/1") {
    return absl::InvalidArgumentError("phase rules: not a bbo-arena/phase-rules/1 object");
  }
  RecordedPhaseRules r;
  ASSIGN_OR_RETURN(r.scoreboard, ScoreboardSpec::FromJson(j.value("scoreboard", nlohmann::json())));
  const nlohmann::json& hidden = j.value("board_hidden_until_published", nlohmann::json());
  if (!hidden.is_boolean()) {
    return absl::InvalidArgumentError("phase rules: board_hidden_until_published is not a bool");
  }
  r.board_hidden_until_published = hidden.get<bool>();
  return r;
}

RecordedPhaseRules Phase::Rules() const {
  RecordedPhaseRules r;
  r.scoreboard = scoreboards_.begin()->second->spec();
  r.board_hidden_until_published = options_.board_hidden_until_published;
  return r;
}

nlohmann::json LeaderboardReportJson(const LeaderboardReport& report) {
  nlohmann::json j = LeaderboardToJson(report.board, report.batch_size, report.n_batches);
  j["phase"] = report.phase;
  j["board"] = report.board_name;
  return j;
}

}  // namespace bbo
