// The remote clients of the soak run (bench/soak.py; issue 24). For --seconds it drives a
// coordinator over gRPC as participants' clients do, through coordinator restarts:
//
//  * --clients practice clients, each looping OpenStudy -> SubmitBatch x n_batches on random
//    valid points at --batches_per_s. A call that meets UNAVAILABLE (the coordinator is down) or
//    its own deadline is retried with the same request_id, as a real client retries; every
//    batch the coordinator answered is appended to --acked ("study batch value..." per line,
//    values printed exactly) so the driver can check that none was lost or doubled.
//  * one malformed-traffic thread sending --malformed_per_s calls that no client should send:
//    random bytes, truncated or over-long messages, varints that never end, nested groups,
//    unknown methods, missing, wrong and over-long tokens, once a minute 20 MiB of garbage.
//
// Prints one JSON object of counts on stdout. Exits 1 when a well-formed call got an answer no
// coordinator should give it (INTERNAL, UNKNOWN, INVALID_ARGUMENT, a batch of the wrong size,
// a retry that never got through), 2 on bad arguments, else 0.
//
//   soak_client --target=127.0.0.1:PORT --token_file=F --seconds=S --acked=FILE
//               [--clients=4] [--batches_per_s=10] [--problems=branin,warped_mix]
//               [--malformed_per_s=4] [--seed=1]

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "bench/random_points.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "nlohmann/json.hpp"

ABSL_FLAG(std::string, target, "", "Coordinator address, host:port.");
ABSL_FLAG(std::string, token_file, "", "A team's token (practice studies need one).");
ABSL_FLAG(double, seconds, 60, "How long to start new batches.");
ABSL_FLAG(std::string, acked, "", "File the answered batches are appended to.");
ABSL_FLAG(int, clients, 4, "Practice clients, one thread each.");
ABSL_FLAG(double, batches_per_s, 10, "Batches per second per client.");
ABSL_FLAG(std::string, problems, "branin,warped_mix", "Practice problems the clients open.");
ABSL_FLAG(double, malformed_per_s, 4, "Malformed calls per second (0: none).");
ABSL_FLAG(uint64_t, seed, 1, "Random seed.");

namespace {

using Clock = std::chrono::steady_clock;
using bbo::v1::StudyService;

constexpr auto kCallDeadline = std::chrono::seconds(10);
// A retried call gives up this long after the run's end (a restart late in the run).
constexpr auto kGiveUpAfterEnd = std::chrono::seconds(120);

struct Options {
  std::string target, bearer;
  Clock::time_point stop;
  int clients = 4;
  double batches_per_s = 10, malformed_per_s = 4;
  std::vector<std::string> problems;
  uint64_t seed = 1;
};

// Counts shared by the threads.
class Counts {
 public:
  void Add(const std::string& key, long n = 1) {
    std::lock_guard<std::mutex> l(mu_);
    counts_[key] += n;
  }
  // A well-formed call answered as no coordinator should: the run fails.
  void Unexpected(const std::string& what, const grpc::Status& s) {
    std::lock_guard<std::mutex> l(mu_);
    counts_["unexpected"]++;
    if (first_unexpected_.empty()) {
      first_unexpected_ = absl::StrCat(what, ": code ", s.error_code(), ": ",
                                       s.error_message().substr(0, 500));
    }
  }
  void Malformed(const grpc::Status& s) {
    std::lock_guard<std::mutex> l(mu_);
    if (malformed_[s.error_code()]++ == 0) {
      malformed_first_[s.error_code()] = s.error_message().substr(0, 200);
    }
  }
  long Get(const std::string& key) {
    std::lock_guard<std::mutex> l(mu_);
    return counts_[key];
  }
  nlohmann::json ToJson() {
    std::lock_guard<std::mutex> l(mu_);
    nlohmann::json j = counts_;
    nlohmann::json m = nlohmann::json::object(), first = nlohmann::json::object();
    for (const auto& [code, n] : malformed_) m[std::to_string(code)] = n;
    for (const auto& [code, text] : malformed_first_) first[std::to_string(code)] = text;
    j["malformed_by_code"] = m;
    j["malformed_first_message"] = first;
    j["first_unexpected"] = first_unexpected_;
    return j;
  }

