#include "server/scoreboard.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "problems/problem.h"
#include "server/problem_set.h"
#include "server/race.h"
#include "server/store/records.h"

namespace bbo {
namespace {

using json = nlohmann::json;

// A study cut off or failed early keeps its best so far: batches it never ran are +inf and the
// cumulative minimum carries the best forward (Turner et al. (2021) §3.4). A study a race planned
// shorter (its tau_A) has its later batches not run at all: its horizon (TrialCurve::horizon).
scoring::TrialCurve ToTrialCurve(StudyCurve&& c, int n_batches) {
  scoring::TrialCurve t;
  t.trial = c.trial;
  if (c.planned_batches > 0 && c.planned_batches < n_batches) t.horizon = c.planned_batches;
  if (c.batch_end_seconds.size() == c.batch_min.size()) {
    t.batch_end_seconds = std::move(c.batch_end_seconds);
  }
  if (std::any_of(c.batch_figures.begin(), c.batch_figures.end(), AnyFigure)) {
    t.batch_figures = std::move(c.batch_figures);
  }
  t.batch_min = std::move(c.batch_min);
  t.batch_min.resize(n_batches, HUGE_VAL);
  return t;
}

}  // namespace

ScoreboardSpec ScoreboardSpec::ForProblems(const ProblemSet& problems, std::string phase,
                                           int batch_size, int n_batches, bool use_known_optimum,
                                           std::string baseline_name) {
  ScoreboardSpec s;
  s.phase = std::move(phase);
  s.batch_size = batch_size;
  s.n_batches = n_batches;
  s.use_known_optimum = use_known_optimum;
  s.baseline_name = std::move(baseline_name);
  for (const std::string& name : problems.names()) {
    absl::StatusOr<const Problem*> p = problems.Get(name);
    if (!p.ok()) continue;  // names() lists only problems it holds
    s.problems.push_back({name, (*p)->space().dims(), (*p)->attributes(), (*p)->known_optimum()});
  }
  return s;
}

scoring::pl::SummaryOptions ScoreboardRace::SummaryOptions() const {
  scoring::pl::SummaryOptions o;
  o.model.alpha = 1.0;
  o.model.chains = chains;
  o.model.draws_per_chain = draws_per_chain;
  o.model.seed = static_cast<uint64_t>(seed);
  o.decisions = RaceDecisionOptions(racing);
  return o;
}

json ScoreboardRace::ToJson() const {
  return {{"phase_key", phase_key}, {"racing", racing.ToJson()}, {"trials", trials},
          {"seed", seed},           {"chains", chains},          {"draws_per_chain", draws_per_chain}};
}

absl::StatusOr<ScoreboardRace> ScoreboardRace::FromJson(const json& j) {
  try {
    ScoreboardRace r;
    r.phase_key = j.at("phase_key").get<std::string>();
    ASSIGN_OR_RETURN(r.racing, RacingSpec::FromJson(j.at("racing")));
    r.trials = j.at("trials").get<int>();
    r.seed = j.at("seed").get<int64_t>();
    r.chains = j.at("chains").get<int>();
    r.draws_per_chain = j.at("draws_per_chain").get<int>();
    return r;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("scoreboard spec: race: ", e.what()));
  }
}

json ScoreboardSpec::ToJson() const {
  json problems_json = json::array();
  for (const ScoreboardProblem& p : problems) {
    json pj = {{"name", p.name}, {"dimension", p.dimension}, {"attributes", p.attributes}};
    if (p.known_optimum && std::isfinite(*p.known_optimum)) pj["known_optimum"] = *p.known_optimum;
    problems_json.push_back(std::move(pj));
  }
  json j = {{"layout", "bbo-arena/scoreboard/1"}, {"phase", phase},
            {"batch_size", batch_size},           {"n_batches", n_batches},
            {"use_known_optimum", use_known_optimum},
            {"baseline_name", baseline_name},     {"problems", std::move(problems_json)}};
  if (race) j["race"] = race->ToJson();
  return j;
}

