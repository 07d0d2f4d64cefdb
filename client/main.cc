// bbo: the bbo-arena command line for participants and organizers. This file only wires the
// command line (CLI11) to the commands of client/commands/ (commands.h).
//
//   bbo local SUBMISSION [--trials N] [--json]         score locally on the practice suite
//   bbo check SUBMISSION                               one short study, in seconds
//   bbo submit SUBMISSION [--name NAME] [--team T] [--server H:P]   register a submission
//   bbo status [--server H:P] [--json]                 submissions and their progress
//   bbo withdraw SUBMISSION_ID [--server H:P]          cancel a submission's queued jobs
//   bbo choose SUBMISSION_ID [--server H:P]            the submission that goes on to the next phase
//   bbo phases [--server H:P] [--json]                 the competition's phases and windows
//   bbo logs SUBMISSION_ID [--limit N] [--json]        why a submission's studies ended so
//   bbo leaderboard [--server H:P] [--board main|warm-start] [--json]   the leaderboard
//   bbo problems [--server H:P] [--json]               practice problems for remote studies
//   bbo score RESULTS.csv [--random-search NAME] [--json]   offline Bayesmark scoring
//   bbo export --db FILE [--out results.csv] [--board B]   a coordinator's results as CSV
//   bbo admin --db FILE team|worker|organizer add|rotate|revoke NAME; tokens; audit; jobs
//   bbo replay --db FILE (--study ID ... | --all)       re-evaluate recorded studies
//   bbo tasks design --family F --out FILE [--points N] [--seed S]   generated-task designs
//   bbo tasks list [--design FILE]                     task families (stored or designable)
//   bbo report [--server H:P | --results CSV | --db FILE] [--phase P] [--format html|json|csv]
//              [--out DIR]                             the full scoring report of a phase
//
// Every command that talks to a server also takes --ca_file (TLS) and --cert_file/--key_file
// (mutual TLS), or $BBO_CA_FILE, $BBO_CERT_FILE, $BBO_KEY_FILE.
//
// The participant build (-DBBO_PARTICIPANT_BUILD=ON, deploy/build-participant.sh) compiles
// only `local` and `check` (plus --help and --version): everything else is left out at compile
// time by the BBO_PARTICIPANT_BUILD blocks below, and client/CMakeLists.txt links no more.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#ifndef BBO_PARTICIPANT_BUILD
#include "common/address.h"
#include "problems/generated/task_generator.h"
#endif

