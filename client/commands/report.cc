// bbo report: the full scoring report of a phase, from a bbo-server's scoring service, a results
// CSV or a coordinator's SQLite file.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
#include "client/commands/offline_input.h"
#include "client/remote.h"
#include "report/report.h"
#include "report/report_files.h"
#include "report/report_json.h"
#include "server/embed.h"

namespace bbo::client {
namespace {

namespace fs = std::filesystem;

int WriteReportFiles(const std::vector<scoring::ReportFile>& files, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "bbo report: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  for (const auto& f : files) {
    // Names come from the renderer, but never let one escape the output folder.
    if (f.name.find('/') != std::string::npos || f.name.empty() || f.name[0] == '.') {
      std::fprintf(stderr, "bbo report: refusing to write file named \"%s\"\n", f.name.c_str());
      return 1;
    }
    const fs::path path = fs::path(dir) / f.name;
    const fs::path tmp = fs::path(dir) / ("." + f.name + ".tmp");
    {
      std::ofstream o(tmp, std::ios::binary);
      o << f.content;
      o.close();
      if (!o) {
        std::fprintf(stderr, "bbo report: cannot write %s\n", tmp.c_str());
        return 1;
      }
    }
    fs::rename(tmp, path, ec);  // atomic: a reader never sees half a report
    if (ec) {
      std::fprintf(stderr, "bbo report: cannot write %s: %s\n", path.c_str(), ec.message().c_str());
      return 1;
    }
    std::printf("%s (%zu bytes)\n", path.c_str(), f.content.size());
  }
  return 0;
}

// From a running coordinator's scoring service.
int RemoteReport(const ReportArgs& a) {
  v1::GetReportRequest req;
  req.set_phase(a.phase);
  req.set_board(a.board);
  req.set_format(a.format == "html"  ? v1::REPORT_FORMAT_HTML
                 : a.format == "csv" ? v1::REPORT_FORMAT_CSV
                                     : v1::REPORT_FORMAT_JSON);
  req.set_bootstrap_replicates(a.bootstrap.replicates);
  req.set_seed(a.bootstrap.seed);
  req.set_top_k(a.bootstrap.top_k);
  std::fprintf(stderr, "bbo report: asking %s for the %s report (B = %d)...\n",
               a.server.address.c_str(), a.phase.empty() ? "current phase's" : a.phase.c_str(),
               a.bootstrap.replicates);
  auto resp = Remote(a.server.address, a.server.token, a.server.tls).GetReport(req);
  if (!resp.ok()) return PrintRemoteError("report", resp.status());
  std::vector<scoring::ReportFile> files;
  for (const auto& f : resp->files()) files.push_back({f.name(), f.media_type(), f.content()});
  return WriteReportFiles(files, a.out);
}

// The scoring input of a coordinator's SQLite file, read directly (no CSV in between).
std::optional<scoring::BuiltInput> ReadDatabase(const ReportArgs& a) {
  auto db = ArenaDatabase::Open(a.db);
  if (!db.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(db.status().message()).c_str());
    return std::nullopt;
  }
  auto built = (*db)->LoadReportInput(a.board, a.generalization, a.phase);
  if (!built.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(built.status().message()).c_str());
    return std::nullopt;
  }
  PrintWarnings("bbo report", built->warnings);
  return *std::move(built);
}