absl::StatusOr<ScoreboardSpec> ScoreboardSpec::FromJson(const json& j) {
  if (!j.is_object() || j.value("layout", "") != "bbo-arena/scoreboard/1") {
    return absl::InvalidArgumentError("scoreboard spec: not a bbo-arena/scoreboard/1 object");
  }
  try {
    ScoreboardSpec s;
    s.phase = j.at("phase").get<std::string>();
    s.batch_size = j.at("batch_size").get<int>();
    s.n_batches = j.at("n_batches").get<int>();
    s.use_known_optimum = j.at("use_known_optimum").get<bool>();
    s.baseline_name = j.at("baseline_name").get<std::string>();
    for (const json& pj : j.at("problems")) {
      ScoreboardProblem p;
      p.name = pj.at("name").get<std::string>();
      p.dimension = pj.at("dimension").get<int>();
      p.attributes = pj.at("attributes").get<std::vector<std::string>>();
      if (pj.contains("known_optimum")) p.known_optimum = pj.at("known_optimum").get<double>();
      s.problems.push_back(std::move(p));
    }
    if (j.contains("race")) {
      ASSIGN_OR_RETURN(ScoreboardRace race, ScoreboardRace::FromJson(j.at("race")));
      s.race = std::move(race);
    }
    return s;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("scoreboard spec: ", e.what()));
  }
}

Scoreboard::Scoreboard(ScoringStore* store, std::string board, ScoreboardSpec spec,
                       RaceStore* races)
    : store_(store), races_(races), board_(std::move(board)), spec_(std::move(spec)) {}

absl::StatusOr<std::shared_ptr<const ScoreboardSnapshot>> Scoreboard::Snapshot() {
  absl::MutexLock l(&mu_);
  RETURN_IF_ERROR(Refresh());
  return snapshot_;
}