namespace bbo::client {
namespace {

#ifndef BBO_PARTICIPANT_BUILD
// The TLS files of the commands that talk to a server, each with the flag or environment variable
// that named it (for error messages).
struct TlsFiles {
  PemFileArg ca{"", "--ca_file"};
  PemFileArg cert{"", "--cert_file"};
  PemFileArg key{"", "--key_file"};
};

// The environment's value, if set, as the default of `file`.
void FromEnvironment(const char* variable, PemFileArg* file) {
  const char* value = std::getenv(variable);
  if (value != nullptr) file->path = value;
}

void AddTlsOptions(CLI::App* cmd, TlsFiles* files) {
  cmd->add_option("--ca_file", files->ca.path,
                  "PEM certificate of the CA that signed the server's TLS certificate: connect "
                  "over TLS (default: $BBO_CA_FILE; none = plaintext)");
  cmd->add_option("--cert_file", files->cert.path,
                  "PEM client certificate for servers that require one (mutual TLS; default: "
                  "$BBO_CERT_FILE)");
  cmd->add_option("--key_file", files->key.path,
                  "PEM private key of --cert_file (default: $BBO_KEY_FILE)");
}

// Reads the TLS files into `server`; prints the error and returns false when one is wrong.
bool LoadTls(TlsFiles files, ServerArgs* server) {
  // A path the flag did not change came from the environment: name the variable.
  for (auto [file, variable] : {std::pair{&files.ca, "BBO_CA_FILE"},
                                std::pair{&files.cert, "BBO_CERT_FILE"},
                                std::pair{&files.key, "BBO_KEY_FILE"}}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && !file->path.empty() && file->path == value) file->flag = variable;
  }
  absl::StatusOr<ClientTls> tls = ReadClientTls(files.ca, files.cert, files.key);
  if (!tls.ok()) {
    std::fprintf(stderr, "bbo: %s\n", std::string(tls.status().message()).c_str());
    return false;
  }
  server->tls = *std::move(tls);
  return true;
}
#endif  // BBO_PARTICIPANT_BUILD

int Main(int argc, char** argv) {
  // Exit codes: 0 success, 1 the command failed, 2 a command line that cannot run.
#ifdef BBO_PARTICIPANT_BUILD
  CLI::App app{"bbo: the bbo-arena command line, participant build: `local` and `check` only "
               "(the full build has every command)"};
#else
  CLI::App app{"bbo: the bbo-arena command line (black-box optimization competitions)"};
#endif
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bbo ") + BBO_VERSION);
  LocalArgs local;
  LocalRunOptions& lo = local.run;
  auto* cmd_local = app.add_subcommand(
      "local", "Score a submission on the practice problems on this machine (embedded coordinator "
               "and sandboxed worker).");
  cmd_local->add_option("SUBMISSION", lo.submission_dir,
                        "Folder with optimizer.py (Bayesmark-style) or an executable `optimizer`, "
                        "or a .tar / .tar.gz / .zip of one (what `bbo submit` takes)")
      ->required();
  cmd_local->add_option("--trials", lo.trials, "Trials per problem")
      ->default_val(3)
      ->check(CLI::Range(1, 100));
  cmd_local->add_flag("--json", local.json, "Print the report as JSON on stdout");
  cmd_local->add_option("--problems", local.problems,
                        "Comma-separated problems of the suite (default: all)");
  cmd_local->add_option("--suite", lo.suite,
                        "practice (default), synthetic, bbob, ml, sklearn (with --problems), "
                        "generated")
      ->default_val(lo.suite);
  cmd_local->add_option("--suite-seed", lo.suite_seed, "Instance seed of the suite")
      ->default_val(0);
  cmd_local->add_option("--family", lo.generated_family,
                        "--suite generated: the task family (bbo tasks list)")
      ->default_val(lo.generated_family);
  cmd_local->add_option("--design", lo.design_file,
                        "--suite generated: a design file from `bbo tasks design`");
  cmd_local->add_option("--workers", lo.workers, "Optimizers run in parallel")
      ->default_val(1)
      ->check(CLI::Range(1, 64));
  cmd_local->add_option("--eval-slots", lo.eval_slots,
                        "Objective evaluations run at once (a batch's points in parallel); "
                        "0 = one per core")
      ->default_val(0)
      ->check(CLI::Range(0, 256));
  cmd_local->add_option("--baseline-trials", lo.baseline_trials,
                        "Random-search baseline trials per problem")
      ->default_val(10)
      ->check(CLI::Range(1, 1000));
  cmd_local->add_option("--batch-size", lo.budget.batch_size, "Points per batch")->default_val(8);
  cmd_local->add_option("--n-batches", lo.budget.n_batches, "Batches per study")->default_val(16);
  cmd_local->add_option("--suggest-budget", lo.budget.suggest_budget_s,
                        "Optimizer seconds per suggest")
      ->default_val(40);
  cmd_local->add_option("--study-budget", lo.budget.study_budget_s, "Optimizer seconds per study")
      ->default_val(640);
  cmd_local->add_option("--db", lo.db_path, "Keep the results in this SQLite file");
  cmd_local->add_flag("--insecure-no-sandbox", lo.insecure_no_sandbox,
                      "Run the optimizer without the bubblewrap sandbox (hosts without user "
                      "namespaces)");
  cmd_local->add_flag("--verbose", lo.verbose, "Show the optimizer's stderr");

  CheckArgs check_args;
  auto* cmd_check = app.add_subcommand(
      "check", "Run one short study of a submission on one practice problem, in seconds, before "
               "submitting it: exit 1, quoting your files' traceback, when it would fail.");
  cmd_check->add_option("SUBMISSION", check_args.run.submission_dir,
                        "Folder with optimizer.py or an executable `optimizer`, or an archive")
      ->required();
  cmd_check->add_option("--problem", check_args.problem, "The practice problem")
      ->default_val(check_args.problem);
  cmd_check->add_option("--n-batches", check_args.batches, "Batches of the study")
      ->default_val(check_args.batches)
      ->check(CLI::Range(1, 16));
  cmd_check->add_flag("--insecure-no-sandbox", check_args.run.insecure_no_sandbox,
                      "Run the optimizer without the bubblewrap sandbox");

#ifndef BBO_PARTICIPANT_BUILD
  // The caller's token (a team's or an organizer's): `bbo --token_file F`, the BBO_TOKEN
  // environment variable, or `bbo --token T` (shows in the process list).
  ServerArgs server;
  if (const char* env = std::getenv("BBO_TOKEN")) server.token = env;
  app.add_option("--token", server.token,
                 "Your token: a team's (bbo submit, status, practice studies) or an organizer's "
                 "(default: $BBO_TOKEN, which does not show in the process list)");
  std::string token_file;
  app.add_option("--token_file", token_file, "A file holding your token (instead of --token)");
  TlsFiles tls;
  FromEnvironment("BBO_CA_FILE", &tls.ca);
  FromEnvironment("BBO_CERT_FILE", &tls.cert);
  FromEnvironment("BBO_KEY_FILE", &tls.key);

  SubmitArgs submit;
  auto* cmd_submit = app.add_subcommand("submit", "Register a submission with a bbo-server.");
  cmd_submit->add_option("SUBMISSION", submit.path,
                         "Submission folder, or a .zip / .tar.gz / .tar of it")
      ->required();
  cmd_submit->add_option("--name", submit.name, "Display name (default: the folder's name)");
  cmd_submit->add_option("--trials", submit.trials, "Trials per problem (0 = server default)");
  cmd_submit->add_option("--team", submit.team,
                         "Organizers only: the team to submit for (a team token submits for its "
                         "own team)");
  cmd_submit->add_option("--phase", submit.phase,
                         "The phase to submit to (default: the one open for submissions now)");
  cmd_submit->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_submit, &tls);

