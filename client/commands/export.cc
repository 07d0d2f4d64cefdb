// bbo export: a coordinator's scored results as a CSV for `bbo score` (organizers).

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "server/embed.h"

namespace bbo::client {

Command AddExportCommand(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a coordinator's scored results as a CSV for `bbo score` (organizers).");
  cmd->add_option("--db", args->db, "The coordinator's SQLite file")->required();
  cmd->add_option("--out", args->out, "Output file (default: stdout)");
  cmd->add_option("--board", args->board, "main or warm-start")->default_val(args->board);
  cmd->add_option("--phase", args->phase, "A phase of the competition file the database serves");
  return {cmd, [args] { return RunExport(*args); }};
}

int RunExport(const ExportArgs& a) {
  auto db = ArenaDatabase::Open(a.db);
  if (!db.ok()) {
    std::fprintf(stderr, "bbo export: %s\n", std::string(db.status().message()).c_str());
    return 1;
  }
  absl::Status s;
  if (a.out.empty() || a.out == "-") {
    s = (*db)->ExportResultsCsv(a.board, std::cout, a.phase);
  } else {
    std::ofstream out(a.out);
    s = (*db)->ExportResultsCsv(a.board, out, a.phase);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "bbo export: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace bbo::client
