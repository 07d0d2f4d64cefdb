// The processes behind an ExternalProblem: how many run at once, and how long they live (the
// thread that started one may end; the host process may be SIGKILLed).

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/external/problem.h"

namespace bbo {
namespace {

using ::testing::SizeIs;

// A bbo-problem/1 problem on x in [-5, 5], f(x) = (x - 1)^2, that sleeps `argv[1]` seconds per
// evaluate request. It marks its life in the directory `argv[2]`: "started.<pid>" at start,
// "busy.<pid>" when an evaluate request arrives.
constexpr char kSlowProblem[] = R"py(
import json, os, sys, time

sleep_s, marks = float(sys.argv[1]), sys.argv[2]

def mark(kind):
    path = os.path.join(marks, "%s.%d" % (kind, os.getpid()))
    open(path + ".tmp", "w").close()
    os.rename(path + ".tmp", path)

mark("started")
for line in sys.stdin:
    req = json.loads(line)
    if req["type"] == "describe":
        reply = {"protocol": "bbo-problem/1", "name": "slow",
                 "api_config": {"x": {"type": "real", "space": "linear", "range": [-5, 5]}}}
    elif req["type"] == "exit":
        break
    else:
        mark("busy")
        time.sleep(sleep_s)
        reply = {"id": req["id"], "values": [(p["x"] - 1.0) ** 2 for p in req["points"]]}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
)py";

double SlowValue(double x) { return (x - 1.0) * (x - 1.0); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One test's directory, holding the problem script and its marks.
struct Fixture {
  std::string dir;
  std::string script;

  explicit Fixture(const std::string& name) {
    dir = absl::StrCat(::testing::TempDir(), "/ext_", name, "_", getpid());
    EXPECT_EQ(std::system(absl::StrCat("rm -rf '", dir, "' && mkdir -p '", dir, "'").c_str()), 0);
    script = dir + "/slow_problem.py";
    std::ofstream(script) << kSlowProblem;
  }

  ExternalProblemOptions Options(double sleep_seconds, int max_processes) const {
    ExternalProblemOptions o;
    o.argv = {"/usr/bin/python3", script, absl::StrCat(sleep_seconds), dir};
    o.startup_time_limit = absl::Seconds(20);
    o.evaluate_time_limit = absl::Seconds(60);
    o.max_processes = max_processes;
    return o;
  }

  // The pids that left a "<kind>.<pid>" mark.
  std::set<pid_t> Marked(const std::string& kind) const {
    std::set<pid_t> pids;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return pids;
    const std::string prefix = kind + ".";
    while (const dirent* e = readdir(d)) {
      absl::string_view name = e->d_name;
      int pid = 0;
      if (absl::ConsumePrefix(&name, prefix) && absl::SimpleAtoi(name, &pid)) pids.insert(pid);
    }
    closedir(d);
    return pids;
  }
};

// /proc/<pid>/stat: state and parent pid; false when there is no such process.
bool ReadStat(pid_t pid, char* state, pid_t* ppid) {
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream rest(stat.substr(paren + 1));
  return static_cast<bool>(rest >> *state >> *ppid);
}

// True while `pid` exists and is not a zombie.
bool Alive(pid_t pid) {
  char state = 0;
  pid_t ppid = 0;
  return ReadStat(pid, &state, &ppid) && state != 'Z';
}

// Live (not zombie) children of this process whose command line mentions `script`.
int LiveChildrenRunning(const std::string& script) {
  int count = 0;
  DIR* d = opendir("/proc");
  if (d == nullptr) return -1;
  while (const dirent* e = readdir(d)) {
    int pid = 0;
    if (!absl::SimpleAtoi(e->d_name, &pid)) continue;
    char state = 0;
    pid_t ppid = 0;
    if (!ReadStat(pid, &state, &ppid) || ppid != getpid() || state == 'Z') continue;
    std::string cmdline = ReadFile(absl::StrCat("/proc/", pid, "/cmdline"));
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (absl::StrContains(cmdline, script)) ++count;
  }
  closedir(d);
  return count;
}

// Waits until `condition` holds or `timeout` passes; true if it held.
template <typename Condition>
bool WaitFor(Condition condition, absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

TEST(ExternalProblemProcessesTest, SixteenThreadsNeverRunMoreThanMaxProcesses) {
  const Fixture fixture("pool_bound");
  absl::StatusOr<std::unique_ptr<ExternalProblem>> p =
      ExternalProblem::Start(fixture.Options(/*sleep_seconds=*/0.05, /*max_processes=*/3));
  ASSERT_TRUE(p.ok()) << p.status();

  std::atomic<bool> done{false};
  std::atomic<int> most{0};
  std::atomic<int> samples{0};
  std::thread sampler([&] {
    while (!done.load()) {
      const int live = LiveChildrenRunning(fixture.script);
      most.store(std::max(most.load(), live));
      ++samples;
      absl::SleepFor(absl::Milliseconds(2));
    }
  });
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        const double x = -4.0 + 0.5 * t + 0.01 * i;
        if ((*p)->Evaluate({{"x", x}}) != SlowValue(x)) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  done.store(true);
  sampler.join();

  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(samples.load(), 50);
  // 16 callers keep every process busy: the pool fills up to its bound and no further.
  EXPECT_EQ(most.load(), 3);
  EXPECT_EQ((*p)->restarts(), 2);
  EXPECT_THAT((*p)->errors(), SizeIs(0));
}

// A process started on demand by an evaluation thread stays in the pool after that thread ends.
// (PR_SET_PDEATHSIG set by a child forked from that thread would kill it when the thread exits:
// the next request on it would score +inf.)
TEST(ExternalProblemProcessesTest, PooledProcessOutlivesTheThreadThatStartedIt) {
  const Fixture fixture("outlive");
  // The first process is started by a thread that ends right away (as the registry does).
  std::unique_ptr<ExternalProblem> p;
  std::thread starter([&] {
    absl::StatusOr<std::unique_ptr<ExternalProblem>> started =
        ExternalProblem::Start(fixture.Options(/*sleep_seconds=*/0.3, /*max_processes=*/2));
    ASSERT_TRUE(started.ok()) << started.status();
    p = *std::move(started);
  });
  starter.join();
  ASSERT_NE(p, nullptr);

  // Two evaluations at once: one of these short-lived threads starts the second process.
  auto evaluate_twice_at_once = [&](double x0) {
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        if (p->Evaluate({{"x", x0 + t}}) != SlowValue(x0 + t)) ++wrong;
      });
    }
    for (std::thread& t : threads) t.join();
    return wrong.load();
  };
  EXPECT_EQ(evaluate_twice_at_once(0.5), 0);
  const std::set<pid_t> pids = fixture.Marked("started");
  ASSERT_THAT(pids, SizeIs(2));
  absl::SleepFor(absl::Milliseconds(300));  // a death signal would have arrived by now
  for (pid_t pid : pids) EXPECT_TRUE(Alive(pid)) << "pid " << pid;

