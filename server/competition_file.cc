#include "server/competition_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"
#include "problems/library.h"
#include "problems/practice_suite.h"
#include "problems/registry.h"
#include "problems/test_problems.h"
#include "server/registration.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::vector<std::string>& TopKeys() {
  static const auto* k = new std::vector<std::string>{"name",  "seed",        "phases",
                                                      "title", "description", "terms",
                                                      "registration", "max_teams"};
  return *k;
}

const std::vector<std::string>& PhaseKeys() {
  static const auto* k = new std::vector<std::string>{
      "name", "title", "rules", "start", "end", "suite", "suite_file", "problem_set", "problems",
      "suite_seed", "generated_family", "design_file", "generated_tasks", "batch_size",
      "n_batches", "suggest_budget_s", "study_budget_s", "startup_budget_s",
      "optimizer_memory_mb", "optimizer_max_tasks", "optimizer_cpus", "optimizer_tmp_mb",
      "default_trials", "max_trials", "baseline_trials", "use_known_optimum", "hidden",
      "anonymize", "warm_start_board", "evaluate_once", "max_submissions_per_team",
      "max_submissions_per_team_per_day", "accepts_submissions", "migrate_from", "board", "racing",
      "evaluate_on", "leaderboard_rows"};
  return *k;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

const std::vector<std::string>& RacingKeys() {
  static const auto* k = new std::vector<std::string>{
      "alpha", "epsilon", "elimination", "resolution", "initial_batch", "b_min", "b_max",
      "shrink_fraction", "quorum"};
  return *k;
}

absl::Status CheckKeys(const json& obj, const std::vector<std::string>& known,
                       const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string* best = nullptr;
    size_t best_d = 4;
    for (const std::string& k : known) {
      size_t d = EditDistance(key, k);
      if (d < best_d) {
        best_d = d;
        best = &k;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        where, "unknown key \"", key, "\"",
        best != nullptr ? absl::StrCat(" (did you mean \"", *best, "\"?)") : std::string()));
  }
  return absl::OkStatus();
}

bool ValidPhaseName(const std::string& n) {
  if (n.empty() || n.size() > 32 || n == "main" || n == "warm-start") return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// Reads `key` of `obj` into `out` when present; InvalidArgument naming it on a type mismatch.
template <typename T>
absl::Status Read(const json& obj, const char* key, const std::string& where, T* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return absl::OkStatus();
  const json& v = *it;
  bool ok = false;
  if constexpr (std::is_same_v<T, bool>) {
    ok = v.is_boolean();
  } else if constexpr (std::is_same_v<T, std::string>) {
    ok = v.is_string();
  } else if constexpr (std::is_integral_v<T>) {
    ok = v.is_number_integer() && (std::is_signed_v<T> || v.get<int64_t>() >= 0);
  } else if constexpr (std::is_floating_point_v<T>) {
    ok = v.is_number();
  } else {
    ok = v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) {
           return e.is_string();
         });
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"", key, "\" has the wrong type (", v.type_name(), ")"));
  }
  *out = v.get<T>();
  return absl::OkStatus();
}

absl::Status ReadTime(const json& obj, const char* key, const std::string& where,
                      std::optional<absl::Time>* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return absl::OkStatus();
  std::string err;
  absl::Time t;
  if (!it->is_string() || !absl::ParseTime(absl::RFC3339_full, it->get<std::string>(), &t, &err)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"", key, "\" must be an RFC 3339 time such as \"2026-07-01T00:00:00Z\"",
        it->is_string() ? absl::StrCat(" (", err, ")") : std::string()));
  }
  *out = t;
  return absl::OkStatus();
}

