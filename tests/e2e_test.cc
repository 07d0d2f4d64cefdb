// End-to-end tests: the real bbo-server and bbo-worker binaries on 127.0.0.1 with a temporary
// SQLite file, real sandboxed optimizer processes (Python, via the bundled bayesmark package),
// driven through the real gRPC CompetitionService. Results are checked in the SQLite file.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/str_split.h"
#include "bbo/v1/competition_service.grpc.pb.h"
#include "bbo/v1/scoring_service.grpc.pb.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "bbo/v1/worker_service.grpc.pb.h"
#include "common/archive.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "nlohmann/json.hpp"
#include "gtest/gtest.h"
#include "tests/spawned_process.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using Proc = bbo::testing::SpawnedProcess;

std::string ReadFile(const fs::path& p) { return bbo::testing::ReadWholeFile(p.string()); }

// Runs one SQL query on the test's SQLite file and returns the first column of every row.
std::vector<std::string> Query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out.push_back(t ? reinterpret_cast<const char*>(t) : "");
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("bbo_e2e_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    db_ = (root_ / "arena.sqlite").string();
  }
  void TearDown() override {
    workers_.clear();
    server_.reset();
    if (!HasFailure() && !std::getenv("BBO_E2E_KEEP")) fs::remove_all(root_);
  }

  // `bbo admin --db <db> ARGS`: its stdout (a token, for `... add NAME`), trimmed.
  std::string Admin(const std::string& args) {
    return bbo::testing::BboAdmin(BBO_CLI_BIN, db_, args);
  }

  // The team token of the fixture's submissions (made by StartServer).
  void Auth(grpc::ClientContext& ctx) {
    if (!team_token_.empty()) ctx.AddMetadata("authorization", "Bearer " + team_token_);
  }

  void StartServer(std::vector<std::string> extra = {}) {
    // Identities first (they live in the same SQLite file): a team and a worker credential.
    if (team_token_.empty()) {
      team_token_ = Admin("team add e2e-team");
      organizer_token_ = Admin("organizer add e2e-organizer");
      std::ofstream(root_ / "worker.token") << Admin("worker add e2e-worker") << "\n";
    }
    std::vector<std::string> argv = {BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + db_,
                                     "--port_file=" + (root_ / "port").string(),
                                     "--problem_set=test", "--baseline_trials=2",
                                     "--batch_size=4", "--n_batches=5"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    server_ = std::make_unique<Proc>(argv, (root_ / "server.log").string());
    ASSERT_TRUE(server_->ok());
    for (int i = 0; i < 500 && !fs::exists(root_ / "port"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(fs::exists(root_ / "port")) << ReadFile(root_ / "server.log");
    port_ = std::stoi(ReadFile(root_ / "port"));
    stub_ = bbo::v1::CompetitionService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials()));
  }

  void StartWorker(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {BBO_WORKER_BIN,
                                     "--coordinator=127.0.0.1:" + std::to_string(port_),
                                     "--work_dir=" + (root_ / "work").string(),
                                     "--token_file=" + (root_ / "worker.token").string(),
                                     "--python_dir=" BBO_PYTHON_DIR};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::string log = (root_ / ("worker" + std::to_string(workers_.size()) + ".log")).string();
    workers_.push_back(std::make_unique<Proc>(argv, log));
    ASSERT_TRUE(workers_.back()->ok());
  }

  // Submits tests/optimizers/<name> (plus extra files) and returns its submission id.
  int64_t Submit(const std::string& name, int trials = 1,
                 std::map<std::string, std::string> extra_files = {}) {
    fs::path dir = root_ / ("sub_" + name);
    fs::create_directories(dir);
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / name / "optimizer.py", dir / "optimizer.py",
                  fs::copy_options::overwrite_existing);
    for (auto& [file, content] : extra_files) std::ofstream(dir / file) << content;
    grpc::ClientContext ctx;
    Auth(ctx);
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name(name);
    req.set_archive(*bbo::TarDirectory(dir.string()));
    req.set_trials(trials);
    bbo::v1::RegisterSubmissionResponse resp;
    grpc::Status s = stub_->RegisterSubmission(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.submission_id();
  }

  // Waits until the submission has no queued or running job.
  bool WaitFinished(int64_t id, int seconds) {
    for (int i = 0; i < seconds * 10; ++i) {
      grpc::ClientContext ctx;
      ctx.AddMetadata("authorization", "Bearer " + organizer_token_);
      bbo::v1::ListSubmissionsResponse resp;
      if (stub_->ListSubmissions(&ctx, bbo::v1::ListSubmissionsRequest(), &resp).ok()) {
        for (const auto& s : resp.submissions()) {
          if (s.submission_id() == id && s.jobs_queued() == 0 && s.jobs_running() == 0) {
            return true;
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::string Logs() {
    std::string out = "--- server.log\n" + ReadFile(root_ / "server.log");
    for (size_t i = 0; i < workers_.size(); ++i) {
      out += "--- worker" + std::to_string(i) + ".log\n" +
             ReadFile(root_ / ("worker" + std::to_string(i) + ".log"));
    }
    return out;
  }

  std::string Q(const std::string& sql) {
    auto rows = Query(db_, sql);
    return rows.empty() ? "" : rows[0];
  }

  fs::path root_;
  std::string db_;
  std::string team_token_;
  std::string organizer_token_;  // sees every team's submissions
  int port_ = 0;
  std::unique_ptr<Proc> server_;
  std::vector<std::unique_ptr<Proc>> workers_;
  std::unique_ptr<bbo::v1::CompetitionService::Stub> stub_;
};

TEST_F(E2eTest, SlowOptimizerIsCutOffAndKeepsBestSoFar) {
  StartServer({"--suggest_budget_s=2", "--study_budget_s=100"});
  StartWorker();
  int64_t id = Submit("slow");
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE submission_id = " + sid +
              " AND state = 'cut_off'"),
            "1")
      << Logs();
  // Two batches were evaluated before the cut-off, and they count.
  EXPECT_EQ(Q("SELECT batches_done FROM studies WHERE submission_id = " + sid), "2");
  EXPECT_THAT(Q("SELECT message FROM study_errors e JOIN studies s ON s.id = e.study_id WHERE "
                "s.submission_id = " + sid + " AND kind = 'budget'"),
              HasSubstr("per-suggest budget"));
  grpc::ClientContext ctx;
  Auth(ctx);
  bbo::v1::GetLeaderboardResponse board;
  ASSERT_TRUE(stub_->GetLeaderboard(&ctx, bbo::v1::GetLeaderboardRequest(), &board).ok());
  bool found = false;
  for (const auto& row : board.rows()) {
    if (row.name() == "slow") {
      found = true;
      // Best so far (x0 = 0.3 on the test quadratic) stands: a positive score.
      EXPECT_GT(row.score(), 50.0);
    }
  }
  EXPECT_TRUE(found);
}

// An objective slower than every deadline (1.5 s per evaluation: a batch takes longer than the
// 1 s per-suggest budget, the 2 s study budget, and the worker's 1 s call deadline) is never
// charged to the optimizer, whether the worker evaluates it (the default) or the coordinator.
TEST_F(E2eTest, ASlowObjectiveEvaluatedByTheWorkerIsNeverCharged) {
  std::vector<std::string> flags = {"--problem_set=slow", "--slow_problem_ms=1500",
                                    "--batch_size=2",     "--n_batches=3",
                                    "--suggest_budget_s=1", "--study_budget_s=2",
                                    "--baseline_trials=1"};
  StartServer(flags);
  StartWorker({"--rpc_timeout_s=1", "--eval_slots=2"});
  int64_t id = Submit("steady");
  ASSERT_TRUE(WaitFinished(id, 90)) << Logs();
  const std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT state || ' ' || batches_done FROM studies WHERE submission_id = " + sid),
            "completed 3")
      << Logs();
  // Evaluated on the worker: its log says so.
  EXPECT_THAT(ReadFile(root_ / "worker0.log"), HasSubstr("evaluates=worker"));
  // Each turn is the optimizer's 0.08 s suggest (+ observe), as the worker measured it; the
  // 1.5 s evaluations are in eval_time_s only.
  for (const std::string& row :
       bbo::testing::Query(db_, "SELECT b.turn_time_s, b.host_suggest_time_s + "
                                "b.host_observe_time_s, b.eval_time_s FROM batches b JOIN "
                                "studies s ON s.id = b.study_id WHERE s.submission_id = " +
                                    sid)) {
    std::vector<std::string> f = absl::StrSplit(row, '|');
    ASSERT_EQ(f.size(), 3u);
    EXPECT_LT(std::stod(f[0]), 0.9) << row;
    EXPECT_NEAR(std::stod(f[0]), std::stod(f[1]), 1e-9) << row;
    EXPECT_GE(std::stod(f[2]), 1.4) << row;
  }
  EXPECT_EQ(Q("SELECT COUNT(*) FROM study_errors e JOIN studies s ON s.id = e.study_id WHERE "
              "s.submission_id = " + sid),
            "0");
}

TEST_F(E2eTest, ASlowObjectiveEvaluatedByTheCoordinatorIsNeverCharged) {
  StartServer({"--problem_set=slow", "--slow_problem_ms=1500", "--batch_size=2",
               "--n_batches=3", "--suggest_budget_s=1", "--study_budget_s=2",
               "--baseline_trials=1", "--evaluate_on_coordinator"});
  // Its calls have a 1 s deadline; a batch call waits 1.5 s or more on the evaluation.
  StartWorker({"--rpc_timeout_s=1"});
  int64_t id = Submit("steady");
  ASSERT_TRUE(WaitFinished(id, 90)) << Logs();
  const std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT state || ' ' || batches_done FROM studies WHERE submission_id = " + sid),
            "completed 3")
      << Logs();
  EXPECT_THAT(ReadFile(root_ / "worker0.log"), HasSubstr("evaluates=coordinator"));
  for (const std::string& row :
       bbo::testing::Query(db_, "SELECT b.turn_time_s, b.eval_time_s FROM batches b JOIN "
                                "studies s ON s.id = b.study_id WHERE s.submission_id = " +
                                    sid)) {
    std::vector<std::string> f = absl::StrSplit(row, '|');
    ASSERT_EQ(f.size(), 2u);
    EXPECT_LT(std::stod(f[0]), 0.9) << row;
    EXPECT_GE(std::stod(f[1]), 1.4) << row;
  }
}

// A generated suite loaded from a design file: the worker fetches the file by its content
// address (only while it holds a lease on one of its jobs), builds the tasks itself and
// evaluates them; the coordinator checks they are the same tasks (their signatures).
TEST_F(E2eTest, AWorkerFetchesTheDesignFileOfGeneratedTasksAndEvaluatesThem) {
  const std::string design = (root_ / "design.sqlite").string();
  ASSERT_EQ(std::system((std::string(BBO_CLI_BIN) + " tasks design --family bbob-d5 --out " +
                         design + " >/dev/null 2>&1")
                            .c_str()),
            0);
  StartServer({"--suite=generated", "--generated_family=bbob-d5", "--design_file=" + design,
               "--generated_tasks=2", "--batch_size=2", "--n_batches=2", "--baseline_trials=1"});
  StartWorker();
  int64_t id = Submit("steady");
  ASSERT_TRUE(WaitFinished(id, 90)) << Logs();
  const std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE state = 'completed' AND submission_id = " + sid),
            "2")
      << Logs();
  EXPECT_THAT(ReadFile(root_ / "worker0.log"), HasSubstr("evaluates=worker"));
  EXPECT_THAT(ReadFile(root_ / "worker0.log"), Not(HasSubstr("evaluates=coordinator")));
  // Kept under its content address, fetched once.
  int files = 0;
  for (const auto& e : fs::directory_iterator(root_ / "work" / "problem-files")) {
    files += e.path().extension() == ".tmp" ? 0 : 1;
  }
  EXPECT_EQ(files, 1);
  // Not to anyone else: the team's token cannot fetch it.
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                     grpc::InsecureChannelCredentials());
  auto workers = bbo::v1::WorkerService::NewStub(channel);
  grpc::ClientContext ctx;
  Auth(ctx);
  bbo::v1::FetchProblemFilesRequest req;
  req.set_worker_id("any");
  req.set_job_id(1);
  bbo::v1::FetchProblemFilesResponse resp;
  grpc::Status refused = workers->FetchProblemFiles(&ctx, req, &resp);
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(resp.content().empty());
}

