// Fault injection on the whole system beyond crash_test (coordinator and worker SIGKILL) and
// hosts_test (a host's workers lost): a real bbo-server with its SQLite file, real sandboxed
// bbo-workers and the deterministic tests/optimizers/steady submission, while
//   1. the sandboxed optimizers are SIGKILLed at random moments (the participant's failure);
//   2. the network between a worker host and the coordinator is cut and healed (network
//      namespaces and a veth pair, as in hosts_test), once for longer than a lease;
//   3. the disk holding the database fills up (a size-limited tmpfs in a mount namespace of
//      this test's own) and is freed again;
//   4. the store answers slowly (another SQLite connection holds the write lock for 50-200 ms
//      at a time, so every write of the coordinator waits).
// Each case then checks: every job done exactly once (one final study per job, no job failed
// for a platform reason), every evaluation committed before a fault still there with its value,
// PRAGMA integrity_check = ok, the submission complete on `bbo leaderboard`, and every job's
// values equal to those of the same competition run without faults (the steady optimizer's
// points depend only on its job's seed).
//
// Schedules come from a seed, printed; BBO_FAULT_SEED=N repeats one. Every loop has an
// iteration cap and a wall-clock cap; every process, namespace and mount is removed at the end.
// Cases 2-4 need root (skipped, saying why, otherwise). BBO_FAULT_KEEP=1 keeps the logs and
// databases (in $TMPDIR/bbo_faults_<pid>; the disk-full case's in disk-kept/).

#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/spawned_process.h"

namespace {

namespace fs = std::filesystem;
using Proc = bbo::testing::SpawnedProcess;
using bbo::testing::Q;
using bbo::testing::Query;
using Clock = std::chrono::steady_clock;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kBatchSize = 4;
constexpr int kBatches = 6;

void SleepS(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }
double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }
std::string ReadFile(const fs::path& p) { return bbo::testing::ReadWholeFile(p.string()); }
int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Each row of `sql` (read-only) as its columns joined by '|'.
int QInt(const std::string& db, const std::string& sql) {
  const std::string v = Q(db, sql);
  return v.empty() || v == "NULL" ? -1 : std::stoi(v);
}
std::pair<std::string, std::string> SplitBar(const std::string& row) {
  const size_t bar = row.find('|');
  return {row.substr(0, bar), bar == std::string::npos ? "" : row.substr(bar + 1)};
}

// The fault schedule's seed: BBO_FAULT_SEED, else a fresh one; printed either way.
unsigned FaultSeed(const char* test) {
  const char* env = std::getenv("BBO_FAULT_SEED");
  const unsigned seed =
      env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : std::random_device()();
  std::printf("[%s] fault schedule seed %u (BBO_FAULT_SEED=%u repeats it)\n", test, seed, seed);
  return seed;
}

// The binaries a test runs: hard links (else copies) of the build's, made when it starts, so
// that one test runs one set of binaries even while the build tree is relinked.
struct Binaries {
  std::string server = BBO_SERVER_BIN, worker = BBO_WORKER_BIN, cli = BBO_CLI_BIN;
};
Binaries g_bin;

Binaries PinBinaries(const fs::path& dir) {
  fs::create_directories(dir);
  Binaries out;
  for (std::string* bin : {&out.server, &out.worker, &out.cli}) {
    const fs::path to = dir / fs::path(*bin).filename();
    std::error_code ec;
    // Not while the linker writes it: it is executable and unchanged for 2 s (at most 60 s).
    for (int i = 0; i < 120; ++i) {
      struct stat st {};
      if (stat(bin->c_str(), &st) == 0 && (st.st_mode & S_IXUSR) != 0 &&
          std::time(nullptr) - st.st_mtime >= 2) {
        break;
      }
      SleepS(0.5);
    }
    fs::create_hard_link(*bin, to, ec);
    if (ec) fs::copy_file(*bin, to, fs::copy_options::overwrite_existing, ec);
    if (!ec) *bin = to.string();
  }
  return out;
}

// A process of the host, from /proc.
struct ProcInfo {
  pid_t pid = 0, ppid = 0;
  char state = '?';
  long uid = -1;
  std::string cmdline;  // arguments joined by spaces, with a trailing space
};
std::vector<ProcInfo> ListProcs() {
  std::vector<ProcInfo> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    ProcInfo p;
    p.pid = std::stoi(name);
    const std::string stat = ReadFile(e.path() / "stat");
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 4 > stat.size()) continue;
    std::istringstream rest(stat.substr(paren + 2));
    rest >> p.state >> p.ppid;
    std::istringstream status(ReadFile(e.path() / "status"));
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Uid:", 0) == 0) p.uid = std::strtol(line.c_str() + 4, nullptr, 10);
    }
    p.cmdline = ReadFile(e.path() / "cmdline");
    std::replace(p.cmdline.begin(), p.cmdline.end(), '\0', ' ');
    out.push_back(std::move(p));
  }
  return out;
}
bool Descends(const std::vector<ProcInfo>& procs, pid_t pid, pid_t ancestor) {
  std::map<pid_t, pid_t> parent;
  for (const ProcInfo& p : procs) parent[p.pid] = p.ppid;
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    if (pid == ancestor) return true;
    auto it = parent.find(pid);
    if (it == parent.end()) return false;
    pid = it->second;
  }
  return false;
}

// A spawned process that remembers its exit (SpawnedProcess forgets it once reaped).
struct Child {
  std::unique_ptr<Proc> proc;
  std::optional<int> exit_code;
  bool Alive() {
    if (proc == nullptr || exit_code.has_value()) return false;
    exit_code = proc->WaitExit(std::chrono::milliseconds(0));
    return !exit_code.has_value();
  }
};

struct ArenaOptions {
  int trials = 8;
  std::string db;                         // "" = <dir>/arena.sqlite
  std::vector<std::string> server_flags;  // beyond the common ones
  std::string server_ns;                  // network namespace of the server ("" = this one's)
  int port = 0;                           // 0 = a free port on 127.0.0.1
  std::string listen_host = "127.0.0.1";
};

