// bbo replay: re-evaluates recorded studies and compares the values bit for bit (organizers).

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "problems/practice_suite.h"
#include "problems/registry.h"
#include "server/embed.h"

namespace bbo::client {

Command AddReplayCommand(CLI::App& app) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Re-evaluate recorded studies from a coordinator's SQLite file and check that "
                "every value is reproduced bit for bit (organizers).");
  cmd->add_option("--db", args->db, "The coordinator's SQLite file")->required();
  cmd->add_option("--study", args->study_ids, "Study id (repeatable)");
  cmd->add_flag("--all", args->all, "Every study in the file");
  cmd->add_option("--suite", args->suite, "The suite the studies ran on");
  cmd->add_option("--suite-file", args->suite_file, "Or the suite file");
  SuiteOptions& so = args->suite_options;
  cmd->add_option("--seed", so.seed, "The suite's instance seed")->default_val(0);
  cmd->add_option("--family", so.generated_family, "--suite generated: the task family")
      ->default_val(so.generated_family);
  cmd->add_option("--design", so.design_file,
                  "--suite generated: the design file the tasks came from");
  cmd->add_option("--tasks", so.generated_tasks, "--suite generated: number of tasks")
      ->default_val(so.generated_tasks);
  return {cmd, [args] { return RunReplay(*args); }};
}

int RunReplay(const ReplayArgs& a) {
  auto db = ArenaDatabase::Open(a.db);
  if (!db.ok()) {
    std::fprintf(stderr, "bbo replay: %s\n", std::string(db.status().message()).c_str());
    return 1;
  }
  std::vector<int64_t> ids = a.study_ids;
  if (a.all) {
    auto every = (*db)->StudyIds();
    if (!every.ok()) {
      std::fprintf(stderr, "bbo replay: %s\n", std::string(every.status().message()).c_str());
      return 1;
    }
    ids = *every;
  }
  if (ids.empty()) {
    std::fprintf(stderr, "bbo replay: give --study ID (repeatable) or --all\n");
    return 2;
  }
  // The problems: the practice suite, plus the suite the studies ran on.
  std::map<std::string, std::unique_ptr<Problem>> problems;
  for (auto& p : MakePracticeSuite()) problems[p->name()] = std::move(p);
  if (!a.suite.empty() || !a.suite_file.empty()) {
    auto made = a.suite_file.empty() ? MakeSuite(a.suite, a.suite_options)
                                     : MakeSuiteFromFile(a.suite_file, a.suite_options);
    if (!made.ok()) {
      std::fprintf(stderr, "bbo replay: %s\n", std::string(made.status().message()).c_str());
      return 1;
    }
    for (auto& p : *made) problems[p->name()] = std::move(p);
  }
  const ReplayRun run = (*db)->ReplayStudies(ids, problems);
  int failed = 0, evaluations = 0;
  for (const ReplayedStudy& r : run.studies) {
    const long long id = static_cast<long long>(r.study_id);
    if (r.skipped) {
      std::printf("study %lld: problem %s is not in the practice suite or --suite; skipped\n", id,
                  r.problem.c_str());
      continue;
    }
    evaluations += r.evaluations;
    if (!r.ok()) ++failed;
    if (!a.all || !r.ok()) {
      std::printf("study %lld (%s): %d of %d values reproduced%s\n", id, r.problem.c_str(),
                  r.reproduced, r.evaluations,
                  r.signature_changed ? "; the problem's signature changed" : "");
      for (const auto& d : r.differences) std::printf("  %s\n", d.c_str());
    }
  }
  if (!run.error.ok()) {
    std::fprintf(stderr, "bbo replay: %s\n", std::string(run.error.message()).c_str());
    return 1;
  }
  std::printf("%zu studies, %d evaluations replayed; %d not reproduced\n", ids.size(),
              evaluations, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace bbo::client
