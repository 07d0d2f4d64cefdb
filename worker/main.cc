// bbo-worker: leases jobs from a bbo-server and hosts the submitted optimizers in a sandbox.

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <atomic>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/time/clock.h"
#include "common/address.h"
#include "common/binary_main.h"
#include "spdlog/spdlog.h"
#include "worker/cgroup_tuning.h"
#include "worker/coordinator_client.h"
#include "worker/stop_signals.h"
#include "worker/study_tmp.h"
#include "worker/worker.h"
#include "worker/worker_record.h"

ABSL_FLAG(std::string, coordinator, "127.0.0.1:50051", "bbo-server address (host:port).");
ABSL_FLAG(std::string, ca_file, "",
          "PEM certificate of the CA that signed bbo-server's TLS certificate. Without it: TLS "
          "verified against the system's trusted roots for a coordinator on another host, "
          "plaintext on loopback. The server's certificate must name the --coordinator host.");
ABSL_FLAG(bool, insecure, false,
          "Speak plaintext to a coordinator on another host (one started with --insecure): the "
          "worker token then travels in clear text. For a private network only.");
ABSL_FLAG(std::string, cert_file, "",
          "PEM certificate of this worker, for a bbo-server started with --tls_client_ca_file "
          "(mutual TLS). Needs --key_file and --ca_file.");
ABSL_FLAG(std::string, key_file, "", "PEM private key of --cert_file.");
ABSL_FLAG(int, slots, 1, "Jobs run at once (one sandboxed optimizer each).");
ABSL_FLAG(std::string, work_dir, "/tmp/bbo-worker", "Scratch folder for unpacked submissions.");
ABSL_FLAG(std::string, python_dir, "",
          "Folder with the bundled `bayesmark` package (default: next to this binary).");
ABSL_FLAG(uint32_t, sandbox_uid, 65534,
          "When the worker runs as root: the unprivileged host uid the sandbox runs as (the "
          "optimizer is never host root). Ignored otherwise: the sandbox is the worker's uid.");
ABSL_FLAG(uint32_t, sandbox_gid, 65534, "When the worker runs as root: the sandbox's host gid.");
ABSL_FLAG(bool, insecure_no_sandbox, false,
          "Run optimizers WITHOUT the bubblewrap sandbox. Only for trusted code on hosts where "
          "user namespaces are unavailable.");
ABSL_FLAG(double, exit_when_idle_s, 0,
          "Exit after the queue has been empty this many seconds (0 = run until stopped).");
ABSL_FLAG(uint64_t, memory_mb, 4096, "Address-space limit per optimizer, MiB.");
ABSL_FLAG(uint64_t, cpu_seconds, 3600, "CPU-time limit per optimizer process, seconds.");
ABSL_FLAG(bool, verbose, false, "Log the optimizers' stderr.");
ABSL_FLAG(double, rpc_timeout_s, 60,
          "Deadline of each call to the coordinator, seconds. Calls that may wait on the "
          "coordinator evaluating a batch have none (keepalive pings watch the connection).");
ABSL_FLAG(bool, evaluate, true,
          "Evaluate the hidden objectives of this worker's studies here, on the trusted side of "
          "the sandbox, when the coordinator's phase allows it (it sends the problem's "
          "definition with the lease). false: the coordinator evaluates them.");
ABSL_FLAG(int, eval_slots, 0,
          "Objective evaluations run at once on this host, shared by all its studies "
          "(0 = one per core).");
ABSL_FLAG(double, drain_timeout_s, 0,
          "On a drain (SIGUSR1, or SIGTERM with --on_sigterm=drain): take no new job and let "
          "the studies running now finish for up to this many seconds, then hand back those "
          "still running (the coordinator requeues their jobs without charging the team). "
          "0 = hand them back at once.");
ABSL_FLAG(std::string, on_sigterm, "drain",
          "What SIGTERM (and SIGINT) asks: 'drain' (the first starts a drain, the next ends it; "
          "for Kubernetes, HTCondor, docker) or 'hand_back' (hand every study back at once, "
          "uncharged; SIGUSR1 then starts a drain). The Slurm script uses hand_back and "
          "forwards its own SIGTERM as SIGUSR1 (deploy/README.md, \"Slurm and HTCondor\").");
