#include "client/commands/offline_input.h"

#include <cstdio>
#include <fstream>

#include "problems/practice_suite.h"

namespace bbo::client {

std::optional<scoring::BuiltInput> ReadResults(const std::string& what, const std::string& path,
                                               const std::string& random_search,
                                               bool generalization) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", what.c_str(), path.c_str());
    return std::nullopt;
  }
  auto table = scoring::ParseResultsCsv(in);
  if (!table.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", what.c_str(), path.c_str(),
                 std::string(table.status().message()).c_str());
    return std::nullopt;
  }
  auto built = scoring::BuildScoringInput(*table, random_search, generalization);
  if (!built.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), std::string(built.status().message()).c_str());
    return std::nullopt;
  }
  PrintWarnings(what, built->warnings);
  return *std::move(built);
}

void PrintWarnings(const std::string& what, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    std::fprintf(stderr, "%s: warning: %s\n", what.c_str(), w.c_str());
  }
}

std::map<std::string, scoring::ProblemInfo> KnownProblemInfo(const scoring::ScoringInput& input) {
  std::map<std::string, scoring::ProblemInfo> info;
  for (const auto& [name, unused] : input.problems) {
    auto p = MakeProblem(name);
    if (p.ok()) info[name] = {(*p)->space().dims(), (*p)->attributes()};
  }
  return info;
}

}  // namespace bbo::client
