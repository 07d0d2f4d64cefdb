// bbo export: a coordinator's scored results as a CSV for `bbo score` (organizers).

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "client/commands/commands.h"
#include "server/embed.h"

namespace bbo::client {

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