  StatusArgs status;
  auto* cmd_status = app.add_subcommand("status", "List submissions and their progress.");
  cmd_status->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_status, &tls);
  cmd_status->add_flag("--json", status.json, "JSON output");
  cmd_status->add_option("--phase", status.phase, "Only this phase's submissions");

  ChooseArgs choose;
  auto* cmd_choose = app.add_subcommand(
      "choose",
      "Choose which of your team's submissions goes on to the next phase when its phase ends "
      "(without a choice, your latest successful one goes); you can change it until then.");
  cmd_choose->add_option("SUBMISSION_ID", choose.submission_id, "As `bbo status` shows it")
      ->required();
  cmd_choose->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_choose, &tls);

  LogsArgs logs;
  auto* cmd_logs = app.add_subcommand(
      "logs", "Why a submission's studies ended as they did: each study's end, every error by "
              "kind, and the first ones in full (your optimizer's messages and stderr tail).");
  cmd_logs->add_option("SUBMISSION_ID", logs.submission_id, "As `bbo status` shows it")
      ->required();
  cmd_logs->add_option("--limit", logs.limit, "Errors shown in full (all are counted)")
      ->default_val(logs.limit)
      ->check(CLI::Range(1, 10000));
  cmd_logs->add_flag("--json", logs.json, "JSON output");
  cmd_logs->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_logs, &tls);

  PhasesArgs phases;
  auto* cmd_phases = app.add_subcommand(
      "phases", "The competition's phases: windows (UTC), time left, rules, board visibility.");
  cmd_phases->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_phases, &tls);
  cmd_phases->add_flag("--json", phases.json, "JSON output");

  WithdrawArgs withdraw;
  auto* cmd_withdraw = app.add_subcommand(
      "withdraw", "Cancel a submission's queued jobs (your team's; running studies finish).");
  cmd_withdraw->add_option("SUBMISSION_ID", withdraw.submission_id, "As `bbo status` shows it")
      ->required();
  cmd_withdraw->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_withdraw, &tls);

  LeaderboardArgs board;
  auto* cmd_board = app.add_subcommand("leaderboard", "Show the current leaderboard.");
  cmd_board->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_board, &tls);
  cmd_board->add_flag("--json", board.json, "JSON output (full report)");
  cmd_board->add_option("--phase", board.phase, "The phase (default: the current one)");
  cmd_board->add_option("--board", board.board,
                        "main, or warm-start (a final phase's run with real parameter names)")
      ->default_val(board.board);

  ProblemsArgs problems;
  auto* cmd_problems = app.add_subcommand(
      "problems", "List the practice problems a remote client can open studies on.");
  cmd_problems->add_option("--server", server.address, "bbo-server address")
      ->default_val(server.address);
  AddTlsOptions(cmd_problems, &tls);
  cmd_problems->add_flag("--json", problems.json, "JSON output (with each api_config)");
  ProblemsListArgs list;
  auto* cmd_problems_list = cmd_problems->add_subcommand(
      "list", "List a problem suite on this machine: name, family, dimension, parameter types, "
              "attributes (organizers: --show-optimum).");
  cmd_problems_list->add_option("--suite", list.suite,
                                "practice, synthetic, bbob, ml, sklearn, generated")
      ->default_val(list.suite);
  cmd_problems_list->add_option("--suite-file", list.suite_file, "A suite file (JSON)");
  cmd_problems_list->add_option("--seed", list.suite_options.seed, "Instance seed")
      ->default_val(0);
  cmd_problems_list->add_option("--family", list.suite_options.generated_family,
                                "generated: the task family (bbo tasks list)")
      ->default_val(list.suite_options.generated_family);
  cmd_problems_list->add_option("--design", list.suite_options.design_file,
                                "generated: a design file from `bbo tasks design`");
  cmd_problems_list->add_flag("--show-optimum", list.show_optimum,
                              "Show each problem's known optimum (organizers only)");
  cmd_problems_list->add_flag("--json", list.json, "JSON output");
  cmd_problems_list->add_flag("--counts", list.counts_only, "Only the counts per family");

  ScoreArgs score;
  auto* cmd_score = app.add_subcommand(
      "score", "Score a results table offline with Bayesmark's estimators (no server).");
  cmd_score->add_option("RESULTS_CSV", score.path,
                        "CSV: problem,method,trial,batch,suggestion,value[,generalization]")
      ->required();
  cmd_score->add_option("--random-search", score.random_search,
                        "The method whose evaluations are the random-search baseline (default: "
                        "random-search, or random-search-baseline as bbo export names it)");
  cmd_score->add_flag("--json", score.json, "JSON output");
  cmd_score->add_flag("--generalization", score.generalization,
                      "Score the generalization column at the argmin of the visible value");
  cmd_score->add_option("--alpha", score.alpha, "1 - confidence level of the error bars")
      ->default_val(0.05)
      ->check(CLI::Range(1e-6, 0.5));
  cmd_score->add_option("--bootstrap", score.bootstrap.replicates, "Bootstrap replicates B")
      ->default_val(10000)
      ->check(CLI::Range(1, 10000000));
  cmd_score->add_option("--seed", score.bootstrap.seed, "Bootstrap seed")->default_val(1);
  cmd_score->add_option("--top-k", score.bootstrap.top_k, "k of the bootstrap top-k tables")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));

  ExportArgs exp;
  auto* cmd_export = app.add_subcommand(
      "export", "Write a coordinator's scored results as a CSV for `bbo score` (organizers).");
  cmd_export->add_option("--db", exp.db, "The coordinator's SQLite file")->required();
  cmd_export->add_option("--out", exp.out, "Output file (default: stdout)");
  cmd_export->add_option("--board", exp.board, "main or warm-start")->default_val(exp.board);
  cmd_export->add_option("--phase", exp.phase,
                         "A phase of the competition file the database serves");

  ReportArgs rep;
  auto* cmd_report = app.add_subcommand(
      "report",
      "Write the full scoring report of a phase (leaderboard, bootstrap ranks, Borda tables, "
      "plots) as HTML, JSON or CSV: from a bbo-server (default), a results CSV or a SQLite file.");
  // Its own address: --server here also tells the report's source apart.
  auto* server_opt = cmd_report->add_option("--server", rep.server.address, "bbo-server address")
                         ->default_val(server.address);
  AddTlsOptions(cmd_report, &tls);
  cmd_report->add_option("--results", rep.results,
                         "Score this results CSV offline instead (format of `bbo score`)");
  cmd_report->add_option("--db", rep.db, "Score this coordinator SQLite file offline instead");
  cmd_report->add_option("--random-search", rep.random_search,
                         "With --results: the method that is the random-search baseline "
                         "(default: random-search, or random-search-baseline)");
  cmd_report->add_flag("--generalization", rep.generalization,
                       "With --results or --db: score the held-out (generalization) loss "
                       "at the visible argmin");
  cmd_report->add_option("--phase", rep.phase,
                         "Phase phase (practice, feedback, final; default: the server's)");
  cmd_report->add_option("--board", rep.board,
                         "main, or warm-start (a final phase's run with real parameter names)")
      ->default_val(rep.board);
  cmd_report->add_option("--format", rep.format, "html, json or csv")
      ->default_val("html")
      ->check(CLI::IsMember({"html", "json", "csv"}));
  cmd_report->add_option("--out", rep.out, "Output folder")->default_val("report");
  cmd_report->add_option("--bootstrap", rep.bootstrap.replicates, "Bootstrap replicates B")
      ->default_val(10000)
      ->check(CLI::Range(1, 1000000));
  cmd_report->add_option("--seed", rep.bootstrap.seed, "Bootstrap seed")->default_val(1);
  cmd_report->add_option("--top-k", rep.bootstrap.top_k, "k of the bootstrap top-k tables")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));

  ReplayArgs replay;
  auto* cmd_replay = app.add_subcommand(
      "replay", "Re-evaluate recorded studies from a coordinator's SQLite file and check that "
                "every value is reproduced bit for bit (organizers).");
  cmd_replay->add_option("--db", replay.db, "The coordinator's SQLite file")->required();
  cmd_replay->add_option("--study", replay.study_ids, "Study id (repeatable)");
  cmd_replay->add_flag("--all", replay.all, "Every study in the file");
  cmd_replay->add_option("--suite", replay.suite, "The suite the studies ran on");
  cmd_replay->add_option("--suite-file", replay.suite_file, "Or the suite file");
  cmd_replay->add_option("--seed", replay.suite_options.seed, "The suite's instance seed")
      ->default_val(0);
  cmd_replay->add_option("--family", replay.suite_options.generated_family,
                         "--suite generated: the task family")
      ->default_val(replay.suite_options.generated_family);
  cmd_replay->add_option("--design", replay.suite_options.design_file,
                         "--suite generated: the design file the tasks came from");
  cmd_replay->add_option("--tasks", replay.suite_options.generated_tasks,
                         "--suite generated: number of tasks")
      ->default_val(replay.suite_options.generated_tasks);

  auto* cmd_tasks = app.add_subcommand("tasks",
                                       "Designs of generated-task families (Klein et al. (2019, "
                                       "Profet)): run a family's design into a "
                                       "SQLite file, list the families (organizers).");
  cmd_tasks->require_subcommand(1);
  TasksDesignArgs design;
  auto* cmd_design = cmd_tasks->add_subcommand(
      "design",
      "Evaluate a family's real tasks at Sobol points and store the design for the "
      "generated suite (progress on stderr).");
  cmd_design
      ->add_option("--family", design.family,
                   "Task family: bbob-d5 or ml-<model>-<metric> (bbo tasks list)")
      ->required();
  cmd_design
      ->add_option("--out", design.out,
                   "SQLite design file (created if missing; the family is replaced)")
      ->required();
  cmd_design->add_option("--points", design.points, "Sobol design points")
      ->default_val(kDefaultDesignPoints)
      ->check(CLI::Range(4, 100000));
  cmd_design
      ->add_option("--seed", design.seed,
                   "Instance seed of the real tasks (BBOB instance - 1, ML splits)")
      ->default_val(0);
  TasksListArgs tasks_list;
  auto* cmd_tasks_list = cmd_tasks->add_subcommand(
      "list",
      "The families stored in a design file, or (without --design) the families that "
      "can be designed here.");
  cmd_tasks_list->add_option("--design", tasks_list.design,
                             "SQLite design file from `bbo tasks design`");
  cmd_tasks_list->add_flag("--json", tasks_list.json, "JSON output");

  AdminArgs admin;
  auto* cmd_admin = app.add_subcommand(
      "admin",
      "Organizers: tokens of teams, workers and organizers, the audit log and failed jobs, in "
      "the coordinator's SQLite file (a running coordinator may share it). WHAT: `team "
      "add|rotate|revoke NAME`, `worker add|rotate|revoke NAME`, `organizer add|rotate|revoke "
      "LABEL`, `tokens`, `audit`, `jobs` (those that failed without a result), `jobs requeue "
      "ID|all` (all: every failed job not withdrawn by its team), `publish PHASE` (show a "
      "board hidden until published to everyone), `unpublish PHASE --reason TEXT` (hide it "
      "again; recorded with the reason), `stop-race PHASE --reason TEXT` (end a racing phase's "
      "race now: its remaining submissions are the Pareto set).");
  cmd_admin->add_option("--db", admin.db, "The coordinator's SQLite file")->required();
  cmd_admin->add_option("--secret_file", admin.secret_file,
                        "The token secret (default: <db>.secret, created 0600)");
  cmd_admin->add_option("WHAT", admin.words, "What to do (see above)")->required();
  cmd_admin->add_option("--limit", admin.limit, "audit: the latest N entries")
      ->default_val(admin.limit);
  cmd_admin->add_flag("--json", admin.json, "JSON output (tokens, audit, jobs)");
  cmd_admin->add_option("--reason", admin.reason,
                        "unpublish, stop-race: why (recorded and shown)");
