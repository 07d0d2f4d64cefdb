// bbo contact: where a team is told when its submissions finish or fail and when phases open or
// close (docs/participants.md, "Being told"; docs/organizers.md, "Notifications").

#include <cstdio>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
#include "client/remote.h"

namespace bbo::client {
namespace {

void PrintContact(const v1::TeamContact& c) {
  std::printf("team     %s\n", c.team().c_str());
  std::printf("email    %s\n", c.email().empty() ? "(none)" : c.email().c_str());
  std::printf("webhook  %s\n", c.webhook_url().empty() ? "(none)" : c.webhook_url().c_str());
}

}  // namespace

int RunContact(const ContactArgs& a) {
  const Remote remote(a.server.address, a.server.token, a.server.tls);
  absl::StatusOr<v1::GetContactResponse> current = remote.GetContact(a.team);
  if (!current.ok()) return PrintRemoteError("contact", current.status());
  if (!a.email && !a.webhook_url) {
    PrintContact(current->contact());
    return 0;
  }
  // What is not given stays as it is.
  v1::SetContactRequest request;
  request.set_team(a.team);
  request.set_email(a.email.value_or(current->contact().email()));
  request.set_webhook_url(a.webhook_url.value_or(current->contact().webhook_url()));
  absl::StatusOr<v1::SetContactResponse> set = remote.SetContact(request);
  if (!set.ok()) return PrintRemoteError("contact", set.status());
  if (a.show) PrintContact(set->contact());
  std::printf("contact of team %s saved\n", set->contact().team().c_str());
  return 0;
}

Command AddContactCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<ContactArgs>();
  CLI::App* cmd = app.add_subcommand(
      "contact",
      "Where your team is told when one of its submissions finishes or fails and when a phase "
      "opens or closes: an e-mail address and/or a webhook URL (an HTTPS POST of signed JSON; "
      "docs/participants.md). Without --email or --webhook it shows the contact; an option "
      "left out keeps its value, and \"\" clears it. Notices are sent only when the organizers "
      "turned notifications on; the contact is kept either way.");
  cmd->add_option_function<std::string>(
      "--email", [args](const std::string& v) { args->email = v; },
      "The address to e-mail (\"\" = no e-mail)");
  cmd->add_option_function<std::string>(
      "--webhook", [args](const std::string& v) { args->webhook_url = v; },
      "The https:// URL to POST each notice to (\"\" = no webhook)");
  cmd->add_option("--team", args->team,
                  "Organizers: whose contact to set or show (a team token sets its own)");
  cmd->add_flag("--show", args->show, "Print the contact after setting it");
  AddServerOptions(*cmd, args->server, connection);
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunContact(*args) : 1;
          }};
}

}  // namespace bbo::client
