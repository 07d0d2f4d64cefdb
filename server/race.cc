#include "server/race.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "report/report.h"
#include "scoring/plackett_luce/traces.h"
#include "server/requeue.h"
#include "server/store/records.h"
#include "spdlog/spdlog.h"

namespace bbo {

namespace pl = scoring::pl;
using nlohmann::json;

namespace {

bool Finished(JobState s) { return s == JobState::kDone || s == JobState::kFailed; }

// The batches a job's study runs.
int BatchesOf(const RaceResultRecord& r, int n_batches) {
  return r.max_batches > 0 && r.max_batches < n_batches ? r.max_batches : n_batches;
}

}  // namespace

json RaceView::ToJson() const {
  json j;
  j["phase"] = phase;
  j["rounds"] = rounds;
  json history_json = json::array();
  for (const RaceRoundView& r : history) {
    history_json.push_back({{"round", r.round},
                            {"created_at", r.created_at},
                            {"batch_size", r.batch_size},
                            {"jobs", r.jobs},
                            {"stop", r.stop},
                            {"note", r.note}});
  }
  j["history"] = std::move(history_json);
  j["stopped"] = stopped;
  j["note"] = note;
  j["batch_size"] = batch_size;
  j["instances_sampled"] = instances_sampled;
  j["instances_total"] = instances_total;
  j["candidates"] = candidates;
  j["eliminated_by"] = eliminated_by;
  j["eliminated_round"] = eliminated_round;
  j["withdrawn"] = withdrawn;
  j["jobs_queued"] = jobs_queued;
  j["evaluations_planned"] = evaluations_planned;
  j["evaluations_run"] = evaluations_run;
  j["evaluations_full"] = evaluations_full;
  j["evaluations_saved"] = evaluations_full - evaluations_planned;
  j["saved_fraction"] = saved_fraction();
  return j;
}

pl::DecisionOptions RaceDecisionOptions(const RacingSpec& r) {
  pl::DecisionOptions o;
  o.alpha = r.alpha;
  o.epsilon = r.epsilon;
  o.elimination = r.elimination == "joint" ? pl::Elimination::kJoint : pl::Elimination::kPointwise;
  o.resolution = r.resolution == "crossing" ? pl::Resolution::kCrossing : pl::Resolution::kStrict;
  return o;
}

RaceDriverOptions RaceDriverOptions::OfBoard(const ScoreboardSpec& spec) {
  RaceDriverOptions o;
  o.phase_key = spec.race->phase_key;
  for (const ScoreboardProblem& p : spec.problems) o.problems.push_back(p.name);
  o.trials = spec.race->trials;
  o.budget.batch_size = spec.batch_size;
  o.budget.n_batches = spec.n_batches;
  o.boards = {MainBoardKey(o.phase_key)};
  o.seed = spec.race->seed;
  o.racing = spec.race->racing;
  return o;
}

RaceDriver::RaceDriver(Store* store, Clock* clock, RaceDriverOptions options, Scoreboard* board)
    : store_(store), clock_(clock), options_(std::move(options)), board_(board) {
  // Every (problem, trial) once, in an order fixed by the seed and the phase (Fisher-Yates).
  for (int t = 0; t < options_.trials; ++t) {
    for (int p = 0; p < static_cast<int>(options_.problems.size()); ++p) {
      instances_.push_back({p, t});
    }
  }
  // FNV-1a of the phase's key: the same order from every build (std::hash may differ), so a
  // coordinator upgraded mid-race maps the instances drawn so far to the same (problem, trial).
  uint64_t phase_hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : options_.phase_key) phase_hash = (phase_hash ^ c) * 0x100000001b3ULL;
  std::mt19937_64 rng(static_cast<uint64_t>(options_.seed) * 0x9e3779b97f4a7c15ULL ^ phase_hash);
  for (size_t i = instances_.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng() % i);
    std::swap(instances_[i - 1], instances_[j]);
  }
}

pl::RacingOptions RaceDriver::PlannerOptions() const {
  pl::RacingOptions o;
  const RacingSpec& r = options_.racing;
  o.decisions = RaceDecisionOptions(r);
  o.initial_batch = r.initial_batch;
  o.b_min = r.b_min;
  o.b_max = r.b_max;
  o.shrink_fraction = r.shrink_fraction;
  return o;
}

