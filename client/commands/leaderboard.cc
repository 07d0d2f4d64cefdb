// bbo leaderboard: a bbo-server's current leaderboard.

#include <cstdio>
#include <iostream>
#include <memory>

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
                   {"jobs_failed", s.jobs_failed()}});
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
                             {"complete", row.complete()}});
      }
      j["pending"] = pending_json();
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    nlohmann::json j = nlohmann::json::parse(resp->report_json());
    if (j.is_object()) j["pending"] = pending_json();
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("Leaderboard of phase %s, %s board (%d batches of %d; 100 = the best value found "
              "on each problem every time, 0 = one random guess)\n",
              resp->phase().c_str(), resp->board().c_str(), resp->n_batches(),
              resp->batch_size());
  std::printf("%-5s %-32s %10s %10s\n", "rank", "name", "score", "bm-median");
  for (const auto& row : resp->rows()) {
    std::printf("%-5d %-32s %10.3f %10.3f%s\n", row.rank(), row.name().c_str(), row.score(),
                row.median_score(),
                row.baseline() ? "  (baseline)" : (row.complete() ? "" : "  (partial)"));
  }
  std::printf("(score: Turner et al. (2021) eq. 7, the mean over problems; bm-median: "
              "Bayesmark's median score, per problem the median over trials against random "
              "search's median, then the median over problems: random search is 0 on it)\n");
  if (resp->pending_size() > 0) {
    std::printf("Not on the board yet (no study with a final result):\n");
    for (const auto& s : resp->pending()) {
      std::printf("      %-32s %d/%d jobs done%s\n", s.name().c_str(), s.jobs_done(),
                  s.jobs_total(),
                  s.jobs_failed() > 0
                      ? (", " + std::to_string(s.jobs_failed()) +
                         " failed without a result (withdrawn or lost; organizers can requeue)")
                            .c_str()
                      : "");
    }
  }
  return 0;
}

}  // namespace bbo::client