 private:
  std::mutex mu_;
  std::map<std::string, long> counts_;
  std::map<int, long> malformed_;
  std::map<int, std::string> malformed_first_;
  std::string first_unexpected_;
};

// The answered batches, one line each, flushed at once (the driver reads the file afterwards).
class Acked {
 public:
  explicit Acked(const std::string& path) : out_(path, std::ios::app) {}
  bool ok() const { return static_cast<bool>(out_); }
  void Write(int64_t study, int batch, const bbo::v1::SubmitBatchResponse& resp) {
    std::ostringstream line;
    line.precision(17);
    line << study << ' ' << batch;
    for (double v : resp.values()) line << ' ' << v;
    line << '\n';
    std::lock_guard<std::mutex> l(mu_);
    out_ << line.str() << std::flush;
  }

 private:
  std::mutex mu_;
  std::ofstream out_;
};

std::unique_ptr<grpc::ClientContext> Context(const std::string& bearer) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + kCallDeadline);
  if (!bearer.empty()) ctx->AddMetadata("authorization", bearer);
  return ctx;
}

// UNAVAILABLE (the coordinator is down or restarting), CANCELLED (gRPC's answer to a call that
// arrives while the coordinator shuts down: seen once in a 30-minute run, at the SIGTERM), the
// call's own deadline and a rate limit are worth a retry; anything else is the coordinator's
// answer.
bool Transient(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
         s.error_code() == grpc::StatusCode::CANCELLED ||
         s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
         (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
          s.error_message() == "Deadline Exceeded");
}

