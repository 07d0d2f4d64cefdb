#include "server/competition.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/archive.h"
#include "common/digest.h"
#include "common/status_macros.h"
#include "scoring/report.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}


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

Competition::Competition(Store* store, const ProblemSet* problems, Clock* clock, int batch_size,
                         int n_batches, CompetitionOptions options)
    : store_(store),
      problems_(problems),
      clock_(clock),
      batch_size_(batch_size),
      n_batches_(n_batches),
      options_(std::move(options)) {}

absl::Status Competition::EnsureBaseline() {
  ASSIGN_OR_RETURN(auto existing, store_->FindSubmission(options_.baseline_name));
  if (existing) return absl::OkStatus();
  SubmissionRecord rec;
  rec.name = options_.baseline_name;
  rec.kind = SubmissionKind::kBuiltin;
  rec.digest = "builtin";
  rec.trials = options_.baseline_trials;
  rec.is_baseline = true;
  rec.created_at = clock_->NowSeconds();
  return store_->AddSubmission(rec, "", problems_->names(), options_.seed).status();
}

absl::StatusOr<RegisteredSubmission> Competition::Register(const std::string& name,
                                                           const std::string& archive,
                                                           int trials) {
  if (!ValidName(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "name: \"", name, "\" is not a valid submission name (1-64 letters, digits, '-', '_', "
        "'.')"));
  }
  if (name == options_.baseline_name) {
    return absl::AlreadyExistsError(absl::StrCat("name: \"", name, "\" is reserved"));
  }
  if (trials == 0) trials = options_.default_trials;
  if (trials < 1 || trials > options_.max_trials) {
    return absl::InvalidArgumentError(
        absl::StrCat("trials: ", trials, " is outside [1, ", options_.max_trials, "]"));
  }
  if (static_cast<int64_t>(archive.size()) > options_.max_archive_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("archive: ", archive.size(),
                                                   " bytes is over the limit of ",
                                                   options_.max_archive_bytes));
  }
  TempDir dir;
  if (dir.path().empty()) return absl::UnavailableError("cannot create a scratch directory");
  ExtractOptions eo;
  eo.max_total_bytes = options_.max_archive_bytes * 4;
  if (absl::Status s = ExtractArchive(archive, dir.path(), eo); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("archive: ", s.message()));
  }
  ASSIGN_OR_RETURN(SubmissionKind kind, DetectSubmissionKind(dir.path()));
  // Store a normalised tar so workers see one format whatever the participant uploaded.
  ASSIGN_OR_RETURN(std::string normalized, TarDirectory(dir.path()));
  SubmissionRecord rec;
  rec.name = name;
  rec.kind = kind;
  rec.digest = Fnv1a64Hex(normalized);
  rec.trials = trials;
  rec.created_at = clock_->NowSeconds();
  ASSIGN_OR_RETURN(int64_t id,
                   store_->AddSubmission(rec, normalized, problems_->names(), options_.seed));
  RegisteredSubmission out;
  out.submission_id = id;
  out.kind = kind;
  out.jobs = trials * static_cast<int>(problems_->names().size());
  return out;
}

absl::StatusOr<std::vector<SubmissionStatus>> Competition::List() {
  ASSIGN_OR_RETURN(std::vector<SubmissionRecord> subs, store_->ListSubmissions());
  std::vector<SubmissionStatus> out;
  for (auto& s : subs) {
    SubmissionStatus st;
    ASSIGN_OR_RETURN(st.jobs, store_->CountJobs(s.id));
    ASSIGN_OR_RETURN(st.studies_with_errors, store_->CountStudiesWithErrors(s.id));
    st.submission = std::move(s);
    out.push_back(std::move(st));
  }
  return out;
}

absl::StatusOr<LeaderboardReport> Competition::Leaderboard() {
  // One computation at a time; readers of an unchanged board get the cached copy.
  absl::MutexLock l(&cache_mu_);
  ASSIGN_OR_RETURN(bool changed, RefreshInput());
  if (cached_ != nullptr && !changed) return *cached_;
  RETURN_IF_ERROR(BaselineReady());
  computations_++;
  ASSIGN_OR_RETURN(scoring::Leaderboard board,
                   scoring::ComputeLeaderboard(input_, options_.baseline_name, &scoring_cache_));
  LeaderboardReport out;
  out.batch_size = batch_size_;
  out.n_batches = n_batches_;
  out.json = LeaderboardToJson(board, batch_size_, n_batches_);
  out.board = std::move(board);
  cached_ = std::make_shared<const LeaderboardReport>(out);
  return out;
}

