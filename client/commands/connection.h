#ifndef BBO_CLIENT_COMMANDS_CONNECTION_H_
#define BBO_CLIENT_COMMANDS_CONNECTION_H_

// The options of the commands that talk to a bbo-server (commands.h ConnectionArgs): the
// caller's token on the whole command line, and each such command's --server and TLS files.
// Full build only (the participant build talks to no server). Thread-compatible.

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"

namespace bbo::client {

// Declares --token and --token_file on `app` (before or after the subcommand: the subcommands
// fall through to it), with $BBO_TOKEN, $BBO_CA_FILE, $BBO_CERT_FILE and $BBO_KEY_FILE as the
// defaults of `connection`.
void AddConnectionOptions(CLI::App& app, ConnectionArgs& connection);

// Declares --server (default: server.address) and --ca_file, --cert_file, --key_file (into
// `connection`) on the subcommand `cmd`. Returns the --server option.
CLI::Option* AddServerOptions(CLI::App& cmd, ServerArgs& server, ConnectionArgs& connection);

// Completes `server` once the command line is parsed: the default port, the token, and the TLS
// files read. False after printing "bbo: <why>" when a TLS file is wrong (naming the flag or
// the environment variable that gave it).
bool Connect(const ConnectionArgs& connection, ServerArgs& server);

}  // namespace bbo::client

#endif  // BBO_CLIENT_COMMANDS_CONNECTION_H_