absl::Status Scoreboard::ReadRace(ScoreboardSnapshot* snapshot) {
  if (!spec_.race || races_ == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<RaceRoundRecord> rounds,
                   races_->ListRaceRounds(spec_.race->phase_key));
  snapshot->race_excluded.clear();
  snapshot->race_round = rounds.empty() ? -1 : rounds.back().round;
  if (rounds.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(scoring::pl::RaceState state, RaceDriver::StateFromJson(rounds.back().state_json));
  for (int i = 0; i < state.n(); ++i) {
    if (!state.candidate(i)) snapshot->race_excluded[state.methods[i]] = state.eliminated_by[i];
  }
  return absl::OkStatus();
}

absl::Status Scoreboard::Refresh() {
  const int64_t seen = snapshot_ != nullptr ? snapshot_->seq : 0;
  ASSIGN_OR_RETURN(ScoringChanges changes, store_->ScoringChangesSince(seen));
  if (loaded_ && changes.problems.empty()) {
    // The results are the same; a race may have recorded a round since.
    if (!spec_.race || races_ == nullptr) return absl::OkStatus();
    ScoreboardSnapshot now;
    RETURN_IF_ERROR(ReadRace(&now));
    if (now.race_round == snapshot_->race_round) return absl::OkStatus();
    auto snapshot = std::make_shared<ScoreboardSnapshot>(*snapshot_);
    snapshot->race_round = now.race_round;
    snapshot->race_excluded = std::move(now.race_excluded);
    snapshot_ = std::move(snapshot);
    return absl::OkStatus();
  }
  std::vector<std::string> reload;
  if (!loaded_) {
    // First load: every problem of the phase, even those without results yet.
    input_ = scoring::ScoringInput{};
    input_.batch_size = spec_.batch_size;
    input_.n_batches = spec_.n_batches;
    for (const ScoreboardProblem& p : spec_.problems) {
      scoring::ProblemBaselineInput b;
      if (spec_.use_known_optimum) b.known_optimum = p.known_optimum;
      input_.problems[p.name] = std::move(b);
      reload.push_back(p.name);
    }
  } else {
    for (const std::string& p : changes.problems) {
      if (input_.problems.count(p)) reload.push_back(p);  // else: not a problem of this phase
    }
  }
  RETURN_IF_ERROR(ReloadProblems(reload));
  loaded_ = true;
  auto snapshot = std::make_shared<ScoreboardSnapshot>();
  snapshot->seq = changes.seq;
  snapshot->input = input_;
  snapshot->baseline = BaselineStatus();
  RETURN_IF_ERROR(ReadRace(snapshot.get()));
  snapshot_ = std::move(snapshot);
  return absl::OkStatus();
}

absl::Status Scoreboard::ReloadProblems(const std::vector<std::string>& reload) {
  if (reload.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(ScoringData data, store_->LoadScoringData(reload, board_));
  for (const std::string& p : reload) {
    for (auto it = input_.methods.begin(); it != input_.methods.end();) {
      it->second.erase(p);
      it = it->second.empty() ? input_.methods.erase(it) : std::next(it);
    }
    auto bit = data.baseline_evals.find(p);
    input_.problems[p].random_evals =
        bit == data.baseline_evals.end() ? std::vector<double>{} : std::move(bit->second);
  }
  for (auto& [method, per_problem] : data.methods) {
    for (auto& [problem, curves] : per_problem) {
      if (!input_.problems.count(problem)) continue;
      scoring::MethodProblemData mp;
      for (StudyCurve& c : curves) mp.trials.push_back(ToTrialCurve(std::move(c), spec_.n_batches));
      input_.methods[method][problem] = std::move(mp);
    }
  }
  return absl::OkStatus();
}

absl::Status Scoreboard::BaselineStatus() const {
  const size_t needed = static_cast<size_t>(spec_.batch_size) * spec_.n_batches;
  for (const auto& [name, b] : input_.problems) {
    if (b.random_evals.size() < needed) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the random-search baseline on problem ", name, " is not finished yet (",
          b.random_evals.size(), " of at least ", needed, " evaluations); try again shortly"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const scoring::Leaderboard>> Scoreboard::Leaderboard() {
  ASSIGN_OR_RETURN(std::shared_ptr<const ScoreboardSnapshot> snapshot, Snapshot());
  absl::MutexLock l(&leaderboard_mu_);
  if (leaderboard_ != nullptr && leaderboard_seq_ == snapshot->seq) return leaderboard_;
  RETURN_IF_ERROR(snapshot->baseline);
  leaderboards_++;
  ASSIGN_OR_RETURN(scoring::Leaderboard board,
                   scoring::ComputeLeaderboard(snapshot->input, spec_.baseline_name,
                                               &leaderboard_cache_));
  leaderboard_ = std::make_shared<const scoring::Leaderboard>(std::move(board));
  leaderboard_seq_ = snapshot->seq;
  return leaderboard_;
}

scoring::pl::SummaryOptions Scoreboard::PlackettLuceOptions(
    const ScoreboardSnapshot& snapshot) const {
  if (!spec_.race) return scoring::ReportOptions{}.plackett_luce_options;
  scoring::pl::SummaryOptions o = spec_.race->SummaryOptions();
  o.excluded = snapshot.race_excluded;
  return o;
}

std::shared_ptr<const scoring::PlackettLuceFits> Scoreboard::PlackettLuce(
    const std::shared_ptr<const ScoreboardSnapshot>& snapshot) {
  absl::MutexLock l(&fit_mu_);
  if (fit_ != nullptr && (fit_seq_ > snapshot->seq || (fit_seq_ == snapshot->seq &&
                                                       fit_race_round_ == snapshot->race_round))) {
    return fit_;
  }
  // The same results with a new race round: the same posterior, summarized again.
  const scoring::PlackettLuceFits* same_input =
      fit_ != nullptr && fit_seq_ == snapshot->seq ? fit_.get() : nullptr;
  if (same_input == nullptr) fits_++;
  fit_ = std::make_shared<const scoring::PlackettLuceFits>(scoring::FitPlackettLuce(
      snapshot->input, PlackettLuceOptions(*snapshot), same_input));
  fit_seq_ = snapshot->seq;
  fit_race_round_ = snapshot->race_round;
  return fit_;
}

scoring::ReportOptions Scoreboard::OptionsFor(const ReportRequest& request,
                                              const std::string& source,
                                              const scoring::ScoringInput& input) const {
  scoring::ReportOptions o;
  o.phase = !IsWarmStartBoard(board_) ? spec_.phase
                                      : absl::StrCat(spec_.phase, " (warm-start board)");
  o.source = source;
  o.baseline_row_name = spec_.baseline_name;
  o.bootstrap.replicates = request.bootstrap_replicates;
  o.bootstrap.seed = request.seed;
  o.bootstrap.top_k = request.top_k;
  for (const ScoreboardProblem& p : spec_.problems) {
    o.problem_info[p.name] = {p.dimension, p.attributes};
  }
  for (const auto& [method, per_problem] : input.methods) {
    if (per_problem.size() < input.problems.size()) {
      o.warnings.push_back(absl::StrCat("\"", method, "\" has results on ", per_problem.size(),
                                        " of ", input.problems.size(),
                                        " problems; its score is partial"));
    }
  }
  return o;
}

std::shared_ptr<Scoreboard::ReportSlot> Scoreboard::SlotFor(const ReportSettings& settings) {
  absl::MutexLock l(&report_mu_);
  auto it = std::find_if(report_slots_.begin(), report_slots_.end(),
                         [&](const auto& s) { return s.first == settings; });
  std::shared_ptr<ReportSlot> slot;
  if (it != report_slots_.end()) {
    slot = it->second;
    report_slots_.erase(it);
  } else {
    slot = std::make_shared<ReportSlot>();
    // A forgotten slot still computing finishes for its callers (they hold it).
    if (report_slots_.size() >= kReportSettings) report_slots_.erase(report_slots_.begin());
  }
  report_slots_.emplace_back(settings, slot);
  return slot;
}

absl::StatusOr<BoardReport> Scoreboard::Report(const ReportRequest& request,
                                               const std::string& source) {
  if (request.bootstrap_replicates < 1 || request.bootstrap_replicates > 1000000) {
    return absl::InvalidArgumentError("bootstrap_replicates: must be in [1, 10^6]");
  }
  if (request.top_k < 1) return absl::InvalidArgumentError("top_k: must be >= 1");
  ASSIGN_OR_RETURN(std::shared_ptr<const ScoreboardSnapshot> snapshot, Snapshot());
  std::shared_ptr<ReportSlot> slot = SlotFor(
      ReportSettings(request.bootstrap_replicates, request.seed, request.top_k, source));
  absl::MutexLock l(&slot->mu);
  // A report of a later snapshot (computed while this caller waited) is as good.
  if (slot->report.report != nullptr &&
      (slot->seq > snapshot->seq ||
       (slot->seq == snapshot->seq && slot->race_round == snapshot->race_round))) {
    return slot->report;
  }
  RETURN_IF_ERROR(snapshot->baseline);
  reports_++;
  const scoring::ReportOptions o = OptionsFor(request, source, snapshot->input);
  ASSIGN_OR_RETURN(scoring::Report report,
                   scoring::ComputeReport(snapshot->input, o, &report_cache_,
                                          PlackettLuce(snapshot)));
  slot->report = {snapshot, std::make_shared<const scoring::Report>(std::move(report))};
  slot->seq = snapshot->seq;
  slot->race_round = snapshot->race_round;
  return slot->report;
}

int64_t Scoreboard::scoring_cache_hits() const { return leaderboard_cache_.hits(); }

int64_t Scoreboard::scoring_cache_misses() const { return leaderboard_cache_.misses(); }

}  // namespace bbo