// "racing": true / false, or an object of RacingKeys() (the rest take their defaults).
absl::Status ReadRacing(const json& r, const std::string& phase_where, RacingSpec* out) {
  const std::string where = absl::StrCat(phase_where, "\"racing\": ");
  if (r.is_boolean()) {
    out->enabled = r.get<bool>();
    return absl::OkStatus();
  }
  if (!r.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "must be true, false or an object of racing settings"));
  }
  out->enabled = true;
  RETURN_IF_ERROR(CheckKeys(r, RacingKeys(), where));
  RETURN_IF_ERROR(Read(r, "alpha", where, &out->alpha));
  RETURN_IF_ERROR(Read(r, "epsilon", where, &out->epsilon));
  RETURN_IF_ERROR(Read(r, "elimination", where, &out->elimination));
  RETURN_IF_ERROR(Read(r, "resolution", where, &out->resolution));
  RETURN_IF_ERROR(Read(r, "initial_batch", where, &out->initial_batch));
  RETURN_IF_ERROR(Read(r, "b_min", where, &out->b_min));
  RETURN_IF_ERROR(Read(r, "b_max", where, &out->b_max));
  RETURN_IF_ERROR(Read(r, "shrink_fraction", where, &out->shrink_fraction));
  if (!(out->alpha > 0.5 && out->alpha <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(where, "\"alpha\" must be in (0.5, 1]"));
  }
  if (!(out->epsilon >= 0 && out->epsilon < 0.5)) {
    return absl::InvalidArgumentError(absl::StrCat(where, "\"epsilon\" must be in [0, 0.5)"));
  }
  if (out->elimination != "pointwise" && out->elimination != "joint") {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"elimination\" must be \"pointwise\" or \"joint\""));
  }
  if (out->resolution != "strict" && out->resolution != "crossing") {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"resolution\" must be \"strict\" or \"crossing\""));
  }
  if (out->b_min < 1 || out->b_max < out->b_min || out->initial_batch < out->b_min ||
      out->initial_batch > out->b_max || out->b_max > 100000) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "need 1 <= \"b_min\" <= \"initial_batch\" <= \"b_max\" <= 100000"));
  }
  if (!(out->shrink_fraction > 0 && out->shrink_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"shrink_fraction\" must be in (0, 1]"));
  }
  RETURN_IF_ERROR(Read(r, "quorum", where, &out->quorum));
  if (out->quorum < 1 || out->quorum > 100000) {
    return absl::InvalidArgumentError(absl::StrCat(where, "\"quorum\" must be in [1, 100000]"));
  }
  return absl::OkStatus();
}

std::string Resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || base_dir.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

// The phase's title, rules and opening hours.
absl::Status ReadSchedule(const json& p, const std::string& where, PhaseSpec* s) {
  RETURN_IF_ERROR(Read(p, "title", where, &s->title));
  RETURN_IF_ERROR(Read(p, "rules", where, &s->rules));
  RETURN_IF_ERROR(ReadTime(p, "start", where, &s->start));
  RETURN_IF_ERROR(ReadTime(p, "end", where, &s->end));
  if (s->start && s->end && *s->end <= *s->start) {
    return absl::InvalidArgumentError(absl::StrCat(where, "\"end\" ", FormatUtc(*s->end),
                                                   " is not after \"start\" ",
                                                   FormatUtc(*s->start)));
  }
  return absl::OkStatus();
}

// Where the phase's problems come from: one of a suite, a suite file or a problem set (the
// practice set when none is given); relative files are resolved against `base_dir`.
absl::Status ReadProblems(const json& p, const std::string& where, const std::string& base_dir,
                          PhaseProblems* pr) {
  RETURN_IF_ERROR(Read(p, "suite", where, &pr->suite));
  RETURN_IF_ERROR(Read(p, "suite_file", where, &pr->suite_file));
  RETURN_IF_ERROR(Read(p, "problem_set", where, &pr->problem_set));
  RETURN_IF_ERROR(Read(p, "problems", where, &pr->problems));
  RETURN_IF_ERROR(Read(p, "suite_seed", where, &pr->suite_seed));
  RETURN_IF_ERROR(Read(p, "generated_family", where, &pr->generated_family));
  RETURN_IF_ERROR(Read(p, "design_file", where, &pr->design_file));
  RETURN_IF_ERROR(Read(p, "generated_tasks", where, &pr->generated_tasks));
  const int sources =
      !pr->suite.empty() + !pr->suite_file.empty() + !pr->problem_set.empty();
  if (sources > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "give one of \"suite\", \"suite_file\" and \"problem_set\""));
  }
  if (sources == 0) pr->problem_set = "practice";
  if (!pr->problem_set.empty() && pr->problem_set != "practice" && pr->problem_set != "test") {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"problem_set\" must be \"practice\" or \"test\""));
  }
  pr->suite_file = Resolve(pr->suite_file, base_dir);
  pr->design_file = Resolve(pr->design_file, base_dir);
  return absl::OkStatus();
}

