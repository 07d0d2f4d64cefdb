#ifndef BBO_PROBLEMS_EXTERNAL_PROCESS_H_
#define BBO_PROBLEMS_EXTERNAL_PROCESS_H_

// One running organizer executable of an external problem, over the common child-process
// adapter (common/child_process.h): its own session and process group, stdin a socket (so a
// write to a dead child fails with EPIPE instead of raising SIGPIPE in the coordinator), stdout
// read in lines with deadlines, stderr drained into a shared log file and a 4 KiB tail. It dies
// with the process that hosts it (ProcessSpec::die_with_host), however that process dies.
//
// Thread safety: a ProblemProcess is used by one thread at a time; StderrLog is thread-safe.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/child_process.h"

namespace bbo::external {

// The children's stderr, appended to one file up to a byte budget; then a note and nothing more.
// An empty path drops everything. Thread-safe.
class StderrLog {
 public:
  StderrLog(std::string path, uint64_t limit_bytes);
  ~StderrLog();
  StderrLog(const StderrLog&) = delete;
  StderrLog& operator=(const StderrLog&) = delete;

  void Append(absl::string_view data);

 private:
  const std::string path_;
  std::mutex mu_;
  uint64_t left_;
  FILE* file_ = nullptr;
  bool failed_ = false;
};

// The executable execve should run: argv0 itself when it contains '/' (checked for X_OK,
// relative to `working_dir`), else the first executable match on the PATH of `env` (the child's
// environment, not the coordinator's). InvalidArgument naming argv[0] otherwise.
absl::StatusOr<std::string> ResolveProgram(const std::string& argv0,
                                           const std::vector<std::string>& env,
                                           const std::string& working_dir);

// `argv` as a JSON-ish list for messages: ["/usr/bin/python3", "toy.py"].
std::string DescribeCommand(const std::vector<std::string>& argv);

class ProblemProcess {
 public:
  // Starts `spec` (argv[0] already resolved) with `launcher` (not owned). The stdin, name,
  // stderr, core and die_with_host settings of `spec` are this class's. InvalidArgument when the
  // program cannot be executed or the working directory entered; ResourceExhausted when
  // fork/pipe fail.
  static absl::StatusOr<std::unique_ptr<ProblemProcess>> Spawn(ProcessSpec spec,
                                                               std::shared_ptr<StderrLog> log,
                                                               ProcessLauncher* launcher);

  // Kills and reaps the process group.
  ~ProblemProcess() = default;

  pid_t pid() const { return child_->pid(); }

  // Writes `line` + '\n'. Unavailable if the child is gone (how it ended, its stderr tail);
  // DeadlineExceeded at `deadline`.
  absl::Status WriteLine(absl::string_view line, absl::Time deadline);

  // The next stdout line without '\n'. Unavailable when stdout closes ("the process closed its
  // stdout and exited with status 3; stderr: "...""); DeadlineExceeded at `deadline`;
  // InvalidArgument for a line over 16 MiB (a reply that long is garbage).
  absl::StatusOr<std::string> ReadLine(absl::Time deadline);

  // Asks the process to exit: the exit request, then end of input. Best effort.
  void RequestExit();

  // Reaps the process if it exits by `deadline`; true if it did.
  bool WaitExit(absl::Time deadline) { return child_->WaitExit(deadline); }

  // SIGKILL to the whole process group, then reap (a process stuck in the kernel is left to
  // init after 5 s rather than blocking the study).
  void Kill();

 private:
  explicit ProblemProcess(std::unique_ptr<ChildProcess> child) : child_(std::move(child)) {}

  const std::unique_ptr<ChildProcess> child_;
};

}  // namespace bbo::external

#endif  // BBO_PROBLEMS_EXTERNAL_PROCESS_H_
