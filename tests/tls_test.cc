// TLS on the gRPC port, end to end: the real bbo-server, bbo-worker and bbo binaries on
// 127.0.0.1 with certificates made at test time by the openssl CLI (a throw-away CA, a server
// certificate for IP:127.0.0.1 and DNS:localhost, a client certificate, and a second CA that
// signed nothing the server trusts). The openssl commands are the ones deploy/README.md ("TLS")
// gives to organizers.

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/spawned_process.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const fs::path& p) { return bbo::testing::ReadWholeFile(p.string()); }

using Proc = bbo::testing::SpawnedProcess;

// Runs a shell command line with a hard time limit; returns its exit code and output.
struct Outcome {
  int code = -1;
  std::string output;
};
Outcome Shell(const std::string& command, const fs::path& out, int limit_s = 60) {
  const std::string line =
      "timeout " + std::to_string(limit_s) + " sh -c '" + command + "' >" + out.string() + " 2>&1";
  const int status = std::system(line.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out)};
}

// The first column of the first row of one query on the SQLite file ("" if none).
std::string Query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

// Certificates shared by every test of the suite, made once.
fs::path certs;

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs = fs::temp_directory_path() / ("bbo_tls_certs_" + std::to_string(getpid()));
    fs::remove_all(certs);
    fs::create_directories(certs);
    // deploy/README.md, "TLS": a CA, a server certificate for the names clients dial, a client
    // certificate. "other" is a second CA, unknown to the server and its clients.
    const std::string script = R"(set -e
