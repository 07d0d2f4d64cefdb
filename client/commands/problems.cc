// bbo problems (a server's practice problems) and bbo problems list (a suite built here).

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
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

namespace {

// The rows of `bbo problems list` and their counts.
struct SuiteListing {
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, int> per_family;
  std::map<std::string, int> per_attribute;

  void Add(const std::string& name, const std::string& family, const SearchSpace& space,
           const std::vector<std::string>& attributes, const std::string& description,
           std::optional<double> optimum, bool show_optimum) {
    per_family[family]++;
    for (const auto& attr : attributes) per_attribute[attr]++;
    nlohmann::json row = {{"name", name},
                          {"family", family},
                          {"dimension", space.dims()},
                          {"parameter_types", ParamTypes(space)},
                          {"attributes", attributes},
                          {"description", description}};
    if (show_optimum) row["optimum"] = optimum ? nlohmann::json(*optimum) : nullptr;
    rows.push_back(row);
  }
};

// The scikit-learn pack describes its problems itself in one process, without loading data or
// starting a process per problem (which building the suite does): a second instead of a minute.
absl::Status ListSklearnPack(const ProblemsListArgs& a, SuiteListing& listing) {
  absl::StatusOr<std::vector<nlohmann::json>> described = DescribeSklearnPack(a.suite_options);
  if (!described.ok()) return described.status();
  for (const nlohmann::json& d : *described) {
    auto space = SearchSpace::FromJson(d.value("api_config", nlohmann::json::object()));
    if (!space.ok()) {
      return absl::Status(space.status().code(),
                          absl::StrCat(d.value("name", "?"), ": ", space.status().message()));
    }
    listing.Add(d.value("name", ""), d.value("family", "sklearn"), *space,
                d.value("attributes", std::vector<std::string>()), d.value("description", ""),
                std::nullopt, a.show_optimum);
  }
  return absl::OkStatus();
}

// Any other suite, or a suite file: built here.
absl::Status ListBuiltSuite(const ProblemsListArgs& a, SuiteListing& listing) {
  auto problems = a.suite_file.empty() ? MakeSuite(a.suite, a.suite_options)
                                       : MakeSuiteFromFile(a.suite_file, a.suite_options);
  if (!problems.ok()) return problems.status();
  for (const auto& p : *problems) {
    listing.Add(p->name(), p->family(), p->space(), p->attributes(), p->description(),
                p->known_optimum(), a.show_optimum);
  }
  return absl::OkStatus();
}

void PrintListingJson(const ProblemsListArgs& a, const SuiteListing& listing) {
  std::cout << nlohmann::json{{"suite", a.suite_file.empty() ? a.suite : a.suite_file},
                              {"seed", a.suite_options.seed},
                              {"problems", listing.rows},
                              {"per_family", listing.per_family},
                              {"per_attribute", listing.per_attribute}}
                   .dump(2)
            << "\n";
}

void PrintListingTable(const ProblemsListArgs& a, const SuiteListing& listing) {
  std::printf("%-28s %-10s %4s %-26s %s%s\n", "name", "family", "dim", "parameters",
              "attributes", a.show_optimum ? "  [optimum]" : "");
  for (const auto& row : listing.rows) {
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

// bbo problems list: declared on `problems`, into `list`.
CLI::App* AddListCommand(CLI::App& problems, ProblemsListArgs& list) {
  CLI::App* cmd = problems.add_subcommand(
      "list", "List a problem suite on this machine: name, family, dimension, parameter types, "
              "attributes (organizers: --show-optimum).");
  cmd->add_option("--suite", list.suite, "practice, synthetic, bbob, ml, sklearn, generated")
      ->default_val(list.suite);
  cmd->add_option("--suite-file", list.suite_file, "A suite file (JSON)");
  cmd->add_option("--seed", list.suite_options.seed, "Instance seed")->default_val(0);
  cmd->add_option("--family", list.suite_options.generated_family,
                  "generated: the task family (bbo tasks list)")
      ->default_val(list.suite_options.generated_family);
  cmd->add_option("--design", list.suite_options.design_file,
                  "generated: a design file from `bbo tasks design`");
  cmd->add_flag("--show-optimum", list.show_optimum,
                "Show each problem's known optimum (organizers only)");
  cmd->add_flag("--json", list.json, "JSON output");
  cmd->add_flag("--counts", list.counts_only, "Only the counts per family");
  return cmd;
}

}  // namespace

// Organizers list hidden suites this way: they are built from local definitions.
int RunProblemsList(const ProblemsListArgs& a) {
  SuiteListing listing;
  const absl::Status listed = a.suite == "sklearn" && a.suite_file.empty()
                                  ? ListSklearnPack(a, listing)
                                  : ListBuiltSuite(a, listing);
  if (!listed.ok()) {
    std::fprintf(stderr, "bbo problems list: %s\n", std::string(listed.message()).c_str());
    return 1;
  }
  if (a.json) {
    PrintListingJson(a, listing);
    return 0;
  }
  if (!a.counts_only) PrintListingTable(a, listing);
  std::printf("%zu problems;", listing.rows.size());
  for (const auto& [family, n] : listing.per_family) std::printf(" %s %d", family.c_str(), n);
  std::printf("\n");
  return 0;
}

Command AddProblemsCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<ProblemsArgs>();
  auto list = std::make_shared<ProblemsListArgs>();
  CLI::App* cmd = app.add_subcommand(
      "problems", "List the practice problems a remote client can open studies on.");
  AddServerOptions(*cmd, args->server, connection);
  cmd->add_flag("--json", args->json, "JSON output (with each api_config)");
  CLI::App* list_cmd = AddListCommand(*cmd, *list);
  // `bbo problems list` runs here; `bbo problems` asks the server.
  return {cmd, [args, list, list_cmd, &connection] {
            if (list_cmd->parsed()) return RunProblemsList(*list);
            return Connect(connection, args->server) ? RunProblems(*args) : 1;
          }};
}

}  // namespace bbo::client