// The study budget and the optimizer's resource limits.
absl::Status ReadBudgetAndLimits(const json& p, const std::string& where, PhaseSpec* s) {
  RETURN_IF_ERROR(Read(p, "batch_size", where, &s->budget.batch_size));
  RETURN_IF_ERROR(Read(p, "n_batches", where, &s->budget.n_batches));
  RETURN_IF_ERROR(Read(p, "suggest_budget_s", where, &s->budget.suggest_budget_s));
  RETURN_IF_ERROR(Read(p, "study_budget_s", where, &s->budget.study_budget_s));
  RETURN_IF_ERROR(Read(p, "startup_budget_s", where, &s->startup_budget_s));
  RETURN_IF_ERROR(Read(p, "optimizer_memory_mb", where, &s->limits.memory_mb));
  RETURN_IF_ERROR(Read(p, "optimizer_max_tasks", where, &s->limits.max_tasks));
  RETURN_IF_ERROR(Read(p, "optimizer_cpus", where, &s->limits.cpus));
  RETURN_IF_ERROR(Read(p, "optimizer_tmp_mb", where, &s->limits.tmp_mb));
  if (absl::Status v = s->budget.Validate(); !v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, v.message()));
  }
  if (absl::Status v = s->limits.Validate(); !v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, v.message()));
  }
  if (!(s->startup_budget_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(where, "\"startup_budget_s\" must be > 0"));
  }
  return absl::OkStatus();
}

// How many trials a submission runs (by default, at most) and a baseline runs.
absl::Status ReadTrials(const json& p, const std::string& where, PhaseSpec* s) {
  RETURN_IF_ERROR(Read(p, "default_trials", where, &s->default_trials));
  RETURN_IF_ERROR(Read(p, "max_trials", where, &s->max_trials));
  RETURN_IF_ERROR(Read(p, "baseline_trials", where, &s->baseline_trials));
  if (s->max_trials < 1 || s->max_trials > 1000 || s->default_trials < 1 ||
      s->default_trials > s->max_trials || s->baseline_trials < 0 || s->baseline_trials > 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "trials: need 1 <= default_trials <= max_trials <= 1000 and 0 <= "
               "baseline_trials <= 1000"));
  }
  return absl::OkStatus();
}

// How studies are evaluated and what participants see of the problems.
absl::Status ReadEvaluation(const json& p, const std::string& where, PhaseSpec* s) {
  RETURN_IF_ERROR(Read(p, "use_known_optimum", where, &s->use_known_optimum));
  RETURN_IF_ERROR(Read(p, "hidden", where, &s->hidden));
  RETURN_IF_ERROR(Read(p, "anonymize", where, &s->anonymize));
  RETURN_IF_ERROR(Read(p, "warm_start_board", where, &s->warm_start_board));
  RETURN_IF_ERROR(Read(p, "evaluate_once", where, &s->evaluate_once));
  std::string evaluate_on = "workers";
  RETURN_IF_ERROR(Read(p, "evaluate_on", where, &evaluate_on));
  if (evaluate_on != "workers" && evaluate_on != "coordinator") {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"evaluate_on\" must be \"workers\" (the default: each study's worker "
               "evaluates its objective) or \"coordinator\""));
  }
  s->evaluate_on_coordinator = evaluate_on == "coordinator";
  if (s->warm_start_board && !s->anonymize) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"warm_start_board\" needs \"anonymize\" (it would repeat the main board)"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsLeaderboardRowRule(const std::string& rule) {
  return rule == "submission" || rule == "team_best" || rule == "team_latest" ||
         rule == "team_chosen";
}

