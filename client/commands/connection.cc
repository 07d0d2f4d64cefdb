#include "client/commands/connection.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "common/address.h"
#include "common/tls_files.h"

namespace bbo::client {
namespace {

// The environment's value, if set, as the default of `file`.
void FromEnvironment(const char* variable, PemFileArg* file) {
  const char* value = std::getenv(variable);
  if (value != nullptr) file->path = value;
}

}  // namespace

void AddConnectionOptions(CLI::App& app, ConnectionArgs& connection) {
  // --token shows in the process list; $BBO_TOKEN and --token_file do not.
  if (const char* env = std::getenv("BBO_TOKEN")) connection.token = env;
  app.add_option("--token", connection.token,
                 "Your token: a team's (bbo submit, status, practice studies) or an organizer's "
                 "(default: $BBO_TOKEN, which does not show in the process list)");
  app.add_option("--token_file", connection.token_file,
                 "A file holding your token (instead of --token)");
  FromEnvironment("BBO_CA_FILE", &connection.ca);
  FromEnvironment("BBO_CERT_FILE", &connection.cert);
  FromEnvironment("BBO_KEY_FILE", &connection.key);
}

CLI::Option* AddServerOptions(CLI::App& cmd, ServerArgs& server, ConnectionArgs& connection) {
  CLI::Option* address =
      cmd.add_option("--server", server.address, "bbo-server address")->default_val(server.address);
  cmd.add_option("--ca_file", connection.ca.path,
                 "PEM certificate of the CA that signed the server's TLS certificate (default: "
                 "$BBO_CA_FILE; none = the system's trusted roots for another host, plaintext "
                 "for this one)");
  cmd.add_flag("--insecure", connection.insecure,
               "Plaintext to a server on another host, without TLS: your token travels in "
               "clear text (for a private network only)");
  cmd.add_option("--cert_file", connection.cert.path,
                 "PEM client certificate for servers that require one (mutual TLS; default: "
                 "$BBO_CERT_FILE)");
  cmd.add_option("--key_file", connection.key.path,
                 "PEM private key of --cert_file (default: $BBO_KEY_FILE)");
  return address;
}

bool Connect(const ConnectionArgs& connection, ServerArgs& server) {
  server.address = WithDefaultPort(server.address);
  server.token = connection.token;
  PemFileArg ca = connection.ca, cert = connection.cert, key = connection.key;
  // A path the flag did not change came from the environment: name the variable.
  for (auto [file, variable] : {std::pair{&ca, "BBO_CA_FILE"}, std::pair{&cert, "BBO_CERT_FILE"},
                                std::pair{&key, "BBO_KEY_FILE"}}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && !file->path.empty() && file->path == value) file->flag = variable;
  }
  absl::StatusOr<ClientTls> tls = ReadClientTls(ca, cert, key);
  if (!tls.ok()) {
    std::fprintf(stderr, "bbo: %s\n", std::string(tls.status().message()).c_str());
    return false;
  }
  if (connection.insecure && tls->enabled()) {
    std::fprintf(stderr, "bbo: --insecure and %s: plaintext or TLS, not both\n",
                 ca.flag.c_str());
    return false;
  }
  server.tls = *std::move(tls);
  server.tls.insecure = connection.insecure;
  return true;
}

}  // namespace bbo::client