// Scale-in: a SIGTERMed worker with a drain finishes its study and takes no new job; one whose
// drain runs out hands its study back, and the job runs again without losing an attempt.
TEST_F(E2eTest, ADrainingWorkerFinishesOrHandsBackItsStudyNeverChargingTheTeam) {
  StartServer({"--problem_set=slow", "--slow_problem_ms=300", "--batch_size=2", "--n_batches=4",
               "--baseline_trials=1"});
  StartWorker({"--drain_timeout_s=60", "--eval_slots=2"});
  int64_t id = Submit("steady", 3);
  const std::string sid = std::to_string(id);
  auto running = [&] {
    return Q("SELECT COUNT(*) FROM studies WHERE state = 'running' AND submission_id = " + sid);
  };
  for (int i = 0; i < 300 && running() != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(running(), "1") << Logs();
  // Drained: the study runs to its end, then the worker exits 0 without leasing more.
  EXPECT_EQ(workers_[0]->Terminate(), 0) << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE state = 'completed' AND submission_id = " + sid),
            "1")
      << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND attempts = 0 AND "
              "submission_id = " + sid),
            "2")
      << Logs();
  // A drain too short for the study: handed back, the attempt not counted.
  StartWorker({"--drain_timeout_s=0.3", "--eval_slots=2"});
  for (int i = 0; i < 300 && running() != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(running(), "1") << Logs();
  EXPECT_EQ(workers_[1]->Terminate(), 0) << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE state = 'abandoned' AND submission_id = " + sid),
            "1")
      << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND attempts = 0 AND "
              "submission_id = " + sid),
            "2")
      << Logs();
  // Every job still runs to one final study.
  StartWorker();
  ASSERT_TRUE(WaitFinished(id, 90)) << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM jobs WHERE state = 'done' AND attempts = 1 AND "
              "submission_id = " + sid),
            "3")
      << Logs();
}

