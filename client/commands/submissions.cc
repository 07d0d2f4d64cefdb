// bbo submit, status, choose, phases and withdraw: registering submissions and following their
// progress.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "CLI/CLI.hpp"
#include "client/commands/commands.h"
#include "client/commands/connection.h"
#include "client/remote.h"
#include "common/archive.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace bbo::client {
namespace {

namespace fs = std::filesystem;

const char* KindName(v1::SubmissionKind k) {
  switch (k) {
    case v1::SUBMISSION_KIND_PYTHON: return "python";
    case v1::SUBMISSION_KIND_EXECUTABLE: return "executable";
    default: return "builtin";
  }
}

std::string FormatEpoch(double s) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(static_cast<int64_t>(s)),
                          absl::UTCTimeZone());
}

// "3 d 4 h", "2 h 5 min", "45 s".
std::string Left(double s) {
  const int64_t n = s < 0 ? 0 : static_cast<int64_t>(s);
  if (n >= 86400) return std::to_string(n / 86400) + " d " + std::to_string(n % 86400 / 3600) + " h";
  if (n >= 3600) return std::to_string(n / 3600) + " h " + std::to_string(n % 3600 / 60) + " min";
  if (n >= 60) return std::to_string(n / 60) + " min " + std::to_string(n % 60) + " s";
  return std::to_string(n) + " s";
}

// The competition's calendar: one line per phase, the current one marked, with its time left.
void PrintPhases(const v1::GetCompetitionResponse& c) {
  if (c.phases_size() == 0) return;
  if (c.phases_size() == 1 && c.phases(0).start_s() == 0 && c.phases(0).end_s() == 0) {
    std::printf("Phase %s (no deadline)%s\n", c.phases(0).name().c_str(),
                c.phases(0).racing() ? "; raced (entries stop once another one dominates them)"
                                     : "");
    return;
  }
  std::printf("Phase %s, now %s\n", c.name().empty() ? "-" : c.name().c_str(),
              FormatEpoch(c.now_s()).c_str());
  for (const auto& p : c.phases()) {
    std::string when;
    if (p.start_s() > 0 && c.now_s() < p.start_s()) {
      when = "opens " + FormatEpoch(p.start_s()) + " (in " + Left(p.start_s() - c.now_s()) + ")";
    } else if (p.end_s() > 0 && c.now_s() < p.end_s()) {
      when = "ends " + FormatEpoch(p.end_s()) + " (" + Left(p.end_s() - c.now_s()) + " left)";
    } else if (p.end_s() > 0) {
      when = "ended " + FormatEpoch(p.end_s());
    } else {
      when = "no deadline";
    }
    std::string notes;
    if (!p.accepts_submissions()) {
      notes += "; entries migrate from " + p.migrate_from() +
               (p.migrated_at_s() > 0 ? " (done " + FormatEpoch(p.migrated_at_s()) + ")"
                                      : " when it ends");
    } else if (p.open()) {
      notes += "; open for submissions";
    }
    if (p.board_hidden_until_published()) {
      notes += p.published() ? "; board published" : "; board hidden until published";
    }
    if (p.racing()) notes += "; raced (entries stop once another one dominates them)";
    std::printf("%s %-12s %s%s\n", p.current() ? "*" : " ", p.name().c_str(), when.c_str(),
                notes.c_str());
  }
}

// The queue: how many jobs wait, who runs them, and how long a new job waits.
void PrintQueue(const v1::GetCompetitionResponse& c) {
  if (c.jobs_queued() > 0 && c.workers_connected() == 0) {
    std::printf("WARNING: %d job(s) are queued and no worker is connected: nothing runs until "
                "the organizers start one.\n",
                c.jobs_queued());
    return;
  }
  std::printf("Queue: %d job(s) waiting, %d running, %d worker(s) connected (%d slot(s))",
              c.jobs_queued(), c.jobs_running(), c.workers_connected(), c.worker_slots());
  if (c.jobs_queued() > 0 && c.estimated_wait_s() >= 0) {
    std::printf("; a job queued now starts in about %s", Left(c.estimated_wait_s()).c_str());
  }
  std::printf("\n");
}

}  // namespace