cd ")" + certs.string() + R"("
command -v openssl
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
ca() {
  key $1.key
  openssl req -x509 -new -key $1.key -out $1.pem -days 2 -subj "/CN=bbo-arena test $1" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
}
leaf() {  # name ca extensions
  key $1.key
  openssl req -new -key $1.key -out $1.csr -subj "/CN=bbo-arena test $1"
  printf "%b" "$3" >$1.ext
  openssl x509 -req -in $1.csr -CA $2.pem -CAkey $2.key -CAcreateserial -days 2 \
    -extfile $1.ext -out $1.pem
}
ca ca
ca other
leaf server ca "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
leaf worker ca "extendedKeyUsage=clientAuth\n"
leaf stranger other "extendedKeyUsage=clientAuth\n"
)";
    std::ofstream(certs / "make.sh") << script;
    const int status = std::system(
        ("sh " + (certs / "make.sh").string() + " >" + (certs / "make.log").string() + " 2>&1")
            .c_str());
    openssl_ok_ = status == 0 && fs::exists(certs / "stranger.pem");
  }
  static void TearDownTestSuite() {
    if (openssl_ok_) fs::remove_all(certs);
  }

  void SetUp() override {
    ASSERT_TRUE(openssl_ok_) << "making the test certificates with the openssl CLI failed "
                                "(is the `openssl` package installed? deploy/install-deps.sh)\n"
                             << ReadFile(certs / "make.log");
    root_ = fs::temp_directory_path() /
            ("bbo_tls_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    db_ = (root_ / "arena.sqlite").string();
  }
  void TearDown() override {
    workers_.clear();
    server_.reset();
    if (!HasFailure()) fs::remove_all(root_);
  }

  static std::string Cert(const std::string& name) { return (certs / name).string(); }

  // A bbo-server on 127.0.0.1 with the test problem and small budgets. Identities are off
  // (--allow_anonymous): these tests are about the transport; tokens are e2e_test's.
  void StartServer(std::vector<std::string> extra) {
    std::vector<std::string> argv = {
        BBO_SERVER_BIN,       "--listen=127.0.0.1:0",
        "--db=" + db_,        "--port_file=" + (root_ / "port").string(),
        "--problem_set=test", "--baseline_trials=1",
        "--batch_size=4",     "--n_batches=3",
        "--allow_anonymous"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    server_ = std::make_unique<Proc>(argv, (root_ / "server.log").string());
    ASSERT_TRUE(server_->ok());
    for (int i = 0; i < 500 && !fs::exists(root_ / "port"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(fs::exists(root_ / "port")) << ReadFile(root_ / "server.log");
    target_ = "127.0.0.1:" + std::to_string(std::stoi(ReadFile(root_ / "port")));
  }
  void StartTlsServer(std::vector<std::string> extra = {}) {
    extra.push_back("--tls_cert_file=" + Cert("server.pem"));
    extra.push_back("--tls_key_file=" + Cert("server.key"));
    StartServer(extra);
  }

  // Starts a bbo-worker on the server; returns its index (log: worker<i>.log).
  size_t StartWorker(std::vector<std::string> extra) {
    const size_t i = workers_.size();
    std::vector<std::string> argv = {
        BBO_WORKER_BIN, "--coordinator=" + target_,
        "--work_dir=" + (root_ / ("work" + std::to_string(i))).string(),
        "--python_dir=" BBO_PYTHON_DIR};
    argv.insert(argv.end(), extra.begin(), extra.end());
    workers_.push_back(std::make_unique<Proc>(argv, WorkerLog(i).string()));
    EXPECT_TRUE(workers_.back()->ok());
    return i;
  }
  fs::path WorkerLog(size_t i) const { return root_ / ("worker" + std::to_string(i) + ".log"); }

  // The bbo CLI with `args` (and `env`, "NAME=value ..."), within 60 s.
  Outcome Bbo(const std::string& args, const std::string& env = "") {
    return Shell(env + " " BBO_CLI_BIN " " + args, root_ / "bbo.out");
  }

  // Submits examples/random-search-py over TLS with `tls` flags; waits until its one trial per
  // problem has finished (polling `bbo status --json` with the same flags).
  void SubmitAndFinish(const std::string& tls) {
    Outcome submit =
        Bbo("submit " BBO_SOURCE_DIR "/examples/random-search-py --trials 1 --server " + target_ +
            " " + tls);
    ASSERT_EQ(submit.code, 0) << submit.output;
    ASSERT_THAT(submit.output, HasSubstr("submitted random-search-py: id "));
    bool finished = false;
    for (int i = 0; i < 300 && !finished; ++i) {
      Outcome status = Bbo("status --json --server " + target_ + " " + tls);
      ASSERT_EQ(status.code, 0) << status.output;
      nlohmann::json j = nlohmann::json::parse(status.output, nullptr, false);
      ASSERT_TRUE(j.is_array()) << status.output;
      for (const auto& sub : j) finished |= sub["name"] == "random-search-py" && sub["finished"];
      if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    ASSERT_TRUE(finished) << Logs();
    // Every study ran to its last batch on the worker, with the values in the file.
    EXPECT_EQ(Query(db_,
                    "SELECT COUNT(*) FROM studies s JOIN submissions u ON "
                    "u.id = s.submission_id WHERE u.name = 'random-search-py' AND "
                    "s.state = 'completed'"),
              "1")
        << Logs();
    EXPECT_EQ(Query(db_,
                    "SELECT COUNT(*) FROM evaluations e JOIN studies s ON s.id = "
                    "e.study_id JOIN submissions u ON u.id = s.submission_id WHERE "
                    "u.name = 'random-search-py'"),
              "12");
  }

  std::string Logs() {
    std::string out = "--- server.log\n" + ReadFile(root_ / "server.log");
    for (size_t i = 0; i < workers_.size(); ++i) {
      out += "--- worker" + std::to_string(i) + ".log\n" + ReadFile(WorkerLog(i));
    }
    return out;
  }

  static bool openssl_ok_;
  fs::path root_;
  std::string db_;
  std::string target_;
  std::unique_ptr<Proc> server_;
  std::vector<std::unique_ptr<Proc>> workers_;
};

bool TlsTest::openssl_ok_ = false;

TEST_F(TlsTest, ClientsWithTheCaRunAStudyOverTls) {
  StartTlsServer();
  EXPECT_THAT(ReadFile(root_ / "server.log"), HasSubstr("tls=on"));
  const std::string ca = "--ca_file " + Cert("ca.pem");
  Outcome status = Bbo("status --server " + target_ + " " + ca);
  EXPECT_EQ(status.code, 0) << status.output;
  // The certificate also names localhost; the CA can come from the environment.
  const std::string port = target_.substr(target_.rfind(':') + 1);
  status = Bbo("problems --server localhost:" + port, "BBO_CA_FILE=" + Cert("ca.pem"));
  EXPECT_EQ(status.code, 0) << status.output;
  EXPECT_THAT(status.output, HasSubstr("test_crashing"));
  StartWorker({"--ca_file=" + Cert("ca.pem")});
  SubmitAndFinish(ca);
  EXPECT_THAT(ReadFile(WorkerLog(0)), HasSubstr("event=worker_registered"));
}

TEST_F(TlsTest, PlaintextClientsOfATlsServerFailClearly) {
  StartTlsServer();
  const auto start = Clock::now();
  Outcome status = Bbo("status --server " + target_);
  EXPECT_EQ(status.code, 1) << status.output;
  EXPECT_THAT(status.output, HasSubstr("bbo: status: "));
  EXPECT_THAT(status.output, HasSubstr("--ca_file"));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));

  const size_t w = StartWorker({});
  std::optional<int> code = workers_[w]->WaitExit(std::chrono::seconds(60));
  ASSERT_TRUE(code.has_value()) << "a plaintext worker kept running\n" << Logs();
  EXPECT_EQ(*code, 1);
  EXPECT_THAT(ReadFile(WorkerLog(w)), HasSubstr("cannot register with " + target_));
  EXPECT_THAT(ReadFile(WorkerLog(w)), HasSubstr("--ca_file"));
  EXPECT_EQ(Query(db_, "SELECT COUNT(*) FROM workers"), "0");
}

TEST_F(TlsTest, TlsClientsOfAPlaintextServerFailClearly) {
  StartServer({});
  const auto start = Clock::now();
  Outcome status = Bbo("status --server " + target_ + " --ca_file " + Cert("ca.pem"));
  EXPECT_EQ(status.code, 1) << status.output;
  EXPECT_THAT(status.output, HasSubstr("bbo: status: "));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
  const size_t w = StartWorker({"--ca_file=" + Cert("ca.pem")});
  std::optional<int> code = workers_[w]->WaitExit(std::chrono::seconds(60));
  ASSERT_TRUE(code.has_value()) << "a TLS worker kept running\n" << Logs();
  EXPECT_EQ(*code, 1);
  EXPECT_THAT(ReadFile(WorkerLog(w)), HasSubstr("cannot register with " + target_));
}

TEST_F(TlsTest, TheWrongCaIsRefused) {
  StartTlsServer();
  Outcome status = Bbo("status --server " + target_ + " --ca_file " + Cert("other.pem"));
  EXPECT_EQ(status.code, 1) << status.output;
  EXPECT_THAT(status.output, HasSubstr("bbo: status: "));
  const size_t w = StartWorker({"--ca_file=" + Cert("other.pem")});
  std::optional<int> code = workers_[w]->WaitExit(std::chrono::seconds(60));
  ASSERT_TRUE(code.has_value()) << Logs();
  EXPECT_EQ(*code, 1);
  EXPECT_EQ(Query(db_, "SELECT COUNT(*) FROM workers"), "0");
  // The right CA still works against the same server.
  EXPECT_EQ(Bbo("status --server " + target_ + " --ca_file " + Cert("ca.pem")).code, 0);
}

TEST_F(TlsTest, MutualTlsRefusesWorkersWithoutACertificateAndServesThoseWithOne) {
  StartTlsServer({"--tls_client_ca_file=" + Cert("ca.pem")});
  EXPECT_THAT(ReadFile(root_ / "server.log"), HasSubstr("tls=mutual"));
  // No client certificate, and one signed by a CA the server does not trust.
  const size_t bare = StartWorker({"--ca_file=" + Cert("ca.pem")});
  const size_t stranger =
      StartWorker({"--ca_file=" + Cert("ca.pem"), "--cert_file=" + Cert("stranger.pem"),
                   "--key_file=" + Cert("stranger.key")});
  for (size_t w : {bare, stranger}) {
    std::optional<int> code = workers_[w]->WaitExit(std::chrono::seconds(60));
    ASSERT_TRUE(code.has_value()) << "worker " << w << " kept running\n" << Logs();
    EXPECT_EQ(*code, 1) << Logs();
    EXPECT_THAT(ReadFile(WorkerLog(w)), HasSubstr("cannot register with " + target_));
  }
  EXPECT_EQ(Query(db_, "SELECT COUNT(*) FROM workers"), "0");
  Outcome refused = Bbo("status --server " + target_ + " --ca_file " + Cert("ca.pem"));
  EXPECT_EQ(refused.code, 1) << refused.output;

  const std::string pair = "--ca_file " + Cert("ca.pem") + " --cert_file " + Cert("worker.pem") +
                           " --key_file " + Cert("worker.key");
  StartWorker({"--ca_file=" + Cert("ca.pem"), "--cert_file=" + Cert("worker.pem"),
               "--key_file=" + Cert("worker.key")});
  SubmitAndFinish(pair);
  EXPECT_EQ(Query(db_, "SELECT COUNT(*) FROM workers"), "1");
}

TEST_F(TlsTest, WrongFilesAreErrorsNamingTheFileAndTheFlag) {
  const std::string missing = (root_ / "missing.pem").string();
  Outcome cli = Bbo("status --server 127.0.0.1:1 --ca_file " + missing);
  EXPECT_EQ(cli.code, 1) << cli.output;
  EXPECT_THAT(cli.output, HasSubstr("--ca_file: cannot read " + missing));
  cli = Bbo("leaderboard --server 127.0.0.1:1", "BBO_CA_FILE=" + Cert("ca.pem") +
                                                    " BBO_CERT_FILE=" + missing +
                                                    " BBO_KEY_FILE=" + Cert("worker.key"));
  EXPECT_EQ(cli.code, 1) << cli.output;
  EXPECT_THAT(cli.output, HasSubstr("BBO_CERT_FILE: cannot read " + missing));
  cli = Bbo("status --server 127.0.0.1:1 --ca_file " + Cert("ca.pem") + " --cert_file " +
            Cert("worker.pem"));
  EXPECT_EQ(cli.code, 1) << cli.output;
  EXPECT_THAT(cli.output, HasSubstr("--cert_file needs --key_file"));

  Proc worker({BBO_WORKER_BIN, "--coordinator=127.0.0.1:1", "--ca_file=" + missing},
              (root_ / "worker.log").string());
  EXPECT_EQ(worker.WaitExit(std::chrono::seconds(20)), std::optional<int>(2));
  EXPECT_THAT(ReadFile(root_ / "worker.log"), HasSubstr("--ca_file: cannot read " + missing));

  Proc server({BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + db_,
               "--tls_cert_file=" + Cert("server.pem"), "--tls_key_file=" + missing},
              (root_ / "server.log").string());
  EXPECT_EQ(server.WaitExit(std::chrono::seconds(20)), std::optional<int>(2));
  EXPECT_THAT(ReadFile(root_ / "server.log"), HasSubstr("--tls_key_file: cannot read " + missing));
  EXPECT_FALSE(fs::exists(db_));

  // A readable key that belongs to another certificate.
  Proc mismatched({BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + db_, "--problem_set=test",
                   "--tls_cert_file=" + Cert("server.pem"), "--tls_key_file=" + Cert("worker.key")},
                  (root_ / "mismatched.log").string());
  EXPECT_EQ(mismatched.WaitExit(std::chrono::seconds(20)), std::optional<int>(1));
  EXPECT_THAT(ReadFile(root_ / "mismatched.log"),
              HasSubstr("--tls_key_file " + Cert("worker.key") +
                        " is not the private key of --tls_cert_file " + Cert("server.pem")));
}

// The one test that binds 0.0.0.0: start and stop at once, no traffic.
TEST_F(TlsTest, ANonLoopbackListenNeedsTlsOrInsecure) {
  Proc refused({BBO_SERVER_BIN, "--listen=0.0.0.0:0", "--db=" + db_, "--problem_set=test"},
               (root_ / "refused.log").string());
  std::optional<int> code = refused.WaitExit(std::chrono::seconds(20));
  ASSERT_TRUE(code.has_value()) << ReadFile(root_ / "refused.log");
  EXPECT_NE(*code, 0);
  const std::string log = ReadFile(root_ / "refused.log");
  EXPECT_THAT(log, HasSubstr("refusing to serve plaintext gRPC on 0.0.0.0:0"));
  EXPECT_THAT(log, HasSubstr("--tls_cert_file="));
  EXPECT_THAT(log, HasSubstr("--tls_key_file="));
  EXPECT_THAT(log, HasSubstr("--insecure"));
  EXPECT_FALSE(fs::exists(db_)) << "the refused server created its database";

  Proc insecure({BBO_SERVER_BIN, "--listen=0.0.0.0:0", "--db=" + db_, "--problem_set=test",
                 "--baseline_trials=1", "--insecure", "--port_file=" + (root_ / "port").string()},
                (root_ / "insecure.log").string());
  for (int i = 0; i < 500 && !fs::exists(root_ / "port"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(fs::exists(root_ / "port")) << ReadFile(root_ / "insecure.log");
  EXPECT_EQ(insecure.Terminate(), 0) << ReadFile(root_ / "insecure.log");
  EXPECT_THAT(ReadFile(root_ / "insecure.log"), HasSubstr("(--insecure)"));
  EXPECT_THAT(ReadFile(root_ / "insecure.log"), Not(HasSubstr("refusing")));
}

// Item 9 of issue 34: without --ca_file, `bbo` speaks TLS (verified against the system's trusted
// roots) to a server on another host, so a plaintext server there is refused and no token
// travels in clear text; plaintext only on loopback or with an explicit --insecure.
TEST_F(TlsTest, WithoutACaFileTheCliSpeaksTlsToAnotherHostUnlessInsecure) {
  std::string host;  // an address of this machine that is not loopback
  struct ifaddrs* all = nullptr;
  ASSERT_EQ(getifaddrs(&all), 0);
  for (struct ifaddrs* i = all; i != nullptr && host.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<struct sockaddr_in*>(i->ifa_addr)->sin_addr, text,
              sizeof(text));
    if (std::string(text).rfind("127.", 0) != 0) host = text;
  }
  freeifaddrs(all);
  ASSERT_FALSE(host.empty()) << "this machine has no IPv4 address but loopback";
  Proc server({BBO_SERVER_BIN, "--listen=0.0.0.0:0", "--db=" + db_, "--problem_set=test",
               "--baseline_trials=1", "--insecure", "--port_file=" + (root_ / "port").string()},
              (root_ / "server.log").string());
  for (int i = 0; i < 500 && !fs::exists(root_ / "port"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(fs::exists(root_ / "port")) << ReadFile(root_ / "server.log");
  const std::string port = std::to_string(std::stoi(ReadFile(root_ / "port")));
  const std::string remote = host + ":" + port;
  Outcome tls = Bbo("problems --server " + remote);
  EXPECT_EQ(tls.code, 1) << tls.output;
  EXPECT_THAT(tls.output, HasSubstr("system's trusted roots")) << tls.output;
  Outcome insecure = Bbo("problems --insecure --server " + remote);
  EXPECT_EQ(insecure.code, 0) << insecure.output;
  Outcome both = Bbo("problems --insecure --ca_file " + Cert("ca.pem") + " --server " + remote);
  EXPECT_EQ(both.code, 1) << both.output;
  EXPECT_THAT(both.output, HasSubstr("plaintext or TLS, not both"));
  Outcome loopback = Bbo("problems --server 127.0.0.1:" + port);
  EXPECT_EQ(loopback.code, 0) << loopback.output;
  // The worker too (issue 34, item 9): no worker token in clear text to another host unasked.
  Outcome token = Bbo("admin --db " + db_ + " worker add remote-host 2>/dev/null");
  ASSERT_EQ(token.code, 0) << token.output;
  std::ofstream(root_ / "worker.token") << token.output;
  auto worker = [&](const std::string& flags, const std::string& log) {
    return Shell(BBO_WORKER_BIN " --coordinator=" + remote + " --token_file=" +
                     (root_ / "worker.token").string() + " --work_dir=" +
                     (root_ / "remote-work").string() + " --python_dir=" BBO_PYTHON_DIR +
                     " --exit_when_idle_s=1 " + flags,
                 root_ / log);
  };
  Outcome refused = worker("", "w-tls.out");
  EXPECT_NE(refused.code, 0) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("system's trusted roots")) << refused.output;
  EXPECT_EQ(Query(db_, "SELECT COUNT(*) FROM workers"), "0");
  Outcome plain = worker("--insecure", "w-plain.out");
  EXPECT_THAT(plain.output, HasSubstr("event=registered")) << plain.output;
  EXPECT_THAT(plain.output, HasSubstr("travels in clear text"));
  Outcome worker_both = worker("--insecure --ca_file " + Cert("ca.pem"), "w-both.out");
  EXPECT_EQ(worker_both.code, 2) << worker_both.output;
  EXPECT_EQ(server.Terminate(), 0) << ReadFile(root_ / "server.log");
}

}  // namespace
