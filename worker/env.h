#ifndef BBO_WORKER_ENV_H_
#define BBO_WORKER_ENV_H_

// Env: everything the worker takes from its host, behind one interface (after leveldb's
// include/leveldb/env.h): the clock, the file-system operations on its work directory
// (submission folders and their archives) and the ProcessLauncher that starts optimizers. The
// real one is Env::Default(); tests derive from EnvWrapper and override only what they fault
// (a clock that jumps, a launcher whose child stalls, dies or lies).
//
// Thread safety: implementations are thread-safe; Default() lives for the whole process.

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/child_process.h"

namespace bbo {

class Env {
 public:
  virtual ~Env() = default;

  // The real environment: absl's clock, std::filesystem, PosixProcessLauncher. Never null.
  static Env* Default();

  // The worker's clock: budgets, deadlines, idle and heartbeat timing.
  virtual absl::Time Now() = 0;
  // Blocks the calling thread for `d` as this clock counts it.
  virtual void SleepFor(absl::Duration d) = 0;

  // True when `path` exists (file or folder).
  virtual bool FileExists(const std::string& path) = 0;
  // Creates `dir` and its missing parents. Unavailable when it cannot.
  virtual absl::Status CreateDirs(const std::string& dir) = 0;
  // Removes `path` and everything below it; OK when it did not exist. Unavailable otherwise.
  virtual absl::Status RemoveAll(const std::string& path) = 0;
  // Renames `from` to `to` (same file system). Unavailable when it cannot.
  virtual absl::Status Rename(const std::string& from, const std::string& to) = 0;
  // Creates or truncates `path` with `contents`. Unavailable when it cannot.
  virtual absl::Status WriteFile(const std::string& path, const std::string& contents) = 0;
  // Unpacks the tar `archive` into the existing folder `dir` (common/archive.h's checks) and
  // makes the tree readable by the sandbox's unprivileged uid. InvalidArgument for a bad archive.
  virtual absl::Status ExtractSubmission(const std::string& archive, const std::string& dir) = 0;

  // Starts optimizer processes (the Sandbox wraps its commands in bubblewrap first). Not owned.
  virtual ProcessLauncher* launcher() = 0;
};

// Forwards every call to `target` (not owned); override what a test fakes.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}

  absl::Time Now() override { return target_->Now(); }
  void SleepFor(absl::Duration d) override { target_->SleepFor(d); }
  bool FileExists(const std::string& path) override { return target_->FileExists(path); }
  absl::Status CreateDirs(const std::string& dir) override { return target_->CreateDirs(dir); }
  absl::Status RemoveAll(const std::string& path) override { return target_->RemoveAll(path); }
  absl::Status Rename(const std::string& from, const std::string& to) override {
    return target_->Rename(from, to);
  }
  absl::Status WriteFile(const std::string& path, const std::string& contents) override {
    return target_->WriteFile(path, contents);
  }
  absl::Status ExtractSubmission(const std::string& archive, const std::string& dir) override {
    return target_->ExtractSubmission(archive, dir);
  }
  ProcessLauncher* launcher() override { return target_->launcher(); }

 private:
  Env* const target_;
};

}  // namespace bbo

#endif  // BBO_WORKER_ENV_H_
