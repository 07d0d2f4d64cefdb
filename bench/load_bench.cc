// Load benchmark (crash-safety issue, item 7: load from a native client). Starts a real
// bbo-server child on 127.0.0.1 (anonymous callers, no rate limit, no baseline studies, the
// `test` problem set, a fresh SQLite file in a temporary directory) and drives it over gRPC:
//
//  A. `clients` clients, each looping OpenStudy -> n_batches x SubmitBatch (random valid points
//     in the problem's api_config) for `seconds` after a 2 s warm-up, driven asynchronously by a
//     few threads (one completion queue each, so the client's CPU stays well below the server's
//     on a shared machine): SubmitBatch latency
//     (p50/p90/p99/max, client wall time per call), studies completed and evaluations ingested
//     per second, errors by gRPC code, server and client CPU time, server RSS peak.
//  B. `open` studies opened at once (each submits its first batch so it holds state); the
//     server's VmRSS/VmHWM is read while they are open, then every study is finished.
//
// Then the server is stopped (SIGTERM) and the SQLite file's size and journal mode are read.
// Prints a table against the goals (SubmitBatch p99 <= 5 ms at 256 clients, >= 50,000
// evaluations/s, RSS <= 1 GiB at 1,000 open studies). Exits 0 when a goal is missed (it is a
// benchmark); 1, printing no figure for the failed phase, on any RPC error, when phase A answers
// no batch in its window, or when the server cannot be started.
//
// Usage: build/bench/load_bench [seconds=20] [clients=256] [open=1000] [rate=0]
//                               [server=build/server/bbo-server]
//   open=0 skips phase B. rate=0: every client submits its next batch as soon as the last one
//   returns (closed loop: the server's capacity; latency is then clients / throughput by Little's
//   law). rate=R > 0: the clients together offer R evaluations per second, each pacing its calls
//   evenly (as optimizers that take time to suggest) -- the latency at a given load.
//   BBO_LOAD_CHANNELS=N spreads the clients over N gRPC channels (TCP connections; default 1 per
//   32 clients). BBO_LOAD_THREADS=N drives the clients of phase A from N threads (default 2).
//   BBO_LOAD_SERVER_ARGS="--flag=v ..." passes more flags to the server.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bbo/v1/study_service.grpc.pb.h"
#include "bench/random_points.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "nlohmann/json.hpp"
#include "sqlite3.h"

#ifndef BBO_SERVER_BIN
#define BBO_SERVER_BIN "build/server/bbo-server"
#endif
#ifndef BBO_SOURCE_DIR
#define BBO_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using bbo::bench::Param;
using bbo::bench::ParseApiConfig;
using bbo::bench::RandomPoint;
using bbo::v1::StudyService;

constexpr auto kRpcDeadline = std::chrono::seconds(10);
constexpr double kWarmupS = 2.0;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// ---- the server child, killed on every exit path ----

class ServerProcess {
 public:
  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() { Stop(); }

  bool Start(const std::string& bin, const std::vector<std::string>& args,
             const std::string& log_path) {
    std::vector<std::string> argv_s = {bin};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the benchmark
      int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
      std::vector<char*> argv;
      for (auto& s : argv_s) argv.push_back(s.data());
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
    return true;
  }

  bool Alive() {
    if (pid_ <= 0) return false;
    int st = 0;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      exit_status_ = st;
      return false;
    }
    return true;
  }

  // SIGTERM, then SIGKILL after 10 s. Returns the wait status.
  int Stop() {
    if (pid_ <= 0) return exit_status_;
    kill(pid_, SIGTERM);
    auto until = Clock::now() + std::chrono::seconds(10);
    int st = 0;
    while (true) {
      pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) break;
      if (Clock::now() > until) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &st, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    exit_status_ = st;
    return st;
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int exit_status_ = 0;
};

// A temporary directory removed at exit.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/load_bench.XXXXXX";
    if (mkdtemp(tmpl) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty() && std::getenv("BBO_LOAD_KEEP") == nullptr) fs::remove_all(path, ec);
  }
};

// ---- /proc readings ----

