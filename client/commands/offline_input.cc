#include "client/commands/offline_input.h"

#include <cstdio>
#include <fstream>
#include <set>

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
  // The random-search method: as named, or the one of the two names random search goes by
  // (bbo local's and Bayesmark's "random-search", a coordinator's export's
  // "random-search-baseline").
  std::string rs = random_search;
  if (rs.empty()) {
    std::set<std::string> methods;
    for (const auto& r : table->rows) methods.insert(r.method);
    rs = methods.count("random-search") ? "random-search"
         : methods.count("random-search-baseline") ? "random-search-baseline"
                                                   : "random-search";
  }
  auto built = scoring::BuildScoringInput(*table, rs, generalization);
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
