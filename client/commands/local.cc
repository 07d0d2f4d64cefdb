// bbo local: scores a submission on this machine (local_run.h) and prints the report.

#include <cstdio>
#include <iostream>
#include <string>

#include "absl/strings/str_split.h"
#include "client/commands/commands.h"
#include "client/commands/local_run.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace bbo::client {

// 0 when the run is sound, else 1 after saying why on stderr (with the traceback lines from the
// participant's own files).
int Verdict(const nlohmann::json& report, const char* command);

int RunLocalCommand(LocalArgs a) {
  spdlog::set_level(a.run.verbose ? spdlog::level::info : spdlog::level::warn);
  spdlog::set_default_logger(spdlog::stderr_color_mt("bbo"));
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
  std::fprintf(stderr, "\n%s: FAILED: ", command);
  const char* sep = "";
  for (const auto& why : report["failure"]) {
    std::fprintf(stderr, "%s%s", sep, why.get<std::string>().c_str());
    sep = "; ";
  }
  std::fprintf(stderr, ".\n");
  if (report.contains("traceback") && !report["traceback"].empty()) {
    std::fprintf(stderr, "In your files:\n");
    for (const auto& line : report["traceback"]) {
      std::fprintf(stderr, "  %s\n", line.get<std::string>().c_str());
    }
  } else if (report.contains("errors") && !report["errors"].empty()) {
    std::fprintf(stderr, "The first error: %s\n",
                 report["errors"][0].value("message", "").c_str());
  }
  std::fprintf(stderr,
               "(a study that does not complete, or more than half of all batches filled by "
               "random search, fails the run: docs/participants.md)\n");
  return 1;
}

int RunCheck(CheckArgs a) {
  spdlog::set_level(spdlog::level::warn);
  spdlog::set_default_logger(spdlog::stderr_color_mt("bbo"));
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
