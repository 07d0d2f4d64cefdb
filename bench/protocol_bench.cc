// Protocol benchmark. BM_BatchRoundTrip: StudyService.SubmitBatch over real gRPC on 127.0.0.1 —
// 8 suggestions in, validation, evaluation of a trivial problem, one SQLite transaction with the
// batch's 8 evaluations, 8 values out. BM_BareEcho: a gRPC service that returns the same payload
// without doing anything. Their ratio is the protocol's overhead over the transport
// (goal: <= 3x). run_protocol_bench.sh prints it. Each case runs 2 s unless
// --benchmark_min_time=S says otherwise; a case that fails makes the exit status 1.

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bbo/bench/echo.grpc.pb.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "benchmark/benchmark.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server_builder.h"
#include "server/coordinator.h"
#include "problems/test_problems.h"
#include "server/rpc/grpc_server.h"

namespace {

// Google Benchmark reports a case that called SkipWithError and exits 0 all the same: every case
// fails through Fail(), and main exits non-zero when one did.
std::atomic<bool> g_failed{false};
std::mutex g_failures_mu;
std::string g_failures;  // "case: why; ..." (guarded by g_failures_mu)

void Fail(benchmark::State& state, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(g_failures_mu);
    g_failures += why + "; ";
  }
  g_failed = true;
  state.SkipWithError(why.c_str());
}

class EchoImpl final : public bbo::bench::Echo::Service {
  grpc::Status Echo(grpc::ServerContext*, const bbo::v1::SubmitBatchRequest* req,
                    bbo::v1::SubmitBatchResponse* resp) override {
    for (const auto& s : req->suggestions()) {
      *resp->add_evaluated() = s;
      resp->add_values(0.5);
    }
    resp->set_remaining_s(640);
    return grpc::Status::OK;
  }
};

bbo::v1::SubmitBatchRequest MakeRequest(int64_t study_id) {
  bbo::v1::SubmitBatchRequest req;
  req.set_study_id(study_id);
  for (int i = 0; i < 8; ++i) {
    auto* s = req.add_suggestions();
    (*s->mutable_params())["x0"].set_real_value(0.1 * i - 0.3);
    (*s->mutable_params())["x1"].set_real_value(0.05 * i);
  }
  return req;
}

void BM_BareEcho(benchmark::State& state) {
  EchoImpl impl;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&impl);
  auto server = builder.BuildAndStart();
  auto stub = bbo::bench::Echo::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  bbo::v1::SubmitBatchRequest req = MakeRequest(1);
  for (auto _ : state) {
    grpc::ClientContext ctx;
    bbo::v1::SubmitBatchResponse resp;
    grpc::Status s = stub->Echo(&ctx, req, &resp);
    if (!s.ok() || resp.values_size() != 8) {
      Fail(state,
           "BM_BareEcho: " + (s.ok() ? std::string("wrong value count") : s.error_message()));
      break;
    }
  }
  server->Shutdown();
}
// No MinTime() here: it would override --benchmark_min_time (main sets the 2 s default).
BENCHMARK(BM_BareEcho)->UseRealTime();

void BM_BatchRoundTrip(benchmark::State& state) {
  std::string db = (std::filesystem::temp_directory_path() / "bbo_protocol_bench.sqlite").string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  bbo::CoordinatorOptions opts;
  opts.db_path = db;
  opts.study.budget.n_batches = 1 << 30;  // one long study: no re-opening inside the loop
  opts.study.budget.suggest_budget_s = 1e9;
  opts.study.budget.study_budget_s = 1e12;
  opts.run_baseline = false;
  opts.eval_threads = 1;
  std::vector<std::unique_ptr<bbo::Problem>> problems;
  problems.push_back(bbo::MakeTrivialProblem(2));
  std::string name = problems[0]->name();
  auto coordinator = bbo::Coordinator::Create(opts, std::move(problems));
  if (!coordinator.ok()) {
    Fail(state, "BM_BatchRoundTrip: coordinator: " + coordinator.status().ToString());
    return;
  }
  bbo::rpc::GrpcServerOptions listen;
  listen.address = "127.0.0.1:0";
  // One client as fast as it can: the per-caller rate limit (200 calls/s) is not what is measured.
  listen.rate_limit_per_s = 0;
  auto server = bbo::rpc::GrpcServer::Start(coordinator->get(), listen);
  if (!server.ok()) {
    Fail(state, "BM_BatchRoundTrip: server: " + server.status().ToString());
    return;
  }
  auto stub = bbo::v1::StudyService::NewStub(
      grpc::CreateChannel((*server)->target(), grpc::InsecureChannelCredentials()));
  // A team's token, as every real client has (the coordinator refuses anonymous practice).
  absl::StatusOr<std::string> token =
      (*coordinator)->credentials().Issue(bbo::CredentialKind::kTeam, "bench");
  if (!token.ok()) {
    Fail(state, "BM_BatchRoundTrip: token: " + token.status().ToString());
    return;
  }
  const std::string bearer = "Bearer " + *token;
  grpc::ClientContext octx;
  octx.AddMetadata("authorization", bearer);
  bbo::v1::OpenStudyRequest open;
  open.set_problem(name);
  bbo::v1::OpenStudyResponse opened;
  if (const grpc::Status s = stub->OpenStudy(&octx, open, &opened); !s.ok()) {
    Fail(state, "BM_BatchRoundTrip: open: " + s.error_message());
    return;
  }
  bbo::v1::SubmitBatchRequest req = MakeRequest(opened.study_id());
  int batch = 0;
  for (auto _ : state) {
    req.set_batch(batch++);
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", bearer);
    bbo::v1::SubmitBatchResponse resp;
    grpc::Status s = stub->SubmitBatch(&ctx, req, &resp);
    if (!s.ok() || resp.values_size() != 8 || resp.errors_size() != 0) {
      Fail(state,
           "BM_BatchRoundTrip: " + (s.ok() ? std::string("invalid batch") : s.error_message()));
      break;
    }
  }
  state.counters["sqlite_rows_per_batch"] = 8 + 1;
  (*server)->Shutdown();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
}
BENCHMARK(BM_BatchRoundTrip)->UseRealTime();

}  // namespace

// BENCHMARK_MAIN, with 2 s per case unless --benchmark_min_time says otherwise (the smoke's short
// run: bench/run_protocol_bench.sh --smoke), and a non-zero exit when a case failed.
int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  bool min_time_given = false;
  for (int i = 1; i < argc; ++i) {
    min_time_given |= std::string_view(argv[i]).rfind("--benchmark_min_time", 0) == 0;
  }
  std::string default_min_time = "--benchmark_min_time=2";
  if (!min_time_given) args.insert(args.begin() + 1, default_min_time.data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_failed) {
    std::lock_guard<std::mutex> lock(g_failures_mu);
    std::fprintf(stderr, "protocol_bench: FAILED: %sno figure for a failed case\n",
                 g_failures.c_str());
    return 1;
  }
  return 0;
}