#endif  // BBO_PARTICIPANT_BUILD

  // Global options may come before or after the subcommand (`bbo leaderboard --token_file F`):
  // what a subcommand does not know falls through to its parent.
  std::vector<CLI::App*> pending = app.get_subcommands([](CLI::App*) { return true; });
  while (!pending.empty()) {
    CLI::App* sub = pending.back();
    pending.pop_back();
    sub->fallthrough();
    for (CLI::App* s : sub->get_subcommands([](CLI::App*) { return true; })) pending.push_back(s);
  }
  // BBO_CLI_CHECK (tests/cli_docs_check.py): parse the command line and stop, exit 0 when it
  // would run; "fragment" also accepts a line that only lacks required arguments (a command
  // quoted inline in the docs).
  const char* check = std::getenv("BBO_CLI_CHECK");
  // Option names take dashes or underscores, as bbo-server's and bbo-worker's flags do
  // (--suite-file and --suite_file, --token_file and --token-file).
  std::set<std::string> names;
  std::vector<CLI::App*> apps = {&app};
  while (!apps.empty()) {
    CLI::App* a = apps.back();
    apps.pop_back();
    for (CLI::Option* o : a->get_options()) {
      for (const std::string& n : o->get_lnames()) names.insert(n);
      // A fragment needs none of its arguments, but what it shows must exist.
      if (check != nullptr && std::string(check) == "fragment") o->required(false);
    }
    for (CLI::App* s : a->get_subcommands([](CLI::App*) { return true; })) apps.push_back(s);
  }
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const size_t end = std::min(a.find('='), a.size());
    std::string name = a.substr(2, end - 2);
    if (names.count(name)) continue;
    std::string other = name;
    for (char& c : other) c = c == '_' ? '-' : c == '-' ? '_' : c;
    if (names.count(other)) a.replace(2, name.size(), other);
  }
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
    if (check != nullptr) return 0;
  } catch (const CLI::RequiredError& e) {
    if (check != nullptr && std::string(check) == "fragment") return 0;
    std::fprintf(stderr, "bbo: %s\nRun with --help for more information.\n", e.what());
    return 2;
  } catch (const CLI::ArgumentMismatch& e) {
    // A fragment may name an option without its value (`bbo report --server`).
    if (check != nullptr && std::string(check) == "fragment") return 0;
    std::fprintf(stderr, "bbo: %s\nRun with --help for more information.\n", e.what());
    return 2;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the help, on stdout, exit 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A command line that cannot run: exit 2, and never echo a token back (it would end up in
    // terminals, logs and bug reports).
    std::string what = e.what();
    std::vector<std::string> secrets;
    if (const char* env = std::getenv("BBO_TOKEN")) secrets.push_back(env);
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if ((a == "--token") && i + 1 < argc) secrets.push_back(argv[i + 1]);
      if (a.rfind("--token=", 0) == 0) secrets.push_back(a.substr(8));
    }
    for (const std::string& s : secrets) {
      if (s.size() < 4) continue;
      for (size_t at = what.find(s); at != std::string::npos; at = what.find(s, at)) {
        what.replace(at, s.size(), "<token hidden>");
      }
    }
    std::fprintf(stderr, "bbo: %s\nRun with --help for more information.\n", what.c_str());
    return 2;
  }
