// The gRPC handlers over a real Coordinator on a temporary SQLite file, in a hidden phase:
// called directly with the Identity a test gives each call (CallIdentities::Set, the seam the
// authentication interceptor fills in a server), and then every RPC of every bbo.v1 service
// through a real in-process server, which authenticates, times and audits each call in one
// place (authenticate.h).

#include "server/rpc/services.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/archive.h"
#include "common/utf8.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "server/rpc/grpc_server.h"
#include "server/rpc/status.h"

namespace bbo::rpc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Code = grpc::StatusCode;

// y = (x - 0.25)^2 on [-1, 1].
class Quadratic : public BuiltinProblem {
 public:
  Quadratic()
      : BuiltinProblem("quad", "(x - 0.25)^2",
                       {{"x", {{"type", "real"}, {"space", "linear"}, {"range", {-1.0, 1.0}}}}},
                       0.0) {}
  double Evaluate(const Point& p) const override {
    const double d = std::get<double>(p.at("x")) - 0.25;
    return d * d;
  }
};

class ServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("bbo_services_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    CoordinatorOptions o;
    o.db_path = (root_ / "arena.sqlite").string();
    o.run_baseline = false;
    o.hidden_phase = true;
    o.study.budget.batch_size = 2;
    o.study.budget.n_batches = 2;
    o.competition.baseline_trials = 1;
    o.competition.default_trials = 1;
    std::vector<std::unique_ptr<Problem>> problems;
    problems.push_back(std::make_unique<Quadratic>());
    auto c = Coordinator::Create(o, std::move(problems));
    ASSERT_TRUE(c.ok()) << c.status();
    co_ = *std::move(c);
    study_ = std::make_unique<StudyServiceImpl>(&co_->studies(), &co_->competition(), &calls_);
    worker_ = std::make_unique<WorkerServiceImpl>(&co_->queue(), &calls_);
    competition_ = std::make_unique<CompetitionServiceImpl>(&co_->competition(), &calls_);
    scoring_ = std::make_unique<ScoringServiceImpl>(&co_->competition(), &calls_);
    std::ofstream(root_ / "sub" / "optimizer.py") << "print('hi')\n";
    archive_ = *TarDirectory((root_ / "sub").string());
  }
  void TearDown() override {
    co_.reset();
    fs::remove_all(root_);
  }

  // Calls `handler` of `service` with `req` as `who` (an Identity or a refusal).
  template <typename Service, typename Req, typename Resp>
  grpc::Status Call(absl::StatusOr<Identity> who, Service* service,
                    grpc::Status (Service::*handler)(grpc::ServerContext*, const Req*, Resp*),
                    const Req& req, Resp* resp) {
    grpc::ServerContext ctx;
    calls_.Set(&ctx, std::move(who));
    grpc::Status s = (service->*handler)(&ctx, &req, resp);
    calls_.Release(&ctx, nullptr);
    return s;
  }

  std::vector<AuditRecord> Refusals() {
    std::vector<AuditRecord> out;
    absl::StatusOr<std::vector<AuditRecord>> all = co_->store().ListAudit(10000);
    EXPECT_TRUE(all.ok()) << all.status();
    if (!all.ok()) return out;
    for (AuditRecord& a : *all) {
      if (!a.allowed) out.push_back(std::move(a));
    }
    return out;
  }

  fs::path root_;
  std::unique_ptr<Coordinator> co_;
  CallIdentities calls_;
  std::unique_ptr<StudyServiceImpl> study_;
  std::unique_ptr<WorkerServiceImpl> worker_;
  std::unique_ptr<CompetitionServiceImpl> competition_;
  std::unique_ptr<ScoringServiceImpl> scoring_;
  std::string archive_;
};