namespace {

// Who may submit (quotas, migration from an earlier phase) and when the board is shown.
absl::Status ReadSubmissionsAndBoard(const json& p, const std::string& where, PhaseSpec* s) {
  RETURN_IF_ERROR(Read(p, "max_submissions_per_team", where, &s->max_submissions_per_team));
  RETURN_IF_ERROR(Read(p, "max_submissions_per_team_per_day", where,
                       &s->max_submissions_per_team_per_day));
  if (s->max_submissions_per_team < 0 || s->max_submissions_per_team_per_day < 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, "submission quotas must be >= 0"));
  }
  RETURN_IF_ERROR(Read(p, "migrate_from", where, &s->migrate_from));
  s->accepts_submissions = s->migrate_from.empty();
  RETURN_IF_ERROR(Read(p, "accepts_submissions", where, &s->accepts_submissions));
  std::string board = "public";
  RETURN_IF_ERROR(Read(p, "board", where, &board));
  if (board != "public" && board != "hidden_until_published") {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"board\" must be \"public\" or \"hidden_until_published\", not \"", board,
        "\""));
  }
  s->board_hidden_until_published = board == "hidden_until_published";
  RETURN_IF_ERROR(Read(p, "leaderboard_rows", where, &s->leaderboard_rows));
  if (!IsLeaderboardRowRule(s->leaderboard_rows)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"leaderboard_rows\" must be \"submission\", \"team_best\", \"team_latest\" or "
               "\"team_chosen\", not \"", s->leaderboard_rows, "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<PhaseSpec> ParsePhase(const json& p, size_t index, const std::string& base_dir) {
  std::string where = absl::StrCat("phases[", index, "]: ");
  if (!p.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, "not an object"));
  PhaseSpec s;
  RETURN_IF_ERROR(Read(p, "name", where, &s.name));
  if (!ValidPhaseName(s.name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"name\" \"", s.name, "\" is not a phase name (1-32 of a-z, 0-9, '_', '-'; "
        "not \"main\" or \"warm-start\")"));
  }
  where = absl::StrCat("phase \"", s.name, "\": ");
  RETURN_IF_ERROR(CheckKeys(p, PhaseKeys(), where));
  RETURN_IF_ERROR(ReadSchedule(p, where, &s));
  RETURN_IF_ERROR(ReadProblems(p, where, base_dir, &s.problems));
  RETURN_IF_ERROR(ReadBudgetAndLimits(p, where, &s));
  RETURN_IF_ERROR(ReadTrials(p, where, &s));
  RETURN_IF_ERROR(ReadEvaluation(p, where, &s));
  RETURN_IF_ERROR(ReadSubmissionsAndBoard(p, where, &s));
  if (p.contains("racing")) RETURN_IF_ERROR(ReadRacing(p["racing"], where, &s.racing));
  return s;
}

}  // namespace

std::string FormatUtc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string FormatTimeLeft(absl::Duration d) {
  int64_t s = absl::ToInt64Seconds(d);
  if (s < 0) s = 0;
  if (s >= 86400) return absl::StrCat(s / 86400, " d ", (s % 86400) / 3600, " h");
  if (s >= 3600) return absl::StrCat(s / 3600, " h ", (s % 3600) / 60, " min");
  if (s >= 60) return absl::StrCat(s / 60, " min ", s % 60, " s");
  return absl::StrCat(s, " s");
}

