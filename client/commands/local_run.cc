#include "client/commands/local_run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/archive.h"
#include "common/status_macros.h"
#include "problems/library.h"
#include "problems/practice_suite.h"
#include "problems/registry.h"
#include "server/embed.h"
#include "common/submission_verdict.h"
#include "worker/study_tmp.h"
#include "worker/worker.h"

namespace bbo::client {
namespace {

namespace fs = std::filesystem;

nlohmann::json Num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

std::string SubmissionName(const std::string& dir) {
  std::string name = fs::path(dir).lexically_normal().filename().string();
  if (name.empty() || name == ".") name = fs::absolute(dir).lexically_normal().filename().string();
  std::string out;
  for (char c : name) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
               ? c
               : '-';
  }
  if (out.empty()) out = "submission";
  return out.substr(0, 64);
}

// Whether SUBMISSION is an archive (.tar, .tar.gz, .zip: what `bbo submit` takes) rather than a
// folder. InvalidArgument when it is neither, or when it is the source folder of an optimizer
// built elsewhere.
absl::StatusOr<bool> IsArchive(const std::string& submission) {
  std::error_code ec;
  const bool is_archive = fs::is_regular_file(submission, ec);
  if (!is_archive && !fs::is_directory(submission, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SUBMISSION: ", submission, " is neither a folder nor an archive (.tar, .tar.gz, .zip)"));
  }
  if (!is_archive && !fs::exists(fs::path(submission) / "optimizer.py", ec) &&
      !fs::exists(fs::path(submission) / "optimizer", ec)) {
    // A source folder (examples/cma-es-cpp): its built optimizer lives in the build tree.
    const fs::path rel = fs::path(submission).lexically_normal();
    for (const fs::path& build : {fs::path("build") / rel, fs::path("..") / "build" / rel}) {
      if (!rel.is_absolute() && fs::exists(build / "optimizer", ec)) {
        return absl::InvalidArgumentError(absl::StrCat(
            submission, " holds no optimizer.py and no executable `optimizer`: it is the "
            "source of one. Its built optimizer is in ", build.string(), ": bbo local ",
            build.string()));
      }
    }
  }
  return is_archive;
}

// The problems to score on: the suite, or those of it that --problems names.
absl::StatusOr<std::vector<std::unique_ptr<Problem>>> MakeProblems(const LocalRunOptions& o,
                                                                   int eval_slots) {
  std::vector<std::unique_ptr<Problem>> problems;
  if (o.suite == "practice") {
    if (o.problems.empty()) return MakePracticeSuite();
    for (const std::string& name : o.problems) {
      ASSIGN_OR_RETURN(std::unique_ptr<Problem> p, MakeProblem(name));
      problems.push_back(std::move(p));
    }
    return problems;
  }
  SuiteOptions so;
  so.seed = o.suite_seed;
  so.generated_family = o.generated_family;
  so.design_file = o.design_file;
  so.sklearn_problems = o.problems;
  so.max_processes_per_problem = eval_slots;
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Problem>> suite, MakeSuite(o.suite, so));
  for (auto& p : suite) {
    if (o.problems.empty() ||
        std::find(o.problems.begin(), o.problems.end(), p->name()) != o.problems.end()) {
      problems.push_back(std::move(p));
    }
  }
  if (problems.size() < std::max<size_t>(1, o.problems.size())) {
    return absl::NotFoundError(absl::StrCat("--problems: not every name is in suite ", o.suite));
  }
  return problems;
}

// The problems' definitions, for the coordinator to hand to the workers, and `library` holding
// them. The worker evaluates the problems itself, as a competition's workers do: it is given the
// very objects built here (one scikit-learn process pool per problem, not two).
absl::StatusOr<std::map<std::string, ProblemDefinition>> DefineProblems(
    const LocalRunOptions& o, const std::vector<std::unique_ptr<Problem>>& problems,
    ProblemLibrary& library) {
  std::vector<std::string> names;
  for (const auto& p : problems) names.push_back(p->name());
  SuiteOptions defined_as;
  defined_as.seed = o.suite_seed;
  defined_as.generated_family = o.generated_family;
  defined_as.design_file = o.design_file;
  ASSIGN_OR_RETURN(auto definitions, SuiteDefinitions(o.suite, "", defined_as, names));
  for (const auto& p : problems) {
    auto d = definitions.find(p->name());
    if (d != definitions.end()) library.Add(d->second, p.get());
  }
  return definitions;
}

// A folder of its own under the temporary directory, removed with its contents at the end.
class ScratchDir {
 public:
  ScratchDir()
      : path_((fs::temp_directory_path() /
               absl::StrFormat("bbo-local-%d-%d", getpid(),
                               static_cast<int>(absl::ToUnixMillis(absl::Now()) % 100000)))
                  .string()) {
    std::error_code ec;
    fs::create_directories(path_, ec);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

absl::StatusOr<std::unique_ptr<LocalServer>> StartServer(
    const LocalRunOptions& o, const std::map<std::string, ProblemDefinition>& definitions,
    int eval_slots, const std::string& scratch, std::vector<std::unique_ptr<Problem>> problems) {
  LocalServerOptions lo;
  lo.db_path = o.db_path.empty() ? scratch + "/local.sqlite" : o.db_path;
  lo.budget = o.budget;
  lo.baseline_trials = o.baseline_trials;
  lo.default_trials = o.trials;
  lo.definitions = definitions;
  lo.eval_threads = eval_slots;
  return LocalServer::Start(lo, std::move(problems));
}

// A submission as it is registered: its name and the archive of its files.
struct SubmissionFiles {
  std::string name;
  std::string archive;
};

absl::StatusOr<SubmissionFiles> ReadSubmission(const std::string& submission, bool is_archive) {
  SubmissionFiles files{SubmissionName(submission), ""};
  if (!is_archive) {
    ASSIGN_OR_RETURN(files.archive, TarDirectory(submission));
    return files;
  }
  std::ifstream in(submission, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", submission));
  files.archive = bytes.str();
  for (const char* ext : {".tar.gz", ".tgz", ".zip", ".tar"}) {
    if (absl::EndsWith(files.name, ext)) {
      files.name = files.name.substr(0, files.name.size() - strlen(ext));
    }
  }
  return files;
}

// The sandbox of every optimizer: FailedPrecondition, with the way out, where the host has none.
absl::StatusOr<SandboxOptions> LocalSandbox(const LocalRunOptions& o) {
  SandboxOptions so;
  so.insecure_no_sandbox = o.insecure_no_sandbox;
  // 4 GiB of address space per optimizer, as bbo-worker's --memory_mb and docs/participants.md.
  so.limits.address_space_bytes = 4ull << 30;
  if (!o.insecure_no_sandbox) {
    if (absl::Status s = Sandbox::Probe(so); !s.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(s.message(), "\n(run with --insecure-no-sandbox to score without one)"));
    }
  }
  return so;
}

// Control groups where the host offers them (as root, or with a delegated v2 subtree): the
// same memory, task and CPU limits a competition's workers enforce. Otherwise (null) the study
// runs without them, as a participant's own machine usually must.
std::unique_ptr<CgroupManager> DetectCgroups(const LocalRunOptions& o) {
  if (o.insecure_no_sandbox) return nullptr;
  absl::StatusOr<std::unique_ptr<CgroupManager>> detected =
      CgroupManager::Detect(absl::StrCat("bbo-local-", getpid()));
  if (detected.ok()) return *std::move(detected);
  if (o.progress) {
    std::fprintf(stderr,
                 "bbo local: no control groups here (%s): memory, task and CPU limits are not "
                 "enforced as a competition's workers enforce them\n",
                 std::string(detected.status().message()).c_str());
  }
  return nullptr;
}

// The embedded workers, each running on a thread of its own until StopAndJoin.
class LocalWorkers {
 public:
  LocalWorkers() = default;
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;
  ~LocalWorkers() {
    if (!threads_.empty()) (void)StopAndJoin();
  }

  // Registers `count` workers with `server` (each with its own client), then runs them.
  absl::Status Start(int count, const LocalServer& server, Sandbox* sandbox,
                     const WorkerOptions& wo) {
    results_.resize(count);
    for (int i = 0; i < count; ++i) {
      clients_.push_back(
          MakeGrpcCoordinatorClient(server.address(), ClientTls(), 60, server.worker_token()));
      workers_.push_back(std::make_unique<Worker>(clients_.back().get(), sandbox, wo));
      RETURN_IF_ERROR(workers_.back()->Register("bbo-local", 1));
    }
    for (size_t i = 0; i < workers_.size(); ++i) {
      threads_.emplace_back([this, i] {
        results_[i] = workers_[i]->Run();
        exited_++;
      });
    }
    return absl::OkStatus();
  }

  // Workers exit when the queue stays empty.
  bool AllExited() const { return exited_.load() == static_cast<int>(workers_.size()); }

  // Stops the workers and waits for them: Internal with the first worker's error.
  absl::Status StopAndJoin() {
    for (auto& w : workers_) w->Stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
    for (const absl::Status& s : results_) {
      if (!s.ok()) return absl::InternalError(absl::StrCat("worker failed: ", s.message()));
    }
    return absl::OkStatus();
  }

 private:
  std::vector<std::unique_ptr<CoordinatorClient>> clients_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<absl::Status> results_;
  std::atomic<int> exited_{0};
  std::vector<std::thread> threads_;
};

// Progress on stderr until every job of the submission is done, or every worker has exited
// while jobs remain (then nothing would run them).
void WaitForJobs(LocalServer& server, int64_t submission_id, const LocalWorkers& workers,
                 bool progress) {
  absl::Time start = absl::Now();
  int last_done = -1;
  while (true) {
    const uint64_t seen = server.QueueVersion();
    absl::StatusOr<LocalProgress> counts = server.Progress(submission_id);
    if (!counts.ok()) break;
    int done = counts->finished;
    if (progress && done != last_done) {
      std::fprintf(stderr, "  [%3d/%3d] studies done  (%.0f s)\n", done, counts->total,
                   absl::ToDoubleSeconds(absl::Now() - start));
      last_done = done;
    }
    if (done >= counts->total) break;
    if (workers.AllExited()) break;
    // Woken by the next finished job (a second at most, to notice exited workers).
    server.WaitForQueueChange(seen, absl::Seconds(1));
  }
}

// The report's scores: the submission's, and random search's for comparison.
nlohmann::json ScoresReport(const scoring::Leaderboard& board, const std::string& name,
                            const LocalRunOptions& o) {
  nlohmann::json report;
  report["submission"] = name;
  report["trials"] = o.trials;
  report["batch_size"] = o.budget.batch_size;
  report["n_batches"] = o.budget.n_batches;
  for (const auto& row : board.rows) {
    nlohmann::json problems_json = nlohmann::json::object();
    nlohmann::json normalized = nlohmann::json::object();
    for (const auto& p : row.problems) {
      problems_json[p.problem] = Num(p.score);
      normalized[p.problem] =
          p.norm_mean_perf.empty() ? nlohmann::json() : Num(p.norm_mean_perf.back());
    }
    if (row.is_baseline) {
      report["random_search"] = {{"leaderboard_score", Num(row.score)},
                                 {"median_score", Num(row.median_score)},
                                 {"problems", problems_json}};
    } else if (row.method == name) {
      report["leaderboard_score"] = Num(row.score);
      report["median_score"] = Num(row.median_score);
      report["problems"] = problems_json;
      // norm-mean-perf at the last batch (Bayesmark's "How scoring works"): 0 = optimum every
      // time, 1 = one random guess.
      report["normalized_mean_perf"] = normalized;
    }
  }
  return report;
}

// The report's account of the studies: errors, how they ended, the verdict.
void AddStudiesReport(const LocalLog& log, int jobs, const std::string& submission_dir,
                      nlohmann::json& report) {
  nlohmann::json errors = nlohmann::json::array();
  for (const LocalStudyError& e : log.errors) {
    errors.push_back({{"problem", e.problem}, {"batch", e.batch}, {"kind", e.kind},
                      {"message", e.message}});
  }
  report["errors"] = errors;
  report["errors_total"] = log.total_errors;
  report["errors_by_kind"] = log.errors_by_kind;
  report["studies"] = log.studies_by_state;
  report["batches"] = log.batches;
  report["random_batches"] = log.random_batches;
  report["failed_studies"] = log.failures;
  std::vector<std::string> messages;
  for (const LocalStudyError& e : log.errors) messages.push_back(e.message);
  const SubmissionVerdict verdict =
      JudgeStudies(jobs, static_cast<int>(log.failures.size()), log.batches, log.random_batches,
                   messages, submission_dir);
  report["ok"] = verdict.ok;
  report["failure"] = verdict.failure;
  report["traceback"] = verdict.traceback;
}

}  // namespace

absl::StatusOr<nlohmann::json> RunLocal(const LocalRunOptions& o) {
  ASSIGN_OR_RETURN(const bool is_archive, IsArchive(o.submission_dir));
  RETURN_IF_ERROR(o.budget.Validate());
  const int eval_slots =
      o.eval_slots > 0 ? o.eval_slots
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // A root run mounts a size-limited /tmp per study: keep those mounts private to this process,
  // so that they vanish with it however it ends (best effort: they are unmounted anyway).
  if (geteuid() == 0 && !o.insecure_no_sandbox) (void)EnterPrivateMountNamespace();
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Problem>> problems, MakeProblems(o, eval_slots));
  const size_t n_problems = problems.size();
  ProblemLibrary library;
  ASSIGN_OR_RETURN(const auto definitions, DefineProblems(o, problems, library));
  Evaluator evaluator(eval_slots);
  const ScratchDir scratch;
  ASSIGN_OR_RETURN(std::unique_ptr<LocalServer> server,
                   StartServer(o, definitions, eval_slots, scratch.path(), std::move(problems)));
  ASSIGN_OR_RETURN(const SubmissionFiles submission, ReadSubmission(o.submission_dir, is_archive));
  ASSIGN_OR_RETURN(const LocalSubmission reg,
                   server->Register(submission.name, submission.archive, o.trials));
  if (o.progress) {
    std::fprintf(stderr,
                 "bbo local: %s (%s) on %zu problems x %d trials = %d studies of %d x %d "
                 "evaluations\n",
                 submission.name.c_str(), reg.python ? "python" : "executable", n_problems,
                 o.trials, reg.jobs, o.budget.n_batches, o.budget.batch_size);
  }
  ASSIGN_OR_RETURN(const SandboxOptions so, LocalSandbox(o));
  Sandbox sandbox(so);
  const std::unique_ptr<CgroupManager> cgroups = DetectCgroups(o);
  WorkerOptions wo;
  wo.work_dir = scratch.path() + "/worker";
  wo.python_dir = DefaultPythonDir();
  wo.exit_when_idle_s = 1.0;
  wo.log_optimizer_stderr = o.verbose;
  wo.sandbox = so;
  wo.problems = &library;
  wo.evaluator = &evaluator;
  wo.cgroups = cgroups.get();
  LocalWorkers workers;
  RETURN_IF_ERROR(workers.Start(std::max(1, o.workers), *server, &sandbox, wo));
  WaitForJobs(*server, reg.id, workers, o.progress);
  RETURN_IF_ERROR(workers.StopAndJoin());
  server->WaitForBaseline(absl::Minutes(5));
  ASSIGN_OR_RETURN(const scoring::Leaderboard board, server->Leaderboard());
  nlohmann::json report = ScoresReport(board, submission.name, o);
  ASSIGN_OR_RETURN(const LocalLog log, server->Log(reg.id, 50));
  AddStudiesReport(log, reg.jobs, o.submission_dir, report);
  server->Stop();
  return report;
}

std::string FormatLocalReport(const nlohmann::json& r) {
  std::string out;
  absl::StrAppend(&out, "\nPer-problem scores (100 = the best value found on each problem every time, 0 = one "
                        "random guess):\n");
  absl::StrAppendFormat(&out, "  %-22s %12s %14s\n", "problem", r.value("submission", "").c_str(),
                        "random-search");
  if (r.contains("problems")) {
    for (auto it = r["problems"].begin(); it != r["problems"].end(); ++it) {
      double rs = NAN;
      if (r.contains("random_search") && r["random_search"]["problems"].contains(it.key()) &&
          r["random_search"]["problems"][it.key()].is_number()) {
        rs = r["random_search"]["problems"][it.key()].get<double>();
      }
      double v = it.value().is_number() ? it.value().get<double>() : NAN;
      absl::StrAppendFormat(&out, "  %-22s %12.2f %14.2f\n", it.key(), v, rs);
    }
  }
  auto num = [](const nlohmann::json& j) { return j.is_number() ? j.get<double>() : NAN; };
  absl::StrAppendFormat(&out, "\nLeaderboard score: %.3f   (median score %.3f)\n",
                        num(r.value("leaderboard_score", nlohmann::json())),
                        num(r.value("median_score", nlohmann::json())));
  if (r.contains("random_search")) {
    absl::StrAppendFormat(&out, "Random search:     %.3f\n",
                          num(r["random_search"]["leaderboard_score"]));
  }
  const int total = r.value("errors_total", 0);
  if (total > 0) {
    std::string kinds;
    if (r.contains("errors_by_kind")) {
      for (auto it = r["errors_by_kind"].begin(); it != r["errors_by_kind"].end(); ++it) {
        absl::StrAppend(&kinds, kinds.empty() ? "" : ", ", it.key(), " ", it.value().dump());
      }
    }
    absl::StrAppendFormat(&out, "\n%d error(s) recorded during the studies (%s); the first:\n",
                          total, kinds);
    const auto& e = r["errors"][0];
    absl::StrAppendFormat(&out, "  %s batch %d [%s]: %s\n", e.value("problem", ""),
                          e.value("batch", 0), e.value("kind", ""), e.value("message", ""));
  }
  if (r.contains("failed_studies")) {
    for (const auto& f : r["failed_studies"]) {
      absl::StrAppend(&out, "  did not complete: ", f.get<std::string>(), "\n");
    }
  }
  return out;
}

}  // namespace bbo::client
