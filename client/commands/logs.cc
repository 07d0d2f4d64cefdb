// bbo logs: why a submission's studies ended as they did (GetSubmissionLog).

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
#include "client/remote.h"
#include "nlohmann/json.hpp"

namespace bbo::client {

Command AddLogsCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<LogsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "logs", "Why a submission's studies ended as they did: each study's end, every error by "
              "kind, and the first ones in full (your optimizer's messages and stderr tail).");
  cmd->add_option("SUBMISSION_ID", args->submission_id, "As `bbo status` shows it")->required();
  cmd->add_option("--limit", args->limit, "Errors shown in full (all are counted)")
      ->default_val(args->limit)
      ->check(CLI::Range(1, 10000));
  cmd->add_flag("--json", args->json, "JSON output");
  AddServerOptions(*cmd, args->server, connection);
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunLogs(*args) : 1;
          }};
}

namespace {

nlohmann::json LogJson(const v1::GetSubmissionLogResponse& log) {
  const v1::SubmissionStatus& sub = log.submission();
  nlohmann::json out;
  out["submission"] = {{"id", sub.submission_id()}, {"name", sub.name()},
                       {"team", sub.team()},        {"phase", sub.phase()},
                       {"jobs_total", sub.jobs_total()}, {"jobs_done", sub.jobs_done()},
                       {"jobs_failed", sub.jobs_failed()}};
  out["errors_by_kind"] = nlohmann::json::object();
  for (const auto& [kind, n] : log.errors_by_kind()) out["errors_by_kind"][kind] = n;
  out["total_errors"] = log.total_errors();
  out["studies"] = nlohmann::json::array();
  for (const auto& s : log.studies()) {
    out["studies"].push_back({{"study_id", s.study_id()}, {"problem", s.problem()},
                              {"trial", s.trial()},       {"board", s.board()},
                              {"state", s.state()},       {"batches_done", s.batches_done()},
                              {"n_batches", s.n_batches()}, {"end_reason", s.end_reason()}});
  }
  out["errors"] = nlohmann::json::array();
  for (const auto& e : log.errors()) {
    out["errors"].push_back({{"problem", e.problem()}, {"study_id", e.study_id()},
                             {"batch", e.batch()},     {"kind", e.kind()},
                             {"message", e.message()}});
  }
  return out;
}

// The submission's jobs, its studies by state and its errors by kind.
void PrintSummary(const v1::GetSubmissionLogResponse& log) {
  const v1::SubmissionStatus& sub = log.submission();
  std::printf("Submission %lld \"%s\"%s%s: %d of %d jobs done",
              static_cast<long long>(sub.submission_id()), sub.name().c_str(),
              sub.team().empty() ? "" : (", team " + sub.team()).c_str(),
              sub.phase().empty() ? "" : (", phase " + sub.phase()).c_str(), sub.jobs_done(),
              sub.jobs_total());
  if (sub.jobs_failed() > 0) {
    std::printf(", %d failed without a result (lost to the platform or withdrawn)",
                sub.jobs_failed());
  }
  std::printf("\n");
  std::map<std::string, int> by_state;
  for (const auto& s : log.studies()) by_state[s.state()]++;
  std::printf("Studies:");
  for (const auto& [state, n] : by_state) std::printf(" %d %s", n, state.c_str());
  std::printf("%s\n", by_state.empty() ? " none yet" : "");
  std::printf("Errors: %d in all", log.total_errors());
  const char* sep = " (";
  for (const auto& [kind, n] : log.errors_by_kind()) {
    std::printf("%s%s %d", sep, kind.c_str(), n);
    sep = ", ";
  }
  std::printf("%s\n", log.total_errors() > 0 ? ")" : "");
}

// The studies that did not complete, and the errors in full.
void PrintDetails(const v1::GetSubmissionLogResponse& log) {
  bool header = false;
  for (const auto& s : log.studies()) {
    if (s.state() == "completed" || s.state() == "running") continue;
    if (!header) std::printf("\nStudies that did not complete:\n");
    header = true;
    std::printf("  study %lld  %s trial %d%s  %s after %d of %d batches: %s\n",
                static_cast<long long>(s.study_id()), s.problem().c_str(), s.trial(),
                s.board() == "main" ? "" : (" (" + s.board() + " board)").c_str(),
                s.state().c_str(), s.batches_done(), s.n_batches(), s.end_reason().c_str());
  }
  if (log.errors_size() > 0) {
    std::printf("\n%s %d error(s) of %d:\n",
                log.errors_size() < log.total_errors() ? "The first" : "All",
                log.errors_size(), log.total_errors());
    for (const auto& e : log.errors()) {
      std::printf("  %s study %lld batch %d [%s] %s\n", e.problem().c_str(),
                  static_cast<long long>(e.study_id()), e.batch(), e.kind().c_str(),
                  e.message().c_str());
    }
    if (log.errors_size() < log.total_errors()) {
      std::printf("  ... %d more (--limit N shows more)\n",
                  log.total_errors() - log.errors_size());
    }
  }
}

}  // namespace

int RunLogs(const LogsArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls)
                  .GetSubmissionLog(a.submission_id, a.limit);
  if (!resp.ok()) return PrintRemoteError("logs", resp.status());
  if (a.json) {
    std::cout << LogJson(*resp).dump(2) << "\n";
    return 0;
  }
  PrintSummary(*resp);
  PrintDetails(*resp);
  return 0;
}

}  // namespace bbo::client