int RunSubmit(const SubmitArgs& a) {
  std::string archive;
  std::error_code ec;
  if (fs::is_directory(a.path, ec)) {
    auto tar = TarDirectory(a.path);
    if (!tar.ok()) {
      std::fprintf(stderr, "bbo submit: %s\n", std::string(tar.status().message()).c_str());
      return 1;
    }
    archive = *std::move(tar);
  } else {
    std::ifstream in(a.path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "bbo submit: cannot read %s\n", a.path.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    archive = ss.str();
  }
  std::string name = a.name;
  if (name.empty()) {
    name = fs::path(a.path).lexically_normal().filename().string();
    for (const char* ext : {".tar.gz", ".tgz", ".zip", ".tar"}) {
      if (name.size() > strlen(ext) && name.substr(name.size() - strlen(ext)) == ext) {
        name = name.substr(0, name.size() - strlen(ext));
      }
    }
  }
  v1::RegisterSubmissionRequest req;
  req.set_name(name);
  req.set_archive(archive);
  req.set_trials(a.trials);
  req.set_team(a.team);
  req.set_phase(a.phase);
  auto resp = Remote(a.server.address, a.server.token, a.server.tls).RegisterSubmission(req);
  if (!resp.ok()) return PrintRemoteError("submit", resp.status());
  std::printf("submitted %s: id %lld, kind %s, %d trials per problem, %d jobs queued\n",
              name.c_str(), static_cast<long long>(resp->submission_id()),
              KindName(resp->kind()), resp->trials(), resp->jobs());
  return 0;
}

namespace {

const char* StateName(v1::SubmissionState s) {
  switch (s) {
    case v1::SUBMISSION_STATE_QUEUED:
      return "queued";
    case v1::SUBMISSION_STATE_RUNNING:
      return "running";
    case v1::SUBMISSION_STATE_FINISHED:
      return "finished";
    case v1::SUBMISSION_STATE_PARTIAL:
      return "partial";
    case v1::SUBMISSION_STATE_FAILED:
      return "failed";
    case v1::SUBMISSION_STATE_WITHDRAWN:
      return "withdrawn";
    default:
      return "unknown";
  }
}

// The notes under the table: each submission's state when it is not plainly fine, what goes on
// to the next phase, and what is off the board.
void PrintSubmissionNotes(const v1::ListSubmissionsResponse& resp) {
  for (const auto& sub : resp.submissions()) {
    const v1::SubmissionState s = sub.state();
    if (s == v1::SUBMISSION_STATE_PARTIAL || s == v1::SUBMISSION_STATE_FAILED ||
        s == v1::SUBMISSION_STATE_WITHDRAWN) {
      std::printf("%s (%lld): %s\n", sub.name().c_str(),
                  static_cast<long long>(sub.submission_id()), sub.state_detail().c_str());
    }
    if (!sub.hidden().empty()) {
      std::printf("%s (%lld) is off the board: %s\n", sub.name().c_str(),
                  static_cast<long long>(sub.submission_id()), sub.hidden().c_str());
    }
  }
  for (const auto& sub : resp.submissions()) {
    if (sub.finalist().empty()) continue;
    std::printf("goes on to phase %s: %s (%lld), %s%s\n", sub.next_phase().c_str(),
                sub.name().c_str(), static_cast<long long>(sub.submission_id()),
                sub.finalist().c_str(),
                sub.chosen() ? "" : "; `bbo choose ID` picks another until the phase ends");
  }
}

}  // namespace

int RunStatus(const StatusArgs& a) {
  const Remote remote(a.server.address, a.server.token, a.server.tls);
  auto resp = remote.ListSubmissions(a.phase);
  if (!resp.ok()) return PrintRemoteError("status", resp.status());
  auto competition = remote.GetCompetition();
  if (!competition.ok()) return PrintRemoteError("status", competition.status());
  const bool phased = competition->phases_size() > 1;
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& sub : resp->submissions()) {
      out.push_back({{"id", sub.submission_id()},
                     {"name", sub.name()},
                     {"team", sub.team()},
                     {"kind", KindName(sub.kind())},
                     // Nothing left to run (how it ended: "state").
                     {"finished", sub.jobs_queued() == 0 && sub.jobs_running() == 0},
                     {"state", StateName(sub.state())},
                     {"state_detail", sub.state_detail()},
                     {"hidden", sub.hidden()},
                     {"finalist", sub.finalist()},
                     {"next_phase", sub.next_phase()},
                     {"jobs_withdrawn", sub.jobs_withdrawn()},
                     {"jobs_total", sub.jobs_total()},
                     {"jobs_queued", sub.jobs_queued()},
                     {"jobs_running", sub.jobs_running()},
                     {"jobs_done", sub.jobs_done()},
                     {"jobs_failed", sub.jobs_failed()},
                     {"studies_with_errors", sub.studies_with_errors()},
                     {"phase", sub.phase()},
                     {"chosen", sub.chosen()},
                     {"migrated_from", sub.migrated_from()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  PrintPhases(*competition);
  PrintQueue(*competition);
  if (phased) std::printf("\n");
  std::printf("%-4s %-28s %-16s %-10s %-10s %7s %7s %7s %7s %7s%s\n", "id", "name", "team",
              "kind", "state", "queued", "running", "done", "lost", "errors",
              phased ? "  phase" : "");
  for (const auto& sub : resp->submissions()) {
    std::printf("%-4lld %-28s %-16s %-10s %-10s %7d %7d %4d/%-3d %6d %6d%s%s%s\n",
                static_cast<long long>(sub.submission_id()), sub.name().c_str(),
                sub.team().empty() ? "-" : sub.team().c_str(), KindName(sub.kind()),
                StateName(sub.state()), sub.jobs_queued(), sub.jobs_running(), sub.jobs_done(),
                sub.jobs_total(), sub.jobs_failed(), sub.studies_with_errors(),
                phased ? ("  " + sub.phase()).c_str() : "",
                sub.chosen() ? "  (chosen for the next phase)" : "",
                sub.migrated_from() > 0
                    ? ("  (from submission " + std::to_string(sub.migrated_from()) + ")").c_str()
                    : "");
  }
  PrintSubmissionNotes(*resp);
  if (std::any_of(resp->submissions().begin(), resp->submissions().end(),
                  [](const auto& s) { return s.jobs_failed() > 0; })) {
    std::printf(
        "lost: some jobs ended without a result because the platform lost them (a worker or "
        "the coordinator); an organizer can requeue them (`bbo admin jobs`)\n");
  }
  return 0;
}

int RunChoose(const ChooseArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls)
                  .ChooseSubmission(a.submission_id);
  if (!resp.ok()) return PrintRemoteError("choose", resp.status());
  std::printf("submission %lld goes on to phase %s when its phase ends (you can change this "
              "choice until then)\n",
              static_cast<long long>(a.submission_id), resp->next_phase().c_str());
  return 0;
}

int RunPhases(const PhasesArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls).GetCompetition();
  if (!resp.ok()) return PrintRemoteError("phases", resp.status());
  if (!a.json) {
    PrintPhases(*resp);
    for (const auto& p : resp->phases()) {
      if (!p.rules().empty()) std::printf("\nRules of %s:\n%s\n", p.name().c_str(), p.rules().c_str());
    }
    return 0;
  }
  nlohmann::json out;
  out["name"] = resp->name();
  out["now"] = FormatEpoch(resp->now_s());
  out["phases"] = nlohmann::json::array();
  for (const auto& p : resp->phases()) {
    out["phases"].push_back(
        {{"name", p.name()},
         {"title", p.title()},
         {"rules", p.rules()},
         {"start", p.start_s() > 0 ? nlohmann::json(FormatEpoch(p.start_s())) : nullptr},
         {"end", p.end_s() > 0 ? nlohmann::json(FormatEpoch(p.end_s())) : nullptr},
         {"seconds_left", p.end_s() > 0 ? nlohmann::json(std::max(0.0, p.end_s() - resp->now_s()))
                                        : nullptr},
         {"current", p.current()},
         {"open", p.open()},
         {"accepts_submissions", p.accepts_submissions()},
         {"hidden", p.hidden()},
         {"board_hidden_until_published", p.board_hidden_until_published()},
         {"published", p.published()},
         {"racing", p.racing()},
         {"migrate_from", p.migrate_from()},
         {"migrated_at",
          p.migrated_at_s() > 0 ? nlohmann::json(FormatEpoch(p.migrated_at_s())) : nullptr}});
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

int RunWithdraw(const WithdrawArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls)
                  .WithdrawSubmission(a.submission_id);
  if (!resp.ok()) return PrintRemoteError("withdraw", resp.status());
  std::printf("withdrew submission %lld: %d queued job(s) cancelled; running studies finish\n",
              static_cast<long long>(a.submission_id), resp->jobs_cancelled());
  return 0;
}

// The command lines of the commands above. Each runs once Connect has completed its server.

Command AddSubmitCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<SubmitArgs>();
  CLI::App* cmd = app.add_subcommand("submit", "Register a submission with a bbo-server.");
  cmd->add_option("SUBMISSION", args->path, "Submission folder, or a .zip / .tar.gz / .tar of it")
      ->required();
  cmd->add_option("--name", args->name, "Display name (default: the folder's name)");
  cmd->add_option("--trials", args->trials, "Trials per problem (0 = server default)");
  cmd->add_option("--team", args->team,
                  "Organizers only: the team to submit for (a team token submits for its own "
                  "team)");
  cmd->add_option("--phase", args->phase,
                  "The phase to submit to (default: the one open for submissions now)");
  AddServerOptions(*cmd, args->server, connection);
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunSubmit(*args) : 1;
          }};
}