json RaceDriver::StateJson(const pl::RaceState& s) {
  std::string resolved(s.resolved.size(), '0');
  for (size_t i = 0; i < s.resolved.size(); ++i) {
    if (s.resolved[i]) resolved[i] = '1';
  }
  return json{{"methods", s.methods},
              {"T", s.T},
              {"eliminated_round", s.eliminated_round},
              {"eliminated_by", s.eliminated_by},
              {"resolved", resolved},
              {"batch_size", s.batch_size},
              {"round", s.round},
              {"instances_sampled", s.instances_sampled},
              {"first_instance", s.first_instance},
              {"backfilled", s.backfilled}};
}

absl::StatusOr<pl::RaceState> RaceDriver::StateFromJson(const std::string& text) {
  try {
    const json j = json::parse(text);
    pl::RaceState s;
    s.methods = j.at("methods").get<std::vector<std::string>>();
    s.T = j.at("T").get<int>();
    s.eliminated_round = j.at("eliminated_round").get<std::vector<int>>();
    s.eliminated_by = j.at("eliminated_by").get<std::vector<std::string>>();
    const std::string resolved = j.at("resolved").get<std::string>();
    s.resolved.assign(resolved.size(), false);
    for (size_t i = 0; i < resolved.size(); ++i) s.resolved[i] = resolved[i] == '1';
    s.batch_size = j.at("batch_size").get<int>();
    s.round = j.at("round").get<int>();
    s.instances_sampled = j.at("instances_sampled").get<int>();
    s.first_instance = j.at("first_instance").get<std::vector<int>>();
    s.backfilled = j.at("backfilled").get<std::vector<int>>();
    const size_t n = s.methods.size();
    if (s.eliminated_round.size() != n || s.eliminated_by.size() != n ||
        s.first_instance.size() != n || s.backfilled.size() != n ||
        s.resolved.size() != n * (n - (n > 0)) / 2 * static_cast<size_t>(s.T)) {
      return absl::DataLossError("a race round's state has inconsistent sizes");
    }
    return s;
  } catch (const json::exception& e) {
    return absl::DataLossError(absl::StrCat("a race round's state is unreadable: ", e.what()));
  }
}

absl::StatusOr<std::shared_ptr<const pl::RatingPosterior>> RaceDriver::Posterior() {
  ASSIGN_OR_RETURN(std::shared_ptr<const ScoreboardSnapshot> snapshot, board_->Snapshot());
  const std::shared_ptr<const scoring::PlackettLuceFits> fits = board_->PlackettLuce(snapshot);
  if (fits->batches.ok() && fits->batches->posterior != nullptr) return fits->batches->posterior;
  // Fewer than two entries with results (or every one taken out): a posterior that knows the
  // entries with data and decides nothing.
  ASSIGN_OR_RETURN(pl::TimeGrid grid, pl::BatchGrid(options_.budget.n_batches));
  auto post = std::make_shared<pl::RatingPosterior>();
  post->model = "independent_dirichlet";
  post->inference = "none";
  for (const auto& [m, unused] : snapshot->input.methods) post->methods.push_back(m);
  post->grid = grid;
  post->chains = 1;
  post->draws_per_chain = 1;
  post->theta.assign(static_cast<size_t>(grid.size()) * post->methods.size(), 1.0);
  return std::shared_ptr<const pl::RatingPosterior>(std::move(post));
}

std::vector<RaceJob> RaceDriver::JobsOf(const std::vector<pl::MethodRun>& runs,
                                        const std::map<std::string, int64_t>& ids) const {
  const int n_batches = options_.budget.n_batches;
  const int pool = static_cast<int>(instances_.size());
  std::vector<RaceJob> jobs;
  for (const pl::MethodRun& run : runs) {
    auto id = ids.find(run.method);
    if (id == ids.end()) continue;
    // Grid index tau is batch tau + 1 (BatchGrid: 1, 2, ..., n_batches).
    const int batches = std::clamp(run.tau + 1, 1, n_batches);
    auto add = [&](int begin, int end) {
      for (int k = std::max(begin, 0); k < std::min(end, pool); ++k) {
        const auto [p, t] = instances_[static_cast<size_t>(k)];
        RaceJob j;
        j.submission_id = id->second;
        j.problem = options_.problems[static_cast<size_t>(p)];
        j.trial = t;
        // As the jobs of a phase without racing are seeded (server/store/internal/job_plan.cc).
        j.seed = (options_.seed * 1000003 + id->second * 7919 + t * 104729 + p) & 0x7fffffff;
        j.max_batches = batches < n_batches ? batches : 0;
        jobs.push_back(std::move(j));
      }
    };
    if (run.new_instances) add(run.new_begin, run.new_end);
    add(run.cached_begin, run.cached_end);
  }
  return jobs;
}