ABSL_FLAG(std::string, token_file, "",
          "File holding this worker's token (`bbo admin worker add NAME` prints it). Default: "
          "$BBO_WORKER_TOKEN; none for a coordinator run with --allow_anonymous.");
ABSL_FLAG(bool, sweep_only, false,
          "Remove what killed workers left (their study control groups, found through the "
          "records in --work_dir and its sibling folders, and those sibling scratch folders), "
          "then exit. The Slurm script runs it after a worker that did not exit by itself.");
ABSL_FLAG(std::string, cgroups, "required",
          "Control groups per study (memory incl. /tmp, tasks, CPU quota, CPU accounting, "
          "kill-all): 'required' refuses to start without them, 'auto' runs without them when "
          "the host has none (and says so), 'off' never uses them.");
ABSL_FLAG(std::string, cgroup_parent, "bbo-arena",
          "Name of this worker's group under its own cgroup; study groups nest inside it.");
ABSL_FLAG(bool, cgroup_follow_memory, false,
          "cgroups v1: nest the study groups of a controller that leaves this worker in its "
          "hierarchy's root (pids, cpu, cpuacct under Slurm, which makes job groups in memory "
          "and freezer only) under the worker's memory cgroup path all the same, e.g. "
          "/sys/fs/cgroup/pids/slurm/uid_0/job_7/step_batch/bbo-arena, so that every study "
          "group is inside the job's and none at the node's top level. The Slurm script sets "
          "it.");
ABSL_FLAG(bool, cgroup_favordynmods, true,
          "Switch the host's cgroup option favordynmods on at start (a global kernel setting "
          "that stays on): moving a study's sandbox into its cgroup then costs microseconds "
          "instead of an RCU grace period (2-15 ms per study on cgroup v1 hosts), and forks "
          "and exits cost a little more. false leaves the host as it is.");