std::string PhaseSpec::Fingerprint() const {
  json j;
  j["suite"] = problems.suite;
  j["suite_file"] = problems.suite_file.empty() ? "" : fs::path(problems.suite_file).filename().string();
  j["problem_set"] = problems.problem_set;
  j["problems"] = problems.problems;
  j["suite_seed"] = problems.suite_seed;
  j["generated_family"] = problems.generated_family;
  j["generated_tasks"] = problems.generated_tasks;
  j["batch_size"] = budget.batch_size;
  j["n_batches"] = budget.n_batches;
  j["suggest_budget_s"] = budget.suggest_budget_s;
  j["study_budget_s"] = budget.study_budget_s;
  j["default_trials"] = default_trials;
  j["baseline_trials"] = baseline_trials;
  j["anonymize"] = anonymize;
  j["warm_start_board"] = warm_start_board;
  j["evaluate_once"] = evaluate_once;
  j["optimizer_memory_mb"] = limits.memory_mb;
  j["optimizer_max_tasks"] = limits.max_tasks;
  j["optimizer_cpus"] = limits.cpus;
  j["optimizer_tmp_mb"] = limits.tmp_mb;
  // Only when set, so the fingerprints of phases without racing stay what they were.
  if (racing.enabled) {
    j["racing"] = racing.ToJson();
    // Only when set, so the fingerprints of racing phases recorded before it stay the same.
    if (racing.quorum == RacingSpec{}.quorum) j["racing"].erase("quorum");
  }
  return j.dump();  // nlohmann's object keys are sorted: canonical
}

bool PhaseSpec::OpenAt(absl::Time now) const {
  return (!start || now >= *start) && (!end || now < *end);
}

std::string PhaseSpec::WindowText() const {
  auto fmt = [](absl::Time t) {
    return absl::FormatTime("%Y-%m-%d %H:%M UTC", t, absl::UTCTimeZone());
  };
  return absl::StrCat(start ? absl::StrCat("from ", fmt(*start)) : std::string("open"),
                      end ? absl::StrCat(" until ", fmt(*end)) : std::string(", no end"));
}

const PhaseSpec* CompetitionSpec::Find(const std::string& name) const {
  for (const PhaseSpec& p : phases) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

absl::StatusOr<CompetitionSpec> ParseCompetitionFile(const std::string& text,
                                                     const std::string& base_dir) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded()) {
    // Parse again with exceptions for the position of the error.
    try {
      (void)json::parse(text, nullptr, true, true);
    } catch (const json::parse_error& e) {
      return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", e.what()));
    }
    return absl::InvalidArgumentError("not valid JSON");
  }
  if (!doc.is_object()) return absl::InvalidArgumentError("the file must hold a JSON object");
  RETURN_IF_ERROR(CheckKeys(doc, TopKeys(), ""));
  CompetitionSpec c;
  RETURN_IF_ERROR(Read(doc, "name", "", &c.name));
  RETURN_IF_ERROR(Read(doc, "seed", "", &c.seed));
  RETURN_IF_ERROR(Read(doc, "title", "", &c.title));
  RETURN_IF_ERROR(Read(doc, "description", "", &c.description));
  RETURN_IF_ERROR(Read(doc, "terms", "", &c.terms));
  RETURN_IF_ERROR(Read(doc, "registration", "", &c.registration));
  if (!RegistrationModeFromName(c.registration)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"registration\": \"", c.registration,
        "\" is not one of \"closed\", \"open\", \"invite_code\", \"approval\""));
  }
  RETURN_IF_ERROR(Read(doc, "max_teams", "", &c.max_teams));
  if (c.max_teams < 0 || c.max_teams > 1000000) {
    return absl::InvalidArgumentError("\"max_teams\": from 0 (no bound) to 1000000");
  }
  auto phases = doc.find("phases");
  if (phases == doc.end() || !phases->is_array() || phases->empty()) {
    return absl::InvalidArgumentError("\"phases\" must be a non-empty list of phases");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < phases->size(); ++i) {
    ASSIGN_OR_RETURN(PhaseSpec p, ParsePhase((*phases)[i], i, base_dir));
    if (!names.insert(p.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("phase \"", p.name, "\" appears twice"));
    }
    if (!p.migrate_from.empty()) {
      const PhaseSpec* from = c.Find(p.migrate_from);
      if (from == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "phase \"", p.name, "\": \"migrate_from\" \"", p.migrate_from,
            "\" is not a phase listed before it"));
      }
      if (!from->end) {
        return absl::InvalidArgumentError(absl::StrCat(
            "phase \"", p.name, "\": migrates from \"", from->name,
            "\", which has no \"end\" (migration happens at its end)"));
      }
    }
    c.phases.push_back(std::move(p));
  }
  return c;
}