#ifndef BBO_PARTICIPANT_BUILD
  server.address = WithDefaultPort(server.address);
  rep.server.address = WithDefaultPort(rep.server.address);
  if (!token_file.empty()) {
    std::ifstream in(token_file);
    std::getline(in, server.token);
    if (server.token.empty()) {
      std::fprintf(stderr, "bbo: cannot read a token from --token_file %s\n", token_file.c_str());
      return 2;
    }
  }
#endif  // BBO_PARTICIPANT_BUILD

  if (cmd_local->parsed()) return RunLocalCommand(local);
  if (cmd_check->parsed()) return RunCheck(check_args);
#ifndef BBO_PARTICIPANT_BUILD
  const bool remote = cmd_submit->parsed() || cmd_status->parsed() || cmd_withdraw->parsed() ||
                      cmd_board->parsed() || cmd_choose->parsed() || cmd_phases->parsed() ||
                      cmd_logs->parsed() ||
                      (cmd_problems->parsed() && !cmd_problems_list->parsed()) ||
                      (cmd_report->parsed() && rep.results.empty() && rep.db.empty());
  if (remote && !LoadTls(tls, &server)) return 1;
  if (cmd_submit->parsed()) {
    submit.server = server;
    return RunSubmit(submit);
  }
  if (cmd_status->parsed()) {
    status.server = server;
    return RunStatus(status);
  }
  if (cmd_withdraw->parsed()) {
    withdraw.server = server;
    return RunWithdraw(withdraw);
  }
  if (cmd_choose->parsed()) {
    choose.server = server;
    return RunChoose(choose);
  }
  if (cmd_logs->parsed()) {
    logs.server = server;
    return RunLogs(logs);
  }
  if (cmd_phases->parsed()) {
    phases.server = server;
    return RunPhases(phases);
  }
  if (cmd_board->parsed()) {
    board.server = server;
    return RunLeaderboard(board);
  }
  if (cmd_problems_list->parsed()) return RunProblemsList(list);
  if (cmd_problems->parsed()) {
    problems.server = server;
    return RunProblems(problems);
  }
  if (cmd_export->parsed()) return RunExport(exp);
  if (cmd_admin->parsed()) return RunAdmin(admin);
  if (cmd_replay->parsed()) return RunReplay(replay);
  if (cmd_report->parsed()) {
    rep.server.token = server.token;
    rep.server.tls = server.tls;
    rep.server_set = server_opt->count() > 0;
    return RunReport(rep);
  }
  if (cmd_score->parsed()) return RunScore(score);
  if (cmd_design->parsed()) return RunTasksDesign(design);
  if (cmd_tasks_list->parsed()) return RunTasksList(tasks_list);
#endif  // BBO_PARTICIPANT_BUILD
  return 0;
}

}  // namespace
}  // namespace bbo::client

int main(int argc, char** argv) { return bbo::client::Main(argc, argv); }
