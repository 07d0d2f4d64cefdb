// Sandbox start-up benchmark (issue: a sandbox that holds against hostile submissions): the time
// from "launch the optimizer" to its first `suggestions` reply, for a native optimizer
// (examples/random-search-cpp) and a Python one (examples/random-search-py through the bundled
// bayesmark wrapper), with every layer on (bubblewrap, unprivileged host uid, seccomp filter, a
// study control group with its limits, a size-limited /tmp mounted for the study, freeze/thaw
// around the evaluation) against bubblewrap alone (its own tmpfs, no seccomp, no cgroup),
// measured alternately in the same run. The ratio of medians is the cost of the layers
// (goal <= 1.2x).
//
//   build/bench/sandbox_bench [repetitions=15]
//
// The native optimizer is also measured with one layer at a time, to show where the cost is.
// BBO_BENCH_CPUS=N sets the study group's CPU quota (default 1 core; 0 = none).
//
// The host's cgroup option favordynmods is switched on as bbo-worker does at start
// (worker/cgroup_tuning.h) and left on, as the worker leaves it. When it was off, the native
// optimizer's start with all layers is first measured with it off (the host as it was).
//
// Needs root (cgroups, the tmpfs mount) and bubblewrap.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "worker/cgroup.h"
#include "worker/cgroup_tuning.h"
#include "worker/optimizer_host.h"
#include "worker/sandbox.h"
#include "worker/study_tmp.h"

namespace {

namespace fs = std::filesystem;

struct Kind {
  std::string name;
  std::string submission_dir;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::vector<std::pair<std::string, std::string>> binds;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One launch to the first suggestion, seconds; < 0 on failure (printed).
// Layers on top of bubblewrap alone.
enum Layer : unsigned { kSeccomp = 1, kCgroup = 2, kTmp = 4, kAll = 7 };

double StartToFirstSuggest(const Kind& kind, unsigned layers, bbo::CgroupManager* cgroups,
                           const std::string& scratch, int rep) {
  bbo::SandboxOptions so;
  so.seccomp = layers & kSeccomp;
  so.limits.address_space_bytes = uint64_t{4} << 30;
  bbo::Sandbox sandbox(so);
  bbo::SandboxedCommand cmd;
  cmd.submission_dir = kind.submission_dir;
  cmd.argv = kind.argv;
  cmd.env = kind.env;
  cmd.extra_ro_binds = kind.binds;

  const absl::Time t0 = absl::Now();
  std::unique_ptr<bbo::StudyCgroup> group;
  std::unique_ptr<bbo::StudyTmp> tmp;
  const std::string name = absl::StrCat("bench-", getpid(), "-", rep);
  if (layers & kCgroup) {
    bbo::CgroupLimits limits;
    if (const char* cpus = std::getenv("BBO_BENCH_CPUS")) limits.cpus = std::atof(cpus);
    auto g = cgroups->Create(name, limits);
    if (!g.ok()) {
      std::fprintf(stderr, "cgroup: %s\n", g.status().ToString().c_str());
      return -1;
    }
    group = *std::move(g);
    cmd.cgroup_procs_files = group->procs_files();
  }
  if (layers & kTmp) {
    auto t = bbo::StudyTmp::Mount(scratch + "/" + name, uint64_t{512} << 20, so.host_uid,
                                  so.host_gid);
    if (!t.ok()) {
      std::fprintf(stderr, "tmp: %s\n", t.status().ToString().c_str());
      return -1;
    }
    tmp = *std::move(t);
    cmd.tmp_dir = tmp->dir();
  }
  auto child = sandbox.Launch(cmd);
  if (!child.ok()) {
    std::fprintf(stderr, "launch: %s\n", child.status().ToString().c_str());
    return -1;
  }
  bbo::OptimizerHost host(*std::move(child));
  bbo::StartInfo start;
  start.api_config = nlohmann::json::parse(
      R"({"x0": {"type": "real", "space": "linear", "range": [-5, 10]},
          "x1": {"type": "real", "space": "linear", "range": [0, 15]}})");
  if (absl::Status s = host.Start(start); !s.ok()) {
    std::fprintf(stderr, "start: %s\n", s.ToString().c_str());
    return -1;
  }
  auto x = host.Suggest(0, 8, 640, absl::Seconds(40));
  const double elapsed = absl::ToDoubleSeconds(absl::Now() - t0);
  if (!x.ok()) {
    std::fprintf(stderr, "suggest: %s\n", x.status().ToString().c_str());
    return -1;
  }
  if (group != nullptr) {
    // The evaluation window, as the worker runs it (not timed: it is not start-up).
    (void)group->SetFrozen(true);
    (void)group->SetFrozen(false);
  }
  host.End("done");
  if (group != nullptr) (void)group->Remove();
  return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 15;
  if (geteuid() != 0) {
    std::fprintf(stderr, "sandbox_bench needs root (cgroups and the /tmp mount)\n");
    return 2;
  }
  auto cgroups = bbo::CgroupManager::Detect(absl::StrCat("bbo-bench-", getpid()));
  if (!cgroups.ok()) {
    std::fprintf(stderr, "no cgroups: %s\n", cgroups.status().ToString().c_str());
    return 2;
  }
  const std::string scratch = absl::StrCat("/tmp/bbo-sandbox-bench-", getpid());
  fs::create_directories(scratch);
  fs::permissions(scratch, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);

