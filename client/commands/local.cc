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
  return 0;
}

}  // namespace bbo::client