TEST_F(ServicesTest, HandlersAnswerAsTheDomainRulesForTheCallersIdentity) {
  const Identity alpha = Identity::Team("alpha");
  // A team submits; another team does not see it; an anonymous caller or a worker may not submit.
  v1::RegisterSubmissionRequest reg;
  reg.set_name("alpha-1");
  reg.set_archive(archive_);
  v1::RegisterSubmissionResponse registered;
  grpc::Status s = Call(alpha, competition_.get(), &CompetitionServiceImpl::RegisterSubmission,
                        reg, &registered);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_GT(registered.submission_id(), 0);
  EXPECT_EQ(registered.jobs(), 1);
  v1::RegisterSubmissionResponse refused;
  reg.set_name("anon-1");
  EXPECT_EQ(Call(Identity::Anonymous(), competition_.get(),
                 &CompetitionServiceImpl::RegisterSubmission, reg, &refused)
                .error_code(),
            Code::UNAUTHENTICATED);
  EXPECT_EQ(Call(Identity::Worker("host-1"), competition_.get(),
                 &CompetitionServiceImpl::RegisterSubmission, reg, &refused)
                .error_code(),
            Code::PERMISSION_DENIED);
  v1::ListSubmissionsResponse mine, theirs;
  ASSERT_TRUE(Call(alpha, competition_.get(), &CompetitionServiceImpl::ListSubmissions,
                   v1::ListSubmissionsRequest(), &mine)
                  .ok());
  ASSERT_EQ(mine.submissions_size(), 1);
  EXPECT_EQ(mine.submissions(0).name(), "alpha-1");
  EXPECT_EQ(mine.submissions(0).team(), "alpha");
  ASSERT_TRUE(Call(Identity::Team("beta"), competition_.get(),
                   &CompetitionServiceImpl::ListSubmissions, v1::ListSubmissionsRequest(),
                   &theirs)
                  .ok());
  EXPECT_EQ(theirs.submissions_size(), 0);

  // The hidden phase's problems and scoring reports are the organizers' only.
  v1::ListProblemsResponse problems;
  grpc::Status listed = Call(alpha, study_.get(), &StudyServiceImpl::ListProblems,
                             v1::ListProblemsRequest(), &problems);
  EXPECT_EQ(listed.error_code(), Code::PERMISSION_DENIED);
  EXPECT_THAT(listed.error_message(), HasSubstr("the problems"));
  EXPECT_EQ(problems.problems_size(), 0);
  ASSERT_TRUE(Call(Identity::Organizer(), study_.get(), &StudyServiceImpl::ListProblems,
                   v1::ListProblemsRequest(), &problems)
                  .ok());
  ASSERT_EQ(problems.problems_size(), 1);
  EXPECT_EQ(problems.problems(0).name(), "quad");
  v1::GetReportRequest report_req;
  report_req.set_bootstrap_replicates(10);
  v1::GetReportResponse report;
  grpc::Status reported =
      Call(alpha, scoring_.get(), &ScoringServiceImpl::GetReport, report_req, &report);
  EXPECT_EQ(reported.error_code(), Code::PERMISSION_DENIED);
  EXPECT_THAT(reported.error_message(), HasSubstr("the scoring reports"));
  EXPECT_EQ(report.files_size(), 0);

  // The overall leaderboard is open, its per-problem results are not.
  ASSERT_TRUE(co_->baseline().RunPending().ok());
  v1::GetLeaderboardResponse team_board, organizer_board;
  grpc::Status board = Call(alpha, competition_.get(), &CompetitionServiceImpl::GetLeaderboard,
                            v1::GetLeaderboardRequest(), &team_board);
  ASSERT_TRUE(board.ok()) << board.error_message();
  ASSERT_GE(team_board.rows_size(), 1);
  EXPECT_EQ(team_board.rows(0).problems_size(), 0);
  EXPECT_THAT(team_board.report_json(), IsEmpty());
  ASSERT_TRUE(Call(Identity::Organizer(), competition_.get(),
                   &CompetitionServiceImpl::GetLeaderboard, v1::GetLeaderboardRequest(),
                   &organizer_board)
                  .ok());
  ASSERT_GE(organizer_board.rows_size(), 1);
  EXPECT_EQ(organizer_board.rows(0).problems_size(), 1);
  EXPECT_THAT(organizer_board.report_json(), HasSubstr("quad"));
}

