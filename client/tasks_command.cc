#include "client/tasks_command.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "problems/generated/task_generator.h"
#include "problems/registry.h"

namespace bbo {
namespace {

using Clock = std::chrono::steady_clock;

struct DesignArgs {
  std::string family;
  std::string out;
  int points = kDefaultDesignPoints;
  uint64_t seed = 0;
};

struct ListArgs {
  std::string design;
  bool json = false;
};

int Fail(const char* command, const absl::Status& status) {
  std::fprintf(stderr, "bbo tasks %s: %s\n", command, std::string(status.message()).c_str());
  return 1;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int Design(const DesignArgs& a) {
  auto real = MakeFamilyTasks(a.family, a.seed);
  if (!real.ok()) return Fail("design", real.status());
  std::vector<const Problem*> tasks;
  for (const auto& p : *real) tasks.push_back(p.get());
  std::fprintf(stderr, "bbo tasks design: family %s, %zu tasks x %d points, %d dimensions\n",
               a.family.c_str(), tasks.size(), a.points, tasks[0]->space().dims());
  const auto start = Clock::now();
  auto design =
      RunDesign(a.family, tasks, a.points, [&](int done, int total, const std::string& task) {
        std::fprintf(stderr,
                     "bbo tasks design: %d/%d tasks done (%s), "
                     "%.1f s elapsed\n",
                     done, total, task.c_str(), SecondsSince(start));
      });
  if (!design.ok()) return Fail("design", design.status());
  // A design the generator cannot fit would only fail later, in the generated suite.
  auto generator = TaskGenerator::Fit(*design);
  if (!generator.ok()) return Fail("design", generator.status());
  if (absl::Status saved = SaveDesign(*design, a.out); !saved.ok()) return Fail("design", saved);
  std::printf("%s: family %s, %zu tasks x %zu points, %d latent dimensions (%.1f s)\n",
              a.out.c_str(), a.family.c_str(), design->tasks.size(), design->unit_points.size(),
              (*generator)->latent_dims(), SecondsSince(start));
  return 0;
}

int List(const ListArgs& a) {
  if (a.design.empty()) {
    const std::vector<std::string> families = GeneratedFamilies();
    if (a.json) {
      std::cout << nlohmann::json{{"families", families}}.dump(2) << "\n";
    } else {
      for (const std::string& f : families) std::printf("%s\n", f.c_str());
    }
    return 0;
  }
  auto stored = ListDesigns(a.design);
  if (!stored.ok()) return Fail("list", stored.status());
  if (a.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const DesignSummary& s : *stored) {
      rows.push_back(
          {{"family", s.family}, {"tasks", s.tasks}, {"points", s.points}, {"dimensions", s.dims}});
    }
    std::cout << nlohmann::json{{"design", a.design}, {"families", rows}}.dump(2) << "\n";
    return 0;
  }
  std::printf("%-24s %6s %7s %5s\n", "family", "tasks", "points", "dims");
  for (const DesignSummary& s : *stored) {
    std::printf("%-24s %6d %7d %5d\n", s.family.c_str(), s.tasks, s.points, s.dims);
  }
  return 0;
}

// CLI11 callbacks cannot return an exit code; RuntimeError carries it out of CLI11_PARSE.
void Exit(int code) {
  if (code != 0) throw CLI::RuntimeError(code);
}

}  // namespace

void AddTasksCommand(CLI::App& app) {
  auto* tasks = app.add_subcommand(
      "tasks",
      "Designs of generated-task families (seed 004): run a family's design into a "
      "SQLite file, list the families (organizers).");
  tasks->require_subcommand(1);

  auto design = std::make_shared<DesignArgs>();
  auto* cmd_design = tasks->add_subcommand(
      "design",
      "Evaluate a family's real tasks at Sobol points and store the design for the "
      "generated suite (progress on stderr).");
  cmd_design
      ->add_option("--family", design->family,
                   "Task family: bbob-d5 or ml-<model>-<metric> (bbo tasks list)")
      ->required();
  cmd_design
      ->add_option("--out", design->out,
                   "SQLite design file (created if missing; the family is replaced)")
      ->required();
  cmd_design->add_option("--points", design->points, "Sobol design points")
      ->default_val(kDefaultDesignPoints)
      ->check(CLI::Range(4, 100000));
  cmd_design
      ->add_option("--seed", design->seed,
                   "Instance seed of the real tasks (BBOB instance - 1, ML splits)")
      ->default_val(0);
  cmd_design->callback([design] { Exit(Design(*design)); });

  auto list = std::make_shared<ListArgs>();
  auto* cmd_list = tasks->add_subcommand(
      "list",
      "The families stored in a design file, or (without --design) the families that "
      "can be designed here.");
  cmd_list->add_option("--design", list->design, "SQLite design file from `bbo tasks design`");
  cmd_list->add_flag("--json", list->json, "JSON output");
  cmd_list->callback([list] { Exit(List(*list)); });
}

}  // namespace bbo
