// Many hosts: the coordinator and two worker hosts in network namespaces this test creates (a
// "host" per namespace, each with its own address on a veth pair to the coordinator's), with
// TLS and tokens as a real deployment has them. Three workers on two hosts share the queue;
// one host's workers are killed mid-run, and the other host finishes every job, each exactly
// once. Needs root and iproute2 (skipped, saying why, otherwise); the namespaces are deleted at
// the end, and nothing leaves them (no address outside 10.77.0.0/16 is used).

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/spawned_process.h"

namespace {

namespace fs = std::filesystem;
using Proc = bbo::testing::SpawnedProcess;
using bbo::testing::Q;

constexpr int kTrials = 8;
constexpr int kPort = 50851;

std::string ReadFile(const fs::path& p) { return bbo::testing::ReadWholeFile(p.string()); }

int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

class HostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
    if (Sh("command -v ip >/dev/null && command -v openssl >/dev/null") != 0) {
      GTEST_SKIP() << "needs iproute2 and openssl";
    }
    tag_ = std::to_string(getpid() % 100000);
    c_ = "bbo-c" + tag_;
    a_ = "bbo-a" + tag_;
    b_ = "bbo-b" + tag_;
    root_ = fs::temp_directory_path() / ("bbo_hosts_" + tag_);
    fs::remove_all(root_);
    fs::create_directories(root_ / "certs");
    DeleteNamespaces();
    // The coordinator's host has one link to each worker host.
    const std::string net =
        "set -e\n"
        "ip netns add " +
        c_ + "\nip netns add " + a_ + "\nip netns add " + b_ +
        "\n"
        "for n in " +
        c_ + " " + a_ + " " + b_ +
        "; do ip -n $n link set lo up; done\n"
        "ip link add ca" +
        tag_ + " netns " + c_ + " type veth peer name ac" + tag_ + " netns " + a_ +
        "\n"
        "ip link add cb" +
        tag_ + " netns " + c_ + " type veth peer name bc" + tag_ + " netns " + b_ +
        "\n"
        "ip -n " +
        c_ + " addr add 10.77.1.1/24 dev ca" + tag_ +
        "\n"
        "ip -n " +
        a_ + " addr add 10.77.1.2/24 dev ac" + tag_ +
        "\n"
        "ip -n " +
        c_ + " addr add 10.77.2.1/24 dev cb" + tag_ +
        "\n"
        "ip -n " +
        b_ + " addr add 10.77.2.2/24 dev bc" + tag_ +
        "\n"
        "ip -n " +
        c_ + " link set ca" + tag_ + " up\nip -n " + a_ + " link set ac" + tag_ +
        " up\n"
        "ip -n " +
        c_ + " link set cb" + tag_ + " up\nip -n " + b_ + " link set bc" + tag_ + " up\n";
    ASSERT_EQ(Sh("sh -c '" + net + "' >" + (root_ / "net.log").string() + " 2>&1"), 0)
        << ReadFile(root_ / "net.log");
    namespaces_made_ = true;
    // A CA and a server certificate for the addresses workers dial (deploy/README.md, "TLS").
    const std::string certs = (root_ / "certs").string();
    const std::string make =
        "set -e; cd " + certs +
        "\n"
        "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key\n"
        "openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj '/CN=bbo hosts test ca' "
        "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign\n"
        "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key\n"
        "openssl req -new -key server.key -out server.csr -subj '/CN=bbo hosts test server'\n"
        "printf "
        "'subjectAltName=IP:10.77.1.1,IP:10.77.2.1,IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' "
        ">server.ext\n"
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "-extfile server.ext -out server.pem\n";
    std::ofstream(root_ / "certs" / "make.sh") << make;
    ASSERT_EQ(Sh("sh " + certs + "/make.sh >" + certs + "/make.log 2>&1"), 0)
        << ReadFile(root_ / "certs" / "make.log");
    db_ = (root_ / "arena.sqlite").string();
    std::ofstream(root_ / "team.token") << Admin("team add hosts") << "\n";
    std::ofstream(root_ / "worker.token") << Admin("worker add hosts-worker") << "\n";
    fs::create_directories(root_ / "sub");
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / "steady" / "optimizer.py",
                  root_ / "sub" / "optimizer.py");
  }

  void TearDown() override {
    workers_.clear();
    server_.reset();
    if (namespaces_made_) DeleteNamespaces();
    if (!root_.empty()) fs::remove_all(root_);
  }

  void DeleteNamespaces() {
    Sh("ip netns del " + c_ + " 2>/dev/null; ip netns del " + a_ + " 2>/dev/null; ip netns del " +
       b_ + " 2>/dev/null");
  }

  std::string Admin(const std::string& args) {
    return bbo::testing::BboAdmin(BBO_CLI_BIN, db_, args);
  }

  // `argv` run inside namespace `ns`.
  std::unique_ptr<Proc> In(const std::string& ns, std::vector<std::string> argv,
                           const std::string& log) {
    argv.insert(argv.begin(), {"/usr/bin/env", "ip", "netns", "exec", ns});
    return std::make_unique<Proc>(argv, (root_ / log).string());
  }

  std::unique_ptr<Proc> Worker(const std::string& ns, const std::string& coordinator, int i) {
    return In(ns,
              {BBO_WORKER_BIN, "--coordinator=" + coordinator + ":" + std::to_string(kPort),
               "--ca_file=" + (root_ / "certs" / "ca.pem").string(),
               "--token_file=" + (root_ / "worker.token").string(),
               "--work_dir=" + (root_ / ("work" + std::to_string(i))).string(),
               "--python_dir=" BBO_PYTHON_DIR, "--cgroups=auto"},
              "worker" + std::to_string(i) + ".log");
  }

  std::string Logs() {
    std::string out = "--- server.log\n" + ReadFile(root_ / "server.log");
    for (int i = 0; i < 3; ++i) {
      out += "--- worker" + std::to_string(i) + ".log\n" +
             ReadFile(root_ / ("worker" + std::to_string(i) + ".log"));
    }
    return out.size() > 12000 ? out.substr(out.size() - 12000) : out;
  }

  std::string tag_, c_, a_, b_, db_;
  fs::path root_;
  bool namespaces_made_ = false;
  std::unique_ptr<Proc> server_;
  std::vector<std::unique_ptr<Proc>> workers_;
};