// What authentication answered (a bad token, a caller over its rate limit) is what the handler
// answers, before any domain call; a call nobody authenticated is refused as a server bug.
TEST_F(ServicesTest, HandlersReturnTheRefusalOfAuthenticationAndNeedAnAuthenticatedCall) {
  v1::RegisterSubmissionRequest reg;
  reg.set_name("x-1");
  reg.set_archive(archive_);
  v1::RegisterSubmissionResponse resp;
  grpc::Status s =
      Call(absl::StatusOr<Identity>(absl::UnauthenticatedError("the token was revoked")),
           competition_.get(), &CompetitionServiceImpl::RegisterSubmission, reg, &resp);
  EXPECT_EQ(s.error_code(), Code::UNAUTHENTICATED);
  EXPECT_EQ(s.error_message(), "the token was revoked");
  s = Call(absl::StatusOr<Identity>(absl::ResourceExhaustedError("slow down")), competition_.get(),
           &CompetitionServiceImpl::RegisterSubmission, reg, &resp);
  EXPECT_EQ(s.error_code(), Code::RESOURCE_EXHAUSTED);
  v1::ListSubmissionsResponse list;
  ASSERT_TRUE(Call(Identity::Organizer(), competition_.get(),
                   &CompetitionServiceImpl::ListSubmissions, v1::ListSubmissionsRequest(), &list)
                  .ok());
  for (const v1::SubmissionStatus& sub : list.submissions()) {
    EXPECT_NE(sub.name(), "x-1") << "a refused caller registered a submission";
  }

  grpc::ServerContext unauthenticated;
  const v1::GetCompetitionRequest comp_req;
  v1::GetCompetitionResponse comp;
  s = competition_->GetCompetition(&unauthenticated, &comp_req, &comp);
  EXPECT_EQ(s.error_code(), Code::INTERNAL);
  EXPECT_THAT(s.error_message(), HasSubstr("not authenticated"));
  EXPECT_EQ(calls_.size(), 0u);
}

// Every RPC of every bbo.v1 service, on a real server: a bad token is refused
// (UNAUTHENTICATED) and audited with the method's name, whatever the handler; every handler
// asks for its caller (a handler that does not is answered INTERNAL by the interceptor); a
// domain refusal is audited with the caller; every call is timed under its method's name.
TEST_F(ServicesTest, ContactsAreSetAndReadAsTheDomainAllows) {
  const Identity alpha = Identity::Team("alpha");
  v1::SetContactRequest set;
  set.set_email("alpha@example.org");
  v1::SetContactResponse stored;
  grpc::Status s = Call(alpha, competition_.get(), &CompetitionServiceImpl::SetContact, set,
                        &stored);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(stored.contact().team(), "alpha");
  EXPECT_EQ(stored.contact().email(), "alpha@example.org");
  set.set_team("beta");
  EXPECT_EQ(Call(alpha, competition_.get(), &CompetitionServiceImpl::SetContact, set, &stored)
                .error_code(),
            Code::PERMISSION_DENIED);
  set.set_team("");
  set.set_webhook_url("file:///etc/passwd");
  EXPECT_EQ(Call(alpha, competition_.get(), &CompetitionServiceImpl::SetContact, set, &stored)
                .error_code(),
            Code::INVALID_ARGUMENT);
  v1::GetContactRequest get;
  get.set_team("alpha");
  v1::GetContactResponse read;
  ASSERT_TRUE(Call(Identity::Organizer(), competition_.get(), &CompetitionServiceImpl::GetContact,
                   get, &read)
                  .ok());
  EXPECT_EQ(read.contact().email(), "alpha@example.org");
  EXPECT_EQ(read.contact().webhook_url(), "");
  EXPECT_EQ(Call(Identity::Anonymous(), competition_.get(), &CompetitionServiceImpl::GetContact,
                 get, &read)
                .error_code(),
            Code::UNAUTHENTICATED);
}

// `bytes` sent as the request of `method` (any bytes: no message type in the way), with
// `authorization` as that header unless empty; the answer's status.
grpc::Status RawCall(grpc::GenericStub& stub, const std::string& method, const std::string& bytes,
                     const std::string& authorization) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  if (!authorization.empty()) ctx.AddMetadata("authorization", authorization);
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) { done.set_value(std::move(s)); });
  return done.get_future().get();
}