TEST_F(E2eTest, StartUpIsNotChargedToTheFirstBatch) {
  StartServer({"--suggest_budget_s=2", "--study_budget_s=100", "--startup_budget_s=20"});
  StartWorker();
  int64_t id = Submit("slow_start");  // 3 s in __init__, over the 2 s per-suggest budget
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  const std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT state FROM studies WHERE submission_id = " + sid), "completed") << Logs();
  EXPECT_EQ(Q("SELECT batches_done FROM studies WHERE submission_id = " + sid), "5");
  EXPECT_EQ(Q("SELECT COUNT(*) FROM study_errors e JOIN studies s ON s.id = e.study_id WHERE "
              "s.submission_id = " + sid),
            "0");
}

TEST_F(E2eTest, InvalidSuggestionsAreReportedAndReplaced) {
  StartServer({"--n_batches=7"});
  StartWorker();
  int64_t id = Submit("invalid");
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT state FROM studies WHERE submission_id = " + sid), "completed") << Logs();
  auto errors = Query(db_, "SELECT message FROM study_errors e JOIN studies s ON s.id = "
                           "e.study_id WHERE s.submission_id = " + sid + " ORDER BY e.id");
  ASSERT_GE(errors.size(), 5u) << Logs();
  std::string all;
  for (auto& e : errors) all += e + "\n";
  EXPECT_THAT(all, HasSubstr("outside range"));
  EXPECT_THAT(all, HasSubstr("unexpected parameter \"extra\""));
  EXPECT_THAT(all, HasSubstr("missing parameter \"x0\""));
  EXPECT_THAT(all, HasSubstr("suggestions, expected 4"));
  // Every replaced point is flagged and every batch has 4 evaluations.
  EXPECT_EQ(Q("SELECT COUNT(*) FROM evaluations e JOIN studies s ON s.id = e.study_id WHERE "
              "s.submission_id = " + sid),
            "28");
  // 5 single invalid points plus the 2 missing points of the short batch.
  EXPECT_EQ(Q("SELECT COUNT(*) FROM evaluations e JOIN studies s ON s.id = "
              "e.study_id WHERE replaced = 1 AND s.submission_id = " + sid),
            "7");
  EXPECT_THAT(all, HasSubstr("expected a number, got a string \"nan\""));
  // The optimizer's original suggestion is kept beside the replacement.
  EXPECT_THAT(Q("SELECT suggested_json FROM evaluations e JOIN studies s ON s.id = e.study_id "
                "WHERE s.submission_id = " + sid + " AND e.batch = 0 AND e.replaced = 1"),
              HasSubstr("2.5"));
  EXPECT_THAT(all, HasSubstr("expected a number, got a string \"abc\""));
}

TEST_F(E2eTest, SuggestThatRaisesIsReplacedByRandomSearch) {
  StartServer();
  StartWorker();
  int64_t id = Submit("raises");
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT state FROM studies WHERE submission_id = " + sid), "completed") << Logs();
  EXPECT_THAT(Q("SELECT message FROM study_errors e JOIN studies s ON s.id = e.study_id WHERE "
                "s.submission_id = " + sid),
              HasSubstr("deliberate failure in suggest"));
  EXPECT_EQ(Q("SELECT source FROM batches b JOIN studies s ON s.id = b.study_id WHERE "
              "s.submission_id = " + sid + " AND b.batch = 1"),
            "random_fill");
}

TEST_F(E2eTest, OptimizerThatDiesEndsStudyWithBestSoFar) {
  StartServer();
  StartWorker();
  int64_t id = Submit("dies");
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT state FROM studies WHERE submission_id = " + sid), "failed") << Logs();
  EXPECT_EQ(Q("SELECT batches_done FROM studies WHERE submission_id = " + sid), "2");
  EXPECT_THAT(Q("SELECT message FROM study_errors e JOIN studies s ON s.id = e.study_id WHERE "
                "s.submission_id = " + sid),
              HasSubstr("3"));  // the exit status
}

// bbo logs: a team learns why its studies ended as they did (the optimizer's own message and
// exit status), in a hidden phase without problem names; another team learns nothing.
TEST_F(E2eTest, LogsSayWhyStudiesFailedToTheirTeamOnly) {
  StartServer({"--hidden"});
  StartWorker();
  const int64_t dies = Submit("dies");
  const int64_t raises = Submit("raises");
  ASSERT_TRUE(WaitFinished(dies, 60)) << Logs();
  ASSERT_TRUE(WaitFinished(raises, 60)) << Logs();
  const std::string server = " --server 127.0.0.1:" + std::to_string(port_);
  auto bbo = [&](const std::string& token, const std::string& args) {
    return bbo::testing::CommandOutput(std::string(BBO_CLI_BIN) + " --token " + token + " " +
                                       args + server + " 2>&1; echo rc=$?");
  };
  const std::string died = bbo(team_token_, "logs " + std::to_string(dies));
  EXPECT_THAT(died, HasSubstr("rc=0"));
  EXPECT_THAT(died, HasSubstr("optimizer_died"));
  EXPECT_THAT(died, HasSubstr("failed after 2 of 5 batches"));
  EXPECT_THAT(died, HasSubstr("problem-1"));  // a hidden phase: no problem names for teams
  EXPECT_THAT(died, Not(HasSubstr("test_crashing")));
  const std::string raised = bbo(team_token_, "logs " + std::to_string(raises) + " --json");
  EXPECT_THAT(raised, HasSubstr("deliberate failure in suggest"));
  EXPECT_THAT(raised, HasSubstr("\"total_errors\": 1"));
  // bbo status points at bbo logs.
  EXPECT_THAT(bbo(team_token_, "status"), HasSubstr("bbo logs " + std::to_string(dies)));
  // Another team: the same answer as for an unknown submission.
  const std::string other = Admin("team add someone-else");
  const std::string stranger = bbo(other, "logs " + std::to_string(dies));
  EXPECT_THAT(stranger, HasSubstr("no submission " + std::to_string(dies) + " of yours"));
  EXPECT_THAT(stranger, Not(HasSubstr("rc=0")));
  EXPECT_THAT(bbo(other, "logs 999999"),
              HasSubstr("no submission 999999 of yours"));
  // Organizers see the problems' names.
  EXPECT_THAT(bbo(organizer_token_, "logs " + std::to_string(dies)), HasSubstr("test_crashing"));
}