TEST_F(HostsTest, WorkersOnTwoHostsShareTheQueueAndOneHostsLossLosesNothing) {
  // Beyond loopback the server serves TLS only.
  server_ = In(c_,
               {BBO_SERVER_BIN, "--listen=0.0.0.0:" + std::to_string(kPort), "--db=" + db_,
                "--problem_set=test", "--baseline_trials=1", "--batch_size=4", "--n_batches=6",
                "--lease_ttl_s=3", "--tls_cert_file=" + (root_ / "certs" / "server.pem").string(),
                "--tls_key_file=" + (root_ / "certs" / "server.key").string(),
                "--port_file=" + (root_ / "port").string()},
               "server.log");
  for (int i = 0; i < 300 && !fs::exists(root_ / "port"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(fs::exists(root_ / "port")) << Logs();
  workers_.push_back(Worker(a_, "10.77.1.1", 0));
  workers_.push_back(Worker(a_, "10.77.1.1", 1));
  workers_.push_back(Worker(b_, "10.77.2.1", 2));
  // The participant submits from host b, over TLS.
  const std::string submit =
      "ip netns exec " + b_ + " " + BBO_CLI_BIN + " --token_file " +
      (root_ / "team.token").string() + " submit " + (root_ / "sub").string() +
      " --name steady --trials " + std::to_string(kTrials) +
      " --server 10.77.2.1:" + std::to_string(kPort) + " --ca_file " +
      (root_ / "certs" / "ca.pem").string() + " >>" + (root_ / "submit.log").string() + " 2>&1";
  bool submitted = false;
  for (int i = 0; i < 100 && !submitted; ++i) {
    submitted = Sh(submit) == 0;
    if (!submitted) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(submitted) << ReadFile(root_ / "submit.log") << Logs();
  // A few jobs done, then host a goes down whole.
  for (int i = 0; i < 300; ++i) {
    const std::string done = Q(db_, "SELECT COUNT(*) FROM jobs WHERE state = 'done'");
    if (!done.empty() && std::stoi(done) >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string done_before = Q(db_, "SELECT COUNT(*) FROM jobs WHERE state = 'done'");
  workers_[0].reset();
  workers_[1].reset();
  // Host b finishes everything (the lost leases expire after 3 s and are run again).
  bool finished = false;
  for (int i = 0; i < 1200 && !finished; ++i) {
    finished = Q(db_, "SELECT COUNT(*) FROM jobs WHERE state != 'done'") == "0";
    if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(finished) << Logs();
  EXPECT_EQ(Q(db_, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(Q(db_,
              "SELECT COUNT(*) FROM jobs j WHERE (SELECT COUNT(*) FROM studies s WHERE"
              " s.job_id = j.id AND s.state IN ('completed', 'cut_off', 'failed')) != 1"),
            "0");
  EXPECT_EQ(Q(db_,
              "SELECT COUNT(*) FROM studies s JOIN jobs j ON j.id = s.job_id WHERE"
              " j.builtin = 0 AND s.state = 'completed'"),
            std::to_string(kTrials));
  // Workers of both hosts registered (over TLS, with the worker token).
  EXPECT_EQ(Q(db_, "SELECT COUNT(*) FROM workers"), "3");
  std::printf("jobs done before host a went down: %s; studies it left, run again: %s\n",
              done_before.c_str(),
              Q(db_, "SELECT COUNT(*) FROM studies WHERE state = 'abandoned'").c_str());
}

}  // namespace