  // The submissions live where the sandbox's unprivileged host user can read them.
  const std::string native_dir = scratch + "/native";
  const std::string py_dir = scratch + "/python";
  fs::create_directories(native_dir);
  fs::create_directories(py_dir);
  fs::copy_file(BBO_NATIVE_OPTIMIZER, native_dir + "/optimizer",
                fs::copy_options::overwrite_existing);
  fs::copy_file(std::string(BBO_SOURCE_DIR) + "/examples/random-search-py/optimizer.py",
                py_dir + "/optimizer.py", fs::copy_options::overwrite_existing);
  for (const std::string& d : {native_dir, py_dir}) {
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      fs::permissions(e.path(), fs::perms::others_read | fs::perms::group_read,
                      fs::perm_options::add);
      if (e.path().filename() == "optimizer") {
        fs::permissions(e.path(), fs::perms::others_exec | fs::perms::group_exec,
                        fs::perm_options::add);
      }
    }
    fs::permissions(d, fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
  }
  const std::vector<std::string> common_env = {"OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1",
                                               "PYTHONDONTWRITEBYTECODE=1", "BBO_SEED=1"};
  std::vector<Kind> kinds = {
      {"native", native_dir, {"./optimizer"}, common_env, {}},
      {"python", py_dir, {"/usr/bin/python3", "-u", "optimizer.py"}, common_env,
       {{std::string(BBO_SOURCE_DIR) + "/python", "/opt/bbo/python"}}},
  };
  kinds[1].env.push_back("PYTHONPATH=/opt/bbo/python:/sub");

  std::ifstream mountinfo_file("/proc/self/mountinfo");
  std::stringstream mountinfo;
  mountinfo << mountinfo_file.rdbuf();
  const bool was_on = bbo::FavorDynmodsInEffect(mountinfo.str());

  std::printf("sandbox start -> first suggest, %d repetitions each, alternating\n", reps);
  std::printf("%-8s %-26s %12s %14s %8s\n", "kind", "layers", "bwrap only", "with layers", "ratio");
  bool ok = true;
  int rep = 0;
  auto measure = [&](const Kind& kind, const std::string& label, unsigned layers) {
    std::vector<double> bare, full;
    // One warm-up of each (page cache), not counted.
    StartToFirstSuggest(kind, 0, cgroups->get(), scratch, rep++);
    StartToFirstSuggest(kind, layers, cgroups->get(), scratch, rep++);
    for (int r = 0; r < reps; ++r) {
      double b = StartToFirstSuggest(kind, 0, cgroups->get(), scratch, rep++);
      double f = StartToFirstSuggest(kind, layers, cgroups->get(), scratch, rep++);
      if (b < 0 || f < 0) {
        ok = false;
        break;
      }
      bare.push_back(b);
      full.push_back(f);
    }
    if (bare.empty()) return;
    const double mb = Median(bare), mf = Median(full);
    std::printf("%-8s %-26s %9.1f ms %11.1f ms %7.2fx\n", kind.name.c_str(), label.c_str(),
                1e3 * mb, 1e3 * mf, mf / mb);
  };
  if (!was_on) {
    // The host as it was: every move into a cgroup waits for an RCU grace period. First, as
    // the kernel may keep the writer-friendly lock once favordynmods has been on.
    measure(kinds[0], "all layers, host as it was", kAll);
  }
  absl::StatusOr<std::string> tuned = bbo::SetFavorDynmods(true);
  std::printf("cgroup favordynmods, as bbo-worker sets it at start (and leaves it): %s\n",
              tuned.ok() ? tuned->c_str() : std::string(tuned.status().message()).c_str());
  for (const Kind& kind : kinds) {
    measure(kind, "all layers", kAll);
    // One layer at a time too, for the native optimizer (where start-up is cheapest, so any
    // layer's cost shows most).
    if (kind.name == "native") {
      measure(kind, "+ seccomp", kSeccomp);
      measure(kind, "+ cgroup", kCgroup);
      measure(kind, "+ sized /tmp", kTmp);
    }
  }
  std::printf("goal: <= 1.20x\n");
  cgroups->reset();
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return ok ? 0 : 1;
}
