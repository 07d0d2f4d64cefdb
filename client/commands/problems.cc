// bbo problems (a server's practice problems) and bbo problems list (a suite built here).

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands/commands.h"
#include "client/remote.h"
#include "nlohmann/json.hpp"
#include "problems/registry.h"

namespace bbo::client {
namespace {

// "real x3, int x1, cat x1" from a search space.
std::string ParamTypes(const SearchSpace& space) {
  std::map<std::string, int> counts;
  for (const auto& [name, spec] : space.api_config().items()) {
    counts[spec.value("type", std::string("?"))]++;
  }
  std::vector<std::string> parts;
  for (const char* t : {"real", "int", "bool", "cat"}) {
    if (counts.count(t)) parts.push_back(absl::StrFormat("%s x%d", t, counts[t]));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

int RunProblems(const ProblemsArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls).ListProblems();
  if (!resp.ok()) return PrintRemoteError("problems", resp.status());
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : resp->problems()) {
      out.push_back({{"name", p.name()},
                     {"description", p.description()},
                     {"api_config", nlohmann::json::parse(p.api_config_json())}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& p : resp->problems()) {
    std::printf("%-22s %s\n", p.name().c_str(), p.description().c_str());
  }
  return 0;
}

// Organizers list hidden suites this way: they are built from local definitions.
int RunProblemsList(const ProblemsListArgs& a) {
  const SuiteOptions& so = a.suite_options;
  auto problems = a.suite_file.empty() ? MakeSuite(a.suite, so)
                                       : MakeSuiteFromFile(a.suite_file, so);
  if (!problems.ok()) {
    std::fprintf(stderr, "bbo problems list: %s\n",
                 std::string(problems.status().message()).c_str());
    return 1;
  }
  std::map<std::string, int> per_family;
  std::map<std::string, int> per_attribute;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : *problems) {
    per_family[p->family()]++;
    for (const auto& attr : p->attributes()) per_attribute[attr]++;
    nlohmann::json row = {{"name", p->name()},
                          {"family", p->family()},
                          {"dimension", p->space().dims()},
                          {"parameter_types", ParamTypes(p->space())},
                          {"attributes", p->attributes()},
                          {"description", p->description()}};
    if (a.show_optimum) {
      row["optimum"] = p->known_optimum() ? nlohmann::json(*p->known_optimum()) : nullptr;
    }
    out.push_back(row);
  }
  if (a.json) {
    std::cout << nlohmann::json{{"suite", a.suite_file.empty() ? a.suite : a.suite_file},
                                {"seed", so.seed},
                                {"problems", out},
                                {"per_family", per_family},
                                {"per_attribute", per_attribute}}
                     .dump(2)
              << "\n";
    return 0;
  }
  if (!a.counts_only) {
    std::printf("%-28s %-10s %4s %-26s %s%s\n", "name", "family", "dim", "parameters",
                "attributes", a.show_optimum ? "  [optimum]" : "");
    for (const auto& row : out) {
      std::vector<std::string> attrs = row["attributes"].get<std::vector<std::string>>();
      std::string opt;
      if (a.show_optimum) {
        opt = row["optimum"].is_null() ? "  [unknown]"
                                       : absl::StrFormat("  [%.10g]", row["optimum"].get<double>());
      }
      std::printf("%-28s %-10s %4d %-26s %s%s\n", row["name"].get<std::string>().c_str(),
                  row["family"].get<std::string>().c_str(), row["dimension"].get<int>(),
                  row["parameter_types"].get<std::string>().c_str(),
                  absl::StrJoin(attrs, ", ").c_str(), opt.c_str());
    }
  }
  std::printf("%zu problems;", problems->size());
  for (const auto& [family, n] : per_family) std::printf(" %s %d", family.c_str(), n);
  std::printf("\n");
  return 0;
}

}  // namespace bbo::client