// VmRSS and VmHWM of `pid`, KiB.
struct Rss {
  long rss_kib = 0;
  long hwm_kib = 0;
};

Rss ReadRss(pid_t pid) {
  Rss r;
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) r.rss_kib = std::atol(line.c_str() + 6);
    if (line.rfind("VmHWM:", 0) == 0) r.hwm_kib = std::atol(line.c_str() + 6);
  }
  return r;
}

// utime + stime of `pid` (all its threads), seconds.
double ProcCpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t close = s.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(s.substr(close + 2));
  std::string field;
  // Fields after ")": state(3) ... utime(14) stime(15).
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds all processes on the host spent busy (user, nice, system, irq, softirq, steal)
// from /proc/stat: what is left after the server and the client is other load on the machine.
double HostBusySeconds() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  unsigned long long v[8] = {};
  f >> cpu;
  for (auto& x : v) f >> x;
  const unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  return static_cast<double>(busy) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string LoadAvg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

double SelfCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

// ---- statistics shared by the client threads ----

struct Stats {
  std::mutex mu;
  std::map<int, long> errors;  // gRPC code -> count
  std::map<int, std::string> first_error;
  std::vector<double> latencies_ms;  // SubmitBatch, measured window only
  long batches = 0, evaluations = 0, studies_completed = 0, crashed_values = 0;

  void Error(const grpc::Status& s, const char* what) {
    std::lock_guard<std::mutex> l(mu);
    if (errors[s.error_code()]++ == 0) {
      first_error[s.error_code()] = std::string(what) + ": " + s.error_message();
    }
  }
  long TotalErrors() {
    std::lock_guard<std::mutex> l(mu);
    long n = 0;
    for (auto& [c, k] : errors) n += k;
    return n;
  }
};

std::unique_ptr<grpc::ClientContext> NewContext() {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + kRpcDeadline);
  return ctx;
}

// One study held by a client: its id, space and the next batch.
struct OpenStudy {
  int64_t id = 0;
  int batch_size = 0, n_batches = 0, next_batch = 0;
  std::vector<Param> space;
};

bool Open(StudyService::Stub* stub, const std::string& problem, OpenStudy* out, Stats* stats) {
  bbo::v1::OpenStudyRequest req;
  req.set_problem(problem);
  bbo::v1::OpenStudyResponse resp;
  auto ctx = NewContext();
  grpc::Status s = stub->OpenStudy(ctx.get(), req, &resp);
  if (!s.ok()) {
    stats->Error(s, "OpenStudy");
    return false;
  }
  out->id = resp.study_id();
  out->batch_size = resp.batch_size();
  out->n_batches = resp.n_batches();
  out->next_batch = 0;
  out->space = ParseApiConfig(resp.api_config_json());
  return true;
}

// The study's next batch: random valid points.
void BuildBatch(const OpenStudy& st, std::mt19937_64& rng, bbo::v1::SubmitBatchRequest* req) {
  req->Clear();
  req->set_study_id(st.id);
  req->set_batch(st.next_batch);
  for (int i = 0; i < st.batch_size; ++i) RandomPoint(st.space, rng, req->add_suggestions());
}

// Checks a SubmitBatch answer and moves the study on. Returns false on an RPC error (counted) or
// an unexpected answer.
bool CheckAnswer(const grpc::Status& s, const bbo::v1::SubmitBatchResponse& resp, OpenStudy* st,
                 Stats* stats, bool* done, long* crashed) {
  if (!s.ok()) {
    stats->Error(s, "SubmitBatch");
    return false;
  }
  if (resp.errors_size() > 0 || resp.values_size() != st->batch_size) {
    // A valid batch must be taken as sent: count it as an error (INVALID_ARGUMENT slot).
    stats->Error(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              resp.errors_size() > 0 ? resp.errors(0) : "wrong value count"),
                 "SubmitBatch answer");
    return false;
  }
  for (double v : resp.values()) *crashed += std::isinf(v) ? 1 : 0;
  st->next_batch++;
  *done = resp.study_done();
  if (*done != (st->next_batch == st->n_batches)) {
    stats->Error(grpc::Status(grpc::StatusCode::INTERNAL, "study_done out of step"),
                 "SubmitBatch answer");
    return false;
  }
  return true;
}