absl::Status RaceDriver::Record(int round, const pl::RaceState& state, bool stop,
                                const std::string& note, const std::vector<RaceJob>& jobs) {
  RaceRoundRecord rec;
  rec.phase = options_.phase_key;
  rec.round = round;
  rec.state_json = StateJson(state).dump();
  rec.stop = stop;
  rec.note = note;
  rec.created_at = clock_->NowSeconds();
  absl::Status st = store_->AddRaceRound(rec, jobs, options_.boards);
  if (absl::IsAlreadyExists(st)) {
    // Another coordinator's call recorded this round first; or a job of the round exists already,
    // which would be a bug: say so rather than retry silently.
    ASSIGN_OR_RETURN(std::vector<RaceRoundRecord> rounds, store_->ListRaceRounds(rec.phase));
    if (!rounds.empty() && rounds.back().round >= round) return absl::OkStatus();
    return absl::InternalError(absl::StrCat("round ", round, " of the race of phase \"",
                                            rec.phase, "\" repeats a job: ", st.message()));
  }
  RETURN_IF_ERROR(st);
  spdlog::info("event=race_round phase={} round={} b={} jobs={} stop={} note=\"{}\"",
               options_.phase_key, round, state.batch_size, jobs.size(), stop, note);
  return absl::OkStatus();
}

absl::StatusOr<RaceDriver::Entrants> RaceDriver::ListEntrants() {
  ASSIGN_OR_RETURN(std::vector<SubmissionRecord> all, store_->ListSubmissions());
  Entrants e;
  for (const SubmissionRecord& s : all) {
    if (s.phase != options_.phase_key || s.is_baseline) continue;
    e.names[s.id] = s.name;
    e.ids[s.name] = s.id;
    e.in_order.push_back(s.name);
    if (!s.withdrawn.empty()) e.withdrawn.insert(s.name);
  }
  return e;
}

bool RaceDriver::QuorumReached(size_t entries) const {
  if (entries >= static_cast<size_t>(std::max(1, options_.racing.quorum))) return true;
  Clock* calendar = options_.calendar != nullptr ? options_.calendar : clock_;
  return entries > 0 && options_.entries_close && calendar->Now() >= *options_.entries_close;
}

absl::StatusOr<bool> RaceDriver::StartRound(const Entrants& e) {
  std::vector<std::string> entered;
  for (const std::string& name : e.in_order) {
    if (!e.withdrawn.count(name)) entered.push_back(name);
  }
  if (!QuorumReached(entered.size())) return false;  // round 0 waits (View says for what)
  ASSIGN_OR_RETURN(pl::RaceState state,
                   pl::StartRace(entered, options_.budget.n_batches, PlannerOptions()));
  pl::RoundPlan plan = pl::FirstRound(state);
  std::string note = absl::StrCat("started with ", entered.size(), " submission(s) on ",
                                  plan.new_instances, " instance(s)");
  bool stop = false;
  if (plan.runs.empty()) {
    // One submission: nothing to race, but it still runs the first round's instances, so that
    // it has a score; a later submission is raced against it from there.
    pl::MethodRun run;
    run.method = state.methods.front();
    run.tau = state.T - 1;
    run.new_instances = true;
    run.new_begin = 0;
    run.new_end = state.batch_size;
    plan.runs.push_back(run);
    plan.state.instances_sampled = state.batch_size;
    stop = true;
    note = absl::StrCat("one submission on ", state.batch_size,
                        " instance(s): nothing to race until another one arrives");
  }
  const std::vector<RaceJob> jobs = JobsOf(plan.runs, e.ids);
  RETURN_IF_ERROR(Record(0, plan.state, stop || jobs.empty(), note, jobs));
  return true;
}