absl::StatusOr<CompetitionSpec> LoadCompetitionFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read competition file ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<CompetitionSpec> c =
      ParseCompetitionFile(ss.str(), fs::path(path).parent_path().string());
  if (!c.ok()) {
    return absl::Status(c.status().code(), absl::StrCat(path, ": ", c.status().message()));
  }
  return c;
}

absl::StatusOr<std::map<std::string, ProblemDefinition>> PhaseProblemDefinitions(
    const PhaseProblems& p, const std::vector<std::unique_ptr<Problem>>& problems) {
  std::vector<std::string> names;
  for (const auto& problem : problems) names.push_back(problem->name());
  SuiteOptions so;
  so.seed = p.suite_seed;
  so.generated_family = p.generated_family;
  so.design_file = p.design_file;
  so.generated_tasks = p.generated_tasks;
  const std::string suite = !p.suite.empty() || !p.suite_file.empty() ? p.suite
                            : p.problem_set == "test"                 ? "test"
                                                                      : "practice";
  return SuiteDefinitions(suite, p.suite_file, so, names);
}

absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakePhaseProblems(
    const PhaseProblems& p, int max_processes_per_problem) {
  std::vector<std::unique_ptr<Problem>> out;
  if (!p.suite.empty() || !p.suite_file.empty()) {
    SuiteOptions so;
    so.max_processes_per_problem = std::max(1, max_processes_per_problem);
    so.seed = p.suite_seed;
    so.generated_family = p.generated_family;
    so.design_file = p.design_file;
    so.generated_tasks = p.generated_tasks;
    so.sklearn_problems = p.problems;
    ASSIGN_OR_RETURN(auto suite, p.suite_file.empty() ? MakeSuite(p.suite, so)
                                                      : MakeSuiteFromFile(p.suite_file, so));
    for (auto& problem : suite) {
      if (p.problems.empty() ||
          std::find(p.problems.begin(), p.problems.end(), problem->name()) != p.problems.end()) {
        out.push_back(std::move(problem));
      }
    }
    if (out.size() < std::max<size_t>(1, p.problems.size())) {
      return absl::InvalidArgumentError("problems: names a problem that is not in the suite");
    }
    return out;
  }
  if (p.problem_set == "test") {
    out.push_back(MakeCrashingProblem(0.1));
    return out;
  }
  if (p.problem_set != "practice" && !p.problem_set.empty()) {
    return absl::InvalidArgumentError("problem_set must be practice or test");
  }
  if (p.problems.empty()) return MakePracticeSuite();
  for (const std::string& name : p.problems) {
    ASSIGN_OR_RETURN(auto problem, MakeProblem(name));
    out.push_back(std::move(problem));
  }
  return out;
}

nlohmann::json RacingSpec::ToJson() const {
  return {{"alpha", alpha},
          {"epsilon", epsilon},
          {"elimination", elimination},
          {"resolution", resolution},
          {"initial_batch", initial_batch},
          {"b_min", b_min},
          {"b_max", b_max},
          {"shrink_fraction", shrink_fraction},
          {"quorum", quorum}};
}

absl::StatusOr<RacingSpec> RacingSpec::FromJson(const nlohmann::json& j) {
  RacingSpec r;
  RETURN_IF_ERROR(ReadRacing(j, "", &r));
  return r;
}

}  // namespace bbo