// Submits the study's next batch (blocking). `latency_ms` gets the call's wall time.
bool Submit(StudyService::Stub* stub, OpenStudy* st, std::mt19937_64& rng, Stats* stats,
            double* latency_ms, bool* done, long* crashed) {
  bbo::v1::SubmitBatchRequest req;
  BuildBatch(*st, rng, &req);
  bbo::v1::SubmitBatchResponse resp;
  auto ctx = NewContext();
  auto t0 = Clock::now();
  grpc::Status s = stub->SubmitBatch(ctx.get(), req, &resp);
  *latency_ms = Seconds(t0, Clock::now()) * 1e3;
  return CheckAnswer(s, resp, st, stats, done, crashed);
}

std::vector<std::shared_ptr<grpc::Channel>> MakeChannels(int port, int n) {
  std::vector<std::shared_ptr<grpc::Channel>> out;
  for (int i = 0; i < n; ++i) {
    grpc::ChannelArguments args;
    // Distinct arguments (and a local subchannel pool) give each channel its own connection.
    args.SetInt("bbo.load_bench.channel", i);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    out.push_back(grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                            grpc::InsecureChannelCredentials(), args));
  }
  return out;
}

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  size_t i = static_cast<size_t>(std::ceil(q * sorted.size())) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The PRAGMA statements the server's SQLite layer issues on every connection (common/sqlite.cc).
std::string ServerPragmas() {
  std::string src = ReadFile(fs::path(BBO_SOURCE_DIR) / "common" / "sqlite.cc");
  std::string out;
  size_t pos = 0;
  while ((pos = src.find("PRAGMA ", pos)) != std::string::npos) {
    size_t end = src.find_first_of(";\"", pos);
    const std::string pragma = src.substr(pos + 7, end - pos - 7);
    pos = end;
    if (pragma.find('=') == std::string::npos) continue;  // a query, not a setting
    if (!out.empty()) out += ", ";
    out += pragma;
  }
  return out.empty() ? "(not found)" : out;
}

std::string SqliteQuery(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  std::string out = "?";
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

std::string Mib(long kib) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", kib / 1024.0);
  return buf;
}

// A run that failed: why, the errors by gRPC code and the server's log tail, on stderr; main's
// exit status. No figure is printed for the failed phase.
int Failed(Stats& stats, const fs::path& log, const char* why) {
  std::fprintf(stderr, "load_bench: FAILED: %s; no figures\nerrors by gRPC code:%s\n", why,
               stats.errors.empty() ? " none" : "");
  for (const auto& [code, n] : stats.errors) {
    std::fprintf(stderr, "  code %d: %ld (first: %s)\n", code, n, stats.first_error[code].c_str());
  }
  const std::string l = ReadFile(log);
  std::fprintf(stderr, "server log tail:\n%s\n",
               l.substr(l.size() > 4000 ? l.size() - 4000 : 0).c_str());
  return 1;
}

// ---- phase A: many clients, few threads ----

// One remote client of phase A: loops OpenStudy -> n_batches x SubmitBatch until the window
// ends (the study in progress is finished). It has at most one call or pacing alarm pending,
// on the completion queue of the thread that drives it, with the client itself as the tag.
struct Client {
  StudyService::Stub* stub = nullptr;
  std::mt19937_64 rng;
  OpenStudy st;
  bool have_study = false, finished = false;
  enum class Pending { kOpen, kSubmit, kWait } pending = Pending::kOpen;
  std::unique_ptr<grpc::ClientContext> ctx;
  bbo::v1::OpenStudyRequest open_req;
  bbo::v1::OpenStudyResponse open_resp;
  bbo::v1::SubmitBatchRequest req;
  bbo::v1::SubmitBatchResponse resp;
  std::unique_ptr<grpc::ClientAsyncResponseReader<bbo::v1::OpenStudyResponse>> open_call;
  std::unique_ptr<grpc::ClientAsyncResponseReader<bbo::v1::SubmitBatchResponse>> submit_call;
  grpc::Status status;
  Clock::time_point next, t0;
  std::vector<double> lat;
  long batches = 0, evals = 0, completed = 0, crashed = 0;
};

