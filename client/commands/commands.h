#ifndef BBO_CLIENT_COMMANDS_COMMANDS_H_
#define BBO_CLIENT_COMMANDS_COMMANDS_H_

// The `bbo` commands. Each has an Args struct, a Run function that does the work (callable on
// its own: tests do), and an Add function that declares its subcommand and options on the
// command line (CLI11) and returns a Command: cli.cc's Main parses the command line and runs the
// Command whose subcommand was given, and its result is the exit code. Output goes to stdout,
// progress and errors ("bbo <command>: ...") to stderr.
//
// Exit codes: 0 success; 1 the command failed (unreachable server, unreadable file, a study not
// reproduced by replay, ...); 2 a combination of options the command line cannot express
// (`bbo report` with two sources, `bbo replay` without studies).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/commands/local_run.h"
#include "common/tls_files.h"
#include "problems/registry.h"
#include "scoring/bootstrap.h"

namespace CLI {
class App;
}  // namespace CLI

namespace bbo::client {

// A subcommand declared on the command line, and what runs it once the command line is parsed
// and names it (`run` owns the parsed arguments and returns the exit code).
struct Command {
  CLI::App* cli = nullptr;
  std::function<int()> run;
};

// What the commands that talk to a bbo-server share (connection.h declares the options): the
// caller's token and the TLS files, filled by the parser and the environment.
struct ConnectionArgs {
  // A team's or an organizer's token: --token, or $BBO_TOKEN ("" = anonymous).
  std::string token;
  // --token_file: a file whose first line replaces `token` ("" = none).
  std::string token_file;
  // --ca_file, --cert_file, --key_file of the command, or $BBO_CA_FILE, $BBO_CERT_FILE,
  // $BBO_KEY_FILE ("" = not given).
  PemFileArg ca{"", "--ca_file"};
  PemFileArg cert{"", "--cert_file"};
  PemFileArg key{"", "--key_file"};
  // --insecure: plaintext to a server on another host (the token travels in clear text).
  bool insecure = false;
};

// The bbo-server to talk to.
struct ServerArgs {
  // "host:port".
  std::string address = "127.0.0.1:50051";
  // The caller's token: a team's or an organizer's ("" = anonymous).
  std::string token;
  // TLS: the CA of the server's certificate and, for servers that require one, this client's
  // certificate and key (--ca_file, --cert_file, --key_file or $BBO_CA_FILE, ...), read by
  // Connect (connection.h) before the command runs. Without a CA: TLS with the system's roots to
  // another host, plaintext to this one or with --insecure (common/tls_files.h UsesTls).
  ClientTls tls;
};

// bbo local: score a submission on this machine (local_run.h).
struct LocalArgs {
  LocalRunOptions run;
  // Comma-separated problem names ("" = the whole suite).
  std::string problems;
  bool json = false;
};
int RunLocalCommand(LocalArgs args);
Command AddLocalCommand(CLI::App& app);

// bbo check: one short study on one practice problem, in seconds, before submitting.
struct CheckArgs {
  LocalRunOptions run;
  std::string problem = "branin";
  int batches = 3;
};
int RunCheck(CheckArgs args);
Command AddCheckCommand(CLI::App& app);

// bbo submit: register a submission folder or archive.
struct SubmitArgs {
  ServerArgs server;
  std::string path;
  // "" = the folder's or archive's name without its extension.
  std::string name;
  // 0 = the server's default.
  int trials = 0;
  std::string team;
  // "" = the phase open for submissions now.
  std::string phase;
};
int RunSubmit(const SubmitArgs& args);
Command AddSubmitCommand(CLI::App& app, ConnectionArgs& connection);

// bbo status: submissions and their progress.
struct StatusArgs {
  ServerArgs server;
  bool json = false;
  // "" = every phase.
  std::string phase;
};
int RunStatus(const StatusArgs& args);
Command AddStatusCommand(CLI::App& app, ConnectionArgs& connection);

// bbo withdraw: cancel a submission's queued jobs.
struct WithdrawArgs {
  ServerArgs server;
  int64_t submission_id = 0;
};
int RunWithdraw(const WithdrawArgs& args);
Command AddWithdrawCommand(CLI::App& app, ConnectionArgs& connection);

// bbo choose: the submission that goes on to the next phase.
struct ChooseArgs {
  ServerArgs server;
  int64_t submission_id = 0;
};
int RunChoose(const ChooseArgs& args);
Command AddChooseCommand(CLI::App& app, ConnectionArgs& connection);

// bbo contact: where the team is told when its submissions finish or fail and when phases open
// or close (e-mail, webhook).
struct ContactArgs {
  ServerArgs server;
  // Unset = keep the stored value; "" = clear it.
  std::optional<std::string> email;
  std::optional<std::string> webhook_url;
  // An organizer's: whose contact ("" = the caller's team).
  std::string team;
  // Print the contact (also the default when nothing is set).
  bool show = false;
};
int RunContact(const ContactArgs& args);
Command AddContactCommand(CLI::App& app, ConnectionArgs& connection);

// bbo logs: why a submission's studies ended as they did.
struct LogsArgs {
  ServerArgs server;
  int64_t submission_id = 0;
  int limit = 50;
  bool json = false;
};
int RunLogs(const LogsArgs& args);
Command AddLogsCommand(CLI::App& app, ConnectionArgs& connection);

// bbo phases: the competition's phases, windows and rules.
struct PhasesArgs {
  ServerArgs server;
  bool json = false;
};
int RunPhases(const PhasesArgs& args);
Command AddPhasesCommand(CLI::App& app, ConnectionArgs& connection);

// bbo leaderboard.
struct LeaderboardArgs {
  ServerArgs server;
  bool json = false;
  // "main" or "warm-start".
  std::string board = "main";
  // "" = the current phase.
  std::string phase;
};
int RunLeaderboard(const LeaderboardArgs& args);
Command AddLeaderboardCommand(CLI::App& app, ConnectionArgs& connection);

// bbo problems: the practice problems a remote client can open studies on.
struct ProblemsArgs {
  ServerArgs server;
  bool json = false;
};
int RunProblems(const ProblemsArgs& args);

// bbo problems list: a suite built on this machine.
struct ProblemsListArgs {
  std::string suite = "practice";
  // A suite file (JSON); overrides `suite`.
  std::string suite_file;
  SuiteOptions suite_options;
  bool show_optimum = false;
  bool json = false;
  bool counts_only = false;
};
int RunProblemsList(const ProblemsListArgs& args);
// `bbo problems` with its `list` subcommand (which runs on this machine, without a server).
Command AddProblemsCommand(CLI::App& app, ConnectionArgs& connection);

// bbo score: a results CSV scored offline.
struct ScoreArgs {
  std::string path;
  // "" = random-search, or random-search-baseline (a coordinator's export) when only it is there.
  std::string random_search;
  bool json = false;
  bool generalization = false;
  double alpha = 0.05;
  scoring::BootstrapOptions bootstrap;
};
int RunScore(const ScoreArgs& args);
Command AddScoreCommand(CLI::App& app);

// bbo export: a coordinator's scored results as a CSV.
struct ExportArgs {
  std::string db;
  // "" or "-" = stdout.
  std::string out;
  std::string board = "main";
  // A phase of a competition file ("" = a coordinator started from flags).
  std::string phase;
};
int RunExport(const ExportArgs& args);
Command AddExportCommand(CLI::App& app);

// bbo report: the full report of a phase from a server (default), a results CSV or a SQLite
// file.
struct ReportArgs {
  ServerArgs server;
  // --server was given explicitly (it conflicts with --results and --db).
  bool server_set = false;
  std::string results;
  std::string db;
  // "" = random-search, or random-search-baseline (a coordinator's export) when only it is there.
  std::string random_search;
  bool generalization = false;
  std::string phase;
  std::string board = "main";
  // html, json or csv.
  std::string format = "html";
  // Output folder.
  std::string out = "report";
  scoring::BootstrapOptions bootstrap;
};
int RunReport(const ReportArgs& args);
// Connects (connection.h) only when the report comes from a server.
Command AddReportCommand(CLI::App& app, ConnectionArgs& connection);

// bbo replay: re-evaluate recorded studies and compare the values bit for bit.
struct ReplayArgs {
  std::string db;
  std::vector<int64_t> study_ids;
  bool all = false;
  // The suite the studies ran on, besides the practice suite ("" = none).
  std::string suite;
  std::string suite_file;
  SuiteOptions suite_options;
};
int RunReplay(const ReplayArgs& args);
Command AddReplayCommand(CLI::App& app);

// bbo tasks design / bbo tasks list: generated-task designs (Klein et al. (2019, Profet)).
struct TasksDesignArgs {
  std::string family;
  std::string out;
  int points = 0;
  uint64_t seed = 0;
};
int RunTasksDesign(const TasksDesignArgs& args);

struct TasksListArgs {
  // A design file ("" = the families that can be designed here).
  std::string design;
  bool json = false;
};
int RunTasksList(const TasksListArgs& args);
// `bbo tasks` with its subcommands `design` and `list`.
Command AddTasksCommand(CLI::App& app);

// bbo admin: tokens and the audit log, on the coordinator's SQLite file (organizers).
struct AdminArgs {
  // Where: the coordinator's database (--db, on its host), or with `remote` a running
  // coordinator (--server, with an organizer token).
  std::string db;
  bool remote = false;
  ServerArgs server;
  // The token secret (default: <db>.secret).
  std::string secret_file;
  // e.g. {"team", "add", "alpha"}, {"worker", "revoke", "host-1"}, {"tokens"}, {"audit"}.
  std::vector<std::string> words;
  int limit = 50;
  bool json = false;
  // unpublish: why.
  std::string reason;
  // invite add: registrations the code allows, and a note for organizers.
  int uses = 1;
  std::string note;
};
int RunAdmin(const AdminArgs& args);
Command AddAdminCommand(CLI::App& app, ConnectionArgs& connection);

}  // namespace bbo::client

#endif  // BBO_CLIENT_COMMANDS_COMMANDS_H_