absl::StatusOr<std::shared_ptr<const nlohmann::json>> Competition::Report(
    const ReportRequest& request) {
  if (!request.phase.empty() && request.phase != options_.phase) {
    return absl::NotFoundError(absl::StrCat("this coordinator hosts phase \"", options_.phase,
                                            "\", not \"", request.phase, "\""));
  }
  if (request.bootstrap_replicates < 1 || request.bootstrap_replicates > 1000000) {
    return absl::InvalidArgumentError("bootstrap_replicates: must be in [1, 10^6]");
  }
  if (request.top_k < 1) return absl::InvalidArgumentError("top_k: must be >= 1");
  absl::MutexLock l(&cache_mu_);
  ASSIGN_OR_RETURN(bool changed, RefreshInput());
  const auto key = std::make_tuple(request.bootstrap_replicates, request.seed, request.top_k);
  if (!changed && report_ != nullptr && report_key_ == key) return report_;
  RETURN_IF_ERROR(BaselineReady());
  scoring::ReportOptions o;
  o.phase = options_.phase;
  o.source = "bbo-server";
  o.baseline_row_name = options_.baseline_name;
  o.bootstrap.replicates = request.bootstrap_replicates;
  o.bootstrap.seed = request.seed;
  o.bootstrap.top_k = request.top_k;
  for (const std::string& name : problems_->names()) {
    ASSIGN_OR_RETURN(const Problem* problem, problems_->Get(name));
    o.problem_info[name] = {problem->space().dims(), problem->attributes()};
  }
  for (const auto& [method, per_problem] : input_.methods) {
    if (per_problem.size() < input_.problems.size()) {
      o.warnings.push_back(absl::StrCat("\"", method, "\" has results on ", per_problem.size(),
                                        " of ", input_.problems.size(),
                                        " problems; its score is partial"));
    }
  }
  reports_++;
  ASSIGN_OR_RETURN(scoring::Report report, scoring::ComputeReport(input_, o, &scoring_cache_));
  report_ = std::make_shared<const nlohmann::json>(scoring::ReportJson(report, input_));
  report_key_ = key;
  return report_;
}

absl::StatusOr<std::vector<scoring::ReportFile>> Competition::ReportFiles(
    const ReportRequest& request, const std::string& format) {
  ASSIGN_OR_RETURN(std::shared_ptr<const nlohmann::json> report, Report(request));
  return scoring::RenderReportFiles(*report, format);
}

absl::Status Competition::BaselineReady() const {
  const size_t needed = static_cast<size_t>(batch_size_) * n_batches_;
  for (const auto& [name, b] : input_.problems) {
    if (b.random_evals.size() < needed) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the random-search baseline on problem ", name, " is not finished yet (",
          b.random_evals.size(), " of at least ", needed, " evaluations); try again shortly"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Competition::RefreshInput() {
  ASSIGN_OR_RETURN(ScoringChanges changes, store_->ScoringChangesSince(seq_));
  if (loaded_ && changes.problems.empty()) return false;
  std::vector<std::string> reload;
  if (!loaded_) {
    // First load: every problem of the phase, even those without results yet.
    input_ = scoring::ScoringInput{};
    input_.batch_size = batch_size_;
    input_.n_batches = n_batches_;
    for (const std::string& name : problems_->names()) {
      ASSIGN_OR_RETURN(const Problem* problem, problems_->Get(name));
      scoring::ProblemBaselineInput b;
      if (options_.use_known_optimum) b.known_optimum = problem->known_optimum();
      input_.problems[name] = std::move(b);
      reload.push_back(name);
    }
  } else {
    for (const std::string& p : changes.problems) {
      if (input_.problems.count(p)) reload.push_back(p);  // else: no longer in this phase
    }
  }
  ASSIGN_OR_RETURN(ScoringData data, store_->LoadScoringData(reload));
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
      for (auto& c : curves) {
        scoring::TrialCurve t;
        t.batch_min = std::move(c.batch_min);
        // A study cut off or failed early keeps its best so far: missing batches are +inf and
        // the cumulative minimum carries the best forward.
        t.batch_min.resize(n_batches_, HUGE_VAL);
        mp.trials.push_back(std::move(t));
      }
      input_.methods[method][problem] = std::move(mp);
    }
  }
  seq_ = changes.seq;
  loaded_ = true;
  return true;
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

}  // namespace bbo