struct PhaseA {
  std::string problem;
  double rate = 0;
  int clients = 0;
  Clock::time_point t_measure, t_end;
  Clock::duration period{};
  Stats* stats = nullptr;
  std::function<void()> on_measure_start, on_measure_end;

  // Starts the client's next step; false once it has finished.
  bool Next(Client& c, grpc::CompletionQueue* cq) {
    if (!c.have_study) {
      if (Clock::now() >= t_end) return false;
      c.open_req.set_problem(problem);
      c.ctx = NewContext();
      c.pending = Client::Pending::kOpen;
      c.open_call = c.stub->AsyncOpenStudy(c.ctx.get(), c.open_req, cq);
      c.open_call->Finish(&c.open_resp, &c.status, &c);
      return true;
    }
    if (rate > 0 && Clock::now() < c.next) {
      c.pending = Client::Pending::kWait;  // Drive starts it when it is due
      return true;
    }
    if (rate > 0) c.next = std::max(c.next + period, Clock::now());
    BuildBatch(c.st, c.rng, &c.req);
    c.ctx = NewContext();
    c.pending = Client::Pending::kSubmit;
    c.t0 = Clock::now();
    if (c.t0 >= t_measure) on_measure_start();
    c.submit_call = c.stub->AsyncSubmitBatch(c.ctx.get(), c.req, cq);
    c.submit_call->Finish(&c.resp, &c.status, &c);
    return true;
  }

  // Handles the completion of the client's pending step; false when the client stops on an
  // error.
  bool Done(Client& c) {
    switch (c.pending) {
      case Client::Pending::kWait:
        return true;
      case Client::Pending::kOpen:
        if (!c.status.ok()) {
          stats->Error(c.status, "OpenStudy");
          return false;
        }
        c.st.id = c.open_resp.study_id();
        c.st.batch_size = c.open_resp.batch_size();
        c.st.n_batches = c.open_resp.n_batches();
        c.st.next_batch = 0;
        if (c.st.space.empty()) c.st.space = ParseApiConfig(c.open_resp.api_config_json());
        c.have_study = true;
        return true;
      case Client::Pending::kSubmit: {
        const auto t1 = Clock::now();
        bool done = false;
        if (!CheckAnswer(c.status, c.resp, &c.st, stats, &done, &c.crashed)) return false;
        if (t1 >= t_end) on_measure_end();
        // The study in progress at the end is finished, outside the measured window.
        if (c.t0 >= t_measure && t1 <= t_end) {
          c.lat.push_back(Seconds(c.t0, t1) * 1e3);
          c.batches++;
          c.evals += c.st.batch_size;
          if (done) c.completed++;
        }
        if (done) c.have_study = false;
        return true;
      }
    }
    return false;
  }