// One competition: a bbo-server, its workers and one steady submission of `trials` trials on
// the test problem. Everything it started is killed when it is destroyed.
class Arena {
 public:
  Arena(fs::path dir, ArenaOptions o) : dir_(std::move(dir)), o_(std::move(o)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
    db_ = o_.db.empty() ? (dir_ / "arena.sqlite").string() : o_.db;
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / "steady" / "optimizer.py",
                  dir_ / "sub" / "optimizer.py");
    std::ofstream(dir_ / "team.token") << Admin("team add faults") << "\n";
    std::ofstream(dir_ / "worker.token") << Admin("worker add faults-host") << "\n";
    if (o_.port == 0) o_.port = FreePort();
  }
  ~Arena() {
    workers_.clear();
    server_.proc.reset();
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  std::string Admin(const std::string& args) {
    return bbo::testing::BboAdmin(g_bin.cli, db_, args);
  }

  // Starts the server and waits (at most 20 s) until it serves.
  bool StartServer() {
    fs::remove(dir_ / "port");
    std::vector<std::string> argv = {
        g_bin.server, "--listen=" + o_.listen_host + ":" + std::to_string(o_.port),
        "--db=" + db_, "--port_file=" + (dir_ / "port").string(), "--problem_set=test",
        "--baseline_trials=1", "--batch_size=" + std::to_string(kBatchSize),
        "--n_batches=" + std::to_string(kBatches), "--lease_ttl_s=3", "--max_job_attempts=50"};
    argv.insert(argv.end(), o_.server_flags.begin(), o_.server_flags.end());
    server_ = Child{Spawn(o_.server_ns, argv, "server.log"), std::nullopt};
    for (int i = 0; i < 400 && !fs::exists(dir_ / "port"); ++i) {
      if (!server_.Alive()) return false;
      SleepS(0.05);
    }
    return fs::exists(dir_ / "port");
  }
  bool ServerAlive() { return server_.Alive(); }

  // Worker `i` in namespace `ns` ("" = this one) dialing `host` (default: the listen host).
  void StartWorker(size_t i, const std::string& ns = "", const std::string& host = "") {
    if (workers_.size() <= i) workers_.resize(i + 1);
    const std::string address = Address(host);
    std::vector<std::string> argv = {g_bin.worker, "--coordinator=" + address,
                                     "--work_dir=" + WorkDir(i),
                                     "--token_file=" + (dir_ / "worker.token").string(),
                                     "--python_dir=" BBO_PYTHON_DIR, "--cgroups=auto"};
    // Another host's plaintext server (--insecure): the worker speaks TLS to it unless told not to.
    if (address.rfind("127.", 0) != 0) argv.push_back("--insecure");
    workers_[i] = Child{Spawn(ns, argv, "worker" + std::to_string(i) + ".log"), std::nullopt};
  }
  bool WorkerAlive(size_t i) { return i < workers_.size() && workers_[i].Alive(); }
  std::string WorkerLog(size_t i) { return ReadFile(dir_ / ("worker" + std::to_string(i) + ".log")); }
  // The id the coordinator gave worker `i` ("" before it registered).
  std::string WorkerId(size_t i) {
    const std::string log = WorkerLog(i);
    const std::string key = "event=worker_registered worker_id=";
    const size_t at = log.rfind(key);
    if (at == std::string::npos) return "";
    const size_t from = at + key.size();
    return log.substr(from, log.find_first_of(" \n", from) - from);
  }

  // The bbo command `args` run with the team's token, from namespace `ns`, against the server.
  std::string Cli(const std::string& args, const std::string& ns = "",
                  const std::string& host = "") {
    return bbo::testing::CommandOutput(
        (ns.empty() ? "" : "ip netns exec " + ns + " ") + g_bin.cli + " --token_file " +
        (dir_ / "team.token").string() + " " + args + " --server " + Address(host) +
        // Another host's plaintext server (--insecure): bbo speaks TLS to it unless told not to.
        (host.empty() ? "" : " --insecure") + " 2>&1");
  }
  // Registers the submission (retried for at most 10 s while the server starts).
  bool Submit(const std::string& ns = "", const std::string& host = "") {
    for (int i = 0; i < 100; ++i) {
      const std::string out =
          Cli("submit " + (dir_ / "sub").string() + " --name steady --trials " +
                  std::to_string(o_.trials),
              ns, host);
      std::ofstream(dir_ / "submit.log", std::ios::app) << out << "\n";
      if (Q(db_, "SELECT COUNT(*) FROM submissions WHERE name = 'steady'") == "1") return true;
      SleepS(0.1);
    }
    return false;
  }

  int Unfinished() { return QInt(db_, "SELECT COUNT(*) FROM jobs WHERE state != 'done'"); }
  bool WaitDone(double seconds) {
    const auto start = Clock::now();
    while (Since(start) < seconds) {
      if (Unfinished() == 0) return true;
      SleepS(0.1);
    }
    return false;
  }

  // Every method job's final study by "trial:problem": "state|batches_done|v,v,...".
  std::map<std::string, std::string> FinalStudies() {
    std::map<std::string, std::string> out;
    for (const std::string& row : Query(
             db_,
             "SELECT s.trial || ':' || s.problem, s.state, s.batches_done, (SELECT"
             " group_concat(value, ',') FROM (SELECT e.value FROM evaluations e WHERE"
             " e.study_id = s.id ORDER BY e.batch, e.idx)) FROM studies s JOIN jobs j ON"
             " j.id = s.job_id WHERE j.builtin = 0 AND s.state IN ('completed', 'cut_off',"
             " 'failed') ORDER BY s.id")) {
      auto [key, rest] = SplitBar(row);
      out[key] = rest;
    }
    return out;
  }
  // Every job's values in batch order, by "trial:problem" (the final study's).
  std::map<std::string, std::string> FinalValues() {
    std::map<std::string, std::string> out;
    for (const auto& [key, rest] : FinalStudies()) out[key] = rest.substr(rest.rfind('|') + 1);
    return out;
  }
  // Every evaluation committed so far: "study:batch:index" -> value.
  std::map<std::string, std::string> Evaluations() {
    std::map<std::string, std::string> out;
    for (const std::string& row :
         Query(db_,
               "SELECT study_id || ':' || batch || ':' || idx, value FROM evaluations")) {
      auto [key, value] = SplitBar(row);
      out[key] = value;
    }
    return out;
  }

  // The jobs not done and the studies not completed, for failure messages.
  std::string State() {
    std::string out = "--- jobs not done (id|state|worker|attempts|last_error)\n";
    for (const std::string& row :
         Query(db_, "SELECT id, state, worker_id, attempts, last_error FROM jobs WHERE state"
                    " != 'done'")) {
      out += row + "\n";
    }
    out += "--- studies not completed (id|job|state|batches|end_reason)\n";
    for (const std::string& row :
         Query(db_, "SELECT id, job_id, state, batches_done, end_reason FROM studies WHERE"
                    " state != 'completed'")) {
      out += row + "\n";
    }
    return out;
  }

  std::string Logs() {
    std::string out = State() + "--- server.log (tail)\n" + Tail(dir_ / "server.log");
    for (size_t i = 0; i < workers_.size(); ++i) {
      out += "--- worker" + std::to_string(i) + ".log (tail)\n" +
             Tail(dir_ / ("worker" + std::to_string(i) + ".log"));
    }
    return out;
  }
  static std::string Tail(const fs::path& p) {
    std::string s = ReadFile(p);
    return s.size() > 3000 ? s.substr(s.size() - 3000) : s;
  }

  // The pid of worker `i`'s process (-1 when it is not running).
  pid_t WorkerPid(size_t i) {
    const std::string mark = "--work_dir=" + WorkDir(i) + " ";
    for (const ProcInfo& p : ListProcs()) {
      if (p.ppid == getpid() && p.state != 'Z' && p.cmdline.find(mark) != std::string::npos) {
        return p.pid;
      }
    }
    return -1;
  }
  // The sandboxed optimizer processes now running (host uid 65534, python on optimizer.py),
  // as (worker index, pid).
  std::vector<std::pair<size_t, pid_t>> Optimizers() {
    std::vector<std::pair<size_t, pid_t>> out;
    const std::vector<ProcInfo> procs = ListProcs();
    for (size_t i = 0; i < workers_.size(); ++i) {
      const pid_t worker = WorkerPid(i);
      if (worker <= 0) continue;
      for (const ProcInfo& p : procs) {
        const std::string argv0 = p.cmdline.substr(0, p.cmdline.find(' '));
        if (p.uid == 65534 && p.state != 'Z' && argv0.find("python") != std::string::npos &&
            p.cmdline.find("optimizer.py") != std::string::npos && Descends(procs, p.pid, worker)) {
          out.push_back({i, p.pid});
        }
      }
    }
    return out;
  }

  const std::string& db() const { return db_; }
  const fs::path& dir() const { return dir_; }
  int trials() const { return o_.trials; }

 private:
  // A port free now on 127.0.0.1 (a restarted server takes the same one).
  static int FreePort() { return bbo::testing::FreePort(); }
  std::string Address(const std::string& host) {
    return (host.empty() ? o_.listen_host : host) + ":" + std::to_string(o_.port);
  }
  std::string WorkDir(size_t i) { return (dir_ / ("work" + std::to_string(i))).string(); }
  std::unique_ptr<Proc> Spawn(const std::string& ns, std::vector<std::string> argv,
                              const std::string& log) {
    if (!ns.empty()) argv.insert(argv.begin(), {"/usr/bin/env", "ip", "netns", "exec", ns});
    return std::make_unique<Proc>(argv, (dir_ / log).string());
  }

  fs::path dir_;
  ArenaOptions o_;
  std::string db_;
  Child server_;
  std::vector<Child> workers_;
};

