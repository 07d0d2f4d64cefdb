// bbo tasks design / bbo tasks list: designs of generated-task families (Klein et al. (2019,
// Profet), problems/generated/task_generator.h), for organizers.
//
//   bbo tasks design --family F --out design.sqlite [--points N] [--seed S]
//       Evaluates the real tasks of family F (registry.h GeneratedFamilies(): "bbob-d5",
//       "ml-<model>-<metric>") at N Sobol points, with progress on stderr, checks that a
//       generator fits, and stores the design in the SQLite file (a family already in the file
//       is replaced, other families are kept).
//   bbo tasks list [--design design.sqlite] [--json]
//       The families stored in a design file (tasks, points, dimensions); without --design, the
//       families that `bbo tasks design` can run here.
//
// The generated suite reads the file: `bbo problems list --suite generated --family F
// --design design.sqlite`.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "nlohmann/json.hpp"
#include "problems/generated/task_generator.h"
#include "problems/registry.h"

namespace bbo::client {
namespace {

using Clock = std::chrono::steady_clock;

int Fail(const char* command, const absl::Status& status) {
  std::fprintf(stderr, "bbo tasks %s: %s\n", command, std::string(status.message()).c_str());
  return 1;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// bbo tasks design: declared on `tasks`, into `args`.
CLI::App* AddDesignCommand(CLI::App& tasks, TasksDesignArgs& args) {
  CLI::App* cmd = tasks.add_subcommand(
      "design",
      "Evaluate a family's real tasks at Sobol points and store the design for the "
      "generated suite (progress on stderr).");
  cmd->add_option("--family", args.family,
                  "Task family: bbob-d5 or ml-<model>-<metric> (bbo tasks list)")
      ->required();
  cmd->add_option("--out", args.out,
                  "SQLite design file (created if missing; the family is replaced)")
      ->required();
  cmd->add_option("--points", args.points, "Sobol design points")
      ->default_val(kDefaultDesignPoints)
      ->check(CLI::Range(4, 100000));
  cmd->add_option("--seed", args.seed,
                  "Instance seed of the real tasks (BBOB instance - 1, ML splits)")
      ->default_val(0);
  return cmd;
}

// bbo tasks list: declared on `tasks`, into `args`.
void AddListCommand(CLI::App& tasks, TasksListArgs& args) {
  CLI::App* cmd = tasks.add_subcommand(
      "list",
      "The families stored in a design file, or (without --design) the families that "
      "can be designed here.");
  cmd->add_option("--design", args.design, "SQLite design file from `bbo tasks design`");
  cmd->add_flag("--json", args.json, "JSON output");
}

}  // namespace

Command AddTasksCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("tasks",
                                     "Designs of generated-task families (Klein et al. (2019, "
                                     "Profet)): run a family's design into a "
                                     "SQLite file, list the families (organizers).");
  cmd->require_subcommand(1);
  auto design = std::make_shared<TasksDesignArgs>();
  auto list = std::make_shared<TasksListArgs>();
  CLI::App* design_cmd = AddDesignCommand(*cmd, *design);
  AddListCommand(*cmd, *list);
  // One of the two was given (require_subcommand).
  return {cmd, [design, list, design_cmd] {
            return design_cmd->parsed() ? RunTasksDesign(*design) : RunTasksList(*list);
          }};
}

int RunTasksDesign(const TasksDesignArgs& a) {
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

int RunTasksList(const TasksListArgs& a) {
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

}  // namespace bbo::client