grpc::Status WithRetry(const std::function<grpc::Status()>& call, const Options& o,
                       Counts* counts) {
  const Clock::time_point give_up = o.stop + kGiveUpAfterEnd;
  for (;;) {
    grpc::Status s = call();
    if (!Transient(s)) return s;
    if (Clock::now() >= give_up) {
      counts->Unexpected("a retry that never got through", s);
      return s;
    }
    counts->Add("retries");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// One study: true when the client may go on with another one.
void RunStudy(StudyService::Stub* stub, const Options& o, int id, std::mt19937_64& rng,
              Counts* counts, Acked* acked) {
  bbo::v1::OpenStudyRequest open;
  open.set_problem(o.problems[rng() % o.problems.size()]);
  bbo::v1::OpenStudyResponse opened;
  grpc::Status s = WithRetry([&] { return stub->OpenStudy(Context(o.bearer).get(), open, &opened); },
                             o, counts);
  if (!s.ok()) {
    if (!Transient(s)) counts->Unexpected("OpenStudy " + open.problem(), s);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return;
  }
  counts->Add("studies_opened");
  const std::vector<bbo::bench::Param> space = bbo::bench::ParseApiConfig(opened.api_config_json());
  const auto period = std::chrono::duration<double>(1.0 / o.batches_per_s);
  Clock::time_point next = Clock::now();
  for (int b = 0; b < opened.n_batches(); ++b) {
    if (Clock::now() >= o.stop) {
      bbo::v1::EndStudyRequest end;
      end.set_study_id(opened.study_id());
      end.set_reason("soak client stopping");
      bbo::v1::EndStudyResponse ended;
      s = WithRetry([&] { return stub->EndStudy(Context(o.bearer).get(), end, &ended); }, o,
                    counts);
      if (!s.ok() && !Transient(s)) counts->Unexpected("EndStudy", s);
      return;
    }
    bbo::v1::SubmitBatchRequest req;
    req.set_study_id(opened.study_id());
    req.set_batch(b);
    req.set_request_id(absl::StrCat("soak-", o.seed, "-", id, "-", opened.study_id(), "-", b));
    for (int i = 0; i < opened.batch_size(); ++i) {
      bbo::bench::RandomPoint(space, rng, req.add_suggestions());
    }
    bbo::v1::SubmitBatchResponse resp;
    s = WithRetry([&] { return stub->SubmitBatch(Context(o.bearer).get(), req, &resp); }, o,
                  counts);
    if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
        s.error_code() == grpc::StatusCode::NOT_FOUND ||
        s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      counts->Add("studies_interrupted");  // a restart ended it; the driver bounds how many
      return;
    }
    if (!s.ok()) {
      if (!Transient(s)) counts->Unexpected("SubmitBatch", s);
      return;
    }
    if (resp.values_size() != opened.batch_size()) {
      counts->Unexpected("SubmitBatch answered " + std::to_string(resp.values_size()) + " values",
                         grpc::Status(grpc::StatusCode::INTERNAL, "wrong batch size"));
      return;
    }
    acked->Write(opened.study_id(), b, resp);
    counts->Add("batches");
    if (resp.study_done()) {
      counts->Add("studies_completed");
      return;
    }
    next += std::chrono::duration_cast<Clock::duration>(period);
    std::this_thread::sleep_until(next);
  }
}

void RunClient(std::shared_ptr<grpc::Channel> channel, const Options& o, int id, Counts* counts,
               Acked* acked) {
  auto stub = StudyService::NewStub(channel);
  std::mt19937_64 rng(o.seed * 1000 + id);
  while (Clock::now() < o.stop) RunStudy(stub.get(), o, id, rng, counts, acked);
}

// ---- malformed traffic ----

// Study ids far above any the run creates: the practice clients' studies are never touched.
constexpr int64_t kNoSuchStudy = int64_t{1} << 40;

std::vector<std::string> AllMethods() {
  std::vector<std::string> out;
  const auto* pool = google::protobuf::DescriptorPool::generated_pool();
  for (const char* service : {"bbo.v1.StudyService", "bbo.v1.WorkerService",
                              "bbo.v1.CompetitionService", "bbo.v1.OrganizerService",
                              "bbo.v1.ScoringService"}) {
    const google::protobuf::ServiceDescriptor* d = pool->FindServiceByName(service);
    if (d == nullptr) continue;  // not linked into this binary
    for (int i = 0; i < d->method_count(); ++i) {
      out.push_back(absl::StrCat("/", service, "/", d->method(i)->name()));
    }
  }
  out.push_back("/bbo.v1.StudyService/NoSuchMethod");
  out.push_back("/no.such.Service/Call");
  return out;
}

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// A payload no client should send; `big` only once a minute.
std::string MalformedPayload(std::mt19937_64& rng, bool big) {
  if (big) return RandomBytes(rng, 20u << 20);
  switch (rng() % 6) {
    case 0:
      return RandomBytes(rng, rng() % 4096);
    case 1: {  // a valid message with a 64 KiB problem name
      bbo::v1::OpenStudyRequest r;
      r.set_problem(std::string(64 << 10, 'x'));
      return r.SerializeAsString();
    }
    case 2: {  // a batch cut short
      bbo::v1::SubmitBatchRequest r;
      r.set_study_id(kNoSuchStudy + static_cast<int64_t>(rng() % 100000));
      for (int i = 0; i < 8; ++i) (*r.add_suggestions()->mutable_params())["x"].set_real_value(1);
      std::string s = r.SerializeAsString();
      return s.substr(0, rng() % s.size());
    }
    case 3:  // a varint that never ends
      return std::string("\x08", 1) + std::string(64, '\xff');
    case 4:  // start-group tags nested far deeper than any parser recurses
      return std::string(20000, '\x0b');
    default: {  // 100,000 empty suggestions
      bbo::v1::SubmitBatchRequest r;
      r.set_study_id(kNoSuchStudy);
      for (int i = 0; i < 100000; ++i) r.add_suggestions();
      return r.SerializeAsString();
    }
  }
}

std::string MalformedBearer(std::mt19937_64& rng, const std::string& bearer) {
  switch (rng() % 4) {
    case 0:
      return "";
    case 1:
      return "Bearer not-a-token";
    case 2:
      return "Bearer " + std::string(9000, 'A');
    default:
      return bearer;  // past authentication, into the parser
  }
}

void RunMalformed(std::shared_ptr<grpc::Channel> channel, const Options& o, Counts* counts) {
  if (o.malformed_per_s <= 0) return;
  grpc::GenericStub stub(channel);
  const std::vector<std::string> methods = AllMethods();
  std::mt19937_64 rng(o.seed * 7919);
  const auto period = std::chrono::duration<double>(1.0 / o.malformed_per_s);
  Clock::time_point next = Clock::now(), next_big = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < o.stop) {
    const bool big = Clock::now() >= next_big;
    if (big) next_big += std::chrono::seconds(60);
    const std::string payload = MalformedPayload(rng, big);
    grpc::Slice slice(payload);
    grpc::ByteBuffer request(&slice, 1), response;
    std::unique_ptr<grpc::ClientContext> ctx = Context(MalformedBearer(rng, o.bearer));
    std::promise<grpc::Status> done;
    stub.UnaryCall(ctx.get(), methods[rng() % methods.size()], grpc::StubOptions(), &request,
                   &response, [&done](grpc::Status s) { done.set_value(std::move(s)); });
    counts->Malformed(done.get_future().get());
    counts->Add("malformed_calls");
    next += std::chrono::duration_cast<Clock::duration>(period);
    std::this_thread::sleep_until(next);
  }
}