// The same competition without faults: every job's values.
std::map<std::string, std::string> FaultFreeValues(const fs::path& dir, int trials,
                                                   std::vector<std::string> server_flags = {}) {
  ArenaOptions o;
  o.trials = trials;
  o.server_flags = std::move(server_flags);
  Arena clean(dir, o);
  if (!clean.StartServer()) return {};
  clean.StartWorker(0);
  clean.StartWorker(1);
  if (!clean.Submit() || !clean.WaitDone(120)) {
    ADD_FAILURE() << "the fault-free run did not finish\n" << clean.Logs();
    return {};
  }
  return clean.FinalValues();
}

// What every case asserts at the end. `failed_ok`: studies may end as failed (the optimizer's
// own failure, case 1); otherwise every final study must have completed as without faults.
void ExpectExactlyOnceAndWhole(Arena& run, const std::map<std::string, std::string>& committed,
                               bool failed_ok) {
  const std::string& db = run.db();
  EXPECT_EQ(Q(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(Q(db, "SELECT COUNT(*) FROM jobs WHERE state != 'done'"), "0");
  EXPECT_EQ(Q(db,
              "SELECT COUNT(*) FROM jobs j WHERE (SELECT COUNT(*) FROM studies s WHERE"
              " s.job_id = j.id AND s.state IN ('completed', 'cut_off', 'failed')) != 1"),
            "0")
      << "a job without exactly one final study";
  EXPECT_EQ(Q(db, "SELECT COUNT(*) FROM studies WHERE state = 'running'"), "0");
  if (!failed_ok) {
    EXPECT_EQ(Q(db,
                "SELECT COUNT(*) FROM studies s JOIN jobs j ON j.id = s.job_id WHERE"
                " j.builtin = 0 AND s.state = 'completed' AND s.batches_done = " +
                    std::to_string(kBatches)),
              std::to_string(run.trials()))
        << "a job ended short for a platform reason:\n"
        << ::testing::PrintToString(Query(
               db, "SELECT id, job_id, state, batches_done, end_reason FROM studies WHERE"
                   " state IN ('failed', 'cut_off')"));
  }
  // Nothing committed before a fault is gone or changed.
  const std::map<std::string, std::string> now = run.Evaluations();
  int lost = 0, changed = 0;
  for (const auto& [key, value] : committed) {
    auto it = now.find(key);
    if (it == now.end()) {
      if (++lost <= 5) ADD_FAILURE() << "evaluation " << key << " was committed, now gone";
    } else if (it->second != value) {
      if (++changed <= 5) ADD_FAILURE() << "evaluation " << key << ": " << value << " -> "
                                        << it->second;
    }
  }
  EXPECT_EQ(lost + changed, 0) << "of " << committed.size() << " committed evaluations";
  std::printf("committed evaluations checked: %zu, all kept: %s\n", committed.size(),
              lost + changed == 0 ? "yes" : "NO");
}

// `bbo leaderboard` lists the submission, complete.
void ExpectOnTheBoard(Arena& run, const std::string& ns = "", const std::string& host = "") {
  const std::string board = run.Cli("leaderboard", ns, host);
  EXPECT_THAT(board, HasSubstr("steady")) << board;
  EXPECT_THAT(board, Not(HasSubstr("(partial)"))) << board;
  EXPECT_THAT(board, Not(HasSubstr("Not on the board yet"))) << board;
}

// The score column of `name`'s row in a table printed by `bbo leaderboard` or `bbo score`
// ("rank name score ..."); "" when there is no such row.
std::string ScoreOf(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    std::istringstream row(line);
    std::string rank, method, score;
    if (!(row >> rank >> method) || method != name ||
        rank.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    // The score: the first number after the name (a team column may come between).
    while (row >> score) {
      if (score.find_first_not_of("0123456789.-") == std::string::npos) return score;
    }
  }
  return "";
}

void Merge(std::map<std::string, std::string>& into, const std::map<std::string, std::string>& m) {
  into.insert(m.begin(), m.end());
}

class FaultsTest : public ::testing::Test {
 protected:
  // Case 2 with the problem `problem_flags` give bbo-server, `trials` trials, on `port`.
  void Partitions(const std::vector<std::string>& problem_flags, int trials, int port);
  void SetUp() override {
    tag_ = std::to_string(getpid() % 100000);
    root_ = fs::temp_directory_path() / ("bbo_faults_" + tag_);
    fs::remove_all(root_);
    fs::create_directories(root_);
    g_bin = PinBinaries(root_ / "bin");
  }
  void TearDown() override {
    // The test body's Arenas (and their processes) are gone by now.
    if (!namespaces_.empty()) {
      for (const std::string& ns : namespaces_) Sh("ip netns del " + ns + " 2>/dev/null");
    }
    if (!mounted_.empty()) {
      if (std::getenv("BBO_FAULT_KEEP") != nullptr) {
        std::error_code ec;
        fs::copy(mounted_, root_ / "disk-kept", fs::copy_options::recursive, ec);
      }
      umount2(mounted_.c_str(), MNT_DETACH);
    }
    if (saved_mount_ns_ >= 0) {
      setns(saved_mount_ns_, CLONE_NEWNS);
      close(saved_mount_ns_);
    }
    if (std::getenv("BBO_FAULT_KEEP") != nullptr) {
      std::printf("kept %s (BBO_FAULT_KEEP)\n", root_.c_str());
    } else {
      fs::remove_all(root_);
    }
  }

  std::string tag_;
  fs::path root_;
  std::vector<std::string> namespaces_;  // network namespaces made (deleted at the end)
  std::string mounted_;                  // the tmpfs mounted ("" = none)
  int saved_mount_ns_ = -1;              // the mount namespace to return to
};

// ---------------------------------------------------------------------------------------------
// 1. The optimizer is SIGKILLed: the participant's failure, not the platform's. Documented
// (docs/participants.md, server/study_manager.h): the study ends as failed with its best so far
// standing (no result when it dies before it is ready); the job is done with that one study,
// never run again; the worker goes on with other jobs.

TEST_F(FaultsTest, KilledOptimizersEndTheirStudiesOnlyAndTheWorkerGoesOn) {
  constexpr int kTrials = 20, kKills = 12;
  const auto started = Clock::now();
  const std::map<std::string, std::string> expected = FaultFreeValues(root_ / "clean", kTrials);
  ASSERT_EQ(expected.size(), static_cast<size_t>(kTrials));

  std::mt19937 rng(FaultSeed("optimizer kills"));
  std::uniform_real_distribution<double> wait_s(0.05, 0.6);
  ArenaOptions o;
  o.trials = kTrials;
  Arena run(root_ / "faults", o);
  ASSERT_TRUE(run.StartServer()) << run.Logs();
  run.StartWorker(0);
  run.StartWorker(1);
  ASSERT_TRUE(run.Submit()) << run.Logs();
  std::map<std::string, std::string> committed;
  std::vector<int> kills_of(2, 0);
  std::vector<int> starts_at_first_kill(2, -1);
  int kills = 0;
  const auto loop = Clock::now();
  for (int it = 0; it < 500 && kills < kKills && Since(loop) < 60 && run.Unfinished() != 0; ++it) {
    SleepS(wait_s(rng));
    const std::vector<std::pair<size_t, pid_t>> running = run.Optimizers();
    if (running.empty()) continue;
    const auto [w, pid] = running[rng() % running.size()];
    Merge(committed, run.Evaluations());
    const int queued = QInt(run.db(), "SELECT COUNT(*) FROM jobs WHERE state = 'queued'");
    if (kill(pid, SIGKILL) != 0) continue;
    ++kills;
    ++kills_of[w];
    if (starts_at_first_kill[w] < 0 && queued > 0) {
      starts_at_first_kill[w] = CountOf(run.WorkerLog(w), "event=study_start");
    }
    std::printf("kill %d: optimizer pid %d of worker %zu at %.2f s\n", kills, pid, w,
                Since(loop));
  }
  ASSERT_TRUE(run.WaitDone(90)) << "jobs not done: " << run.Unfinished() << "\n" << run.Logs();
  const std::string& db = run.db();
  const int failed = QInt(db,
                          "SELECT COUNT(*) FROM studies s JOIN jobs j ON j.id = s.job_id WHERE"
                          " j.builtin = 0 AND s.state = 'failed'");
  std::printf("optimizer kills: %d (worker 0: %d, worker 1: %d); studies failed: %d, after "
              "batches (batch count x studies): %s; test time %.1f s\n",
              kills, kills_of[0], kills_of[1], failed,
              Q(db, "SELECT group_concat(n || 'x' || c, ' ') FROM (SELECT batches_done n,"
                    " COUNT(*) c FROM studies WHERE state = 'failed' GROUP BY n)")
                  .c_str(),
              Since(started));
  EXPECT_GE(kills, kKills / 2) << "too few optimizers seen to kill";

  ExpectExactlyOnceAndWhole(run, committed, /*failed_ok=*/true);
  // A dead optimizer is not retried: one study per job, none abandoned, none cut off.
  EXPECT_EQ(QInt(db,
                 "SELECT COUNT(*) FROM studies s JOIN jobs j ON j.id = s.job_id WHERE"
                 " j.builtin = 0"),
            kTrials)
      << ::testing::PrintToString(
             Query(db, "SELECT id, job_id, state, batches_done, end_reason FROM studies"));
  EXPECT_EQ(Q(db, "SELECT COUNT(*) FROM studies WHERE state IN ('abandoned', 'cut_off')"), "0");
  EXPECT_EQ(Q(db, "SELECT COUNT(*) FROM jobs WHERE builtin = 0 AND attempts != 1"), "0")
      << "a job was leased more than once";
  // Each kill that landed in a study failed it (a kill after the last batch changes nothing);
  // the failure says the optimizer died or did not start.
  EXPECT_GE(failed, 1);
  EXPECT_LE(failed, kills);
  for (const std::string& row :
       Query(db,
             "SELECT s.id, s.end_reason, (SELECT group_concat(kind) FROM study_errors e WHERE"
             " e.study_id = s.id) FROM studies s WHERE s.state = 'failed'")) {
    EXPECT_TRUE(row.find("optimizer died") != std::string::npos ||
                row.find("optimizer_died") != std::string::npos ||
                row.find("failed to start") != std::string::npos)
        << row;
  }
  // Its best so far stands: the study's best value is that of its committed batches.
  EXPECT_EQ(Q(db,
              "SELECT COUNT(*) FROM studies s WHERE s.state = 'failed' AND s.batches_done > 0"
              " AND s.best_value IS NOT (SELECT MIN(value) FROM evaluations e WHERE"
              " e.study_id = s.id)"),
            "0");
  // A killed job's values are the fault-free run's first batches; the others are all of them.
  const std::map<std::string, std::string> got = run.FinalStudies();
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [key, rest] : got) {
    const std::string state = rest.substr(0, rest.find('|'));
    std::string values = rest.substr(rest.rfind('|') + 1);
    if (values == "NULL") values.clear();
    const std::string& want = expected.at(key);
    if (state == "completed") {
      EXPECT_EQ(values, want) << key;
    } else {
      EXPECT_EQ(want.substr(0, values.size()), values) << key << " (" << state << ")";
      EXPECT_TRUE(values.empty() || want.size() == values.size() || want[values.size()] == ',')
          << key;
    }
  }
  // Scored as documented: the board's score is Bayesmark's on the exported results, where a
  // failed study's best so far carries forward and one without a result is one random guess.
  const std::string csv = (run.dir() / "results.csv").string();
  bbo::testing::CommandOutput(g_bin.cli + " export --db " + db + " --out " + csv +
                              " 2>/dev/null");
  const std::string offline =
      bbo::testing::CommandOutput(g_bin.cli + " score " + csv +
                                  " --random-search random-search-baseline 2>/dev/null");
  const std::string board = run.Cli("leaderboard");
  std::printf("steady's score: %s on the board, %s from the exported results\n",
              ScoreOf(board, "steady").c_str(), ScoreOf(offline, "steady").c_str());
  EXPECT_NE(ScoreOf(board, "steady"), "") << board;
  EXPECT_EQ(ScoreOf(board, "steady"), ScoreOf(offline, "steady")) << board << "\n" << offline;
  // The workers survived and went on to other jobs after their optimizers died.
  for (size_t w = 0; w < 2; ++w) {
    EXPECT_TRUE(run.WorkerAlive(w)) << "worker " << w << "\n" << run.Logs();
    if (starts_at_first_kill[w] >= 0) {
      EXPECT_GT(CountOf(run.WorkerLog(w), "event=study_start"), starts_at_first_kill[w])
          << "worker " << w << " ran nothing after its optimizer was killed";
    }
  }
  ExpectOnTheBoard(run);
}

// ---------------------------------------------------------------------------------------------
// 2. A network partition between a worker host and the coordinator: the coordinator in one
// network namespace, worker 0 on host "a" and worker 1 on host "b", each linked to it by a veth
// pair (10.78.0.0/16, plaintext with --insecure: no TLS needed for what is tested here). Host
// a's link goes down several times; the partitions are shorter than the lease (3 s), but one
// is longer, so its lease expires and the job moves on while worker 0 still holds the study.

// `problem_flags`: bbo-server's flags for the problem (beyond the common ones).
void FaultsTest::Partitions(const std::vector<std::string>& problem_flags, int trials, int port) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
  if (Sh("command -v ip >/dev/null") != 0) GTEST_SKIP() << "needs iproute2 (ip)";
  const int kTrials = trials, kPort = port;
  constexpr int kPartitions = 5;
  const auto started = Clock::now();
  const std::string c = "bbo-fc" + tag_, a = "bbo-fa" + tag_, b = "bbo-fb" + tag_;
  const std::string link_a = "fa" + tag_;  // host a's end of its link
  for (const std::string& ns : {c, a, b}) Sh("ip netns del " + ns + " 2>/dev/null");
  namespaces_ = {c, a, b};
  const std::string net = "set -e\n"
                          "for n in " + c + " " + a + " " + b + "; do ip netns add $n; "
                          "ip -n $n link set lo up; done\n"
                          "ip link add ca" + tag_ + " netns " + c + " type veth peer name " +
                          link_a + " netns " + a + "\n"
                          "ip link add cb" + tag_ + " netns " + c + " type veth peer name fb" +
                          tag_ + " netns " + b + "\n"
                          "ip -n " + c + " addr add 10.78.1.1/24 dev ca" + tag_ + "\n"
                          "ip -n " + a + " addr add 10.78.1.2/24 dev " + link_a + "\n"
                          "ip -n " + c + " addr add 10.78.2.1/24 dev cb" + tag_ + "\n"
                          "ip -n " + b + " addr add 10.78.2.2/24 dev fb" + tag_ + "\n"
                          "ip -n " + c + " link set ca" + tag_ + " up\n"
                          "ip -n " + a + " link set " + link_a + " up\n"
                          "ip -n " + c + " link set cb" + tag_ + " up\n"
                          "ip -n " + b + " link set fb" + tag_ + " up\n";
  std::ofstream(root_ / "net.sh") << net;
  ASSERT_EQ(Sh("sh " + (root_ / "net.sh").string() + " >" + (root_ / "net.log").string() +
               " 2>&1"),
            0)
      << ReadFile(root_ / "net.log");

  const std::map<std::string, std::string> expected =
      FaultFreeValues(root_ / "clean", kTrials, problem_flags);
  ASSERT_EQ(expected.size(), static_cast<size_t>(kTrials));

  ArenaOptions o;
  o.trials = kTrials;
  o.server_ns = c;
  o.port = kPort;
  o.listen_host = "0.0.0.0";
  o.server_flags = {"--insecure"};
  o.server_flags.insert(o.server_flags.end(), problem_flags.begin(), problem_flags.end());
  Arena run(root_ / "faults", o);
  ASSERT_TRUE(run.StartServer()) << run.Logs();
  run.StartWorker(0, a, "10.78.1.1");
  run.StartWorker(1, b, "10.78.2.1");
  ASSERT_TRUE(run.Submit(b, "10.78.2.1")) << ReadFile(run.dir() / "submit.log") << run.Logs();

  // The schedule: kPartitions cuts, one of them (at a random place) longer than the lease.
  std::mt19937 rng(FaultSeed("partition"));
  std::uniform_real_distribution<double> short_s(0.3, 2.0), long_s(5.0, 7.0), gap_s(0.5, 1.5);
  const int long_at = static_cast<int>(rng() % kPartitions);
  std::map<std::string, std::string> committed;
  bool long_cut_held_lease = false;
  const auto loop = Clock::now();
  for (int k = 0; k < kPartitions && Since(loop) < 60 && run.Unfinished() != 0; ++k) {
    const double down = k == long_at ? long_s(rng) : short_s(rng);
    Merge(committed, run.Evaluations());
    // Cut while worker 0 holds a job whose study is still running (at most 5 s of waiting for
    // one): a job whose final study is already recorded is done when its lease expires, not
    // leased again.
    const std::string id = run.WorkerId(0);
    bool holds = false;
    for (int i = 0; i < 100 && !holds; ++i) {
      holds = !id.empty() && QInt(run.db(),
                                  "SELECT COUNT(*) FROM jobs j JOIN studies s ON s.job_id = j.id"
                                  " WHERE j.state = 'leased' AND s.state = 'running' AND"
                                  " j.worker_id = '" + id + "'") > 0;
      if (!holds) SleepS(0.05);
    }
    if (k == long_at) long_cut_held_lease = holds;
    ASSERT_EQ(Sh("ip -n " + a + " link set " + link_a + " down"), 0);
    SleepS(down);
    ASSERT_EQ(Sh("ip -n " + a + " link set " + link_a + " up"), 0);
    std::printf("partition %d: host a cut off for %.2f s%s, worker 0 %s a lease\n", k + 1, down,
                k == long_at ? " (longer than the 3 s lease)" : "",
                holds ? "holding" : "not holding");
    SleepS(gap_s(rng));
  }
  ASSERT_TRUE(run.WaitDone(120)) << "jobs not done: " << run.Unfinished() << "\n" << run.Logs();
  const std::string& db = run.db();
  std::printf("studies abandoned: %s (lease expired: %s); jobs leased again: %s; test time "
              "%.1f s\n",
              Q(db, "SELECT COUNT(*) FROM studies WHERE state = 'abandoned'").c_str(),
              Q(db, "SELECT COUNT(*) FROM studies WHERE end_reason LIKE '%lease expired%'")
                  .c_str(),
              Q(db, "SELECT COUNT(*) FROM jobs WHERE attempts > 1").c_str(), Since(started));
  if (long_cut_held_lease) {
    // The long cut outlived the lease: the job was taken from worker 0 and leased again.
    EXPECT_GE(QInt(db, "SELECT COUNT(*) FROM jobs WHERE attempts > 1"), 1);
  }
  ExpectExactlyOnceAndWhole(run, committed, /*failed_ok=*/false);
  EXPECT_EQ(run.FinalValues(), expected) << run.Logs();
  EXPECT_TRUE(run.ServerAlive());
  EXPECT_TRUE(run.WorkerAlive(0)) << run.Logs();
  EXPECT_TRUE(run.WorkerAlive(1)) << run.Logs();
  ExpectOnTheBoard(run, b, "10.78.2.1");
}

