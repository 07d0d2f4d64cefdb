#include "worker/env.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/archive.h"
#include "common/status_macros.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;

absl::Status FsError(absl::string_view what, const std::string& path, const std::error_code& ec) {
  return absl::UnavailableError(absl::StrCat("cannot ", what, " ", path, ": ", ec.message()));
}

class PosixEnv : public Env {
 public:
  absl::Time Now() override { return absl::Now(); }
  void SleepFor(absl::Duration d) override { absl::SleepFor(d); }

  bool FileExists(const std::string& path) override {
    std::error_code ec;
    return fs::exists(path, ec);
  }

  absl::Status CreateDirs(const std::string& dir) override {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return FsError("create", dir, ec);
    return absl::OkStatus();
  }

  absl::Status RemoveAll(const std::string& path) override {
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) return FsError("remove", path, ec);
    return absl::OkStatus();
  }

  absl::Status Rename(const std::string& from, const std::string& to) override {
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec) return FsError("move", from, ec);
    return absl::OkStatus();
  }

  absl::Status WriteFile(const std::string& path, const std::string& contents) override {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << contents;
    out.close();
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
    return absl::OkStatus();
  }

  absl::Status ExtractSubmission(const std::string& archive, const std::string& dir) override {
    RETURN_IF_ERROR(ExtractArchive(archive, dir, ExtractOptions()));
    // The sandbox runs as another uid and binds the folder read-only: make it world-readable.
    // Best effort, as a file left unreadable surfaces as the optimizer's own start failure.
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec,
                    ec);
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::end(it);
         it.increment(ec)) {
      fs::permissions(it->path(),
                      fs::perms::group_read | fs::perms::others_read |
                          (it->is_directory() ? fs::perms::group_exec | fs::perms::others_exec
                                              : fs::perms::none),
                      fs::perm_options::add, ec);
    }
    return absl::OkStatus();
  }

  ProcessLauncher* launcher() override { return &launcher_; }

 private:
  PosixProcessLauncher launcher_;
};

}  // namespace

Env* Env::Default() {
  static Env* const env = new PosixEnv();
  return env;
}

}  // namespace bbo