absl::StatusOr<bool> RaceDriver::RoundFinished(const Entrants& e) {
  // Cheap first (the sweep asks every second): is any job of the race still to run?
  for (const auto& [id, name] : e.names) {
    ASSIGN_OR_RETURN(JobCounts c, store_->CountJobs(id));
    if (c.queued + c.leased > 0) return false;
  }
  ASSIGN_OR_RETURN(std::vector<RaceResultRecord> results,
                   store_->RaceResults(options_.phase_key, options_.boards.front()));
  for (const RaceResultRecord& r : results) {
    if (!Finished(r.state)) return false;  // the round is still running
  }
  return true;
}

absl::StatusOr<bool> RaceDriver::NextRound(const Entrants& e, const RaceRoundRecord& last,
                                           pl::RaceState state,
                                           const std::vector<std::string>& arrived) {
  // Late submissions join without restarting anything (PolarBear §4.3); withdrawn ones leave.
  for (const std::string& name : arrived) {
    ASSIGN_OR_RETURN(state, pl::AdmitMethod(state, name));
  }
  std::vector<std::string> left;
  for (int i = 0; i < state.n(); ++i) {
    if (state.candidate(i) && e.withdrawn.count(state.methods[i])) {
      left.push_back(state.methods[i]);
      ASSIGN_OR_RETURN(state, pl::WithdrawMethod(state, state.methods[i]));
    }
  }
  // The board's fit of the results so far (one per snapshot, shared with the report and the web
  // board); the plan reads its draws, with this state's candidates.
  ASSIGN_OR_RETURN(std::shared_ptr<const pl::RatingPosterior> posterior, Posterior());
  ASSIGN_OR_RETURN(pl::RoundPlan plan, pl::PlanNextRound(state, *posterior, PlannerOptions()));
  const std::vector<RaceJob> jobs = JobsOf(plan.runs, e.ids);
  std::vector<std::string> said;
  if (!arrived.empty()) said.push_back(absl::StrCat("admitted ", absl::StrJoin(arrived, ", ")));
  if (!left.empty()) {
    said.push_back(absl::StrCat("withdrawn by their teams: ", absl::StrJoin(left, ", ")));
  }
  for (size_t i = 0; i < plan.newly_eliminated.size(); ++i) {
    said.push_back(absl::StrCat(plan.newly_eliminated[i], " eliminated (dominated by ",
                                plan.eliminated_by[i], ")"));
  }
  said.push_back(absl::StrCat(plan.newly_resolved_pairs, " of ", plan.unresolved_pairs_before,
                              " open pair(s) resolved"));
  bool stop = plan.stop;
  if (stop) {
    said.push_back("every pair of the remaining submissions is decided at every batch");
  } else if (jobs.empty()) {
    stop = true;
    said.push_back(absl::StrCat("every instance has run (", instances_.size(),
                                "); the remaining pairs stay undecided"));
  }
  RETURN_IF_ERROR(Record(last.round + 1, plan.state, stop, absl::StrJoin(said, "; "), jobs));
  return true;
}

absl::StatusOr<bool> RaceDriver::Advance() {
  absl::MutexLock l(&mu_);
  if (board_ == nullptr) {
    return absl::FailedPreconditionError("this race driver only shows the race (no board)");
  }
  ASSIGN_OR_RETURN(Entrants e, ListEntrants());
  if (e.in_order.empty()) return false;
  ASSIGN_OR_RETURN(std::vector<RaceRoundRecord> rounds, store_->ListRaceRounds(options_.phase_key));
  if (rounds.empty()) return StartRound(e);
  const RaceRoundRecord& last = rounds.back();
  ASSIGN_OR_RETURN(pl::RaceState state, StateFromJson(last.state_json));
  std::vector<std::string> arrived;
  bool withdrawn_candidate = false;
  for (const std::string& name : e.in_order) {
    const auto it = std::find(state.methods.begin(), state.methods.end(), name);
    if (it == state.methods.end()) {
      if (!e.withdrawn.count(name)) arrived.push_back(name);
    } else if (e.withdrawn.count(name)) {
      withdrawn_candidate |= state.candidate(static_cast<int>(it - state.methods.begin()));
    }
  }
  if (StoppedByOrganizer(last)) return false;
  if (last.stop && arrived.empty() && !withdrawn_candidate) return false;
  ASSIGN_OR_RETURN(bool finished, RoundFinished(e));
  if (!finished) return false;
  return NextRound(e, last, std::move(state), arrived);
}