TEST_F(FaultsTest, PartitionedWorkerHostLosesNothingAndDoesNothingTwice) {
  Partitions({}, 30, 50861);
}

// The same while worker hosts evaluate an objective that takes real time (200 ms a point):
// cuts land while a host evaluates a batch, and its values are recorded exactly once.
TEST_F(FaultsTest, PartitionsWhileHostsEvaluateASlowObjectiveLoseNothing) {
  Partitions({"--problem_set=slow", "--slow_problem_ms=200"}, 12, 50862);
}

// ---------------------------------------------------------------------------------------------
// 3. The disk holding the database fills up mid-run and is freed again. The database lives in
// a size-limited tmpfs mounted in a mount namespace of this test's own (its children see it,
// nothing else does); a filler file takes every free byte, stays a few seconds, and goes.
//
// While the disk is full, a call the coordinator cannot store is refused (RESOURCE_EXHAUSTED):
// the worker gives its study up as a platform failure (abandoned, not scored) and asks the
// coordinator to take the job back until it can, so the job runs again once there is space.

TEST_F(FaultsTest, FullDiskNeitherKillsNorCorruptsAndEveryJobFinishesOnce) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a size-limited tmpfs";
  constexpr int kTrials = 8, kFills = 2;
  constexpr size_t kDiskBytes = 32 << 20;
  const auto started = Clock::now();
  const std::map<std::string, std::string> expected = FaultFreeValues(root_ / "clean", kTrials);
  ASSERT_EQ(expected.size(), static_cast<size_t>(kTrials));

  saved_mount_ns_ = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(saved_mount_ns_, 0) << strerror(errno);
  ASSERT_EQ(unshare(CLONE_NEWNS), 0) << strerror(errno);
  ASSERT_EQ(mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0) << strerror(errno);
  const fs::path disk = root_ / "disk";
  fs::create_directories(disk);
  ASSERT_EQ(mount("tmpfs", disk.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                  ("size=" + std::to_string(kDiskBytes) + ",mode=0755").c_str()),
            0)
      << strerror(errno);
  mounted_ = disk.string();

  ArenaOptions o;
  o.trials = kTrials;
  o.db = (disk / "arena.sqlite").string();
  Arena run(root_ / "faults", o);
  ASSERT_TRUE(run.StartServer()) << run.Logs();
  run.StartWorker(0);
  run.StartWorker(1);
  ASSERT_TRUE(run.Submit()) << run.Logs();

  std::mt19937 rng(FaultSeed("disk full"));
  std::uniform_real_distribution<double> full_s(3.0, 5.0), gap_s(0.5, 2.0), into_s(0.0, 0.6);
  std::map<std::string, std::string> committed;
  bool server_died = false;
  const auto loop = Clock::now();
  for (int k = 0; k < kFills && Since(loop) < 60 && run.Unfinished() != 0; ++k) {
    // Mid-run: 2 (then 4) jobs done first, then a random moment of the next studies.
    for (int i = 0; i < 300; ++i) {
      if (QInt(run.db(), "SELECT COUNT(*) FROM jobs WHERE builtin = 0 AND state = 'done'") >=
          2 * (k + 1)) {
        break;
      }
      SleepS(0.05);
    }
    SleepS(into_s(rng));
    Merge(committed, run.Evaluations());
    const fs::path filler = disk / "filler";
    const int fd = open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0) << strerror(errno);
    std::vector<char> block(64 << 10, 'x');
    size_t filled = 0, size = block.size();
    int write_errno = 0;
    for (int i = 0; i < 4096 && size >= 512; ++i) {
      const ssize_t n = write(fd, block.data(), size);
      if (n > 0) {
        filled += static_cast<size_t>(n);
      } else {
        write_errno = errno;
        size /= 8;  // the last pages, in smaller writes
      }
    }
    close(fd);
    const double full_for = full_s(rng);
    std::printf("fill %d: filler took %.1f MiB (the last write: %s); full for %.2f s\n", k + 1,
                filled / 1048576.0, strerror(write_errno), full_for);
    EXPECT_EQ(write_errno, ENOSPC);
    for (const auto t = Clock::now(); Since(t) < full_for;) {
      if (!run.ServerAlive()) server_died = true;
      SleepS(0.1);
    }
    fs::remove(filler);
    if (!run.ServerAlive()) server_died = true;
    if (server_died) break;
    SleepS(gap_s(rng));
  }
  const std::string server_log = ReadFile(run.dir() / "server.log");
  std::string enospc_lines;
  int enospc = 0;
  {
    std::istringstream in(server_log);
    for (std::string line; std::getline(in, line);) {
      if (line.find("disk is full") != std::string::npos ||
          line.find("No space left") != std::string::npos) {
        if (++enospc <= 5) enospc_lines += line + "\n";
      }
    }
  }
  const int worker_saw = CountOf(run.WorkerLog(0), "disk is full") +
                         CountOf(run.WorkerLog(1), "disk is full");
  std::printf("server log lines naming the full disk: %d; worker log mentions: %d\n%s", enospc,
              worker_saw, enospc_lines.c_str());
  EXPECT_FALSE(server_died) << "bbo-server died on a full disk\n" << run.Logs();
  EXPECT_GT(enospc + worker_saw, 0) << "no error named the full disk\n" << run.Logs();
  if (server_died) {
    // Go on with a new one, to check what the dead one left.
    ASSERT_TRUE(run.StartServer()) << run.Logs();
  }
  // Not ASSERT: what the fault left is checked below either way.
  EXPECT_TRUE(run.WaitDone(60)) << "jobs not done after the disk was freed: " << run.Unfinished()
                                << "\n" << run.Logs();
  std::printf("studies abandoned: %s; failed: %s; test time %.1f s\n",
              Q(run.db(), "SELECT COUNT(*) FROM studies WHERE state = 'abandoned'").c_str(),
              Q(run.db(), "SELECT COUNT(*) FROM studies WHERE state = 'failed'").c_str(),
              Since(started));
  ExpectExactlyOnceAndWhole(run, committed, /*failed_ok=*/false);
  EXPECT_EQ(run.FinalValues(), expected) << run.Logs();
  EXPECT_TRUE(run.ServerAlive());
  ExpectOnTheBoard(run);
}

