#ifndef BBO_CLIENT_TASKS_COMMAND_H_
#define BBO_CLIENT_TASKS_COMMAND_H_

// `bbo tasks`: designs of generated-task families (seed 004, task_generator.h), for organizers.
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
//
// Exit codes: 0 on success, 1 when the command fails (the message goes to stderr as
// "bbo tasks <cmd>: ..."), CLI11's codes for bad command lines.

#include "CLI/CLI.hpp"

namespace bbo {

// Adds the `tasks` subcommand to `app`. Its subcommands run from CLI11 callbacks while `app`
// parses; a failure throws CLI::RuntimeError(1), which CLI11_PARSE turns into the exit code.
void AddTasksCommand(CLI::App& app);

}  // namespace bbo

#endif  // BBO_CLIENT_TASKS_COMMAND_H_