TEST_F(ServicesTest, EveryRpcIsAuthenticatedTimedAndItsRefusalsAudited) {
  GrpcServerOptions options;
  auto server = GrpcServer::Start(co_.get(), options);
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::GenericStub stub(
      grpc::CreateChannel((*server)->target(), grpc::InsecureChannelCredentials()));
  auto call = [&](const std::string& method, const std::string& token) {
    return RawCall(stub, method, "", token);  // an empty request: every field at its default
  };
  const std::string unknown = "Bearer bbo_team_" + std::string(43, 'A');
  std::vector<std::string> methods;
  for (const char* service :
       {v1::StudyService::service_full_name(), v1::WorkerService::service_full_name(),
        v1::CompetitionService::service_full_name(), v1::ScoringService::service_full_name()}) {
    const google::protobuf::ServiceDescriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
    ASSERT_NE(d, nullptr) << service;
    for (int i = 0; i < d->method_count(); ++i) {
      const std::string method = d->method(i)->name();
      methods.push_back(method);
      const std::string path = std::string("/") + service + "/" + method;
      for (const std::string& token : {unknown, std::string("Basic x")}) {
        grpc::Status bad = call(path, token);
        EXPECT_EQ(bad.error_code(), Code::UNAUTHENTICATED) << path << ": " << bad.error_message();
      }
      // Without a token the handler runs: whatever it answers, it asked who was calling.
      grpc::Status anonymous = call(path, "");
      EXPECT_THAT(anonymous.error_message(), Not(HasSubstr("did not authenticate"))) << path;
    }
  }
  EXPECT_EQ(methods.size(), 23u);
  // A method this server does not have (a newer client) is not intercepted.
  EXPECT_EQ(call("/bbo.v1.StudyService/NoSuchMethod", unknown).error_code(), Code::UNIMPLEMENTED);
  const std::string alpha = *co_->credentials().Issue(CredentialKind::kTeam, "alpha");
  EXPECT_EQ(call("/bbo.v1.StudyService/ListProblems", "Bearer " + alpha).error_code(),
            Code::PERMISSION_DENIED);
  (*server)->Shutdown();

  const std::vector<AuditRecord> refusals = Refusals();
  for (const std::string& method : methods) {
    int unknown_tokens = 0, malformed = 0;
    for (const AuditRecord& a : refusals) {
      if (a.action != method || a.who != "anonymous") continue;
      unknown_tokens += absl::StrContains(a.detail, "127.0.0.1") &&
                        absl::StrContains(a.detail, ": the token is not known here");
      malformed += absl::StrContains(a.detail, "must be \"Bearer <token>\"");
    }
    EXPECT_EQ(unknown_tokens, 1) << method;
    EXPECT_EQ(malformed, 1) << method;
  }
  int team_refusals = 0;
  for (const AuditRecord& a : refusals) {
    if (a.action == "ListProblems" && a.who == "team:alpha") {
      ++team_refusals;
      EXPECT_THAT(a.detail, HasSubstr("the problems"));
    }
  }
  EXPECT_EQ(team_refusals, 1);
  const std::string metrics = co_->metrics().Render(MetricsGauges());
  for (const std::string& method : methods) {
    EXPECT_THAT(metrics, HasSubstr("bbo_rpc_duration_seconds_count{method=\"" + method + "\"}"))
        << method;
  }
}