absl::StatusOr<RaceView> RaceDriver::View() {
  RaceView v;
  v.phase = options_.phase_key;
  v.instances_total = static_cast<int>(instances_.size());
  ASSIGN_OR_RETURN(std::vector<RaceRoundRecord> rounds, store_->ListRaceRounds(options_.phase_key));
  ASSIGN_OR_RETURN(std::vector<RaceResultRecord> results,
                   store_->RaceResults(options_.phase_key, options_.boards.front()));
  ASSIGN_OR_RETURN(Entrants e, ListEntrants());
  const int n_batches = options_.budget.n_batches;
  for (const RaceResultRecord& r : results) {
    v.evaluations_run += r.evaluations;
    ++v.jobs_queued;
    // A job cancelled by a withdrawal never ran: it is not planned work.
    if (r.state == JobState::kFailed && WasWithdrawn(r.last_error)) continue;
    v.evaluations_planned += static_cast<int64_t>(BatchesOf(r, n_batches)) *
                             options_.budget.batch_size;
  }
  if (rounds.empty()) {
    size_t entered = 0;
    for (const std::string& name : e.in_order) entered += e.withdrawn.count(name) == 0;
    v.note = entered == 0 ? "not started: the phase has no submission yet"
                          : absl::StrCat("not started: waiting for ", options_.racing.quorum,
                                         " submissions (", entered, " so far)",
                                         options_.entries_close ? " or the phase's end" : "");
    return v;
  }
  for (const RaceRoundRecord& r : rounds) {
    absl::StatusOr<pl::RaceState> rs = StateFromJson(r.state_json);
    v.history.push_back({r.round, r.created_at, rs.ok() ? rs->batch_size : 0, r.jobs, r.stop,
                         r.note});
    if (r.jobs > 0) ++v.rounds;
  }
  const RaceRoundRecord& last = rounds.back();
  ASSIGN_OR_RETURN(pl::RaceState s, StateFromJson(last.state_json));
  v.stopped = last.stop;
  v.note = last.note;
  v.batch_size = s.batch_size;
  v.instances_sampled = std::min(s.instances_sampled, v.instances_total);
  int entries = 0;
  for (int i = 0; i < s.n(); ++i) {
    // Withdrawn: taken out by the race, or withdrawn since its last round.
    if (s.withdrawn(i) || e.withdrawn.count(s.methods[i])) {
      v.withdrawn.push_back(s.methods[i]);
      continue;
    }
    ++entries;
    if (s.candidate(i)) {
      v.candidates.push_back(s.methods[i]);
    } else {
      v.eliminated_by[s.methods[i]] = s.eliminated_by[i];
      v.eliminated_round[s.methods[i]] = s.eliminated_round[i];
    }
  }
  v.evaluations_full = static_cast<int64_t>(entries) * v.instances_total * n_batches *
                       options_.budget.batch_size;
  return v;
}

absl::Status RaceDriver::AcceptsEntries() {
  ASSIGN_OR_RETURN(std::vector<RaceRoundRecord> rounds, store_->ListRaceRounds(options_.phase_key));
  if (!rounds.empty() && StoppedByOrganizer(rounds.back())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the race of this phase was stopped by its organizers and runs no new entry (",
        rounds.back().note, ")"));
  }
  return absl::OkStatus();
}

absl::Status RaceDriver::Stop(RaceStore& store, const std::string& phase,
                              const std::string& actor, const std::string& reason, double now) {
  if (reason.empty()) {
    return absl::InvalidArgumentError("stop-race needs --reason: it is recorded and shown");
  }
  ASSIGN_OR_RETURN(std::vector<RaceRoundRecord> rounds, store.ListRaceRounds(phase));
  if (rounds.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "phase \"", phase, "\" has no race running (not a racing phase, or no round yet)"));
  }
  if (StoppedByOrganizer(rounds.back())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the race of phase \"", phase, "\" was already stopped: ", rounds.back().note));
  }
  RaceRoundRecord stop = rounds.back();
  stop.round += 1;
  stop.stop = true;
  stop.note = absl::StrCat(kStoppedByOrganizer, "an organizer: ", reason, " (", actor, ")");
  stop.created_at = now;
  return store.AddRaceRound(stop, {}, {});
}

}  // namespace bbo
