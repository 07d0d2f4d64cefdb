// bbo problems (a server's practice problems) and bbo problems list (a suite built here).

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
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
  std::map<std::string, int> per_family;
  std::map<std::string, int> per_attribute;
  nlohmann::json out = nlohmann::json::array();
  auto add = [&](const std::string& name, const std::string& family, const SearchSpace& space,
                 const std::vector<std::string>& attributes, const std::string& description,
                 std::optional<double> optimum) {
    per_family[family]++;
    for (const auto& attr : attributes) per_attribute[attr]++;
    nlohmann::json row = {{"name", name},
                          {"family", family},
                          {"dimension", space.dims()},
                          {"parameter_types", ParamTypes(space)},
                          {"attributes", attributes},
                          {"description", description}};
    if (a.show_optimum) row["optimum"] = optimum ? nlohmann::json(*optimum) : nullptr;
    out.push_back(row);
  };
  if (a.suite == "sklearn" && a.suite_file.empty()) {
    // The pack describes its problems itself in one process, without loading data or starting
    // a process per problem (which building the suite does): a second instead of a minute.
    auto described = DescribeSklearnPack(so);
    if (!described.ok()) {
      std::fprintf(stderr, "bbo problems list: %s\n",
                   std::string(described.status().message()).c_str());
      return 1;
    }
    for (const nlohmann::json& d : *described) {
      auto space = SearchSpace::FromJson(d.value("api_config", nlohmann::json::object()));
      if (!space.ok()) {
        std::fprintf(stderr, "bbo problems list: %s: %s\n", d.value("name", "?").c_str(),
                     std::string(space.status().message()).c_str());
        return 1;
      }
      add(d.value("name", ""), d.value("family", "sklearn"), *space,
          d.value("attributes", std::vector<std::string>()), d.value("description", ""),
          std::nullopt);
    }
  } else {
    auto problems = a.suite_file.empty() ? MakeSuite(a.suite, so)
                                         : MakeSuiteFromFile(a.suite_file, so);
    if (!problems.ok()) {
      std::fprintf(stderr, "bbo problems list: %s\n",
                   std::string(problems.status().message()).c_str());
      return 1;
    }
    for (const auto& p : *problems) {
      add(p->name(), p->family(), p->space(), p->attributes(), p->description(),
          p->known_optimum());
    }
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
  std::printf("%zu problems;", out.size());
  for (const auto& [family, n] : per_family) std::printf(" %s %d", family.c_str(), n);
  std::printf("\n");
  return 0;
}

}  // namespace bbo::client
