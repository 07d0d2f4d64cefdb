// bbo logs: why a submission's studies ended as they did (GetSubmissionLog).

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "client/commands/commands.h"
#include "client/remote.h"
#include "nlohmann/json.hpp"

namespace bbo::client {

int RunLogs(const LogsArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls)
                  .GetSubmissionLog(a.submission_id, a.limit);
  if (!resp.ok()) return PrintRemoteError("logs", resp.status());
  const v1::SubmissionStatus& sub = resp->submission();
  if (a.json) {
    nlohmann::json out;
    out["submission"] = {{"id", sub.submission_id()}, {"name", sub.name()},
                         {"team", sub.team()},        {"phase", sub.phase()},
                         {"jobs_total", sub.jobs_total()}, {"jobs_done", sub.jobs_done()},
                         {"jobs_failed", sub.jobs_failed()}};
    out["errors_by_kind"] = nlohmann::json::object();
    for (const auto& [kind, n] : resp->errors_by_kind()) out["errors_by_kind"][kind] = n;
    out["total_errors"] = resp->total_errors();
    out["studies"] = nlohmann::json::array();
    for (const auto& s : resp->studies()) {
      out["studies"].push_back({{"study_id", s.study_id()}, {"problem", s.problem()},
                                {"trial", s.trial()},       {"board", s.board()},
                                {"state", s.state()},       {"batches_done", s.batches_done()},
                                {"n_batches", s.n_batches()}, {"end_reason", s.end_reason()}});
    }
    out["errors"] = nlohmann::json::array();
    for (const auto& e : resp->errors()) {
      out["errors"].push_back({{"problem", e.problem()}, {"study_id", e.study_id()},
                               {"batch", e.batch()},     {"kind", e.kind()},
                               {"message", e.message()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("Submission %lld \"%s\"%s%s: %d of %d jobs done", static_cast<long long>(sub.submission_id()),
              sub.name().c_str(), sub.team().empty() ? "" : (", team " + sub.team()).c_str(),
              sub.phase().empty() ? "" : (", phase " + sub.phase()).c_str(), sub.jobs_done(),
              sub.jobs_total());
  if (sub.jobs_failed() > 0) {
    std::printf(", %d failed without a result (lost to the platform or withdrawn)",
                sub.jobs_failed());
  }
  std::printf("\n");
  std::map<std::string, int> by_state;
  for (const auto& s : resp->studies()) by_state[s.state()]++;
  std::printf("Studies:");
  for (const auto& [state, n] : by_state) std::printf(" %d %s", n, state.c_str());
  std::printf("%s\n", by_state.empty() ? " none yet" : "");
  std::printf("Errors: %d in all", resp->total_errors());
  const char* sep = " (";
  for (const auto& [kind, n] : resp->errors_by_kind()) {
    std::printf("%s%s %d", sep, kind.c_str(), n);
    sep = ", ";
  }
  std::printf("%s\n", resp->total_errors() > 0 ? ")" : "");
  bool header = false;
  for (const auto& s : resp->studies()) {
    if (s.state() == "completed" || s.state() == "running") continue;
    if (!header) std::printf("\nStudies that did not complete:\n");
    header = true;
    std::printf("  study %lld  %s trial %d%s  %s after %d of %d batches: %s\n",
                static_cast<long long>(s.study_id()), s.problem().c_str(), s.trial(),
                s.board() == "main" ? "" : (" (" + s.board() + " board)").c_str(),
                s.state().c_str(), s.batches_done(), s.n_batches(), s.end_reason().c_str());
  }
  if (resp->errors_size() > 0) {
    std::printf("\n%s %d error(s) of %d:\n",
                resp->errors_size() < resp->total_errors() ? "The first" : "All",
                resp->errors_size(), resp->total_errors());
    for (const auto& e : resp->errors()) {
      std::printf("  %s study %lld batch %d [%s] %s\n", e.problem().c_str(),
                  static_cast<long long>(e.study_id()), e.batch(), e.kind().c_str(),
                  e.message().c_str());
    }
    if (resp->errors_size() < resp->total_errors()) {
      std::printf("  ... %d more (--limit N shows more)\n",
                  resp->total_errors() - resp->errors_size());
    }
  }
  return 0;
}

}  // namespace bbo::client