std::shared_ptr<grpc::Channel> Channel(const std::string& target, int index) {
  grpc::ChannelArguments args;
  // A restarted coordinator is found again within a second, as the worker and CLI do.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt("bbo.soak.channel", index);  // its own connection, not shared with other threads
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

bool ReadOptions(Options* o) {
  o->target = absl::GetFlag(FLAGS_target);
  std::ifstream token_in(absl::GetFlag(FLAGS_token_file));
  std::string token((std::istreambuf_iterator<char>(token_in)), std::istreambuf_iterator<char>());
  token = std::string(absl::StripAsciiWhitespace(token));
  if (o->target.empty() || token.empty() || absl::GetFlag(FLAGS_acked).empty()) {
    std::fprintf(stderr, "soak_client: --target, --token_file (a team token) and --acked are "
                         "required\n");
    return false;
  }
  o->bearer = "Bearer " + token;
  o->stop = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(absl::GetFlag(FLAGS_seconds)));
  o->clients = absl::GetFlag(FLAGS_clients);
  o->batches_per_s = absl::GetFlag(FLAGS_batches_per_s);
  o->malformed_per_s = absl::GetFlag(FLAGS_malformed_per_s);
  o->problems = absl::StrSplit(absl::GetFlag(FLAGS_problems), ',', absl::SkipEmpty());
  o->seed = absl::GetFlag(FLAGS_seed);
  return o->clients >= 0 && o->batches_per_s > 0 && !o->problems.empty();
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  Options o;
  if (!ReadOptions(&o)) return 2;
  Acked acked(absl::GetFlag(FLAGS_acked));
  if (!acked.ok()) {
    std::fprintf(stderr, "soak_client: cannot write %s\n", absl::GetFlag(FLAGS_acked).c_str());
    return 2;
  }
  Counts counts;
  std::vector<std::thread> threads;
  for (int i = 0; i < o.clients; ++i) {
    threads.emplace_back(RunClient, Channel(o.target, i), std::cref(o), i, &counts, &acked);
  }
  threads.emplace_back(RunMalformed, Channel(o.target, o.clients), std::cref(o), &counts);
  for (std::thread& t : threads) t.join();
  std::printf("%s\n", counts.ToJson().dump().c_str());
  if (counts.Get("unexpected") > 0) {
    std::fprintf(stderr, "soak_client: %ld unexpected answers\n", counts.Get("unexpected"));
    return 1;
  }
  return 0;
}
