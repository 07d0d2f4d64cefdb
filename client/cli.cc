#include "client/cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#ifndef BBO_PARTICIPANT_BUILD
#include "client/commands/connection.h"
#endif

namespace bbo::client {
namespace {

// What $BBO_CLI_CHECK asks for (cli.h).
enum class CheckMode { kRun, kParseOnly, kFragment };

CheckMode CheckModeFromEnvironment() {
  const char* check = std::getenv("BBO_CLI_CHECK");
  if (check == nullptr) return CheckMode::kRun;
  return std::string(check) == "fragment" ? CheckMode::kFragment : CheckMode::kParseOnly;
}

#ifdef BBO_PARTICIPANT_BUILD
constexpr char kAbout[] =
    "bbo: the bbo-arena command line, participant build: `local` and `check` only (the full "
    "build has every command)";

// The participant build (deploy/build-participant.sh) compiles only these two: it talks to no
// server, so the connection's options are not declared.
std::vector<Command> AddCommands(CLI::App& app, ConnectionArgs& /*connection*/) {
  return {AddLocalCommand(app), AddCheckCommand(app)};
}
#else
constexpr char kAbout[] = "bbo: the bbo-arena command line (black-box optimization competitions)";

// Every command, in the order `bbo --help` lists them.
std::vector<Command> AddCommands(CLI::App& app, ConnectionArgs& connection) {
  std::vector<Command> commands = {AddLocalCommand(app), AddCheckCommand(app)};
  AddConnectionOptions(app, connection);
  // A braced list is evaluated left to right: the subcommands are declared in this order.
  commands.insert(commands.end(), {AddSubmitCommand(app, connection),
                                   AddStatusCommand(app, connection),
                                   AddChooseCommand(app, connection),
                                   AddContactCommand(app, connection),
                                   AddLogsCommand(app, connection),
                                   AddPhasesCommand(app, connection),
                                   AddWithdrawCommand(app, connection),
                                   AddLeaderboardCommand(app, connection),
                                   AddProblemsCommand(app, connection),
                                   AddScoreCommand(app),
                                   AddExportCommand(app),
                                   AddReportCommand(app, connection),
                                   AddReplayCommand(app),
                                   AddTasksCommand(app),
                                   AddAdminCommand(app, connection)});
  return commands;
}
#endif  // BBO_PARTICIPANT_BUILD

// The subcommands of `app` at every depth.
std::vector<CLI::App*> Subcommands(CLI::App& app) {
  std::vector<CLI::App*> all;
  std::vector<CLI::App*> pending = {&app};
  while (!pending.empty()) {
    CLI::App* a = pending.back();
    pending.pop_back();
    for (CLI::App* s : a->get_subcommands([](CLI::App*) { return true; })) {
      all.push_back(s);
      pending.push_back(s);
    }
  }
  return all;
}

// Global options may come before or after the subcommand (`bbo leaderboard --token_file F`):
// what a subcommand does not know falls through to its parent.
void FallThroughToParents(CLI::App& app) {
  for (CLI::App* sub : Subcommands(app)) sub->fallthrough();
}

// A fragment (BBO_CLI_CHECK=fragment) needs none of its arguments, but what it shows must exist.
void RequireNothing(CLI::App& app) {
  std::vector<CLI::App*> apps = Subcommands(app);
  apps.push_back(&app);
  for (CLI::App* a : apps) {
    for (CLI::Option* o : a->get_options()) o->required(false);
  }
}

// argv with every --option spelled as it was declared: option names take dashes or
// underscores, as bbo-server's and bbo-worker's flags do (--suite-file and --suite_file,
// --token_file and --token-file).
std::vector<std::string> WithDeclaredNames(CLI::App& app, int argc, char** argv) {
  std::set<std::string> names;
  std::vector<CLI::App*> apps = Subcommands(app);
  apps.push_back(&app);
  for (CLI::App* a : apps) {
    for (CLI::Option* o : a->get_options()) {
      for (const std::string& n : o->get_lnames()) names.insert(n);
    }
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
  return args;
}

// `what` with the caller's token ($BBO_TOKEN, --token T, --token=T) replaced: an error message
// must never echo it back (it would end up in terminals, logs and bug reports).
std::string HideTokens(std::string what, int argc, char** argv) {
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
  return what;
}

// A command line that cannot run: its error on stderr, exit 2.
int UsageError(const std::string& what) {
  std::fprintf(stderr, "bbo: %s\nRun with --help for more information.\n", what.c_str());
  return 2;
}

// Parses `args` (argv as WithDeclaredNames spelled it). Returns the exit code when no command is
// to run (help, version, a command line that cannot run, a BBO_CLI_CHECK), else nullopt.
std::optional<int> Parse(CLI::App& app, std::vector<std::string> args, CheckMode check,
                         int argc, char** argv) {
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  const bool fragment = check == CheckMode::kFragment;
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::RequiredError& e) {
    if (fragment) return 0;
    return UsageError(e.what());
  } catch (const CLI::ArgumentMismatch& e) {
    // A fragment may name an option without its value (`bbo report --server`).
    if (fragment) return 0;
    return UsageError(e.what());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // the help, on stdout, exit 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return UsageError(HideTokens(e.what(), argc, argv));
  }
  if (check != CheckMode::kRun) return 0;
  return std::nullopt;
}

// --token_file's first line as the token. False after saying why when that leaves no token.
bool ReadTokenFile(ConnectionArgs& connection) {
  if (connection.token_file.empty()) return true;
  std::ifstream in(connection.token_file);
  std::getline(in, connection.token);
  if (connection.token.empty()) {
    std::fprintf(stderr, "bbo: cannot read a token from --token_file %s\n",
                 connection.token_file.c_str());
    return false;
  }
  return true;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{kAbout};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bbo ") + BBO_VERSION);
  ConnectionArgs connection;
  const std::vector<Command> commands = AddCommands(app, connection);
  FallThroughToParents(app);
  const CheckMode check = CheckModeFromEnvironment();
  if (check == CheckMode::kFragment) RequireNothing(app);
  if (std::optional<int> code = Parse(app, WithDeclaredNames(app, argc, argv), check, argc, argv)) {
    return *code;
  }
  if (!ReadTokenFile(connection)) return 2;
  for (const Command& command : commands) {
    if (command.cli->parsed()) return command.run();
  }
  return 0;
}

}  // namespace bbo::client