// A request that cannot be parsed (a varint that never ends, a string that is not UTF-8) is
// the client's error, answered INVALID_ARGUMENT by every method for every caller. Before the fix
// gRPC's own INTERNAL answer (the handler never runs) was taken for a handler that forgot to
// authenticate: each such call logged "BUG" and answered INTERNAL, so anyone could fill the
// coordinator's error log.
TEST_F(ServicesTest, AnUnparsableRequestIsTheClientsErrorNotTheServers) {
  GrpcServerOptions options;
  auto server = GrpcServer::Start(co_.get(), options);
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::GenericStub stub(
      grpc::CreateChannel((*server)->target(), grpc::InsecureChannelCredentials()));
  auto call = [&](const std::string& method, const std::string& bytes, const std::string& token) {
    return RawCall(stub, method, bytes, token.empty() ? "" : "Bearer " + token);
  };
  const std::string endless_varint = std::string("\x08", 1) + std::string(64, '\xff');
  // OpenStudyRequest.problem (field 2) holding bytes that are not UTF-8.
  const std::string not_utf8 = std::string("\x12\x02\xff\xfe", 4);
  const std::string team = *co_->credentials().Issue(CredentialKind::kTeam, "alpha");
  int methods = 0;
  for (const char* service :
       {v1::StudyService::service_full_name(), v1::WorkerService::service_full_name(),
        v1::CompetitionService::service_full_name(), v1::ScoringService::service_full_name()}) {
    const google::protobuf::ServiceDescriptor* d =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
    ASSERT_NE(d, nullptr) << service;
    for (int i = 0; i < d->method_count(); ++i, ++methods) {
      const std::string path = std::string("/") + service + "/" + d->method(i)->name();
      for (const std::string& token : {std::string(), team}) {
        const grpc::Status s = call(path, endless_varint, token);
        EXPECT_EQ(s.error_code(), Code::INVALID_ARGUMENT) << path << ": " << s.error_message();
        EXPECT_THAT(s.error_message(), HasSubstr("could not be parsed")) << path;
      }
    }
  }
  EXPECT_EQ(methods, 23);
  const grpc::Status s = call("/bbo.v1.StudyService/OpenStudy", not_utf8, team);
  EXPECT_EQ(s.error_code(), Code::INVALID_ARGUMENT) << s.error_message();
  // The server is still well: a parsable request is answered by its handler.
  EXPECT_EQ(call("/bbo.v1.StudyService/ListProblems", "", team).error_code(),
            Code::PERMISSION_DENIED);
  (*server)->Shutdown();
}

// An error never echoes its input whole: a 10 MiB problem name (as the issue's attack sent it)
// comes back as NOT_FOUND with the name cut, not as a 10 MB message a default client refuses
// (RESOURCE_EXHAUSTED); and every status message leaves at most 8 KiB, cut on a UTF-8 boundary.
TEST_F(ServicesTest, AnErrorNeverEchoesAHugeInput) {
  GrpcServerOptions options;
  auto server = GrpcServer::Start(co_.get(), options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::StudyService::NewStub(
      grpc::CreateChannel((*server)->target(), grpc::InsecureChannelCredentials()));
  // An organizer (this phase's problems are hidden from teams, who are refused first).
  const std::string ops = *co_->credentials().Issue(CredentialKind::kOrganizer, "ops");
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  ctx.AddMetadata("authorization", "Bearer " + ops);
  v1::OpenStudyRequest req;
  req.set_problem(std::string(10 << 20, 'x'));
  v1::OpenStudyResponse resp;
  const grpc::Status s = stub->OpenStudy(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), Code::NOT_FOUND) << s.error_message().substr(0, 200);
  EXPECT_LT(s.error_message().size(), 512u);
  EXPECT_THAT(s.error_message(), HasSubstr("unknown problem \"xxx"));
  (*server)->Shutdown();

  std::string long_message;
  for (int i = 0; i < 10001; ++i) long_message += "\xc3\xa9";  // "é" x 10001
  const grpc::Status cut = ToGrpcStatus(absl::InvalidArgumentError(long_message));
  EXPECT_EQ(cut.error_code(), Code::INVALID_ARGUMENT);
  EXPECT_LE(cut.error_message().size(), kMaxMessageBytes + 6);
  EXPECT_TRUE(absl::EndsWith(cut.error_message(), "\xc3\xa9 [cut]"));
  EXPECT_TRUE(IsValidUtf8(cut.error_message()));
}

