// bbo submit and bbo status: registering submissions and following their progress.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/commands/commands.h"
#include "client/remote.h"
#include "common/archive.h"
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
    case v1::SUBMISSION_STATE_RUNNING:
      return "running";
    case v1::SUBMISSION_STATE_FINISHED:
      return "finished";
    case v1::SUBMISSION_STATE_INCOMPLETE:
      return "incomplete";
    default:
      return "unknown";
  }
}

}  // namespace

int RunStatus(const StatusArgs& a) {
  auto resp = Remote(a.server.address, a.server.token, a.server.tls).ListSubmissions();
  if (!resp.ok()) return PrintRemoteError("status", resp.status());
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& sub : resp->submissions()) {
      out.push_back({{"id", sub.submission_id()},
                     {"name", sub.name()},
                     {"team", sub.team()},
                     {"kind", KindName(sub.kind())},
                     {"finished", sub.state() == v1::SUBMISSION_STATE_FINISHED},
                     {"state", StateName(sub.state())},
                     {"jobs_total", sub.jobs_total()},
                     {"jobs_queued", sub.jobs_queued()},
                     {"jobs_running", sub.jobs_running()},
                     {"jobs_done", sub.jobs_done()},
                     {"jobs_failed", sub.jobs_failed()},
                     {"studies_with_errors", sub.studies_with_errors()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-4s %-28s %-16s %-10s %-10s %7s %7s %7s %7s %7s\n", "id", "name", "team", "kind",
              "state", "queued", "running", "done", "failed", "errors");
  for (const auto& sub : resp->submissions()) {
    std::printf("%-4lld %-28s %-16s %-10s %-10s %7d %7d %4d/%-3d %6d %6d\n",
                static_cast<long long>(sub.submission_id()), sub.name().c_str(),
                sub.team().empty() ? "-" : sub.team().c_str(), KindName(sub.kind()),
                StateName(sub.state()), sub.jobs_queued(), sub.jobs_running(), sub.jobs_done(),
                sub.jobs_total(), sub.jobs_failed(), sub.studies_with_errors());
  }
  if (std::any_of(resp->submissions().begin(), resp->submissions().end(),
                  [](const auto& s) { return s.state() == v1::SUBMISSION_STATE_INCOMPLETE; })) {
    std::printf(
        "incomplete: some jobs ended without a result (withdrawn, or lost to the "
        "platform); they are not on the board until an organizer requeues them\n");
  }
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

}  // namespace bbo::client
