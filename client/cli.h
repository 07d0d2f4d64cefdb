#ifndef BBO_CLIENT_CLI_H_
#define BBO_CLIENT_CLI_H_

// The whole `bbo` command line (main.cc lists the commands): declares every command of
// commands/commands.h on a CLI11 app, parses `argv`, and runs the command it names.
//
// Returns the exit code: 0 success (and --help, --version), 1 the command failed, 2 a command
// line that cannot run (its error on stderr, "bbo: <why>", never echoing the token back).
// Option names take dashes or underscores alike (--suite-file and --suite_file). Reads
// $BBO_TOKEN, $BBO_CA_FILE, $BBO_CERT_FILE, $BBO_KEY_FILE (defaults of the options) and
// $BBO_CLI_CHECK (tests/cli_docs_check.py: parse only, exit 0 when the line would run;
// "fragment" also accepts a line that lacks required arguments). Not thread-safe (the commands
// print and set the default logger).
namespace bbo::client {

int Main(int argc, char** argv);

}  // namespace bbo::client

#endif  // BBO_CLIENT_CLI_H_