// bbo check and bbo local fail loudly: a broken optimizer exits 1, quoting the lines of the
// participant's own files (not the bayesmark package's), in seconds; a sound one exits 0.
TEST_F(E2eTest, BboCheckFailsLoudlyQuotingTheParticipantsOwnFiles) {
  auto write = [&](const std::string& name, const std::string& code) {
    fs::create_directories(root_ / name);
    std::ofstream(root_ / name / "optimizer.py") << code;
    return (root_ / name).string();
  };
  const std::string head =
      "from bayesmark.abstract_optimizer import AbstractOptimizer\n"
      "from bayesmark.experiment import experiment_main\n";
  const std::string syntax = write("syntax", head + "class O(AbstractOptimizer)\n    pass\n");
  const std::string raises = write(
      "raises", head +
                    "def helper(n):\n    return [1] * n / 0\n\n"
                    "class R(AbstractOptimizer):\n"
                    "    def __init__(self, api_config, **kwargs):\n"
                    "        AbstractOptimizer.__init__(self, api_config)\n"
                    "    def suggest(self, n_suggestions=1):\n"
                    "        return helper(n_suggestions)\n"
                    "    def observe(self, X, y):\n        pass\n\n"
                    "if __name__ == '__main__':\n    experiment_main(R)\n");
  auto check = [&](const std::string& args) {
    return bbo::testing::CommandOutput(std::string(BBO_CLI_BIN) + " " + args +
                                       " 2>&1; echo rc=$?");
  };
  const std::string broken = check("check " + syntax);
  EXPECT_THAT(broken, HasSubstr("rc=1"));
  EXPECT_THAT(broken, HasSubstr("did not complete"));
  EXPECT_THAT(broken, HasSubstr("File \"/sub/optimizer.py\", line 3"));
  EXPECT_THAT(broken, HasSubstr("SyntaxError"));
  const std::string raised = check("check " + raises);
  EXPECT_THAT(raised, HasSubstr("rc=1"));
  EXPECT_THAT(raised, HasSubstr("3 of 3 batches were filled by random search"));
  EXPECT_THAT(raised, HasSubstr("line 4, in helper"));
  EXPECT_THAT(raised, HasSubstr("return [1] * n / 0"));
  EXPECT_THAT(raised, Not(HasSubstr("bayesmark/experiment.py")));
  // bbo local gives the same verdict, after the scores.
  const std::string local = check("local " + raises + " --problems branin --trials 1 --n-batches 2");
  EXPECT_THAT(local, HasSubstr("Leaderboard score"));
  EXPECT_THAT(local, HasSubstr("rc=1"));
  const std::string fine = check("check " BBO_SOURCE_DIR "/examples/random-search-py");
  EXPECT_THAT(fine, HasSubstr("bbo check: OK"));
  EXPECT_THAT(fine, HasSubstr("rc=0"));
}