// ---------------------------------------------------------------------------------------------
// 4. A slow store: another connection to the SQLite file holds its write lock for 50-200 ms at
// a time with 30 ms gaps, so each write of the coordinator waits (SQLite's busy timeout, 5 s, is
// never reached). Documented (server/study_manager.h, docs/hosting-protocol.md): the optimizer's
// turn runs from the return of a batch's values (after they are durable) to the arrival of the
// next batch, so the coordinator's store time is not charged to the optimizer.

// Holds the write lock of `db` in bursts until destroyed (or 30 s, or 1000 bursts).
class WriteLockHolder {
 public:
  WriteLockHolder(std::string db, unsigned seed) : db_(std::move(db)) {
    thread_ = std::thread([this, seed] { Run(seed); });
  }
  ~WriteLockHolder() {
    stop_ = true;
    thread_.join();
  }
  int bursts() const { return bursts_; }
  double held_s() const { return held_ms_ / 1000.0; }
  int failures() const { return failures_; }

 private:
  void Run(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> hold_ms(50, 200);
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(db_.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      ++failures_;
      sqlite3_close(h);
      return;
    }
    sqlite3_busy_timeout(h, 5000);
    const auto start = Clock::now();
    for (int i = 0; i < 1000 && !stop_ && Since(start) < 30; ++i) {
      // A write lock taken and given back without writing: the coordinator's snapshots stay
      // valid, it only waits.
      if (sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
        ++failures_;
        continue;
      }
      const int ms = hold_ms(rng);
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
      ++bursts_;
      held_ms_ += ms;
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    sqlite3_close(h);
  }

  std::string db_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> bursts_{0}, held_ms_{0}, failures_{0};
};

// Per batch of the submission's final studies (started in [from, to] unix seconds): the
// coordinator's turn minus the optimizer's own observe and suggest time, sorted.
std::vector<double> TurnOverheads(const std::string& db, double from, double to) {
  std::vector<double> out;
  for (const std::string& row :
       Query(db,
             "SELECT b.turn_time_s - b.host_suggest_time_s - b.host_observe_time_s FROM batches b"
             " JOIN studies s ON s.id = b.study_id JOIN jobs j ON j.id = s.job_id WHERE"
             " j.builtin = 0 AND s.started_at >= " + std::to_string(from) +
             " AND s.started_at <= " + std::to_string(to))) {
    out.push_back(std::stod(row));
  }
  std::sort(out.begin(), out.end());
  return out;
}
double Median(const std::vector<double>& v) { return v.empty() ? -1 : v[v.size() / 2]; }
// Median wall time per batch of the submission's completed studies started in [from, to],
// seconds.
double WallPerBatch(const std::string& db, double from, double to) {
  std::vector<double> v;
  for (const std::string& row :
       Query(db, "SELECT (s.ended_at - s.started_at) / s.batches_done FROM studies s JOIN jobs j"
                 " ON j.id = s.job_id WHERE j.builtin = 0 AND s.state = 'completed' AND"
                 " s.started_at >= " + std::to_string(from) +
                 " AND s.started_at <= " + std::to_string(to))) {
    v.push_back(std::stod(row));
  }
  std::sort(v.begin(), v.end());
  return Median(v);
}

TEST_F(FaultsTest, SlowStoreIsNotChargedToTheOptimizerAndLosesNothing) {
  constexpr int kTrials = 8;
  const auto started = Clock::now();
  ArenaOptions o;
  o.trials = kTrials;
  std::map<std::string, std::string> expected;
  double clean_overhead = 0, clean_wall = 0;
  {
    Arena clean(root_ / "clean", o);
    ASSERT_TRUE(clean.StartServer()) << clean.Logs();
    clean.StartWorker(0);
    clean.StartWorker(1);
    ASSERT_TRUE(clean.Submit()) << clean.Logs();
    ASSERT_TRUE(clean.WaitDone(120)) << clean.Logs();
    expected = clean.FinalValues();
    clean_overhead = Median(TurnOverheads(clean.db(), 0, 1e12));
    clean_wall = WallPerBatch(clean.db(), 0, 1e12);
  }
  ASSERT_EQ(expected.size(), static_cast<size_t>(kTrials));

  Arena run(root_ / "faults", o);
  ASSERT_TRUE(run.StartServer()) << run.Logs();
  run.StartWorker(0);
  run.StartWorker(1);
  std::map<std::string, std::string> committed;
  double slow_from = 0, slow_to = 0;
  int bursts = 0, lock_failures = 0;
  double held = 0;
  {
    ASSERT_TRUE(run.Submit()) << run.Logs();
    Merge(committed, run.Evaluations());
    slow_from = UnixNow();
    WriteLockHolder holder(run.db(), FaultSeed("slow store"));
    // Slow until three quarters of the jobs are done (at most 40 s).
    for (int i = 0; i < 400; ++i) {
      const int done = QInt(run.db(), "SELECT COUNT(*) FROM jobs WHERE builtin = 0 AND"
                                      " state = 'done'");
      if (done >= kTrials * 3 / 4) break;
      SleepS(0.1);
    }
    Merge(committed, run.Evaluations());
    slow_to = UnixNow();
    bursts = holder.bursts();
    held = holder.held_s();
    lock_failures = holder.failures();
  }
  ASSERT_TRUE(run.WaitDone(90)) << "jobs not done: " << run.Unfinished() << "\n" << run.Logs();
  const std::vector<double> slow = TurnOverheads(run.db(), slow_from, slow_to);
  const double slow_overhead = Median(slow);
  const double slow_wall = WallPerBatch(run.db(), slow_from, slow_to);
  std::printf("write lock held %d times, %.1f s in all over %.1f s (%d refused); per batch: "
              "wall %.0f ms slow vs %.0f ms without, turn overhead (turn - suggest - observe) "
              "median %.1f ms slow (%zu batches) vs %.1f ms without; test time %.1f s\n",
              bursts, held, slow_to - slow_from, lock_failures, slow_wall * 1000,
              clean_wall * 1000, slow_overhead * 1000, slow.size(), clean_overhead * 1000,
              Since(started));
  EXPECT_EQ(lock_failures, 0);
  EXPECT_GT(bursts, 10);
  ASSERT_FALSE(slow.empty()) << "no study ran while the store was slow";
  // The store was slow (each batch waited), and that wait is not in the optimizer's turns.
  EXPECT_GT(slow_wall - clean_wall, 0.02) << "the store was not noticeably slower";
  EXPECT_LT(slow_overhead - clean_overhead, 0.05)
      << "the coordinator's store time is charged to the optimizer's turn";
  EXPECT_EQ(Q(run.db(), "SELECT COUNT(*) FROM studies WHERE state = 'cut_off'"), "0");
  ExpectExactlyOnceAndWhole(run, committed, /*failed_ok=*/false);
  EXPECT_EQ(run.FinalValues(), expected) << run.Logs();
  ExpectOnTheBoard(run);
}

}  // namespace
