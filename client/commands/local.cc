// bbo local: scores a submission on this machine (local_run.h) and prints the report.

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "client/commands/commands.h"
#include "client/commands/local_run.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace bbo::client {
namespace {

// SUBMISSION and the problems to score it on.
void AddSuiteOptions(CLI::App& cmd, LocalArgs& local) {
  LocalRunOptions& lo = local.run;
  cmd.add_option("SUBMISSION", lo.submission_dir,
                 "Folder with optimizer.py (Bayesmark-style) or an executable `optimizer`, "
                 "or a .tar / .tar.gz / .zip of one (what `bbo submit` takes)")
      ->required();
  cmd.add_option("--trials", lo.trials, "Trials per problem")
      ->default_val(3)
      ->check(CLI::Range(1, 100));
  cmd.add_flag("--json", local.json, "Print the report as JSON on stdout");
  cmd.add_option("--problems", local.problems,
                 "Comma-separated problems of the suite (default: all)");
  cmd.add_option("--suite", lo.suite,
                 "practice (default), synthetic, bbob, ml, sklearn (with --problems), "
                 "generated")
      ->default_val(lo.suite);
  cmd.add_option("--suite-seed", lo.suite_seed, "Instance seed of the suite")->default_val(0);
  cmd.add_option("--family", lo.generated_family,
                 "--suite generated: the task family (bbo tasks list)")
      ->default_val(lo.generated_family);
  cmd.add_option("--design", lo.design_file,
                 "--suite generated: a design file from `bbo tasks design`");
}

// How the studies run: parallelism, the baseline, each study's budget, the sandbox.
void AddRunOptions(CLI::App& cmd, LocalRunOptions& lo) {
  cmd.add_option("--workers", lo.workers, "Optimizers run in parallel")
      ->default_val(1)
      ->check(CLI::Range(1, 64));
  cmd.add_option("--eval-slots", lo.eval_slots,
                 "Objective evaluations run at once (a batch's points in parallel); "
                 "0 = one per core")
      ->default_val(0)
      ->check(CLI::Range(0, 256));
  cmd.add_option("--baseline-trials", lo.baseline_trials,
                 "Random-search baseline trials per problem")
      ->default_val(10)
      ->check(CLI::Range(1, 1000));
  cmd.add_option("--batch-size", lo.budget.batch_size, "Points per batch")->default_val(8);
  cmd.add_option("--n-batches", lo.budget.n_batches, "Batches per study")->default_val(16);
  cmd.add_option("--suggest-budget", lo.budget.suggest_budget_s, "Optimizer seconds per suggest")
      ->default_val(40);
  cmd.add_option("--study-budget", lo.budget.study_budget_s, "Optimizer seconds per study")
      ->default_val(640);
  cmd.add_option("--db", lo.db_path, "Keep the results in this SQLite file");
  cmd.add_flag("--insecure-no-sandbox", lo.insecure_no_sandbox,
               "Run the optimizer without the bubblewrap sandbox (hosts without user "
               "namespaces)");
  cmd.add_flag("--verbose", lo.verbose, "Show the optimizer's stderr");
}

// Warnings (and with --verbose, progress) of the libraries on stderr, under the name "bbo".
void LogToStderr(spdlog::level::level_enum level) {
  spdlog::set_level(level);
  std::shared_ptr<spdlog::logger> logger = spdlog::get("bbo");
  if (logger == nullptr) logger = spdlog::stderr_color_mt("bbo");
  spdlog::set_default_logger(logger);
}

}  // namespace

Command AddLocalCommand(CLI::App& app) {
  auto local = std::make_shared<LocalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "local", "Score a submission on the practice problems on this machine (embedded coordinator "
               "and sandboxed worker).");
  AddSuiteOptions(*cmd, *local);
  AddRunOptions(*cmd, local->run);
  return {cmd, [local] { return RunLocalCommand(*local); }};
}

Command AddCheckCommand(CLI::App& app) {
  auto check = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Run one short study of a submission on one practice problem, in seconds, before "
               "submitting it: exit 1, quoting your files' traceback, when it would fail.");
  cmd->add_option("SUBMISSION", check->run.submission_dir,
                  "Folder with optimizer.py or an executable `optimizer`, or an archive")
      ->required();
  cmd->add_option("--problem", check->problem, "The practice problem")
      ->default_val(check->problem);
  cmd->add_option("--n-batches", check->batches, "Batches of the study")
      ->default_val(check->batches)
      ->check(CLI::Range(1, 16));
  cmd->add_flag("--insecure-no-sandbox", check->run.insecure_no_sandbox,
                "Run the optimizer without the bubblewrap sandbox");
  return {cmd, [check] { return RunCheck(*check); }};
}

// 0 when the run is sound, else 1 after saying why on stderr (with the traceback lines from the
// participant's own files).
int Verdict(const nlohmann::json& report, const char* command);

int RunLocalCommand(LocalArgs a) {
  LogToStderr(a.run.verbose ? spdlog::level::info : spdlog::level::warn);
  if (!a.problems.empty()) {
    a.run.problems = absl::StrSplit(a.problems, ',', absl::SkipEmpty());
  }
  auto report = RunLocal(a.run);
  if (!report.ok()) {
    std::fprintf(stderr, "bbo local: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  if (a.json) {
    std::cout << report->dump(2) << "\n";
  } else {
    std::cout << FormatLocalReport(*report);
  }
  return Verdict(*report, "bbo local");
}

int Verdict(const nlohmann::json& report, const char* command) {
  if (report.value("ok", true)) return 0;
  // The wording the web page's submission view uses too (common/submission_verdict.h).
  SubmissionVerdict v;
  v.ok = false;
  for (const auto& why : report["failure"]) v.failure.push_back(why.get<std::string>());
  if (report.contains("traceback")) {
    for (const auto& line : report["traceback"]) v.traceback.push_back(line.get<std::string>());
  }
  if (report.contains("errors") && !report["errors"].empty()) {
    v.first_error = report["errors"][0].value("message", "");
  }
  std::fprintf(stderr, "\n%s", VerdictText(v, command).c_str());
  return 1;
}

int RunCheck(CheckArgs a) {
  LogToStderr(spdlog::level::warn);
  LocalRunOptions o = a.run;
  o.problems = {a.problem};
  o.trials = 1;
  o.budget.n_batches = a.batches;
  o.baseline_trials = 1;
  o.progress = false;
  auto report = RunLocal(o);
  if (!report.ok()) {
    std::fprintf(stderr, "bbo check: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  const int code = Verdict(*report, "bbo check");
  if (code == 0) {
    std::printf("bbo check: OK: %s ran %d batches of %d on %s, %d error(s) recorded\n",
                report->value("submission", "").c_str(), report->value("batches", 0),
                report->value("batch_size", 0), a.problem.c_str(),
                report->value("errors_total", 0));
  }
  return code;
}

}  // namespace bbo::client