namespace {

// The folders the sandbox must be able to read: where submissions are unpacked (created here)
// and the bundled Python package.
std::vector<std::string> ProbeDirs(const bbo::WorkerOptions& opts) {
  std::vector<std::string> dirs;
  std::error_code ec;
  namespace fs = std::filesystem;
  const fs::path work = opts.work_dir;
  const fs::path submissions = work / "submissions";
  fs::create_directories(submissions, ec);
  fs::create_directories(work / "tmp", ec);
  // The sandbox's unprivileged user must pass through these folders (whatever the umask made
  // them): rwx--x--x, listing stays private to the worker.
  const fs::perms traversable = fs::perms::owner_all | fs::perms::group_exec |
                                fs::perms::others_exec;
  for (const fs::path& d : {work, submissions, work / "tmp"}) {
    std::error_code perm_ec;
    fs::permissions(d, traversable, fs::perm_options::add, perm_ec);
  }
  if (!ec) dirs.push_back(submissions.string());
  if (std::filesystem::is_directory(opts.python_dir, ec)) dirs.push_back(opts.python_dir);
  return dirs;
}

// The worker's options from its flags (the cgroups and the evaluator are added later).
bbo::WorkerOptions OptionsFromFlags() {
  bbo::WorkerOptions opts;
  opts.work_dir = absl::GetFlag(FLAGS_work_dir);
  opts.python_dir = absl::GetFlag(FLAGS_python_dir).empty() ? bbo::DefaultPythonDir()
                                                            : absl::GetFlag(FLAGS_python_dir);
  opts.exit_when_idle_s = absl::GetFlag(FLAGS_exit_when_idle_s);
  opts.log_optimizer_stderr = absl::GetFlag(FLAGS_verbose);
  opts.sandbox.insecure_no_sandbox = absl::GetFlag(FLAGS_insecure_no_sandbox);
  opts.sandbox.limits.address_space_bytes = absl::GetFlag(FLAGS_memory_mb) << 20;
  opts.sandbox.limits.cpu_seconds = absl::GetFlag(FLAGS_cpu_seconds);
  opts.sandbox.host_uid = absl::GetFlag(FLAGS_sandbox_uid);
  opts.sandbox.host_gid = absl::GetFlag(FLAGS_sandbox_gid);
  return opts;
}

// Whether the sandbox works here (or is switched off, loudly); says why not.
bool SandboxUsable(const bbo::WorkerOptions& opts) {
  if (opts.sandbox.insecure_no_sandbox) {
    spdlog::warn("RUNNING WITHOUT A SANDBOX (--insecure-no-sandbox): submitted code runs with "
                 "this worker's privileges, network and file access. Use only for trusted code.");
    return true;
  }
  if (absl::Status s = bbo::Sandbox::Probe(opts.sandbox, ProbeDirs(opts)); !s.ok()) {
    spdlog::error("{}", std::string(s.message()));
    spdlog::error("refusing to start without a working sandbox; fix the above (--insecure-no-"
                  "sandbox would run submitted code with NO isolation: trusted code only)");
    return false;
  }
  return true;
}

// --cgroup_favordynmods: cheap moves of a sandbox into its study's group.
void TuneFavorDynmods() {
  if (!absl::GetFlag(FLAGS_cgroup_favordynmods)) return;
  absl::StatusOr<std::string> tuned = bbo::SetFavorDynmods(true);
  if (tuned.ok()) {
    spdlog::info("event=cgroup_favordynmods {}", *tuned);
  } else {
    spdlog::warn("{} (study starts stay correct, only slower)",
                 std::string(tuned.status().message()));
  }
}

// The control groups of --cgroups, set in `opts` (null: none). Returns the exit code when the
// worker must not start (a wrong --cgroups, none found when required), else nullopt.
std::optional<int> SetUpCgroups(bbo::WorkerOptions& opts,
                                std::unique_ptr<bbo::CgroupManager>& cgroups) {
  const std::string mode = absl::GetFlag(FLAGS_cgroups);
  if (mode != "required" && mode != "auto" && mode != "off") {
    std::fprintf(stderr, "bbo-worker: --cgroups must be required, auto or off, got '%s'\n",
                 mode.c_str());
    return 2;
  }
  if (mode == "off") {
    spdlog::warn("control groups off (--cgroups=off): the phase's memory, task and CPU limits "
                 "are NOT enforced.");
    return std::nullopt;
  }
  if (opts.sandbox.insecure_no_sandbox) return std::nullopt;
  bbo::CgroupManagerOptions options;
  options.parent_name = absl::GetFlag(FLAGS_cgroup_parent);
  options.follow_memory_cgroup = absl::GetFlag(FLAGS_cgroup_follow_memory);
  absl::StatusOr<std::unique_ptr<bbo::CgroupManager>> detected =
      bbo::CgroupManager::Detect(options);
  if (detected.ok()) {
    cgroups = *std::move(detected);
    opts.cgroups = cgroups.get();
    spdlog::info("event=cgroups version={} parent={}",
                 cgroups->version() == bbo::CgroupVersion::kV1 ? "v1" : "v2",
                 absl::GetFlag(FLAGS_cgroup_parent));
    TuneFavorDynmods();
  } else if (mode == "required") {
    spdlog::error("{}", std::string(detected.status().message()));
    spdlog::error("refusing to start without control groups: optimizers' memory, tasks and "
                  "CPU would be unbounded; pass --cgroups=auto to run without them anyway");
    return 1;
  } else {
    spdlog::warn("RUNNING WITHOUT CONTROL GROUPS (--cgroups=auto): {}. The phase's memory, "
                 "task and CPU limits are NOT enforced; only rlimits bound the optimizers.",
                 std::string(detected.status().message()));
  }
  return std::nullopt;
}

// The hidden objectives this worker evaluates (--evaluate), built from the same problem
// library as the coordinator's; a scikit-learn problem keeps up to one process per evaluation
// slot.
struct Evaluation {
  std::unique_ptr<bbo::ProblemLibrary> library;
  std::unique_ptr<bbo::Evaluator> evaluator;
};
Evaluation SetUpEvaluation(bbo::WorkerOptions& opts) {
  Evaluation e;
  if (!absl::GetFlag(FLAGS_evaluate)) return e;
  const int eval_slots = absl::GetFlag(FLAGS_eval_slots) > 0
                             ? absl::GetFlag(FLAGS_eval_slots)
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bbo::SuiteOptions host;
  host.max_processes_per_problem = eval_slots;
  e.library = std::make_unique<bbo::ProblemLibrary>(host);
  e.evaluator = std::make_unique<bbo::Evaluator>(eval_slots);
  opts.problems = e.library.get();
  opts.evaluator = e.evaluator.get();
  return e;
}

// The worker's token: --token_file, else $BBO_WORKER_TOKEN, else none. nullopt: --token_file
// holds none (said).
std::optional<std::string> ReadToken() {
  std::string token;
  if (!absl::GetFlag(FLAGS_token_file).empty()) {
    std::ifstream in(absl::GetFlag(FLAGS_token_file));
    std::getline(in, token);
    if (token.empty()) {
      spdlog::error("cannot read a token from --token_file {}", absl::GetFlag(FLAGS_token_file));
      return std::nullopt;
    }
  } else if (const char* env = std::getenv("BBO_WORKER_TOKEN")) {
    token = env;
  }
  return token;
}

// Removes what workers killed before this one left (worker/worker_record.h).
void SweepDeadWorkers(const std::string& work_dir) {
  const bbo::DeadWorkerSweep swept = bbo::RemoveDeadWorkers(work_dir);
  if (swept.groups > 0 || swept.folders > 0) {
    spdlog::info("event=dead_workers_swept groups={} folders={}", swept.groups, swept.folders);
  }
}

// Registers, asking again while the coordinator is unreachable (it may still be starting);
// says what to check when it stays so.
bool RegisterWorker(bbo::Worker& worker, int slots, const bbo::ClientTls& tls) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  absl::Status reg;
  for (int attempt = 0; attempt < 50; ++attempt) {  // the server may still be starting
    reg = worker.Register(host, slots);
    if (reg.ok() || reg.code() != absl::StatusCode::kUnavailable) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (reg.ok()) return true;
  spdlog::error("cannot register with {}: {}", absl::GetFlag(FLAGS_coordinator), reg.ToString());
  if (reg.code() == absl::StatusCode::kUnavailable) {
    spdlog::error(
        tls.enabled()
            ? "connecting over TLS (--ca_file): is bbo-server running there with TLS, its "
              "certificate signed by --ca_file and naming the --coordinator host? If it was "
              "started with --tls_client_ca_file, pass this worker's --cert_file and --key_file"
        : bbo::UsesTls(tls, absl::GetFlag(FLAGS_coordinator))
            ? "connecting over TLS verified against the system's trusted roots (the coordinator "
              "is not on this machine): is bbo-server running there with TLS? If the organizers "
              "made their own CA, pass --ca_file; if it serves plaintext on a private network, "
              "--insecure"
            : "connecting without TLS: is bbo-server running there? If it serves TLS, pass "
              "--ca_file (and --cert_file/--key_file if it requires worker certificates)");
  }
  return false;
}

// Runs `slots` job loops until told to stop (StopSignals: a drain bounded by --drain_timeout_s,
// or a hand-back) or until every loop has exited; the process's exit code.
int RunSlots(bbo::Worker& worker, int slots, bbo::SigtermMeaning sigterm) {
  std::vector<std::thread> threads;
  std::atomic<int> running{slots};
  std::atomic<bool> failed{false};
  for (int i = 0; i < slots; ++i) {
    threads.emplace_back([&] {
      absl::Status s = worker.Run();
      if (!s.ok()) {
        spdlog::error("worker loop failed: {}", s.ToString());
        failed = true;
      }
      if (--running == 0) bbo::StopSignals::NotifySlotsDone();
    });
  }
  bbo::StopSignals stop(sigterm);
  bbo::StopRequest request = stop.Wait(absl::InfiniteFuture());
  const double drain_s = absl::GetFlag(FLAGS_drain_timeout_s);
  if (request == bbo::StopRequest::kDrain && running > 0 && drain_s > 0) {
    // Scale-in: finish what runs, take nothing new; a hand-back or the timeout ends it.
    spdlog::info("event=worker_draining timeout_s={}", drain_s);
    worker.Drain();
    request = stop.Wait(absl::Now() + absl::Seconds(drain_s));
    if (request == bbo::StopRequest::kHandBack) spdlog::info("event=worker_drain_ended");
  }
  spdlog::info("event=worker_stopping");
  if (request == bbo::StopRequest::kSlotsDone) {
    worker.Stop();
  } else {
    worker.HandBack();
  }
  for (auto& t : threads) t.join();
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  bbo::InitBinary(
      argc, argv,
      "bbo-worker --coordinator=127.0.0.1:50051\n"
      "Leases jobs from bbo-server and runs each submitted optimizer in a bubblewrap sandbox.");
  bbo::StopSignals::Block();  // before any thread starts
  const std::string on_sigterm = absl::GetFlag(FLAGS_on_sigterm);
  if (on_sigterm != "drain" && on_sigterm != "hand_back") {
    std::fprintf(stderr, "bbo-worker: --on_sigterm must be drain or hand_back, got '%s'\n",
                 on_sigterm.c_str());
    return 2;
  }

  // A wrong TLS file is a start-up error, before any connection is tried.
  absl::StatusOr<bbo::ClientTls> tls =
      bbo::ReadClientTls({absl::GetFlag(FLAGS_ca_file), "--ca_file"},
                         {absl::GetFlag(FLAGS_cert_file), "--cert_file"},
                         {absl::GetFlag(FLAGS_key_file), "--key_file"});
  if (!tls.ok()) {
    std::fprintf(stderr, "bbo-worker: %s\n", std::string(tls.status().message()).c_str());
    return 2;
  }
  tls->insecure = absl::GetFlag(FLAGS_insecure);
  if (tls->insecure && tls->enabled()) {
    std::fprintf(stderr, "bbo-worker: --insecure and --ca_file: choose one\n");
    return 2;
  }
  if (tls->insecure && !bbo::IsLoopbackTarget(absl::GetFlag(FLAGS_coordinator))) {
    spdlog::warn("speaking plaintext to {} (--insecure): the worker token travels in clear text",
                 absl::GetFlag(FLAGS_coordinator));
  }

  // Before any thread starts: the per-study /tmp mounts stay private to this process and vanish
  // with it, however it ends.
  if (geteuid() == 0 && !absl::GetFlag(FLAGS_insecure_no_sandbox)) {
    if (absl::Status s = bbo::EnterPrivateMountNamespace(); !s.ok()) {
      spdlog::warn("{}; study /tmp mounts will be visible on the host", std::string(s.message()));
    }
  }

  bbo::WorkerOptions opts = OptionsFromFlags();
  if (absl::GetFlag(FLAGS_sweep_only)) {
    SweepDeadWorkers(opts.work_dir);
    bbo::RemoveStaleStudies(nullptr, opts.work_dir);
    return 0;
  }
  if (!SandboxUsable(opts)) return 1;
  std::unique_ptr<bbo::CgroupManager> cgroups;
  if (std::optional<int> exit_code = SetUpCgroups(opts, cgroups)) return *exit_code;
  SweepDeadWorkers(opts.work_dir);
  bbo::RemoveStaleStudies(cgroups.get(), opts.work_dir);
  // Found by the sweep of a later worker should this one be killed.
  absl::StatusOr<std::unique_ptr<bbo::WorkerRecord>> record =
      bbo::WorkerRecord::Claim(opts.work_dir, cgroups.get());
  if (!record.ok()) {
    spdlog::warn("{}; a later worker cannot remove what this one leaves if it is killed",
                 std::string(record.status().message()));
  }
  const Evaluation evaluation = SetUpEvaluation(opts);

  const std::optional<std::string> token = ReadToken();
  if (!token) return 1;
  auto client = bbo::MakeGrpcCoordinatorClient(bbo::WithDefaultPort(absl::GetFlag(FLAGS_coordinator)), *tls,
                                               std::max(0.1, absl::GetFlag(FLAGS_rpc_timeout_s)),
                                               *token);
  bbo::Env* env = bbo::Env::Default();
  bbo::Sandbox sandbox(opts.sandbox, env->launcher());
  bbo::Worker worker(client.get(), &sandbox, opts, env);
  const int slots = std::max(1, absl::GetFlag(FLAGS_slots));
  if (!RegisterWorker(worker, slots, *tls)) return 1;
  spdlog::info("event=worker_registered worker_id={} coordinator={} slots={}",
               worker.worker_id(), absl::GetFlag(FLAGS_coordinator), slots);
  return RunSlots(worker, slots,
                  on_sigterm == "drain" ? bbo::SigtermMeaning::kDrain
                                        : bbo::SigtermMeaning::kHandBack);
}
