// Who may call what, tried on a real bbo-server on 127.0.0.1 with a real SQLite file: every
// worker-protocol, study and competition RPC called by each kind of stranger (no token, a
// malformed token, an unknown token, a revoked token, another team's token, another worker's
// token) against team A's submission and the study its worker runs. Each call is refused with a
// fixed code, and the database is unchanged by it (the audit log aside, which records the
// refusals).

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bbo/v1/competition_service.grpc.pb.h"
#include "bbo/v1/organizer_service.grpc.pb.h"
#include "bbo/v1/scoring_service.grpc.pb.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "bbo/v1/worker_service.grpc.pb.h"
#include "common/archive.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "tests/spawned_process.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using Code = grpc::StatusCode;

// Every row of every table but the audit log, as text: what a refused call must not change.
std::string Snapshot(const std::string& db) {
  sqlite3* h = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return "?";
  for (const char* table : {"submissions", "jobs", "workers", "studies", "batches",
                            "evaluations", "study_errors", "credentials"}) {
    sqlite3_stmt* st = nullptr;
    const std::string sql = std::string("SELECT * FROM ") + table + " ORDER BY 1";
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      out += std::string("! ") + table;
      continue;
    }
    out += std::string("# ") + table + "\n";
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        // Heartbeat times move with every legitimate call: not part of the comparison.
        if (std::string(table) == "workers" && c >= 3) continue;
        out += t ? reinterpret_cast<const char*>(t) : "NULL";
        out += "|";
      }
      out += "\n";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

