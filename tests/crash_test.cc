// Fault injection on the whole system: a real bbo-server and two bbo-workers on 127.0.0.1,
// running a deterministic submission (tests/optimizers/steady), are killed with SIGKILL at
// random moments and started again, a bounded number of times. Afterwards every job must be
// done exactly once (one final study each, nothing failed), every final study whole, the
// database intact, and every job's values equal to those of the same competition run without
// faults (the optimizer's points depend only on its job's seed).
//
// The kill schedule comes from a fixed seed (kDefaultSeed; BBO_CRASH_SEED=N runs another
// schedule; printed either way). At least kMinKills kills must land while jobs remain, or the
// run proved nothing and fails. Bounded: at most kKills kills, then at most 150 s for the queue
// to drain.

#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/spawned_process.h"

namespace {

namespace fs = std::filesystem;
using Proc = bbo::testing::SpawnedProcess;
using bbo::testing::FreePort;
using bbo::testing::Q;
using bbo::testing::Query;

constexpr int kKills = 10;
// Kills that must land while jobs remain: fewer and the run proved nothing.
constexpr int kMinKills = 3;
constexpr unsigned kDefaultSeed = 20261202;
constexpr int kTrials = 8;
constexpr int kBatches = 6;

std::string ReadFile(const fs::path& p) { return bbo::testing::ReadWholeFile(p.string()); }

// One competition: a server, two workers, one submission of kTrials trials.
class Phase {
 public:
  // `problem_flags`: bbo-server's flags choosing the one problem.
  Phase(const fs::path& root, std::vector<std::string> problem_flags)
      : root_(root), db_((root / "arena.sqlite").string()), problem_flags_(std::move(problem_flags)) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / "steady" / "optimizer.py",
                  root_ / "sub" / "optimizer.py");
    std::ofstream(root_ / "team.token") << Admin("team add crash") << "\n";
    std::ofstream(root_ / "worker.token") << Admin("worker add crash-host") << "\n";
    port_ = FreePort();
  }
  ~Phase() {
    workers_.clear();
    server_.reset();
  }

  std::string Admin(const std::string& args) {
    return bbo::testing::BboAdmin(BBO_CLI_BIN, db_, args);
  }

  void StartServer() {
    std::vector<std::string> argv = {BBO_SERVER_BIN, "--listen=127.0.0.1:" + std::to_string(port_),
                                     "--db=" + db_, "--baseline_trials=1", "--batch_size=4",
                                     "--n_batches=" + std::to_string(kBatches), "--lease_ttl_s=3",
                                     "--max_job_attempts=50"};
    argv.insert(argv.end(), problem_flags_.begin(), problem_flags_.end());
    server_ = std::make_unique<Proc>(argv, (root_ / "server.log").string());
  }
  void StartWorker(size_t i) {
    if (workers_.size() <= i) workers_.resize(i + 1);
    workers_[i] = std::make_unique<Proc>(
        std::vector<std::string>{BBO_WORKER_BIN, "--coordinator=127.0.0.1:" + std::to_string(port_),
                                 "--work_dir=" + (root_ / ("work" + std::to_string(i))).string(),
                                 "--token_file=" + (root_ / "worker.token").string(),
                                 "--python_dir=" BBO_PYTHON_DIR, "--cgroups=auto"},
        (root_ / ("worker" + std::to_string(i) + ".log")).string());
  }
  void KillServer() { server_.reset(); }
  void KillWorker(size_t i) { workers_[i].reset(); }

  // Registers the submission once the server answers.
  bool Submit() {
    const std::string cmd =
        std::string(BBO_CLI_BIN) + " --token_file " + (root_ / "team.token").string() + " submit " +
        (root_ / "sub").string() + " --name steady --trials " + std::to_string(kTrials) +
        " --server 127.0.0.1:" + std::to_string(port_) + " >>" + (root_ / "submit.log").string() +
        " 2>&1";
    for (int i = 0; i < 100; ++i) {
      if (std::system(cmd.c_str()) == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  int Unfinished() {
    const std::string n = Q(db_, "SELECT COUNT(*) FROM jobs WHERE state != 'done'");
    return n.empty() ? -1 : std::stoi(n);
  }
  bool WaitDone(int seconds) {
    for (int i = 0; i < seconds * 10; ++i) {
      if (Unfinished() == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // Every method job's final values, by (trial, problem), in batch and suggestion order.
  std::map<std::string, std::string> FinalValues() {
    std::map<std::string, std::string> out;
    for (const std::string& row :
         Query(db_,
               "SELECT s.trial || ':' || s.problem, group_concat(e.value, ',') FROM (SELECT"
               " s.id, s.trial, s.problem FROM studies s JOIN jobs j ON j.id = s.job_id"
               " WHERE j.builtin = 0 AND s.state IN ('completed', 'cut_off', 'failed')) s"
               " JOIN evaluations e ON e.study_id = s.id GROUP BY s.id ORDER BY s.id")) {
      const size_t bar = row.find('|');
      out[row.substr(0, bar)] = row.substr(bar + 1);
    }
    return out;
  }

  std::string Logs() {
    std::string out = "--- server.log (tail)\n" + Tail(root_ / "server.log");
    for (size_t i = 0; i < workers_.size(); ++i) {
      out += "--- worker" + std::to_string(i) + ".log (tail)\n" +
             Tail(root_ / ("worker" + std::to_string(i) + ".log"));
    }
    return out;
  }
  static std::string Tail(const fs::path& p) {
    std::string s = ReadFile(p);
    return s.size() > 4000 ? s.substr(s.size() - 4000) : s;
  }

  const std::string& db() const { return db_; }
  size_t workers() const { return workers_.size(); }

 private:
  fs::path root_;
  std::string db_;
  std::vector<std::string> problem_flags_;
  int port_ = 0;
  std::unique_ptr<Proc> server_;
  std::vector<std::unique_ptr<Proc>> workers_;
};

// Kills coordinators and workers at random while a submission runs on the problem that
// `problem_flags` give bbo-server, and checks the result against a run without faults.
void KillAtRandom(const std::vector<std::string>& problem_flags) {
  const fs::path base = fs::temp_directory_path() / ("bbo_crash_" + std::to_string(getpid()));
  // The same competition without faults: what every job's values must be.
  std::map<std::string, std::string> expected;
  {
    Phase clean(base / "clean", problem_flags);
    clean.StartServer();
    clean.StartWorker(0);
    clean.StartWorker(1);
    ASSERT_TRUE(clean.Submit()) << clean.Logs();
    ASSERT_TRUE(clean.WaitDone(150)) << clean.Logs();
    expected = clean.FinalValues();
    ASSERT_EQ(expected.size(), static_cast<size_t>(kTrials)) << clean.Logs();
  }

  const char* env_seed = std::getenv("BBO_CRASH_SEED");
  const unsigned seed = env_seed != nullptr
                            ? static_cast<unsigned>(std::strtoul(env_seed, nullptr, 10))
                            : kDefaultSeed;
  std::printf("kill schedule seed: %u (%s; BBO_CRASH_SEED=%u repeats it)\n", seed,
              env_seed != nullptr ? "from BBO_CRASH_SEED" : "the fixed default", seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> wait_s(0.2, 1.2), down_s(0.05, 0.5);
  std::uniform_int_distribution<int> target(0, 2);  // 0: the server; 1, 2: a worker

  Phase run(base / "faults", problem_flags);
  run.StartServer();
  run.StartWorker(0);
  run.StartWorker(1);
  ASSERT_TRUE(run.Submit()) << run.Logs();
  int server_kills = 0, worker_kills = 0;
  for (int k = 0; k < kKills; ++k) {
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s(rng)));
    // Only kills while jobs remain count (and are made): -1 is a database that could not be read.
    if (run.Unfinished() == 0) break;
    const int t = target(rng);
    if (t == 0) {
      run.KillServer();
      ++server_kills;
    } else {
      run.KillWorker(t - 1);
      ++worker_kills;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(down_s(rng)));
    if (t == 0) {
      run.StartServer();
    } else {
      run.StartWorker(t - 1);
    }
  }
  std::printf("killed the server %d times and a worker %d times\n", server_kills, worker_kills);
  ASSERT_GE(server_kills + worker_kills, kMinKills)
      << "the jobs finished before the planned kills landed (seed " << seed << ")\n"
      << run.Logs();
  ASSERT_TRUE(run.WaitDone(150)) << "jobs not done: " << run.Unfinished() << "\n" << run.Logs();
  const std::string& db = run.db();

  // The kills did land mid-study (else this run proved little).
  const std::string interrupted = Q(db, "SELECT COUNT(*) FROM studies WHERE state = 'abandoned'");
  std::printf(
      "studies interrupted and run again: %s (%s by a coordinator restart)\n", interrupted.c_str(),
      Q(db, "SELECT COUNT(*) FROM studies WHERE end_reason = 'coordinator restarted'").c_str());
  EXPECT_NE(interrupted, "0");
  EXPECT_EQ(Q(db, "PRAGMA integrity_check"), "ok");
  // No job failed, and each has exactly one final study.
  EXPECT_EQ(Q(db, "SELECT COUNT(*) FROM jobs WHERE state != 'done'"), "0");
  EXPECT_EQ(Q(db,
              "SELECT COUNT(*) FROM jobs j WHERE (SELECT COUNT(*) FROM studies s WHERE"
              " s.job_id = j.id AND s.state IN ('completed', 'cut_off', 'failed')) != 1"),
            "0")
      << run.Logs();
  // Each final study is whole: every batch, every point, in order, with no gap.
  EXPECT_EQ(Q(db,
              "SELECT COUNT(*) FROM studies s WHERE s.job_id IS NOT NULL AND s.state IN"
              " ('completed', 'cut_off', 'failed') AND (SELECT COUNT(*) FROM evaluations e"
              " WHERE e.study_id = s.id) != " +
                  std::to_string(4 * kBatches)),
            "0");
  // Nothing is left running.
  EXPECT_EQ(Q(db, "SELECT COUNT(*) FROM studies WHERE state = 'running'"), "0");
  // The same values as without faults, job by job.
  EXPECT_EQ(run.FinalValues(), expected) << run.Logs();
  fs::remove_all(base);
}

TEST(CrashTest, KilledCoordinatorsAndWorkersLoseNothingAndDoNothingTwice) {
  KillAtRandom({"--problem_set=test"});
}

// The same with an objective that takes real time (150 ms per evaluation, on the workers): kills
// land while a worker evaluates a batch, and its values are still recorded exactly once.
TEST(CrashTest, WithASlowObjectiveEvaluatedOnTheWorkersNothingIsLostOrDoubled) {
  KillAtRandom({"--problem_set=slow", "--slow_problem_ms=150"});
}

}  // namespace