// Nothing runs without a worker: the server log and bbo status say so; once one connects,
// bbo status counts it and the queue drains.
TEST_F(E2eTest, NoWorkerIsWarnedAboutAndTheQueueIsShown) {
  StartServer();
  const int64_t id = Submit("steady", 2);
  auto status = [&] {
    return bbo::testing::CommandOutput(std::string(BBO_CLI_BIN) + " --token " + team_token_ +
                                       " status --server 127.0.0.1:" + std::to_string(port_) +
                                       " 2>&1");
  };
  EXPECT_THAT(status(), HasSubstr("no worker is connected"));
  bool warned = false;
  for (int i = 0; i < 50 && !warned; ++i) {
    warned = ReadFile(root_ / "server.log").find("event=no_workers") != std::string::npos;
    if (!warned) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(warned) << Logs();
  StartWorker();
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  const std::string after = status();
  EXPECT_THAT(after, HasSubstr("1 worker(s) connected"));
  EXPECT_THAT(after, Not(HasSubstr("no worker is connected")));
}

TEST_F(E2eTest, SandboxedOptimizerCannotReachCoordinatorOrReadProblemData) {
  StartServer({"--batch_size=8"});
  StartWorker();
  std::string target = "127.0.0.1 " + std::to_string(port_) + " " + db_ + " " BBO_SOURCE_DIR;
  int64_t id = Submit("hostile", 1, {{"target.txt", target}});
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  std::string sid = std::to_string(id);
  auto params = Query(db_, "SELECT params_json FROM evaluations e JOIN studies s ON s.id = "
                           "e.study_id WHERE s.submission_id = " + sid +
                           " AND e.batch = 0 ORDER BY e.idx");
  ASSERT_EQ(params.size(), 8u) << Logs();
  const char* what[] = {"TCP connect to the coordinator", "read the SQLite file",
                        "read /root",  "read the project checkout",
                        "write into its submission folder", "run as root",
                        "reach a public host", "read /etc/shadow"};
  for (int i = 0; i < 8; ++i) {
    EXPECT_THAT(params[i], HasSubstr("0.1")) << "the sandbox allowed: " << what[i];
  }
  EXPECT_FALSE(fs::exists(root_ / "sub_hostile" / "pwned.txt"));
}

TEST_F(E2eTest, KilledWorkersJobIsLeasedAgainAfterExpiry) {
  StartServer({"--lease_ttl_s=2", "--suggest_budget_s=60"});
  StartWorker();
  int64_t id = Submit("slow");  // sleeps 30 s in batch 2: the worker is mid-study
  std::string sid = std::to_string(id);
  for (int i = 0; i < 300 && Q("SELECT batches_done FROM studies WHERE submission_id = " + sid) !=
                                 "2";
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(Q("SELECT batches_done FROM studies WHERE submission_id = " + sid), "2") << Logs();
  workers_[0]->Kill(SIGKILL);  // the worker and its sandboxed optimizer vanish
  // After the 2 s lease expires the job is queued again and a new worker takes it.
  for (int i = 0; i < 100 && Q("SELECT state FROM jobs WHERE submission_id = " + sid) !=
                                 "queued";
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(Q("SELECT state FROM jobs WHERE submission_id = " + sid), "queued") << Logs();
  EXPECT_EQ(Q("SELECT state FROM studies WHERE submission_id = " + sid + " ORDER BY id LIMIT 1"),
            "abandoned");
  StartWorker();
  for (int i = 0; i < 100 && Q("SELECT attempts FROM jobs WHERE submission_id = " + sid) != "2";
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(Q("SELECT attempts FROM jobs WHERE submission_id = " + sid), "2") << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE submission_id = " + sid), "2");
}

TEST_F(E2eTest, RemoteClientRunsAPracticeStudyOverTheStudyService) {
  StartServer();
  auto study = bbo::v1::StudyService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials()));
  grpc::ClientContext lctx;
  Auth(lctx);
  bbo::v1::ListProblemsResponse problems;
  ASSERT_TRUE(study->ListProblems(&lctx, bbo::v1::ListProblemsRequest(), &problems).ok());
  ASSERT_EQ(problems.problems_size(), 1);
  grpc::ClientContext octx;
  Auth(octx);
  bbo::v1::OpenStudyRequest open;
  open.set_problem(problems.problems(0).name());
  bbo::v1::OpenStudyResponse opened;
  ASSERT_TRUE(study->OpenStudy(&octx, open, &opened).ok());
  EXPECT_THAT(opened.api_config_json(), HasSubstr("x0"));
  EXPECT_EQ(opened.batch_size(), 4);
  EXPECT_EQ(opened.n_batches(), 5);
  for (int b = 0; b < 5; ++b) {
    grpc::ClientContext ctx;
    Auth(ctx);
    bbo::v1::SubmitBatchRequest req;
    req.set_study_id(opened.study_id());
    req.set_batch(b);
    for (int i = 0; i < 4; ++i) {
      (*req.add_suggestions()->mutable_params())["x0"].set_real_value(0.2 + 0.05 * i);
    }
    bbo::v1::SubmitBatchResponse resp;
    grpc::Status s = study->SubmitBatch(&ctx, req, &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ASSERT_EQ(resp.values_size(), 4);
    EXPECT_NEAR(resp.values(2), 0.0, 1e-12);  // (0.3 - 0.3)^2
    EXPECT_EQ(resp.study_done(), b == 4);
  }
  // A wrong batch index and an unknown problem get clear errors.
  grpc::ClientContext bctx;
  Auth(bctx);
  bbo::v1::SubmitBatchRequest late;
  late.set_study_id(opened.study_id());
  late.set_batch(5);
  bbo::v1::SubmitBatchResponse ignored;
  EXPECT_EQ(study->SubmitBatch(&bctx, late, &ignored).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  grpc::ClientContext uctx;
  Auth(uctx);
  bbo::v1::OpenStudyRequest unknown;
  unknown.set_problem("no-such-problem");
  EXPECT_EQ(study->OpenStudy(&uctx, unknown, &opened).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Q("SELECT state FROM studies WHERE submission_id = 0"), "completed");
}

// Server reflection (what grpcurl and other generic clients use), spoken with a generic stub and
// hand-encoded messages: ServerReflectionRequest{list_services: ""} is field 7 -> bytes 3a 00.
TEST_F(E2eTest, ScoringServiceServesTheReportAndBboReportWritesIt) {
  StartServer({"--phase=feedback"});
  StartWorker();
  int64_t id = Submit("raises", 2);
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  const std::string target = "127.0.0.1:" + std::to_string(port_);
  auto scoring = bbo::v1::ScoringService::NewStub(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  bbo::v1::GetReportRequest req;
  req.set_bootstrap_replicates(100);
  bbo::v1::GetReportResponse resp;
  grpc::Status s;
  // The coordinator's baseline studies may still be running: FAILED_PRECONDITION until done.
  for (int i = 0; i < 300; ++i) {
    grpc::ClientContext ctx;
    Auth(ctx);
    resp.Clear();
    s = scoring->GetReport(&ctx, req, &resp);
    if (s.error_code() != grpc::StatusCode::FAILED_PRECONDITION) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(s.ok()) << s.error_message() << Logs();
  EXPECT_EQ(resp.phase(), "feedback");
  ASSERT_EQ(resp.files_size(), 1);
  EXPECT_EQ(resp.files(0).name(), "report.json");
  auto report = nlohmann::json::parse(resp.files(0).content());
  EXPECT_EQ(report["schema"], "bbo-arena/report/1");
  EXPECT_EQ(report["bootstrap"]["replicates"], 100);
  std::set<std::string> methods;
  for (const auto& m : report["methods"]) methods.insert(m["method"].get<std::string>());
  EXPECT_TRUE(methods.count("raises"));
  EXPECT_TRUE(methods.count("random-search-baseline"));
  // The Bayesian Plackett-Luce ranking (report/report.h) rides along; with one submission it
  // says why there is none instead of failing the report.
  ASSERT_TRUE(report.contains("plackett_luce")) << report.dump().substr(0, 2000);
  EXPECT_EQ(report["plackett_luce"]["layout"], "bbo-arena/plackett-luce/1");
  EXPECT_THAT(report["plackett_luce"].value("error", ""), HasSubstr("at least two methods"));
  {
    grpc::ClientContext ctx;
    Auth(ctx);
    req.set_phase("final");
    EXPECT_EQ(scoring->GetReport(&ctx, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  // The CLI writes the HTML and CSV files.
  const fs::path out = root_ / "report";
  const std::string cli = std::string(BBO_CLI_BIN) + " report --server " + target +
                          " --bootstrap 100 --out " + out.string();
  ASSERT_EQ(std::system((cli + " --format html >/dev/null 2>&1").c_str()), 0);
  ASSERT_EQ(std::system((cli + " --format csv >/dev/null 2>&1").c_str()), 0);
  EXPECT_THAT(ReadFile(out / "report.html"), HasSubstr("raises"));
  EXPECT_THAT(ReadFile(out / "report.html"),
              HasSubstr("<section id=\"plackett-luce\">\n<h2>Bayesian ranking over time (Plackett-Luce)"));
  EXPECT_THAT(ReadFile(out / "leaderboard.csv"), HasSubstr(",raises,"));
  EXPECT_THAT(ReadFile(out / "plackett_luce.csv"), HasSubstr("at least two methods"));
  EXPECT_NE(std::system((cli + " --phase final >/dev/null 2>&1").c_str()), 0);
}

// `bbo report --db` scores a coordinator's database exactly as the coordinator does (the same
// Scoreboard over the same file, on the settings the coordinator recorded): the same report as
// `bbo report --server`, Plackett-Luce sections and the optimizer-seconds view included, but for
// when it was made, where its results came from and how long the fits took.
TEST_F(E2eTest, BboReportFromTheDatabaseIsTheServersReport) {
  StartServer({"--phase=feedback"});
  StartWorker();
  const int64_t steady = Submit("steady", 2);
  const int64_t raises = Submit("raises", 1);
  ASSERT_TRUE(WaitFinished(steady, 90)) << Logs();
  ASSERT_TRUE(WaitFinished(raises, 90)) << Logs();
  const std::string target = "127.0.0.1:" + std::to_string(port_);
  const fs::path from_server = root_ / "from_server";
  const fs::path from_db = root_ / "from_db";
  // Bootstrap settings of one's own are the organizers' to choose (issue 34, item 5).
  const std::string cli = std::string(BBO_CLI_BIN) + " --token " + organizer_token_ +
                          " report --format json --bootstrap 300 --seed 7 --out ";
  // The coordinator's baseline studies may still be running: refused until they are done.
  int rc = -1;
  for (int i = 0; i < 300 && rc != 0; ++i) {
    rc = std::system((cli + from_server.string() + " --server " + target + " >/dev/null 2>&1")
                         .c_str());
    if (rc != 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(rc, 0) << Logs();
  ASSERT_EQ(std::system((cli + from_db.string() + " --db " + db_ + " --phase feedback" +
                         " >/dev/null 2>&1").c_str()),
            0);
  nlohmann::json server = nlohmann::json::parse(ReadFile(from_server / "report.json"));
  nlohmann::json db = nlohmann::json::parse(ReadFile(from_db / "report.json"));
  EXPECT_EQ(server["source"], "bbo-server");
  EXPECT_EQ(db["source"], db_);
  for (nlohmann::json* j : {&server, &db}) {
    j->erase("generated_at");
    j->erase("source");
    for (const char* view : {"plackett_luce", "plackett_luce_seconds"}) {
      ASSERT_TRUE((*j)[view].contains("diagnostics")) << (*j)[view].dump().substr(0, 500);
      (*j)[view]["diagnostics"].erase("seconds");
    }
  }
  ASSERT_TRUE(server["plackett_luce"].contains("final"));
  EXPECT_EQ(server["phase"], "feedback");
  EXPECT_EQ(server, db) << nlohmann::json::diff(server, db).dump().substr(0, 4000);

  // The field-travel check: the optimizer's peak memory per batch goes from the worker's control
  // group over the protocol into the store, the report (JSON, CSV) and `bbo export`. A worker
  // measures it as root on cgroup v1 (v2 cannot restart the mark per turn).
  const bool measurable =
      geteuid() == 0 && fs::exists("/sys/fs/cgroup/memory/memory.max_usage_in_bytes");
  const std::string stored = Q("SELECT COUNT(*) FROM batches WHERE optimizer_peak_memory_mb > 0");
  EXPECT_EQ(stored != "0", measurable) << stored;
  if (!measurable) return;
  const nlohmann::json* steady_use = nullptr;
  for (const nlohmann::json& m : server["resources"]["methods"]) {
    if (m["method"] == "steady") steady_use = &m;
  }
  ASSERT_NE(steady_use, nullptr) << server["resources"].dump();
  const nlohmann::json& peak = (*steady_use)["optimizer_peak_memory_mb"];
  EXPECT_EQ(peak["batches"].get<int>(),
            std::stoi(Q("SELECT COUNT(b.optimizer_peak_memory_mb) FROM batches b JOIN studies s "
                        "ON s.id = b.study_id WHERE s.submission_id = " + std::to_string(steady))));
  EXPECT_GT(peak["median"].get<double>(), 1.0);  // a Python optimizer holds megabytes
  EXPECT_GE(peak["max"].get<double>(), peak["median"].get<double>());
  const fs::path csv_dir = root_ / "from_db_csv";
  ASSERT_EQ(std::system((std::string(BBO_CLI_BIN) + " report --format csv --bootstrap 50 --out " +
                         csv_dir.string() + " --db " + db_ + " --phase feedback >/dev/null 2>&1")
                            .c_str()),
            0);
  EXPECT_THAT(ReadFile(csv_dir / "resources.csv"), HasSubstr("steady,optimizer_peak_memory_mb,"));
  const fs::path exported = root_ / "export.csv";
  ASSERT_EQ(std::system((std::string(BBO_CLI_BIN) + " export --db " + db_ +
                         " --phase feedback --out " + exported.string() + " >/dev/null 2>&1")
                            .c_str()),
            0);
  const std::string text = ReadFile(exported);
  const std::string header = text.substr(0, text.find('\n'));
  EXPECT_THAT(header, HasSubstr(",optimizer_cpu_s,optimizer_peak_memory_mb")) << header;
}

TEST_F(E2eTest, HiddenAnonymizedPhaseServesOrganizersOnlyAndHidesNames) {
  StartServer({"--phase=final", "--hidden", "--anonymize"});
  const std::string token = organizer_token_;
  StartWorker();
  // The optimizer raises (and its study fails) if it ever sees a real parameter name.
  int64_t id = Submit("anon_check", 2);
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  const std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE submission_id = " + sid +
              " AND state = 'completed'"),
            "2")
      << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM study_errors e JOIN studies s ON s.id = e.study_id WHERE "
              "s.submission_id = " + sid),
            "0");
  // The database keeps the real names (x0 of the test problem).
  EXPECT_THAT(Q("SELECT params_json FROM evaluations e JOIN studies s ON s.id = e.study_id "
                "WHERE s.submission_id = " + sid + " LIMIT 1"),
              HasSubstr("\"x0\""));

  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                     grpc::InsecureChannelCredentials());
  auto studies = bbo::v1::StudyService::NewStub(channel);
  auto scoring = bbo::v1::ScoringService::NewStub(channel);
  {
    grpc::ClientContext ctx;
    Auth(ctx);
    bbo::v1::OpenStudyRequest req;
    req.set_problem("test_crashing");
    bbo::v1::OpenStudyResponse resp;
    EXPECT_EQ(studies->OpenStudy(&ctx, req, &resp).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  auto as = [&](grpc::ClientContext& ctx, const std::string& t) {
    if (!t.empty()) ctx.AddMetadata("authorization", "Bearer " + t);
  };
  // No token, an unknown token, the organizer's: an unknown token is refused everywhere.
  for (const std::string& who : {std::string(), std::string("wrong-token-0123456789"), token}) {
    const bool organizer = who == token;
    const bool wrong = !who.empty() && !organizer;
    const grpc::StatusCode refused =
        wrong ? grpc::StatusCode::UNAUTHENTICATED : grpc::StatusCode::PERMISSION_DENIED;
    {
      grpc::ClientContext ctx;
      as(ctx, who);
      bbo::v1::ListProblemsResponse resp;
      grpc::Status st = studies->ListProblems(&ctx, bbo::v1::ListProblemsRequest(), &resp);
      EXPECT_EQ(st.error_code(), organizer ? grpc::StatusCode::OK : refused);
      EXPECT_EQ(resp.problems_size(), organizer ? 1 : 0);
    }
    {
      grpc::ClientContext ctx;
      as(ctx, who);
      bbo::v1::OpenStudyRequest req;
      req.set_problem("test_crashing");
      bbo::v1::OpenStudyResponse resp;
      // Practice studies need a token at all (a team's would then meet the hidden phase).
      EXPECT_EQ(studies->OpenStudy(&ctx, req, &resp).error_code(),
                organizer ? grpc::StatusCode::OK : grpc::StatusCode::UNAUTHENTICATED);
    }
    {
      grpc::StatusCode code = grpc::StatusCode::FAILED_PRECONDITION;
      for (int i = 0; i < 300 && code == grpc::StatusCode::FAILED_PRECONDITION; ++i) {
        grpc::ClientContext ctx;
        as(ctx, who);
        bbo::v1::GetReportRequest req;
        req.set_bootstrap_replicates(50);
        bbo::v1::GetReportResponse resp;
        code = scoring->GetReport(&ctx, req, &resp).error_code();
        if (code == grpc::StatusCode::FAILED_PRECONDITION) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      }
      EXPECT_EQ(code, organizer ? grpc::StatusCode::OK : refused);
    }
    {
      grpc::ClientContext ctx;
      as(ctx, who);
      bbo::v1::GetLeaderboardResponse board;
      grpc::Status st = stub_->GetLeaderboard(&ctx, bbo::v1::GetLeaderboardRequest(), &board);
      if (wrong) {
        EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);
        continue;
      }
      ASSERT_TRUE(st.ok()) << st.error_message();
      ASSERT_GT(board.rows_size(), 0);
      // Participants get the overall scores without any problem name.
      EXPECT_EQ(board.rows(0).problems_size() > 0, organizer);
      EXPECT_EQ(board.report_json().empty(), !organizer);
    }
  }
}

TEST_F(E2eTest, FinalPhaseRunsOnceWithTeamLimitsAndProducesTheWarmStartBoard) {
  StartServer({"--phase=final", "--anonymize", "--warm_start_board", "--evaluate_once",
               "--max_submissions_per_team=1", "--default_trials=2"});
  StartWorker();
  // Teams come from their tokens; a name in the request is checked against the token.
  const std::map<std::string, std::string> tokens = {{"red", Admin("team add red")},
                                                     {"blue", Admin("team add blue")}};
  auto register_as = [&](const std::string& name, const std::string& optimizer,
                         const std::string& team, int trials,
                         bbo::v1::RegisterSubmissionResponse* resp) {
    fs::path dir = root_ / ("sub_" + name);
    fs::create_directories(dir);
    fs::copy_file(fs::path(BBO_TEST_OPTIMIZERS) / optimizer / "optimizer.py",
                  dir / "optimizer.py", fs::copy_options::overwrite_existing);
    grpc::ClientContext ctx;
    if (tokens.count(team)) ctx.AddMetadata("authorization", "Bearer " + tokens.at(team));
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name(name);
    req.set_archive(*bbo::TarDirectory(dir.string()));
    req.set_trials(trials);
    return stub_->RegisterSubmission(&ctx, req, resp);
  };
  bbo::v1::RegisterSubmissionResponse resp;
  EXPECT_EQ(register_as("no-team", "warm_start", "", 0, &resp).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  {
    // A team cannot submit for another (the old `--team victim`).
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer " + tokens.at("blue"));
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name("as-red");
    req.set_archive("x");
    req.set_team("red");
    EXPECT_EQ(stub_->RegisterSubmission(&ctx, req, &resp).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  EXPECT_EQ(register_as("picky", "warm_start", "red", 5, &resp).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(register_as("warm", "warm_start", "red", 0, &resp).ok());
  const int64_t id = resp.submission_id();
  EXPECT_EQ(resp.trials(), 2);
  EXPECT_EQ(resp.jobs(), 4);  // 2 boards x 1 problem x 2 trials
  grpc::Status second = register_as("warm-2", "anon_check", "red", 0, &resp);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(second.error_message(), HasSubstr("red"));
  // The same archive from another team is the same optimizer: not evaluated again, and the
  // refusal does not name red's submission.
  grpc::Status copy = register_as("warm-copy", "warm_start", "blue", 0, &resp);
  EXPECT_EQ(copy.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(copy.error_message(), Not(HasSubstr("warm")));
  ASSERT_TRUE(WaitFinished(id, 90)) << Logs();
  const std::string sid = std::to_string(id);
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE submission_id = " + sid +
              " AND state = 'completed' AND board = ''"),
            "2")
      << Logs();
  EXPECT_EQ(Q("SELECT COUNT(*) FROM studies WHERE submission_id = " + sid +
              " AND state = 'completed' AND board = 'warm-start'"),
            "2");
  // With the real names the optimizer went straight to the optimum; anonymized it could not.
  EXPECT_EQ(Q("SELECT COUNT(*) FROM evaluations e JOIN studies s ON s.id = e.study_id "
              "WHERE s.submission_id = " + sid + " AND s.board = 'warm-start' AND e.value = 0"),
            "40");  // every point of both studies: 2 x 5 batches x 4
  EXPECT_EQ(Q("SELECT COUNT(*) FROM evaluations e JOIN studies s ON s.id = e.study_id "
              "WHERE s.submission_id = " + sid + " AND s.board = '' AND e.value = 0"),
            "0");

  auto board_score = [&](const std::string& board, std::string* shown) {
    for (int i = 0; i < 300; ++i) {
      grpc::ClientContext ctx;
      Auth(ctx);
      bbo::v1::GetLeaderboardRequest req;
      req.set_board(board);
      bbo::v1::GetLeaderboardResponse out;
      grpc::Status st = stub_->GetLeaderboard(&ctx, req, &out);
      if (st.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      EXPECT_TRUE(st.ok()) << st.error_message();
      *shown = out.board();
      EXPECT_EQ(out.phase(), "final");
      for (const auto& row : out.rows()) {
        if (row.name() == "warm") return row.score();
      }
      return -1.0;
    }
    return -2.0;
  };
  std::string shown;
  const double warm_score = board_score("warm-start", &shown);
  EXPECT_EQ(shown, "warm-start");
  EXPECT_NEAR(warm_score, 100.0, 1e-9) << Logs();
  const double main_score = board_score("", &shown);
  EXPECT_EQ(shown, "main");
  EXPECT_LT(main_score, 100.0);
  EXPECT_GT(main_score, -1.0);
  grpc::ClientContext ctx;
  Auth(ctx);
  bbo::v1::GetLeaderboardRequest req;
  req.set_board("nonesuch");
  bbo::v1::GetLeaderboardResponse out;
  EXPECT_EQ(stub_->GetLeaderboard(&ctx, req, &out).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(E2eTest, ServerReflectionListsTheServices) {
  StartServer();
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  Auth(ctx);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  auto call = stub.PrepareCall(&ctx, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                               &cq);
  auto next = [&cq]() {
    void* tag;
    bool ok = false;
    cq.Next(&tag, &ok);
    return ok;
  };
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(next());
  const char request[] = {0x3a, 0x00};
  grpc::Slice slice(request, sizeof(request));
  grpc::ByteBuffer out(&slice, 1);
  call->Write(out, reinterpret_cast<void*>(2));
  ASSERT_TRUE(next());
  grpc::ByteBuffer in;
  call->Read(&in, reinterpret_cast<void*>(3));
  ASSERT_TRUE(next());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(in.Dump(&slices).ok());
  std::string bytes;
  for (const auto& sl : slices) bytes.append(reinterpret_cast<const char*>(sl.begin()), sl.size());
  EXPECT_THAT(bytes, HasSubstr("bbo.v1.StudyService"));
  EXPECT_THAT(bytes, HasSubstr("bbo.v1.WorkerService"));
  EXPECT_THAT(bytes, HasSubstr("bbo.v1.CompetitionService"));
  EXPECT_THAT(bytes, HasSubstr("bbo.v1.ScoringService"));
  call->WritesDone(reinterpret_cast<void*>(4));
  next();
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  next();
}

TEST_F(E2eTest, ASecondServerOnATakenPortRefusesToStart) {
  StartServer();
  Proc second({BBO_SERVER_BIN, "--listen=127.0.0.1:" + std::to_string(port_),
               "--db=" + (root_ / "second.sqlite").string(), "--problem_set=test"},
              (root_ / "second.log").string());
  ASSERT_TRUE(second.ok());
  std::this_thread::sleep_for(std::chrono::seconds(2));  // it fails at once; SIGTERM otherwise
  EXPECT_EQ(second.Terminate(), 1) << ReadFile(root_ / "second.log");
  EXPECT_THAT(ReadFile(root_ / "second.log"), HasSubstr("the port is taken"));
  // The first one still serves its own clients.
  grpc::ClientContext ctx;
  Auth(ctx);
  bbo::v1::ListSubmissionsRequest req;
  bbo::v1::ListSubmissionsResponse resp;
  EXPECT_TRUE(stub_->ListSubmissions(&ctx, req, &resp).ok());
}

// The operations endpoint: /metrics in Prometheus text with what happened (one submission
// accepted and finished, its batches' latencies, one worker), /healthz ok.
TEST_F(E2eTest, MetricsAndHealthEndpointsReportWhatHappened) {
  const fs::path port_file = root_ / "metrics.port";
  StartServer({"--metrics_listen=127.0.0.1:0", "--metrics_port_file=" + port_file.string()});
  StartWorker();
  int64_t id = Submit("steady", 1);
  ASSERT_TRUE(WaitFinished(id, 60)) << Logs();
  const std::string port = ReadFile(port_file);
  ASSERT_FALSE(port.empty()) << Logs();
  auto get = [&](const std::string& path) {
    const std::string cmd = "/usr/bin/python3 -c \"import urllib.request,sys; r = "
                            "urllib.request.urlopen('http://127.0.0.1:" +
                            port.substr(0, port.find('\n')) + path +
                            "', timeout=10); sys.stdout.write(str(r.status) + '\\n' + "
                            "r.read().decode())\"";
    std::string out;
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[4096];
      size_t n;
      while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
      pclose(f);
    }
    return out;
  };
  EXPECT_EQ(get("/healthz"), "200\nok\n");
  std::string metrics;
  // The submission's end is counted when its last job finishes: allow the worker's call.
  for (int i = 0; i < 50; ++i) {
    metrics = get("/metrics");
    if (metrics.find("bbo_submissions_total{event=\"finished\"} 1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(metrics, HasSubstr("bbo_submissions_total{event=\"accepted\"} 1\n"));
  EXPECT_THAT(metrics, HasSubstr("bbo_submissions_total{event=\"finished\"} 1\n"));
  EXPECT_THAT(metrics, HasSubstr("bbo_workers 1\n"));
  EXPECT_THAT(metrics, HasSubstr("bbo_jobs_queued 0\n"));
  EXPECT_THAT(metrics, HasSubstr("bbo_coordinator_epoch 1\n"));
  EXPECT_THAT(metrics, HasSubstr("bbo_study_ends_total{state=\"completed\",reason=\"done\"}"));
  // 5 batches of the study (and the baseline's own, which are not RPCs).
  EXPECT_THAT(metrics, HasSubstr("bbo_rpc_duration_seconds_count{method=\"SubmitBatch\"} 5\n"));
  EXPECT_THAT(metrics, HasSubstr("bbo_rpc_duration_seconds_count{method=\"LeaseJob\"}"));
  EXPECT_THAT(Logs(), HasSubstr("event=submission_accepted submission=" + std::to_string(id)));
  EXPECT_THAT(Logs(), HasSubstr("event=submission_finished submission=" + std::to_string(id)));
}

// Oversized requests from anyone cannot push the coordinator towards its memory limit: four
// concurrent anonymous 300 MB requests (gRPC reads a request whole before checking its size)
// grow it by less than 64 MiB (before the fix: 1,092 MiB), are refused, and a legitimate
// 23 MiB submission (the limit is 24 MiB) afterwards is registered, fetched by a worker and run.
TEST_F(E2eTest, OversizedAnonymousRequestsDoNotGrowTheCoordinatorsMemory) {
  StartServer();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long idle = bbo::testing::RssKb(server_->pid());
  ASSERT_GT(idle, 0);
  bbo::testing::RssPeak rss(server_->pid());
  // A RegisterSubmissionRequest whose archive (field 2) is 300 MB, shared by the four calls.
  const size_t size = 300u << 20;
  std::string message = {0x12};
  for (size_t n = size; ; n >>= 7) {
    if (n < 0x80) { message.push_back(static_cast<char>(n)); break; }
    message.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  message.resize(message.size() + size, 'x');
  std::vector<std::thread> calls;
  std::vector<int> codes(4, -1);
  for (int i = 0; i < 4; ++i) {
    calls.emplace_back([&, i] {
      grpc::ChannelArguments args;
      args.SetMaxSendMessageSize(-1);
      args.SetInt("bbo.test.channel", i);  // a connection each
      grpc::GenericStub stub(grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port_),
                                                       grpc::InsecureChannelCredentials(), args));
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
      grpc::Slice slice(message.data(), message.size(), grpc::Slice::STATIC_SLICE);
      grpc::ByteBuffer request(&slice, 1), response;
      std::promise<grpc::Status> done;
      stub.UnaryCall(&ctx, "/bbo.v1.CompetitionService/RegisterSubmission", grpc::StubOptions(),
                     &request, &response, [&](grpc::Status s) { done.set_value(std::move(s)); });
      codes[i] = done.get_future().get().error_code();
    });
  }
  for (std::thread& t : calls) t.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long peak = rss.Stop();
  for (int code : codes) EXPECT_EQ(code, grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_LT(peak - idle, 64 << 10) << "idle " << idle << " kB, peak " << peak << " kB";
  message.clear();
  message.shrink_to_fit();

  // A legitimate large submission still goes through, to a worker and back.
  StartWorker();
  std::string blob(23u << 20, '\0');
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>('a' + (i * 7919) % 26);
  const int64_t id = Submit("steady", 1, {{"blob.bin", blob}});
  ASSERT_GT(id, 0) << Logs();
  ASSERT_TRUE(WaitFinished(id, 120)) << Logs();
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", "Bearer " + organizer_token_);
  bbo::v1::ListSubmissionsResponse list;
  ASSERT_TRUE(stub_->ListSubmissions(&ctx, bbo::v1::ListSubmissionsRequest(), &list).ok());
  for (const auto& s : list.submissions()) {
    if (s.submission_id() == id) EXPECT_EQ(s.jobs_done(), s.jobs_total()) << Logs();
  }
}

TEST_F(E2eTest, ServerShutsDownCleanlyOnSigterm) {
  StartServer();
  EXPECT_EQ(server_->Terminate(), 0) << Logs();
  // The file is a valid database with every table.
  EXPECT_EQ(Q("SELECT MAX(version) FROM schema_version"),
            std::to_string(15));  // server/store/migrations.cc: the latest migration
  EXPECT_EQ(Q("SELECT COUNT(*) FROM race_rounds"), "0");
  EXPECT_EQ(Q("SELECT COUNT(*) FROM team_contacts"), "0");
  EXPECT_EQ(Q("SELECT COUNT(*) FROM registrations"), "0");
  EXPECT_EQ(Q("SELECT COUNT(*) FROM invites"), "0");
  EXPECT_EQ(Q("SELECT COUNT(optimizer_peak_memory_mb) FROM batches"), "0");
  EXPECT_EQ(Q("SELECT COUNT(*) FROM submissions WHERE withdrawn != ''"), "0");
}

}  // namespace