  // Drives `mine` on one completion queue until each has finished. Paced clients wait in a
  // queue ordered by when their next batch is due; the thread sleeps in the completion queue
  // until the first of them is (cheaper than a timer per call).
  void Drive(std::vector<Client*> mine) {
    grpc::CompletionQueue cq;
    using Due = std::pair<Clock::time_point, Client*>;
    std::priority_queue<Due, std::vector<Due>, std::greater<Due>> waiting;
    size_t active = 0;
    auto step = [&](Client& c, bool first) {
      if ((first || Done(c)) && Next(c, &cq)) {
        if (c.pending == Client::Pending::kWait) waiting.push({c.next, &c});
        return;
      }
      c.finished = true;
      active--;
    };
    active = mine.size();
    for (Client* c : mine) step(*c, true);
    void* tag = nullptr;
    bool ok = false;
    while (active > 0) {
      const auto until = waiting.empty() ? Clock::now() + std::chrono::seconds(1)
                                         : waiting.top().first;
      const auto r = cq.AsyncNext(&tag, &ok,
                                  std::chrono::system_clock::now() + (until - Clock::now()));
      if (r == grpc::CompletionQueue::SHUTDOWN) break;
      if (r == grpc::CompletionQueue::GOT_EVENT) step(*static_cast<Client*>(tag), false);
      while (!waiting.empty() && waiting.top().first <= Clock::now()) {
        Client* c = waiting.top().second;
        waiting.pop();
        step(*c, false);
      }
    }
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20;
  const int clients = argc > 2 ? std::atoi(argv[2]) : 256;
  const int n_open = argc > 3 ? std::atoi(argv[3]) : 1000;
  const double rate = argc > 4 ? std::atof(argv[4]) : 0;
  const std::string server_bin = argc > 5 ? argv[5] : BBO_SERVER_BIN;
  const int driver_threads =
      std::getenv("BBO_LOAD_THREADS") ? std::max(1, std::atoi(std::getenv("BBO_LOAD_THREADS")))
                                      : 2;
  const int channels = std::getenv("BBO_LOAD_CHANNELS")
                           ? std::max(1, std::atoi(std::getenv("BBO_LOAD_CHANNELS")))
                           : std::max(1, clients / 32);
  if (seconds <= 0 || seconds > 3600 || clients < 1 || clients > 4096 || n_open < 0 ||
      n_open > 100000 || rate < 0) {
    std::fprintf(stderr,
                 "usage: load_bench [seconds=20 (0-3600)] [clients=256 (1-4096)] "
                 "[open=1000 (0-100000)] [rate=0 (evaluations/s offered, 0 = closed loop)] [server=%s]\n",
                 BBO_SERVER_BIN);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);

  TempDir tmp;
  if (tmp.path.empty()) {
    std::perror("mkdtemp");
    return 1;
  }
  const fs::path db = tmp.path / "load.sqlite";
  const fs::path port_file = tmp.path / "port";
  const fs::path log = tmp.path / "server.log";
  std::vector<std::string> server_args = {
      "--listen=127.0.0.1:0",        "--port_file=" + port_file.string(),
      "--db=" + db.string(),         "--problem_set=test",
      "--allow_anonymous",           "--rate_limit_per_s=0",
      "--baseline_trials=0"};
  // Extra server flags, space-separated (e.g. BBO_LOAD_SERVER_ARGS=--eval_threads=1).
  if (const char* extra = std::getenv("BBO_LOAD_SERVER_ARGS")) {
    std::istringstream in(extra);
    for (std::string a; in >> a;) server_args.push_back(a);
  }
  std::printf("load_bench: %.0f s (after %.0f s warm-up), %d clients on %d channel(s) and %d "
              "client thread(s), %s, %d open studies; %u CPUs; load average %s\n",
              seconds, kWarmupS, clients, channels, driver_threads,
              rate > 0 ? ("offering " + std::to_string(static_cast<long>(rate)) + " evaluations/s")
                             .c_str()
                       : "closed loop",
              n_open, std::thread::hardware_concurrency(), LoadAvg().c_str());
  std::printf("server: %s", server_bin.c_str());
  for (const auto& a : server_args) std::printf(" %s", a.c_str());
  std::printf("\n");

  ServerProcess server;
  if (!server.Start(server_bin, server_args, log.string())) {
    std::perror("fork");
    return 1;
  }
  int port = 0;
  for (auto until = Clock::now() + std::chrono::seconds(30); Clock::now() < until;) {
    if (!server.Alive()) break;
    std::ifstream f(port_file);
    if (f >> port && port > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (port <= 0) {
    std::fprintf(stderr, "load_bench: the server did not start; its log:\n%s\n",
                 ReadFile(log).c_str());
    return 1;
  }
  const pid_t spid = server.pid();
  const Rss rss_start = ReadRss(spid);

  auto chans = MakeChannels(port, channels);
  std::vector<std::unique_ptr<StudyService::Stub>> stubs;
  for (auto& c : chans) stubs.push_back(StudyService::NewStub(c));

  // The cheapest problem: fewest parameters, then a quadratic/sphere/test name.
  std::string problem;
  {
    bbo::v1::ListProblemsResponse resp;
    auto ctx = NewContext();
    grpc::Status s = stubs[0]->ListProblems(ctx.get(), {}, &resp);
    if (!s.ok() || resp.problems_size() == 0) {
      std::fprintf(stderr, "load_bench: ListProblems failed: %s\n", s.error_message().c_str());
      return 1;
    }
    size_t best_dims = SIZE_MAX;
    std::printf("problems:");
    for (const auto& p : resp.problems()) {
      size_t dims = ParseApiConfig(p.api_config_json()).size();
      std::printf(" %s (%zu-d)", p.name().c_str(), dims);
      if (dims < best_dims) {
        best_dims = dims;
        problem = p.name();
      }
    }
    for (const auto& p : resp.problems()) {
      if (ParseApiConfig(p.api_config_json()).size() == best_dims &&
          (p.name().find("quadratic") != std::string::npos ||
           p.name().find("sphere") != std::string::npos)) {
        problem = p.name();
        break;
      }
    }
    std::printf("; using %s\n", problem.c_str());
  }

  Stats stats;

  // ---------------- phase A ----------------
  std::atomic<bool> sampling{true};
  std::atomic<long> rss_peak_a{0};
  std::thread sampler([&] {
    while (sampling.load()) {
      long r = ReadRss(spid).rss_kib;
      long cur = rss_peak_a.load();
      while (r > cur && !rss_peak_a.compare_exchange_weak(cur, r)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  const auto t_start = Clock::now();
  const auto t_measure = t_start + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(kWarmupS));
  const auto t_end = t_measure + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(seconds));
  // CPU times are taken by the first client that sees the measured window start/end.
  std::atomic<bool> measure_started{false}, measure_ended{false};
  double server_cpu0 = 0, server_cpu1 = 0, client_cpu0 = 0, client_cpu1 = 0;
  double host_cpu0 = 0, host_cpu1 = 0;
  auto mark = [&](std::atomic<bool>& flag, double* s_cpu, double* c_cpu) {
    bool expected = false;
    if (flag.compare_exchange_strong(expected, true)) {
      *s_cpu = ProcCpuSeconds(spid);
      *c_cpu = SelfCpuSeconds();
      (s_cpu == &server_cpu0 ? host_cpu0 : host_cpu1) = HostBusySeconds();
    }
  };
  {
    // A few threads, each with its own completion queue, drive all the clients (a client is a
    // state machine, not a thread: 256 blocking threads cost the shared cores more than the
    // calls they make).
    PhaseA phase;
    phase.problem = problem;
    phase.rate = rate;
    phase.clients = clients;
    phase.t_measure = t_measure;
    phase.t_end = t_end;
    phase.stats = &stats;
    phase.on_measure_start = [&] { mark(measure_started, &server_cpu0, &client_cpu0); };
    phase.on_measure_end = [&] { mark(measure_ended, &server_cpu1, &client_cpu1); };
    if (rate > 0) {
      // Batches of 8, the server's default.
      phase.period = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(clients * 8.0 / rate));
    }
    std::vector<Client> all(clients);
    for (int c = 0; c < clients; ++c) {
      all[c].stub = stubs[c % stubs.size()].get();
      all[c].rng.seed(1000 + c);
      // Paced clients: one batch every `period`, starting at a random offset.
      all[c].next = Clock::now() + Clock::duration(static_cast<Clock::rep>(
                                       std::uniform_real_distribution<double>(0, 1)(all[c].rng) *
                                       phase.period.count()));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < driver_threads; ++t) {
      std::vector<Client*> mine;
      for (int c = t; c < clients; c += driver_threads) mine.push_back(&all[c]);
      threads.emplace_back([&phase, mine] { phase.Drive(mine); });
    }
    for (auto& t : threads) t.join();
    for (const Client& c : all) {
      stats.latencies_ms.insert(stats.latencies_ms.end(), c.lat.begin(), c.lat.end());
      stats.batches += c.batches;
      stats.evaluations += c.evals;
      stats.studies_completed += c.completed;
      stats.crashed_values += c.crashed;
    }
  }
  mark(measure_ended, &server_cpu1, &client_cpu1);
  mark(measure_started, &server_cpu0, &client_cpu0);
  sampling = false;
  sampler.join();
  const Rss rss_after_a = ReadRss(spid);
  const long errors_a = stats.TotalErrors();
  // A failed phase prints no figure: an error, or a window in which no batch was answered.
  if (errors_a != 0 || stats.batches == 0 || stats.latencies_ms.empty()) {
    return Failed(stats, log,
                  errors_a != 0 ? "phase A had RPC errors"
                                : "phase A answered no SubmitBatch in the measured window");
  }

  std::sort(stats.latencies_ms.begin(), stats.latencies_ms.end());
  const double p50 = Percentile(stats.latencies_ms, 0.50);
  const double p90 = Percentile(stats.latencies_ms, 0.90);
  const double p99 = Percentile(stats.latencies_ms, 0.99);
  const double pmax = stats.latencies_ms.empty() ? NAN : stats.latencies_ms.back();
  const double evals_per_s = stats.evaluations / seconds;
  const double studies_per_s = stats.studies_completed / seconds;
  const double server_cpu = server_cpu1 - server_cpu0;
  const double client_cpu = client_cpu1 - client_cpu0;
  const double other_cpu = (host_cpu1 - host_cpu0) - server_cpu - client_cpu;

  std::printf("\nphase A: %d clients, %.0f s measured, %s\n", clients, seconds,
              rate > 0 ? ("offered " + std::to_string(static_cast<long>(rate)) +
                          " evaluations/s (paced clients)")
                             .c_str()
                       : "closed loop (each client calls again at once)");
  std::printf("  SubmitBatch calls        %ld (%.0f/s)\n", stats.batches, stats.batches / seconds);
  std::printf("  latency ms               p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n", p50, p90, p99,
              pmax);
  std::printf("  studies completed        %ld (%.1f/s)\n", stats.studies_completed, studies_per_s);
  std::printf("  evaluations ingested     %ld (%.0f/s); crashed (inf) values %ld (the test "
              "problem crashes for x0 > 0.9)\n",
              stats.evaluations, evals_per_s, stats.crashed_values);
  std::printf("  CPU in window            server %.2f s (%.2f cores), client %.2f s (%.2f cores)"
              " of %u cores\n",
              server_cpu, server_cpu / seconds, client_cpu, client_cpu / seconds,
              std::thread::hardware_concurrency());
  std::printf("  CPU of other processes   %.2f s (%.2f cores); load average at end %s\n",
              std::max(0.0, other_cpu), std::max(0.0, other_cpu) / seconds, LoadAvg().c_str());
  std::printf("  CPU per SubmitBatch      server %.0f us, client %.0f us\n",
              stats.batches ? server_cpu / stats.batches * 1e6 : NAN,
              stats.batches ? client_cpu / stats.batches * 1e6 : NAN);
  std::printf("  server RSS               start %s, peak sampled %s, VmHWM %s\n",
              Mib(rss_start.rss_kib).c_str(), Mib(rss_peak_a.load()).c_str(),
              Mib(rss_after_a.hwm_kib).c_str());
  std::printf("  errors                   %ld\n", errors_a);

  // ---------------- phase B ----------------
  Rss rss_b{}, rss_before_b = rss_after_a;
  long errors_b = 0;
  double open_s = 0, finish_s = 0;
  if (n_open > 0) {
    const long errors_before = stats.TotalErrors();
    std::vector<OpenStudy> held(n_open);
    std::vector<char> ok(n_open, 0);
    const int workers = std::min({clients, n_open, 64});
    auto run = [&](auto&& body) {
      std::atomic<int> next{0};
      std::vector<std::thread> threads;
      for (int w = 0; w < workers; ++w) {
        threads.emplace_back([&, w] {
          StudyService::Stub* stub = stubs[w % stubs.size()].get();
          std::mt19937_64 rng(777 + w);
          for (int i; (i = next.fetch_add(1)) < n_open;) body(stub, rng, i);
        });
      }
      for (auto& t : threads) t.join();
    };
    auto t0 = Clock::now();
    run([&](StudyService::Stub* stub, std::mt19937_64& rng, int i) {
      double ms;
      bool done;
      long crashed = 0;
      ok[i] = Open(stub, problem, &held[i], &stats) &&
              Submit(stub, &held[i], rng, &stats, &ms, &done, &crashed);
    });
    open_s = Seconds(t0, Clock::now());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    rss_b = ReadRss(spid);
    t0 = Clock::now();
    run([&](StudyService::Stub* stub, std::mt19937_64& rng, int i) {
      if (!ok[i]) return;
      bool done = false;
      long crashed = 0;
      double ms;
      while (!done && Submit(stub, &held[i], rng, &stats, &ms, &done, &crashed)) {
      }
    });
    finish_s = Seconds(t0, Clock::now());
    errors_b = stats.TotalErrors() - errors_before;
    if (errors_b != 0) return Failed(stats, log, "phase B had RPC errors");
    std::printf("\nphase B: %d studies opened with 1 batch each in %.2f s (%d threads)\n", n_open,
                open_s, workers);
    std::printf("  server RSS while open    VmRSS %s (before phase B %s: %+.1f KiB per study), "
                "VmHWM %s\n",
                Mib(rss_b.rss_kib).c_str(), Mib(rss_before_b.rss_kib).c_str(),
                static_cast<double>(rss_b.rss_kib - rss_before_b.rss_kib) / n_open,
                Mib(rss_b.hwm_kib).c_str());
    std::printf("  finished all in %.2f s; errors %ld\n", finish_s, errors_b);
  }

  // ---------------- server stopped: the database ----------------
  stubs.clear();
  chans.clear();
  const int st = server.Stop();
  auto size_of = [](const fs::path& p) -> long {
    std::error_code ec;
    auto n = fs::file_size(p, ec);
    return ec ? 0 : static_cast<long>(n);
  };
  const long db_bytes = size_of(db), wal_bytes = size_of(db.string() + "-wal");
  const std::string journal = SqliteQuery(db.string(), "PRAGMA journal_mode");
  const std::string studies_done = SqliteQuery(
      db.string(), "SELECT COUNT(*) FROM studies WHERE state = 'completed'");
  const std::string evals_stored = SqliteQuery(db.string(), "SELECT COUNT(*) FROM evaluations");
  std::printf("\nserver stopped (%s)\n",
              WIFEXITED(st) ? ("exit " + std::to_string(WEXITSTATUS(st))).c_str()
                            : ("signal " + std::to_string(WTERMSIG(st))).c_str());
  std::printf("  SQLite file              %.1f MiB (+ WAL %.1f MiB); %s evaluations, %s completed "
              "studies stored\n",
              db_bytes / 1048576.0, wal_bytes / 1048576.0, evals_stored.c_str(),
              studies_done.c_str());
  std::printf("  journal_mode             %s (read from the file with the sqlite3 API)\n",
              journal.c_str());
  std::printf("  server's PRAGMAs         %s (per connection, from common/sqlite.cc; synchronous "
              "is not stored in the file)\n",
              ServerPragmas().c_str());

  const long errors = stats.TotalErrors();
  if (errors != 0) return Failed(stats, log, "RPC errors");

  auto yes = [](bool b) { return b ? "yes" : "NO"; };
  std::printf("\n| goal (issue) | measured | met |\n|---|---|---|\n");
  std::printf("| SubmitBatch p99 <= 5 ms at 256 clients, trivial problem | %.2f ms at %d "
              "clients, %s | %s%s |\n",
              p99, clients,
              rate > 0 ? ("offered " + std::to_string(static_cast<long>(rate)) + " evals/s").c_str()
                       : "closed loop",
              yes(p99 <= 5.0), clients == 256 ? "" : " (other client count)");
  std::printf("| >= 50,000 evaluations/s ingested | %.0f/s | %s |\n", evals_per_s,
              yes(evals_per_s >= 50000));
  if (n_open > 0 && rss_b.rss_kib > 0) {
    std::printf("| RSS <= 1 GiB at 1,000 open studies | %s at %d | %s |\n",
                Mib(rss_b.rss_kib).c_str(), n_open, yes(rss_b.rss_kib <= 1048576L));
  }
  std::printf("| 0 errors | %ld | %s |\n", errors, yes(errors == 0));
  return 0;
}
