#include "problems/external/process.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "problems/external/protocol.h"
#include "spdlog/spdlog.h"

namespace bbo::external {
namespace {

// A reply line longer than this is garbage (a batch reply is a few bytes per point).
constexpr size_t kMaxReplyBytes = 16u << 20;
constexpr size_t kStderrTailBytes = 4096;

}  // namespace

StderrLog::StderrLog(std::string path, uint64_t limit_bytes)
    : path_(std::move(path)), left_(limit_bytes) {}

StderrLog::~StderrLog() {
  if (file_ != nullptr) fclose(file_);
}

void StderrLog::Append(absl::string_view data) {
  if (path_.empty()) return;
  std::lock_guard<std::mutex> l(mu_);
  if (left_ == 0) return;
  if (file_ == nullptr && !failed_) {
    file_ = fopen(path_.c_str(), "ae");
    failed_ = file_ == nullptr;
  }
  if (file_ == nullptr) return;
  size_t k = static_cast<size_t>(std::min<uint64_t>(data.size(), left_));
  fwrite(data.data(), 1, k, file_);
  left_ -= k;
  if (left_ == 0) fputs("\n[stderr log limit reached; further output dropped]\n", file_);
  fflush(file_);
}

absl::StatusOr<std::string> ResolveProgram(const std::string& argv0,
                                           const std::vector<std::string>& env,
                                           const std::string& working_dir) {
  if (argv0.empty()) return absl::InvalidArgumentError("argv[0] is empty");
  if (absl::StrContains(argv0, '/')) {
    std::string path = argv0;
    if (argv0[0] != '/' && !working_dir.empty()) path = absl::StrCat(working_dir, "/", argv0);
    if (access(path.c_str(), X_OK) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("argv[0] ", Quote(path), " is not executable: ", strerror(errno)));
    }
    return argv0;  // exec runs after chdir(working_dir), where the relative path is right
  }
  std::string path_var;
  for (const std::string& e : env) {
    if (absl::StartsWith(e, "PATH=")) path_var = e.substr(5);
  }
  for (absl::string_view dir : absl::StrSplit(path_var, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", argv0);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "argv[0] ", Quote(argv0), " was not found on the child's PATH ", Quote(path_var)));
}

std::string DescribeCommand(const std::vector<std::string>& argv) {
  return absl::StrCat(
      "[",
      absl::StrJoin(argv, ", ",
                    [](std::string* out, const std::string& a) { out->append(Quote(a, 1000)); }),
      "]");
}

absl::StatusOr<std::unique_ptr<ProblemProcess>> ProblemProcess::Spawn(
    ProcessSpec spec, std::shared_ptr<StderrLog> log, ProcessLauncher* launcher) {
  spec.name = "the process";
  spec.stdin_is_socket = true;
  spec.max_line_bytes = kMaxReplyBytes;
  spec.stderr_tail_bytes = kStderrTailBytes;
  spec.on_stderr_line = nullptr;
  spec.on_stderr_chunk = [log = std::move(log)](absl::string_view chunk) { log->Append(chunk); };
  // A coordinator or worker that is SIGKILLed must not leave organizer processes computing.
  spec.die_with_host = true;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = launcher->Launch(spec);
  if (!child.ok()) return child.status();
  if (absl::Status exec = (*child)->ExecStatus(); !exec.ok()) return exec;
  return std::unique_ptr<ProblemProcess>(new ProblemProcess(*std::move(child)));
}

absl::Status ProblemProcess::WriteLine(absl::string_view line, absl::Time deadline) {
  return child_->WriteLine(line, deadline);
}

absl::StatusOr<std::string> ProblemProcess::ReadLine(absl::Time deadline) {
  absl::StatusOr<std::string> line = child_->ReadLine(deadline);
  if (absl::IsResourceExhausted(line.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("reply line longer than ", kMaxReplyBytes >> 20, " MiB"));
  }
  return line;
}

void ProblemProcess::RequestExit() {
  // A process that no longer reads is killed after the exit grace anyway.
  if (absl::Status sent = child_->WriteLine(ExitRequest(), absl::Now()); !sent.ok()) {
    spdlog::debug("external problem pid={}: exit request not delivered: {}", pid(),
                  sent.ToString());
  }
  child_->CloseStdin();
}

void ProblemProcess::Kill() {
  child_->Kill();
  child_->WaitExit(absl::Now() + absl::Seconds(5));
}

}  // namespace bbo::external