  // Both pooled processes still answer; none had to be replaced.
  EXPECT_EQ(evaluate_twice_at_once(-2.0), 0);
  EXPECT_EQ(p->restarts(), 1);
  EXPECT_THAT(p->errors(), SizeIs(0));
  EXPECT_EQ(fixture.Marked("started"), pids);
}

// The host of the problem, forked by the test: two evaluations that take 30 s each, until the
// test kills it. Never returns.
[[noreturn]] void RunHost(const Fixture& fixture) {
  // Safety nets: the host ends with the test, and after a minute at most.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  alarm(60);
  absl::StatusOr<std::unique_ptr<ExternalProblem>> p =
      ExternalProblem::Start(fixture.Options(/*sleep_seconds=*/30, /*max_processes=*/2));
  if (!p.ok()) _exit(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) threads.emplace_back([&, t] { (*p)->Evaluate({{"x", 1.0 * t}}); });
  for (std::thread& t : threads) t.join();
  _exit(3);  // not reached: the test kills the host first
}

TEST(ExternalProblemProcessesTest, ProblemProcessesDieWhenTheHostIsKilled) {
  const Fixture fixture("host_death");
  const pid_t host = fork();
  ASSERT_GE(host, 0);
  if (host == 0) RunHost(fixture);

  // Both problem processes are computing.
  const bool busy = WaitFor([&] { return fixture.Marked("busy").size() == 2; }, absl::Seconds(30));
  const std::set<pid_t> pids = fixture.Marked("started");
  kill(host, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(host, &status, 0), host);
  ASSERT_TRUE(busy) << "the host did not start 2 evaluations; host status " << status;
  ASSERT_THAT(pids, SizeIs(2));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "host status " << status;

  for (pid_t pid : pids) {
    EXPECT_TRUE(WaitFor([&] { return !Alive(pid); }, absl::Seconds(3)))
        << "problem process " << pid << " outlived its host";
  }
  // Clean up what outlived the host (its own process group).
  for (pid_t pid : pids) {
    if (Alive(pid) &&
        absl::StrContains(ReadFile(absl::StrCat("/proc/", pid, "/cmdline")), fixture.script)) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
  }
}

}  // namespace
}  // namespace bbo
