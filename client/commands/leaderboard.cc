// bbo leaderboard: a bbo-server's current leaderboard.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
#include "client/remote.h"
#include "nlohmann/json.hpp"

namespace bbo::client {

Command AddLeaderboardCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<LeaderboardArgs>();
  CLI::App* cmd = app.add_subcommand("leaderboard", "Show the current leaderboard.");
  AddServerOptions(*cmd, args->server, connection);
  cmd->add_flag("--json", args->json, "JSON output (full report)");
  cmd->add_option("--phase", args->phase, "The phase (default: the current one)");
  cmd->add_option("--board", args->board,
                  "main, or warm-start (a final phase's run with real parameter names)")
      ->default_val(args->board);
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunLeaderboard(*args) : 1;
          }};
}

namespace {

// What a row's marker says: the baseline, or a submission whose state is not plainly finished.
std::string RowNote(const v1::LeaderboardRow& row) {
  if (row.baseline()) return "  (baseline)";
  switch (row.state()) {
    case v1::SUBMISSION_STATE_FAILED:
      return "  (failed: no study without an error; bbo logs)";
    case v1::SUBMISSION_STATE_PARTIAL:
      return "  (partial: some studies had errors or jobs were lost)";
    case v1::SUBMISSION_STATE_QUEUED:
    case v1::SUBMISSION_STATE_RUNNING:
      return "  (running)";
    default:
      return row.complete() ? "" : "  (partial)";
  }
}

void PrintRows(const v1::GetLeaderboardResponse& resp) {
  const bool teams = std::any_of(resp.rows().begin(), resp.rows().end(),
                                 [](const auto& r) { return !r.team().empty(); });
  std::printf("%-5s %-32s %s%10s %10s\n", "rank", "name", teams ? "team             " : "",
              "score", "bm-median");
  for (const auto& row : resp.rows()) {
    const std::string team = row.team().empty() ? "-" : row.team();
    std::printf("%-5d %-32s %s%10.3f %10.3f%s\n", row.rank(), row.name().c_str(),
                teams ? absl::StrFormat("%-16s ", team).c_str() : "", row.score(),
                row.median_score(), RowNote(row).c_str());
  }
  std::printf("(score: Turner et al. (2021) eq. 7, the mean over problems; bm-median: "
              "Bayesmark's median score, per problem the median over trials against random "
              "search's median, then the median over problems: random search is 0 on it. Scores "
              "are normalized by the best value any submission found on each problem, so they "
              "move when others submit.)\n");
  if (resp.rows_rule() != "submission" && !resp.rows_rule().empty()) {
    std::printf("One row per team (%s); %d other submissions not shown.\n",
                resp.rows_rule().c_str(), resp.rows_not_shown());
  }
  if (resp.pending_size() > 0) {
    std::printf("Not on the board yet (no study with a final result):\n");
    for (const auto& s : resp.pending()) {
      std::printf("      %-32s %d/%d jobs done%s\n", s.name().c_str(), s.jobs_done(),
                  s.jobs_total(),
                  s.jobs_failed() > 0 ? (", " + std::to_string(s.jobs_failed()) +
                                         " lost by the platform (organizers can requeue)")
                                            .c_str()
                                      : "");
    }
  }
  if (resp.removed_size() > 0) {
    std::printf("Off the board:\n");
    for (const auto& r : resp.removed()) {
      std::printf("      %-32s %s\n", r.name().c_str(), r.why().c_str());
    }
  }
}

}  // namespace

int RunLeaderboard(const LeaderboardArgs& a) {
  v1::GetLeaderboardRequest req;
  req.set_board(a.board);
  req.set_phase(a.phase);
  auto resp = Remote(a.server.address, a.server.token, a.server.tls).GetLeaderboard(req);
  if (!resp.ok()) return PrintRemoteError("leaderboard", resp.status());
  auto pending_json = [&]() {
    nlohmann::json p = nlohmann::json::array();
    for (const auto& s : resp->pending()) {
      p.push_back({{"name", s.name()},
                   {"jobs_total", s.jobs_total()},
                   {"jobs_done", s.jobs_done()},
                   {"jobs_failed", s.jobs_failed()},
                   {"jobs_withdrawn", s.jobs_withdrawn()}});
    }
    return p;
  };
  auto removed_json = [&]() {
    nlohmann::json p = nlohmann::json::array();
    for (const auto& r : resp->removed()) {
      p.push_back({{"name", r.name()}, {"team", r.team()}, {"why", r.why()}});
    }
    return p;
  };
  if (a.json) {
    if (resp->report_json().empty()) {
      // A hidden phase without the organizer token: overall scores only.
      nlohmann::json j;
      j["phase"] = resp->phase();
      j["board"] = resp->board();
      j["rows"] = nlohmann::json::array();
      for (const auto& row : resp->rows()) {
        j["rows"].push_back({{"rank", row.rank()},
                             {"name", row.name()},
                             {"score", row.score()},
                             {"median_score", row.median_score()},
                             {"baseline", row.baseline()},
                             {"complete", row.complete()},
                             {"team", row.team()}});
      }
      j["pending"] = pending_json();
      j["removed"] = removed_json();
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    nlohmann::json j = nlohmann::json::parse(resp->report_json());
    if (j.is_object()) {
      j["pending"] = pending_json();
      j["removed"] = removed_json();
      j["teams"] = nlohmann::json::object();
      for (const auto& row : resp->rows()) {
        if (!row.baseline()) j["teams"][row.name()] = row.team();
      }
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("Leaderboard of phase %s, %s board (%d batches of %d; 100 = the best value found "
              "on each problem every time, 0 = one random guess)\n",
              resp->phase().c_str(), resp->board().c_str(), resp->n_batches(),
              resp->batch_size());
  PrintRows(*resp);
  return 0;
}

}  // namespace bbo::client
