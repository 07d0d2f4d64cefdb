#ifndef BBO_TESTS_SPAWNED_PROCESS_H_
#define BBO_TESTS_SPAWNED_PROCESS_H_

// SpawnedProcess: a real binary (bbo-server, bbo-worker) started for a whole-system test, in
// its own process group, with stdout and stderr appended to a log file; killed with its group
// on destruction; and small helpers of the whole-system tests (files, commands, bbo admin).
// Shared by the tests in tests/. Not thread-safe.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace bbo::testing {

class SpawnedProcess {
 public:
  SpawnedProcess(std::vector<std::string> argv, const std::string& log) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &fa, &attr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
  }
  ~SpawnedProcess() { Kill(SIGKILL); }
  SpawnedProcess(const SpawnedProcess&) = delete;
  SpawnedProcess& operator=(const SpawnedProcess&) = delete;

  bool ok() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Sends `sig` to the process and its group, then reaps it (waiting at most 5 s).
  void Kill(int sig) {
    if (pid_ <= 0) return;
    ::kill(-pid_, sig);
    ::kill(pid_, sig);
    int status;
    for (int i = 0; i < 500 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
  }

  // The exit code (128 + signal when killed) once the process has exited by itself within
  // `limit`; nullopt if it is still running then.
  std::optional<int> WaitExit(std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (pid_ > 0 && std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }

  // SIGTERM, then the exit code (-1 if it did not exit within 10 s: it is then killed).
  int Terminate() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    std::optional<int> code = WaitExit(std::chrono::seconds(10));
    if (!code.has_value()) {
      Kill(SIGKILL);
      return -1;
    }
    return *code;
  }

 private:
  pid_t pid_ = -1;
};

// A whole file ("" when it cannot be read).
inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Field `key` ("VmRSS:", "Threads:") of /proc/`pid`/status as a number, 0 when it is gone.
inline long ProcStatusField(pid_t pid, const std::string& key) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
  }
  return 0;
}

// The resident memory of `pid` in KiB (VmRSS), 0 when it is gone.
inline long RssKb(pid_t pid) { return ProcStatusField(pid, "VmRSS:"); }

// The number of threads of `pid`, 0 when it is gone.
inline long ThreadCount(pid_t pid) { return ProcStatusField(pid, "Threads:"); }

// The peak of a process's resident memory, sampled every 10 ms on a thread of its own from
// construction to Stop() (or destruction), in KiB.
class RssPeak {
 public:
  explicit RssPeak(pid_t pid) : pid_(pid), peak_(RssKb(pid)) {
    thread_ = std::thread([this] {
      while (!stop_) {
        peak_ = std::max(peak_.load(), RssKb(pid_));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  ~RssPeak() { Stop(); }
  RssPeak(const RssPeak&) = delete;
  RssPeak& operator=(const RssPeak&) = delete;
  // Stops sampling; the peak so far.
  long Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return peak_;
  }

 private:
  const pid_t pid_;
  std::atomic<bool> stop_{false};
  std::atomic<long> peak_;
  std::thread thread_;
};

inline std::string CommandOutput(const std::string& cmd) {
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof(buf), f) != nullptr) out += buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// `bbo admin --db DB ARGS` with the CLI at `cli`: its stdout (a token, for `... add NAME`).
inline std::string BboAdmin(const std::string& cli, const std::string& db,
                            const std::string& args) {
  return CommandOutput(cli + " admin --db " + db + " " + args + " 2>/dev/null");
}

// Every row of `sql` on the SQLite file `db` (read-only, waiting up to 5 s for a writer), its
// columns joined by '|' ("NULL" for a null); empty when the file or the query fails.
inline std::vector<std::string> Query(const std::string& db, const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) {
        std::string row;
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
          if (c > 0) row += "|";
          const unsigned char* t = sqlite3_column_text(st, c);
          row += t != nullptr ? reinterpret_cast<const char*>(t) : "NULL";
        }
        rows.push_back(row);
      }
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return rows;
}

// The first row of Query ("" when there is none).
inline std::string Q(const std::string& db, const std::string& sql) {
  std::vector<std::string> rows = Query(db, sql);
  return rows.empty() ? "" : rows[0];
}

// A TCP port free on 127.0.0.1 now (for a server a test starts and may restart on it).
inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

}  // namespace bbo::testing

#endif  // BBO_TESTS_SPAWNED_PROCESS_H_