int CountAuditRefusals(const std::string& db) {
  sqlite3* h = nullptr;
  int n = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return n;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM audit WHERE allowed = 0", -1, &st, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

// The refusals in the audit log, as "who|action|detail" lines.
std::vector<std::string> AuditRefusals(const std::string& db) {
  sqlite3* h = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, "SELECT who, action, detail FROM audit WHERE allowed = 0 ORDER BY id",
                         -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string line;
      for (int c = 0; c < 3; ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        line += std::string(c ? "|" : "") + (t ? reinterpret_cast<const char*>(t) : "");
      }
      out.push_back(line);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("bbo_auth_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    db_ = (root_ / "arena.sqlite").string();
    for (const char* t : {"alpha", "beta", "gone"}) tokens_[t] = Admin(std::string("team add ") + t);
    Admin("team revoke gone");
    tokens_["w1"] = Admin("worker add host-1");
    tokens_["w2"] = Admin("worker add host-2");
    ASSERT_EQ(tokens_["alpha"].rfind("bbo_team_", 0), 0u) << tokens_["alpha"];
    StartServer({});
  }

  void StartServer(std::vector<std::string> extra) {
    server_.reset();
    fs::remove(root_ / "port");
    std::vector<std::string> argv = {BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + db_,
                                     "--port_file=" + (root_ / "port").string(),
                                     "--problem_set=test", "--baseline_trials=1",
                                     "--batch_size=2", "--n_batches=3"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    server_ = std::make_unique<bbo::testing::SpawnedProcess>(argv,
                                                             (root_ / "server.log").string());
    for (int i = 0; i < 500 && !fs::exists(root_ / "port"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::string port;
    std::ifstream(root_ / "port") >> port;
    ASSERT_FALSE(port.empty());
    auto channel = grpc::CreateChannel("127.0.0.1:" + port, grpc::InsecureChannelCredentials());
    worker_ = bbo::v1::WorkerService::NewStub(channel);
    study_ = bbo::v1::StudyService::NewStub(channel);
    competition_ = bbo::v1::CompetitionService::NewStub(channel);
    scoring_ = bbo::v1::ScoringService::NewStub(channel);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(root_);
  }

  std::string Admin(const std::string& args) {
    return bbo::testing::BboAdmin(BBO_CLI_BIN, db_, args);
  }

  // A context that sends `token` ("" = none).
  static void As(grpc::ClientContext& ctx, const std::string& token) {
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  }

  fs::path root_;
  std::string db_;
  std::map<std::string, std::string> tokens_;
  std::unique_ptr<bbo::testing::SpawnedProcess> server_;
  std::unique_ptr<bbo::v1::WorkerService::Stub> worker_;
  std::unique_ptr<bbo::v1::StudyService::Stub> study_;
  std::unique_ptr<bbo::v1::CompetitionService::Stub> competition_;
  std::unique_ptr<bbo::v1::ScoringService::Stub> scoring_;
};

TEST_F(AuthTest, EveryCallerWithoutTheRightTokenIsRefusedAndChangesNothing) {
  // Team alpha submits; worker host-1 leases its job and opens the study.
  fs::create_directories(root_ / "sub");
  std::ofstream(root_ / "sub" / "optimizer.py") << "print('hi')\n";
  const std::string archive = *bbo::TarDirectory((root_ / "sub").string());
  bbo::v1::RegisterSubmissionResponse registered;
  {
    grpc::ClientContext ctx;
    As(ctx, tokens_["alpha"]);
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name("alpha-1");
    req.set_archive(archive);
    req.set_trials(1);
    ASSERT_TRUE(competition_->RegisterSubmission(&ctx, req, &registered).ok());
  }
  std::string w1, w2;
  for (auto [token, id] : {std::pair{tokens_["w1"], &w1}, std::pair{tokens_["w2"], &w2}}) {
    grpc::ClientContext ctx;
    As(ctx, token);
    bbo::v1::RegisterWorkerRequest req;
    req.set_hostname("h");
    req.set_slots(1);
    bbo::v1::RegisterWorkerResponse resp;
    ASSERT_TRUE(worker_->RegisterWorker(&ctx, req, &resp).ok());
    *id = resp.worker_id();
  }
  bbo::v1::LeaseJobResponse lease;
  for (int i = 0; i < 100 && !lease.has_job(); ++i) {
    grpc::ClientContext ctx;
    As(ctx, tokens_["w1"]);
    bbo::v1::LeaseJobRequest req;
    req.set_worker_id(w1);
    ASSERT_TRUE(worker_->LeaseJob(&ctx, req, &lease).ok());
    if (!lease.has_job()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(lease.has_job());
  bbo::v1::OpenStudyResponse opened;
  {
    grpc::ClientContext ctx;
    As(ctx, tokens_["w1"]);
    bbo::v1::OpenStudyRequest req;
    req.set_job_id(lease.job_id());
    req.set_worker_id(w1);
    ASSERT_TRUE(study_->OpenStudy(&ctx, req, &opened).ok());
  }

  // The calls, each aimed at alpha's resources (host-1's worker id, job, study).
  using Call = std::function<grpc::Status(grpc::ClientContext&)>;
  std::map<std::string, Call> calls;
  calls["Heartbeat"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::HeartbeatRequest req;
    req.set_worker_id(w1);
    bbo::v1::HeartbeatResponse resp;
    return worker_->Heartbeat(&ctx, req, &resp);
  };
  calls["LeaseJob"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::LeaseJobRequest req;
    req.set_worker_id(w1);
    bbo::v1::LeaseJobResponse resp;
    return worker_->LeaseJob(&ctx, req, &resp);
  };
  calls["FinishJob"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::FinishJobRequest req;
    req.set_worker_id(w1);
    req.set_job_id(lease.job_id());
    bbo::v1::FinishJobResponse resp;
    return worker_->FinishJob(&ctx, req, &resp);
  };
  calls["FetchSubmission"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::FetchSubmissionRequest req;
    req.set_submission_id(registered.submission_id());
    req.set_job_id(lease.job_id());
    req.set_worker_id(w1);
    bbo::v1::FetchSubmissionResponse resp;
    return worker_->FetchSubmission(&ctx, req, &resp);
  };
  calls["FetchSubmission(own worker id)"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::FetchSubmissionRequest req;
    req.set_submission_id(registered.submission_id());
    req.set_job_id(lease.job_id());
    req.set_worker_id(w2);
    bbo::v1::FetchSubmissionResponse resp;
    return worker_->FetchSubmission(&ctx, req, &resp);
  };
  calls["OpenStudy(job)"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::OpenStudyRequest req;
    req.set_job_id(lease.job_id());
    req.set_worker_id(w1);
    bbo::v1::OpenStudyResponse resp;
    return study_->OpenStudy(&ctx, req, &resp);
  };
  calls["SubmitBatch"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::SubmitBatchRequest req;
    req.set_study_id(opened.study_id());
    req.set_batch(0);
    for (int i = 0; i < 2; ++i) (*req.add_suggestions()->mutable_params())["x0"].set_real_value(0.3);
    bbo::v1::SubmitBatchResponse resp;
    return study_->SubmitBatch(&ctx, req, &resp);
  };
  calls["ReportSuggestFailure"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::ReportSuggestFailureRequest req;
    req.set_study_id(opened.study_id());
    req.set_batch(0);
    req.set_message("x");
    req.set_optimizer_dead(true);
    bbo::v1::ReportSuggestFailureResponse resp;
    return study_->ReportSuggestFailure(&ctx, req, &resp);
  };
  calls["OptimizerReady"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::OptimizerReadyRequest req;
    req.set_study_id(opened.study_id());
    bbo::v1::OptimizerReadyResponse resp;
    return study_->OptimizerReady(&ctx, req, &resp);
  };
  calls["EndStudy"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::EndStudyRequest req;
    req.set_study_id(opened.study_id());
    req.set_reason("sabotage");
    bbo::v1::EndStudyResponse resp;
    return study_->EndStudy(&ctx, req, &resp);
  };
  calls["RegisterSubmission(as alpha)"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name("forged");
    req.set_archive(archive);
    req.set_team("alpha");
    bbo::v1::RegisterSubmissionResponse resp;
    return competition_->RegisterSubmission(&ctx, req, &resp);
  };
  // Calls a team may make on its own behalf: what they answer another caller must not show
  // alpha's submission (`answer` keeps the last reply's text).
  std::string answer;
  calls["ListSubmissions"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::ListSubmissionsResponse resp;
    grpc::Status st = competition_->ListSubmissions(&ctx, bbo::v1::ListSubmissionsRequest(), &resp);
    answer = resp.DebugString();
    return st;
  };
  calls["WithdrawSubmission(alpha's)"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::WithdrawSubmissionRequest req;
    req.set_submission_id(registered.submission_id());
    bbo::v1::WithdrawSubmissionResponse resp;
    return competition_->WithdrawSubmission(&ctx, req, &resp);
  };
  calls["GetLeaderboard"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::GetLeaderboardResponse resp;
    grpc::Status st = competition_->GetLeaderboard(&ctx, bbo::v1::GetLeaderboardRequest(), &resp);
    answer = resp.DebugString();
    return st;
  };
  calls["GetReport"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::GetReportRequest req;
    req.set_bootstrap_replicates(10);
    bbo::v1::GetReportResponse resp;
    grpc::Status st = scoring_->GetReport(&ctx, req, &resp);
    answer = resp.DebugString();
    return st;
  };
  calls["GetCompetition"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::GetCompetitionResponse resp;
    grpc::Status st =
        competition_->GetCompetition(&ctx, bbo::v1::GetCompetitionRequest(), &resp);
    answer = resp.DebugString();
    return st;
  };
  calls["ChooseSubmission(alpha's)"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::ChooseSubmissionRequest req;
    req.set_submission_id(registered.submission_id());
    bbo::v1::ChooseSubmissionResponse resp;
    return competition_->ChooseSubmission(&ctx, req, &resp);
  };
  calls["ListProblems"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::ListProblemsResponse resp;
    return study_->ListProblems(&ctx, bbo::v1::ListProblemsRequest(), &resp);
  };
  calls["OpenStudy(practice)"] = [&](grpc::ClientContext& ctx) {
    bbo::v1::OpenStudyRequest req;
    req.set_problem("test_quadratic");
    bbo::v1::OpenStudyResponse resp;
    return study_->OpenStudy(&ctx, req, &resp);
  };

  // Who calls: the token each sends, and what each call must answer them.
  const std::string malformed = "not-a-token";
  const std::string unknown = "bbo_team_" + std::string(43, 'A');
  struct Caller {
    std::string name, token;
    std::map<std::string, Code> expect;  // per call; missing = `otherwise`
    Code otherwise;
  };
  const std::map<std::string, Code> as_team = {
      {"Heartbeat", Code::PERMISSION_DENIED},
      {"LeaseJob", Code::PERMISSION_DENIED},
      {"FinishJob", Code::PERMISSION_DENIED},
      {"FetchSubmission", Code::PERMISSION_DENIED},
      {"FetchSubmission(own worker id)", Code::PERMISSION_DENIED},
      {"OpenStudy(job)", Code::PERMISSION_DENIED},
      {"SubmitBatch", Code::NOT_FOUND},
      {"ReportSuggestFailure", Code::NOT_FOUND},
      {"OptimizerReady", Code::NOT_FOUND},
      {"EndStudy", Code::NOT_FOUND},
      {"RegisterSubmission(as alpha)", Code::PERMISSION_DENIED},
      {"WithdrawSubmission(alpha's)", Code::NOT_FOUND},
      {"ChooseSubmission(alpha's)", Code::NOT_FOUND},
      // Allowed, on its own behalf: checked to show nothing of alpha's.
      {"ListSubmissions", Code::OK},
      {"GetCompetition", Code::OK},
      {"GetLeaderboard", Code::OK},
      {"GetReport", Code::OK},
      {"ListProblems", Code::OK},
      // Allowed, and it would add beta's own study: its own tests are e2e_test's.
      {"OpenStudy(practice)", Code::DO_NOT_USE}};
  const std::map<std::string, Code> as_other_worker = {
      {"Heartbeat", Code::NOT_FOUND},
      {"LeaseJob", Code::NOT_FOUND},
      {"FinishJob", Code::NOT_FOUND},
      {"FetchSubmission", Code::NOT_FOUND},
      {"FetchSubmission(own worker id)", Code::PERMISSION_DENIED},
      {"OpenStudy(job)", Code::FAILED_PRECONDITION},
      {"SubmitBatch", Code::NOT_FOUND},
      {"ReportSuggestFailure", Code::NOT_FOUND},
      {"OptimizerReady", Code::NOT_FOUND},
      {"EndStudy", Code::NOT_FOUND},
      {"RegisterSubmission(as alpha)", Code::PERMISSION_DENIED},
      {"WithdrawSubmission(alpha's)", Code::PERMISSION_DENIED},
      {"ChooseSubmission(alpha's)", Code::PERMISSION_DENIED},
      {"GetCompetition", Code::OK},
      {"ListSubmissions", Code::PERMISSION_DENIED},
      {"OpenStudy(practice)", Code::PERMISSION_DENIED},
      {"GetLeaderboard", Code::OK},
      {"GetReport", Code::OK},
      {"ListProblems", Code::OK}};
  const std::vector<Caller> callers = {
      // A practice phase's leaderboard, report and problems are public.
      {"no token",
       "",
       {{"SubmitBatch", Code::NOT_FOUND},
        {"ReportSuggestFailure", Code::NOT_FOUND},
        {"OptimizerReady", Code::NOT_FOUND},
        {"EndStudy", Code::NOT_FOUND},
        {"GetLeaderboard", Code::OK},
        {"GetReport", Code::OK},
        {"GetCompetition", Code::OK},
        {"ListProblems", Code::OK}},
       Code::UNAUTHENTICATED},
      {"malformed token", malformed, {}, Code::UNAUTHENTICATED},
      {"unknown token", unknown, {}, Code::UNAUTHENTICATED},
      {"revoked token", tokens_["gone"], {}, Code::UNAUTHENTICATED},
      {"another team's token", tokens_["beta"], as_team, Code::OK},
      {"another worker's token", tokens_["w2"], as_other_worker, Code::OK},
  };
  const std::string before = Snapshot(db_);
  const int refusals_before = CountAuditRefusals(db_);
  int refused = 0;
  for (const Caller& caller : callers) {
    for (const auto& [name, call] : calls) {
      auto it = caller.expect.find(name);
      const Code want = it != caller.expect.end() ? it->second : caller.otherwise;
      if (want == Code::DO_NOT_USE) continue;
      answer.clear();
      grpc::ClientContext ctx;
      As(ctx, caller.token);
      const grpc::Status s = call(ctx);
      EXPECT_EQ(s.error_code(), want) << name << " by " << caller.name << ": " << s.error_message();
      // No answer confirms that alpha's study runs or names alpha's submission.
      EXPECT_THAT(s.error_message(), Not(HasSubstr("alpha-1"))) << name;
      EXPECT_THAT(answer, Not(HasSubstr("alpha-1"))) << name << " by " << caller.name;
      refused += s.error_code() != Code::OK;
    }
  }
  // Posing as a worker (the leak of every team's code, and of a hidden problem's api_config and
  // values through its jobs): only a worker token may register one.
  for (const auto& [token, want] : {std::pair{std::string(), Code::UNAUTHENTICATED},
                                    std::pair{unknown, Code::UNAUTHENTICATED},
                                    std::pair{tokens_["gone"], Code::UNAUTHENTICATED},
                                    std::pair{tokens_["beta"], Code::PERMISSION_DENIED},
                                    std::pair{tokens_["alpha"], Code::PERMISSION_DENIED}}) {
    grpc::ClientContext ctx;
    As(ctx, token);
    bbo::v1::RegisterWorkerRequest req;
    req.set_hostname("pretender");
    req.set_slots(1);
    bbo::v1::RegisterWorkerResponse resp;
    EXPECT_EQ(worker_->RegisterWorker(&ctx, req, &resp).error_code(), want);
  }
  EXPECT_EQ(Snapshot(db_), before) << "a refused call changed the database";
  // Bad tokens and role refusals are in the audit log.
  EXPECT_GE(CountAuditRefusals(db_) - refusals_before, 4 * 2) << refused << " calls refused";

  // The rightful worker still runs its study: nothing above disturbed it.
  grpc::ClientContext ctx;
  As(ctx, tokens_["w1"]);
  bbo::v1::SubmitBatchRequest req;
  req.set_study_id(opened.study_id());
  req.set_batch(0);
  for (int i = 0; i < 2; ++i) (*req.add_suggestions()->mutable_params())["x0"].set_real_value(0.3);
  bbo::v1::SubmitBatchResponse resp;
  grpc::Status ok = study_->SubmitBatch(&ctx, req, &resp);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(resp.values_size(), 2);
}

TEST_F(AuthTest, ATeamSeesOnlyItsOwnSubmissionsAndCannotSubmitForAnother) {
  fs::create_directories(root_ / "sub");
  std::ofstream(root_ / "sub" / "optimizer.py") << "print('hi')\n";
  const std::string archive = *bbo::TarDirectory((root_ / "sub").string());
  std::map<std::string, int64_t> ids;
  for (const char* team : {"alpha", "beta"}) {
    grpc::ClientContext ctx;
    As(ctx, tokens_[team]);
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name(std::string(team) + "-1");
    req.set_archive(archive);
    bbo::v1::RegisterSubmissionResponse resp;
    ASSERT_TRUE(competition_->RegisterSubmission(&ctx, req, &resp).ok()) << team;
    ids[team] = resp.submission_id();
  }
  grpc::ClientContext ctx;
  As(ctx, tokens_["beta"]);
  bbo::v1::ListSubmissionsResponse list;
  ASSERT_TRUE(competition_->ListSubmissions(&ctx, bbo::v1::ListSubmissionsRequest(), &list).ok());
  ASSERT_EQ(list.submissions_size(), 1);
  EXPECT_EQ(list.submissions(0).name(), "beta-1");
  EXPECT_EQ(list.submissions(0).team(), "beta");
  const int64_t beta_id = list.submissions(0).submission_id();
  // Withdrawing: beta cannot withdraw alpha's submission (answered as an unknown one), and
  // withdrawing its own cancels its queued jobs.
  auto withdraw = [&](const std::string& token, int64_t id, bbo::v1::WithdrawSubmissionResponse* r) {
    grpc::ClientContext wctx;
    As(wctx, token);
    bbo::v1::WithdrawSubmissionRequest req;
    req.set_submission_id(id);
    return competition_->WithdrawSubmission(&wctx, req, r);
  };
  bbo::v1::WithdrawSubmissionResponse withdrawn;
  EXPECT_EQ(beta_id, ids["beta"]);
  const int64_t alpha_id = ids["alpha"];
  grpc::Status foreign = withdraw(tokens_["beta"], alpha_id, &withdrawn);
  EXPECT_EQ(foreign.error_code(), Code::NOT_FOUND);
  EXPECT_EQ(withdraw(tokens_["beta"], 424242, &withdrawn).error_code(), Code::NOT_FOUND);
  EXPECT_EQ(foreign.error_message(), "no submission " + std::to_string(alpha_id) + " of yours");
  ASSERT_TRUE(withdraw(tokens_["beta"], beta_id, &withdrawn).ok());
  EXPECT_EQ(withdrawn.jobs_cancelled(), 3);  // 1 problem x the default 3 trials, none started
  ASSERT_TRUE(withdraw(tokens_["beta"], beta_id, &withdrawn).ok());
  EXPECT_EQ(withdrawn.jobs_cancelled(), 0);
  grpc::ClientContext anon;
  As(anon, "");
  EXPECT_EQ(competition_->ListSubmissions(&anon, bbo::v1::ListSubmissionsRequest(), &list)
                .error_code(),
            Code::UNAUTHENTICATED);
  // After rotation the old token is refused and the new one is beta.
  const std::string fresh = Admin("team rotate beta");
  grpc::ClientContext old_ctx;
  As(old_ctx, tokens_["beta"]);
  EXPECT_EQ(competition_->ListSubmissions(&old_ctx, bbo::v1::ListSubmissionsRequest(), &list)
                .error_code(),
            Code::UNAUTHENTICATED);
  grpc::ClientContext new_ctx;
  As(new_ctx, fresh);
  EXPECT_TRUE(
      competition_->ListSubmissions(&new_ctx, bbo::v1::ListSubmissionsRequest(), &list).ok());
}

// In a final phase (one evaluation per team, each archive once): a team can neither spend
// another team's quota by naming it nor learn another team's submission name from the refusal
// of an identical archive, and a refusal costs it nothing.
TEST_F(AuthTest, AFinalPhaseNeitherLendsQuotaNorNamesAnotherTeamsSubmission) {
  StartServer({"--evaluate_once", "--max_submissions_per_team=1"});
  auto archive_of = [&](const std::string& dir, const std::string& text) {
    fs::create_directories(root_ / dir);
    std::ofstream(root_ / dir / "optimizer.py") << text;
    return *bbo::TarDirectory((root_ / dir).string());
  };
  const std::string secret = archive_of("secret", "print('beta secret')\n");
  const std::string other = archive_of("other", "print('alpha own')\n");
  auto submit = [&](const std::string& token, const std::string& name, const std::string& archive,
                    const std::string& team) {
    grpc::ClientContext ctx;
    As(ctx, token);
    bbo::v1::RegisterSubmissionRequest req;
    req.set_name(name);
    req.set_archive(archive);
    req.set_team(team);
    bbo::v1::RegisterSubmissionResponse resp;
    return competition_->RegisterSubmission(&ctx, req, &resp);
  };
  // alpha posing as beta (the old `bbo submit --team victim`): refused, beta's quota untouched.
  grpc::Status posing = submit(tokens_["alpha"], "as-beta", other, "beta");
  EXPECT_EQ(posing.error_code(), Code::PERMISSION_DENIED);
  EXPECT_THAT(posing.error_message(), HasSubstr("own team only"));
  ASSERT_TRUE(submit(tokens_["beta"], "beta-hidden-name", secret, "").ok());
  // alpha sends beta's archive: refused without a word about beta or its submission.
  grpc::Status copy = submit(tokens_["alpha"], "alpha-copy", secret, "");
  EXPECT_EQ(copy.error_code(), Code::ALREADY_EXISTS);
  EXPECT_THAT(copy.error_message(), HasSubstr("identical to one already registered"));
  EXPECT_THAT(copy.error_message(), Not(HasSubstr("beta")));
  // Neither refusal used alpha's one submission; beta's is spent.
  EXPECT_TRUE(submit(tokens_["alpha"], "alpha-1", other, "").ok());
  EXPECT_EQ(submit(tokens_["beta"], "beta-2", archive_of("third", "print(3)\n"), "").error_code(),
            Code::RESOURCE_EXHAUSTED);
  const std::string db = Snapshot(db_);
  EXPECT_EQ(db.find("as-beta"), std::string::npos);
  EXPECT_EQ(db.find("alpha-copy"), std::string::npos);
}

// Organizers of a hidden phase are known by database tokens only: the old plaintext token file
// is refused with what to do instead, and revoking an organizer takes effect at once.
TEST_F(AuthTest, OrganizersAreDatabaseTokensThatRevokeAtOnce) {
  const fs::path file = root_ / "organizer.token";
  std::ofstream(file) << "organizer-secret-0123456789\n";
  server_.reset();
  bbo::testing::SpawnedProcess legacy(
      {BBO_SERVER_BIN, "--listen=127.0.0.1:0", "--db=" + db_, "--problem_set=test", "--hidden",
       "--organizer_token_file=" + file.string()},
      (root_ / "legacy.log").string());
  EXPECT_EQ(legacy.WaitExit(std::chrono::seconds(20)), std::optional<int>(2));
  std::ifstream log(root_ / "legacy.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("--organizer_token_file was removed"));
  EXPECT_THAT(text, HasSubstr("bbo admin --db " + db_ + " organizer add NAME"));

  const std::string organizer = Admin("organizer add alice");
  StartServer({"--hidden"});
  auto list = [&](const std::string& token) {
    grpc::ClientContext ctx;
    As(ctx, token);
    bbo::v1::ListProblemsResponse resp;
    return study_->ListProblems(&ctx, bbo::v1::ListProblemsRequest(), &resp).error_code();
  };
  EXPECT_EQ(list(organizer), grpc::StatusCode::OK);
  EXPECT_EQ(list(tokens_["alpha"]), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(list("organizer-secret-0123456789"), grpc::StatusCode::UNAUTHENTICATED);
  Admin("organizer revoke alice");
  EXPECT_EQ(list(organizer), grpc::StatusCode::UNAUTHENTICATED);
}

// Every refusal of every RPC is in the audit log, written in one place (the server's
// authentication interceptor) with the method and the caller: a team refused a hidden phase's
// board, report and problems, and a bad token (unknown, or not a bearer token) on any RPC.
TEST_F(AuthTest, EveryRefusalOfEveryRpcIsAudited) {
  std::ofstream(root_ / "competition.json") << R"json(
{"name": "audit-2026", "seed": 3, "phases": [
  {"name": "final", "title": "Final", "problem_set": "test", "batch_size": 2, "n_batches": 3,
   "default_trials": 1, "baseline_trials": 1, "hidden": true,
   "board": "hidden_until_published"}]})json";
  StartServer({"--competition_file=" + (root_ / "competition.json").string()});
  const size_t before = AuditRefusals(db_).size();
  std::map<std::string, grpc::Status> refused;
  {
    grpc::ClientContext ctx;
    As(ctx, tokens_["beta"]);
    bbo::v1::GetLeaderboardResponse resp;
    refused["GetLeaderboard"] =
        competition_->GetLeaderboard(&ctx, bbo::v1::GetLeaderboardRequest(), &resp);
  }
  {
    grpc::ClientContext ctx;
    As(ctx, tokens_["beta"]);
    bbo::v1::GetReportResponse resp;
    refused["GetReport"] = scoring_->GetReport(&ctx, bbo::v1::GetReportRequest(), &resp);
  }
  {
    grpc::ClientContext ctx;
    As(ctx, tokens_["beta"]);
    bbo::v1::ListProblemsResponse resp;
    refused["ListProblems"] = study_->ListProblems(&ctx, bbo::v1::ListProblemsRequest(), &resp);
  }
  std::vector<std::string> audit = AuditRefusals(db_);
  audit.erase(audit.begin(), audit.begin() + std::min(before, audit.size()));
  for (const auto& [method, status] : refused) {
    EXPECT_EQ(status.error_code(), Code::PERMISSION_DENIED) << method << ": "
                                                             << status.error_message();
    const std::string entry = "team:beta|" + method + "|" + status.error_message();
    EXPECT_EQ(std::count(audit.begin(), audit.end(), entry), 1) << entry;
  }

  // A bad token on each RPC of each service (an empty request: the token is refused first).
  std::ifstream port_file(root_ / "port");
  std::string port;
  port_file >> port;
  grpc::GenericStub stub(
      grpc::CreateChannel("127.0.0.1:" + port, grpc::InsecureChannelCredentials()));
  const std::string unknown = "bbo_team_" + std::string(43, 'A');
  std::vector<std::string> methods;
  // Links the organizer service's descriptors into this test (a static library's object file
  // is linked only when something in it is used).
  ASSERT_EQ(bbo::v1::PublishBoardRequest::descriptor()->file()->service_count(), 1);
  for (const char* service : {"bbo.v1.StudyService", "bbo.v1.WorkerService",
                              "bbo.v1.CompetitionService", "bbo.v1.ScoringService",
                              "bbo.v1.OrganizerService"}) {
    const google::protobuf::ServiceDescriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
    ASSERT_NE(d, nullptr) << service;
    for (int i = 0; i < d->method_count(); ++i) {
      methods.push_back(d->method(i)->name());
      for (const std::string& header : {"Bearer " + unknown, std::string("Basic abc")}) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
        ctx.AddMetadata("authorization", header);
        grpc::Slice empty("");  // an empty request: every field at its default
        grpc::ByteBuffer request(&empty, 1), response;
        std::promise<grpc::Status> done;
        stub.UnaryCall(&ctx, std::string("/") + service + "/" + methods.back(),
                       grpc::StubOptions(), &request, &response,
                       [&](grpc::Status s) { done.set_value(std::move(s)); });
        const grpc::Status s = done.get_future().get();
        EXPECT_EQ(s.error_code(), Code::UNAUTHENTICATED) << methods.back() << " " << header;
      }
    }
  }
  ASSERT_EQ(methods.size(), 41u);
  audit = AuditRefusals(db_);
  for (const std::string& method : methods) {
    int unknown_tokens = 0, not_bearer = 0;
    for (const std::string& a : audit) {
      if (a.rfind("anonymous|" + method + "|", 0) != 0) continue;
      unknown_tokens += a.find("the token is not known here") != std::string::npos;
      not_bearer += a.find("must be \"Bearer <token>\"") != std::string::npos;
    }
    EXPECT_EQ(unknown_tokens, 1) << method;
    EXPECT_EQ(not_bearer, 1) << method;
  }
}

TEST_F(AuthTest, EachCallerHasItsOwnRateLimit) {
  StartServer({"--rate_limit_per_s=2", "--rate_limit_burst=3"});
  auto list = [&](const std::string& token) {
    grpc::ClientContext ctx;
    As(ctx, token);
    bbo::v1::ListSubmissionsResponse resp;
    return competition_->ListSubmissions(&ctx, bbo::v1::ListSubmissionsRequest(), &resp);
  };
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(list(tokens_["alpha"]).ok()) << i;
  grpc::Status over = list(tokens_["alpha"]);
  EXPECT_EQ(over.error_code(), Code::RESOURCE_EXHAUSTED);
  EXPECT_THAT(over.error_message(), HasSubstr("at most 2 calls per second"));
  EXPECT_THAT(over.error_message(), HasSubstr("team:alpha"));
  // Another team is not slowed down by alpha.
  EXPECT_TRUE(list(tokens_["beta"]).ok());
  // A second later alpha may call again.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(list(tokens_["alpha"]).ok());
}

TEST_F(AuthTest, OversizedRequestsAreRefusedNamingTheLimit) {
  // A worker token registering 10^9 slots or a 10 MB host name.
  for (auto [host, slots, field] : {std::tuple{std::string("h"), 1000000000, "slots"},
                                    std::tuple{std::string(10 << 20, 'h'), 1, "hostname"}}) {
    grpc::ClientContext ctx;
    As(ctx, tokens_["w1"]);
    bbo::v1::RegisterWorkerRequest req;
    req.set_hostname(host);
    req.set_slots(slots);
    bbo::v1::RegisterWorkerResponse resp;
    grpc::Status s = worker_->RegisterWorker(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), Code::INVALID_ARGUMENT) << field;
    EXPECT_THAT(s.error_message(), HasSubstr(field));
  }
  // A 100 MB request (a categorical value, an archive) is refused before it is buffered.
  grpc::ClientContext ctx;
  As(ctx, tokens_["alpha"]);
  bbo::v1::RegisterSubmissionRequest req;
  req.set_name("huge");
  req.set_archive(std::string(100 << 20, 'x'));
  bbo::v1::RegisterSubmissionResponse resp;
  EXPECT_EQ(competition_->RegisterSubmission(&ctx, req, &resp).error_code(),
            Code::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Snapshot(db_).find("huge"), std::string::npos);
}

}  // namespace