// A coordinator's SQLite file scored exactly as the coordinator scores it (the same report
// as `bbo report --server` gives for that phase).
int DatabaseReport(const ReportArgs& a) {
  auto db = ArenaDatabase::Open(a.db);
  if (!db.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(db.status().message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "bbo report: scoring %s, bootstrap B = %d...\n", a.db.c_str(),
               a.bootstrap.replicates);
  absl::StatusOr<nlohmann::json> report = (*db)->Report(a.board, a.phase, a.bootstrap);
  if (!report.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  auto files = scoring::RenderReportFiles(*report, a.format);
  if (!files.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(files.status().message()).c_str());
    return 1;
  }
  return WriteReportFiles(*files, a.out);
}

// What the report covers and how it is written (after the source options).
void AddReportOutputOptions(CLI::App& cmd, ReportArgs& args) {
  cmd.add_option("--phase", args.phase,
                 "Phase phase (practice, feedback, final; default: the server's)");
  cmd.add_option("--board", args.board,
                 "main, or warm-start (a final phase's run with real parameter names)")
      ->default_val(args.board);
  cmd.add_option("--format", args.format, "html, json or csv")
      ->default_val("html")
      ->check(CLI::IsMember({"html", "json", "csv"}));
  cmd.add_option("--out", args.out, "Output folder")->default_val("report");
  cmd.add_option("--bootstrap", args.bootstrap.replicates, "Bootstrap replicates B")
      ->default_val(10000)
      ->check(CLI::Range(1, 1000000));
  cmd.add_option("--seed", args.bootstrap.seed, "Bootstrap seed")->default_val(1);
  cmd.add_option("--top-k", args.bootstrap.top_k, "k of the bootstrap top-k tables")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));
}

}  // namespace

Command AddReportCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write the full scoring report of a phase (leaderboard, bootstrap ranks, Borda tables, "
      "plots) as HTML, JSON or CSV: from a bbo-server (default), a results CSV or a SQLite file.");
  // Its own address: --server here also tells the report's source apart.
  CLI::Option* server = AddServerOptions(*cmd, args->server, connection);
  cmd->add_option("--results", args->results,
                  "Score this results CSV offline instead (format of `bbo score`)");
  cmd->add_option("--db", args->db, "Score this coordinator SQLite file offline instead");
  cmd->add_option("--random-search", args->random_search,
                  "With --results: the method that is the random-search baseline "
                  "(default: random-search, or random-search-baseline)");
  cmd->add_flag("--generalization", args->generalization,
                "With --results or --db: score the held-out (generalization) loss "
                "at the visible argmin");
  AddReportOutputOptions(*cmd, *args);
  return {cmd, [args, server, &connection] {
            args->server_set = server->count() > 0;
            const bool remote = args->results.empty() && args->db.empty();
            if (remote && !Connect(connection, args->server)) return 1;
            return RunReport(*args);
          }};
}

int RunReport(const ReportArgs& a) {
  const int sources = !a.results.empty() + !a.db.empty() + a.server_set;
  if (sources > 1) {
    std::fprintf(stderr, "bbo report: give one of --server, --results, --db\n");
    return 2;
  }
  if (a.format != "html" && a.format != "json" && a.format != "csv") {
    std::fprintf(stderr, "bbo report: --format must be html, json or csv\n");
    return 2;
  }
  if (a.results.empty() && a.db.empty()) return RemoteReport(a);
  if (!a.db.empty() && !a.generalization) return DatabaseReport(a);
  std::optional<scoring::BuiltInput> built =
      a.db.empty() ? ReadResults("bbo report", a.results, a.random_search, a.generalization)
                   : ReadDatabase(a);
  if (!built) return 1;
  scoring::ReportOptions o;
  o.phase = a.phase.empty() ? "practice" : a.phase;
  o.source = a.db.empty() ? a.results : a.db;
  o.baseline_row_name = "";
  o.bootstrap = a.bootstrap;
  o.warnings = built->warnings;
  o.problem_info = KnownProblemInfo(built->input);
  std::fprintf(stderr,
               "bbo report: scoring %zu methods on %zu problems, bootstrap B = %d...\n",
               built->input.methods.size(), built->input.problems.size(),
               a.bootstrap.replicates);
  auto computed = scoring::ComputeReport(built->input, o);
  if (!computed.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(computed.status().message()).c_str());
    return 1;
  }
  nlohmann::json report = scoring::ReportJson(*computed, built->input);
  auto files = scoring::RenderReportFiles(report, a.format);
  if (!files.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(files.status().message()).c_str());
    return 1;
  }
  return WriteReportFiles(*files, a.out);
}

}  // namespace bbo::client