// A NOT_FOUND that hides another party's study is a refusal like any other: audited with the
// caller and the method (before the fix only UNAUTHENTICATED and PERMISSION_DENIED were).
TEST_F(ServicesTest, AnotherPartysStudyIsRefusedAsUnknownAndAudited) {
  GrpcServerOptions options;
  auto server = GrpcServer::Start(co_.get(), options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::StudyService::NewStub(
      grpc::CreateChannel((*server)->target(), grpc::InsecureChannelCredentials()));
  // The study is an organizer's (this phase's problems are hidden from teams).
  const std::string alpha = *co_->credentials().Issue(CredentialKind::kOrganizer, "ops");
  const std::string beta = *co_->credentials().Issue(CredentialKind::kTeam, "beta");
  auto as = [](grpc::ClientContext& ctx, const std::string& token) {
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    ctx.AddMetadata("authorization", "Bearer " + token);
  };
  v1::ListProblemsResponse problems;
  {
    grpc::ClientContext ctx;
    as(ctx, alpha);
    ASSERT_TRUE(stub->ListProblems(&ctx, v1::ListProblemsRequest(), &problems).ok());
  }
  ASSERT_GT(problems.problems_size(), 0);
  v1::OpenStudyResponse opened;
  {
    grpc::ClientContext ctx;
    as(ctx, alpha);
    v1::OpenStudyRequest req;
    req.set_problem(problems.problems(0).name());
    const grpc::Status s = stub->OpenStudy(&ctx, req, &opened);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  grpc::ClientContext ctx;
  as(ctx, beta);
  v1::EndStudyRequest end;
  end.set_study_id(opened.study_id());
  v1::EndStudyResponse ended;
  const grpc::Status refused = stub->EndStudy(&ctx, end, &ended);
  EXPECT_EQ(refused.error_code(), Code::NOT_FOUND);
  EXPECT_EQ(refused.error_message(), "unknown study " + std::to_string(opened.study_id()));
  (*server)->Shutdown();
  int audited = 0;
  for (const AuditRecord& a : Refusals()) {
    audited += a.action == "EndStudy" && a.who == "team:beta" &&
               absl::StrContains(a.detail, "unknown study");
  }
  EXPECT_EQ(audited, 1);
}

// Item 8 of issue 34: wrong tokens from one address, on a real server on 127.0.0.1 (loopback
// counted here, as a reverse proxy's forwarded address would be): the first ones are refused
// UNAUTHENTICATED and audited, then RESOURCE_EXHAUSTED without an audit row; a valid token
// from the same address still works.
TEST(RefusedTokensTest, AnAddressSendingWrongTokensIsBoundedAndWritesFewAuditRows) {
  const fs::path root =
      fs::temp_directory_path() / ("bbo_refused_tokens_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  CoordinatorOptions o;
  o.db_path = (root / "arena.sqlite").string();
  o.run_baseline = false;
  o.credentials.bound_loopback = true;
  o.credentials.refusal_burst = 5;
  o.credentials.refusal_refill_seconds = 3600;
  std::vector<std::unique_ptr<Problem>> problems;
  problems.push_back(std::make_unique<Quadratic>());
  auto co = Coordinator::Create(o, std::move(problems));
  ASSERT_TRUE(co.ok()) << co.status();
  const std::string alpha = *(*co)->credentials().Issue(CredentialKind::kTeam, "alpha");
  auto server = GrpcServer::Start(co->get(), GrpcServerOptions());
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::GenericStub stub(
      grpc::CreateChannel((*server)->target(), grpc::InsecureChannelCredentials()));
  const std::string method = "/bbo.v1.CompetitionService/ListSubmissions";
  const std::string unknown = "Bearer bbo_team_" + std::string(43, 'A');
  std::vector<Code> codes;
  for (int i = 0; i < 40; ++i) codes.push_back(RawCall(stub, method, "", unknown).error_code());
  EXPECT_EQ(std::count(codes.begin(), codes.end(), Code::UNAUTHENTICATED), 5);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), Code::RESOURCE_EXHAUSTED), 35);
  const grpc::Status over = RawCall(stub, method, "", unknown);
  EXPECT_THAT(over.error_message(), HasSubstr("too many refused tokens"));
  EXPECT_TRUE(RawCall(stub, method, "", "Bearer " + alpha).ok());
  (*server)->Shutdown();
  int rows = 0;
  for (const AuditRecord& a : *(*co)->store().ListAudit(100000)) {
    rows += !a.allowed && a.action == "ListSubmissions";
  }
  EXPECT_EQ(rows, 5);
  co->reset();
  fs::remove_all(root);
}

}  // namespace
}  // namespace bbo::rpc