Command AddStatusCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<StatusArgs>();
  CLI::App* cmd = app.add_subcommand("status", "List submissions and their progress.");
  AddServerOptions(*cmd, args->server, connection);
  cmd->add_flag("--json", args->json, "JSON output");
  cmd->add_option("--phase", args->phase, "Only this phase's submissions");
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunStatus(*args) : 1;
          }};
}

Command AddChooseCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<ChooseArgs>();
  CLI::App* cmd = app.add_subcommand(
      "choose",
      "Choose which of your team's submissions goes on to the next phase when its phase ends "
      "(without a choice, your best submission whose every study completed without an error "
      "goes; one with a crashed study never goes by default); you can change it until then.");
  cmd->add_option("SUBMISSION_ID", args->submission_id, "As `bbo status` shows it")->required();
  AddServerOptions(*cmd, args->server, connection);
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunChoose(*args) : 1;
          }};
}

Command AddPhasesCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<PhasesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "phases", "The competition's phases: windows (UTC), time left, rules, board visibility.");
  AddServerOptions(*cmd, args->server, connection);
  cmd->add_flag("--json", args->json, "JSON output");
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunPhases(*args) : 1;
          }};
}

Command AddWithdrawCommand(CLI::App& app, ConnectionArgs& connection) {
  auto args = std::make_shared<WithdrawArgs>();
  CLI::App* cmd = app.add_subcommand(
      "withdraw", "Cancel a submission's queued jobs (your team's; running studies finish).");
  cmd->add_option("SUBMISSION_ID", args->submission_id, "As `bbo status` shows it")->required();
  AddServerOptions(*cmd, args->server, connection);
  return {cmd, [args, &connection] {
            return Connect(connection, args->server) ? RunWithdraw(*args) : 1;
          }};
}

}  // namespace bbo::client
