// bbo: the bbo-arena command line for participants and organizers.
//
//   bbo local SUBMISSION_DIR [--trials N] [--json]     score locally on the practice suite
//   bbo submit SUBMISSION [--name NAME] [--team T] [--server H:P]   register a submission
//   bbo status [--server H:P] [--json]                 submissions and their progress
//   bbo leaderboard [--server H:P] [--board main|warm-start] [--json]   the leaderboard
//   bbo problems [--server H:P] [--json]               practice problems for remote studies
//   bbo score RESULTS.csv [--random-search NAME] [--json]   offline Bayesmark scoring
//   bbo export --db FILE [--out results.csv] [--board B]   a coordinator's results as CSV
//   bbo replay --db FILE (--study ID ... | --all)       re-evaluate recorded studies
//   bbo tasks design --family F --out FILE [--points N] [--seed S]   generated-task designs
//   bbo tasks list [--design FILE]                     task families (stored or designable)
//   bbo report [--server H:P | --results CSV | --db FILE] [--phase P] [--format html|json|csv]
//              [--out DIR]                             the full scoring report of a phase

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bbo/v1/competition_service.grpc.pb.h"
#include "bbo/v1/scoring_service.grpc.pb.h"
#include "bbo/v1/study_service.grpc.pb.h"
#include "client/local_run.h"
#include "client/tasks_command.h"
#include "scoring/anytime.h"
#include "scoring/bootstrap.h"
#include "scoring/borda.h"
#include "report/report.h"
#include "report/report_files.h"
#include "report/report_json.h"
#include "report/results_csv.h"
#include "server/competition.h"
#include "problems/practice_suite.h"
#include "problems/registry.h"
#include "server/replay.h"
#include "server/store/sqlite_store.h"
#include "common/archive.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "nlohmann/json.hpp"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace {

namespace fs = std::filesystem;

std::unique_ptr<bbo::v1::CompetitionService::Stub> Connect(const std::string& server) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(256 << 20);
  args.SetMaxReceiveMessageSize(256 << 20);
  return bbo::v1::CompetitionService::NewStub(
      grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), args));
}

// The organizer token for hidden phases: `bbo --token T ...` or the BBO_TOKEN environment
// variable (preferred: it does not show in the process list).
std::string g_token;

// Sets a call's deadline and, when a token is configured, its authorization metadata.
void Prepare(grpc::ClientContext& ctx, int seconds) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  if (!g_token.empty()) ctx.AddMetadata("authorization", "Bearer " + g_token);
}

int Fail(const std::string& what, const grpc::Status& s) {
  std::fprintf(stderr, "bbo: %s: %s\n", what.c_str(), s.error_message().c_str());
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::fprintf(stderr, "bbo: is bbo-server running at that address? (--server)\n");
  }
  return 1;
}

const char* KindName(bbo::v1::SubmissionKind k) {
  switch (k) {
    case bbo::v1::SUBMISSION_KIND_PYTHON: return "python";
    case bbo::v1::SUBMISSION_KIND_EXECUTABLE: return "executable";
    default: return "builtin";
  }
}

int Submit(const std::string& server, const std::string& path, std::string name, int trials,
           const std::string& team) {
  std::string archive;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    auto tar = bbo::TarDirectory(path);
    if (!tar.ok()) {
      std::fprintf(stderr, "bbo submit: %s\n", std::string(tar.status().message()).c_str());
      return 1;
    }
    archive = *std::move(tar);
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "bbo submit: cannot read %s\n", path.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    archive = ss.str();
  }
  if (name.empty()) {
    name = fs::path(path).lexically_normal().filename().string();
    for (const char* ext : {".tar.gz", ".tgz", ".zip", ".tar"}) {
      if (name.size() > strlen(ext) && name.substr(name.size() - strlen(ext)) == ext) {
        name = name.substr(0, name.size() - strlen(ext));
      }
    }
  }
  auto stub = Connect(server);
  grpc::ClientContext ctx;
  Prepare(ctx, 120);
  bbo::v1::RegisterSubmissionRequest req;
  req.set_name(name);
  req.set_archive(archive);
  req.set_trials(trials);
  req.set_team(team);
  bbo::v1::RegisterSubmissionResponse resp;
  grpc::Status s = stub->RegisterSubmission(&ctx, req, &resp);
  if (!s.ok()) return Fail("submit", s);
  std::printf("submitted %s: id %lld, kind %s, %d trials per problem, %d jobs queued\n",
              name.c_str(), static_cast<long long>(resp.submission_id()), KindName(resp.kind()),
              resp.trials(), resp.jobs());
  return 0;
}

int Status(const std::string& server, bool json) {
  auto stub = Connect(server);
  grpc::ClientContext ctx;
  Prepare(ctx, 30);
  bbo::v1::ListSubmissionsResponse resp;
  grpc::Status s = stub->ListSubmissions(&ctx, bbo::v1::ListSubmissionsRequest(), &resp);
  if (!s.ok()) return Fail("status", s);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& sub : resp.submissions()) {
      out.push_back({{"id", sub.submission_id()},
                     {"name", sub.name()},
                     {"team", sub.team()},
                     {"kind", KindName(sub.kind())},
                     {"finished", sub.state() == bbo::v1::SUBMISSION_STATE_FINISHED},
                     {"jobs_total", sub.jobs_total()},
                     {"jobs_queued", sub.jobs_queued()},
                     {"jobs_running", sub.jobs_running()},
                     {"jobs_done", sub.jobs_done()},
                     {"studies_with_errors", sub.studies_with_errors()}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-4s %-28s %-16s %-10s %-9s %7s %7s %7s %7s\n", "id", "name", "team", "kind",
              "state", "queued", "running", "done", "errors");
  for (const auto& sub : resp.submissions()) {
    std::printf("%-4lld %-28s %-16s %-10s %-9s %7d %7d %4d/%-3d %6d\n",
                static_cast<long long>(sub.submission_id()), sub.name().c_str(),
                sub.team().empty() ? "-" : sub.team().c_str(), KindName(sub.kind()),
                sub.state() == bbo::v1::SUBMISSION_STATE_FINISHED ? "finished" : "running",
                sub.jobs_queued(), sub.jobs_running(), sub.jobs_done(), sub.jobs_total(),
                sub.studies_with_errors());
  }
  return 0;
}

int Problems(const std::string& server, bool json) {
  grpc::ChannelArguments args;
  auto stub = bbo::v1::StudyService::NewStub(
      grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext ctx;
  Prepare(ctx, 30);
  bbo::v1::ListProblemsResponse resp;
  grpc::Status s = stub->ListProblems(&ctx, bbo::v1::ListProblemsRequest(), &resp);
  if (!s.ok()) return Fail("problems", s);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : resp.problems()) {
      out.push_back({{"name", p.name()},
                     {"description", p.description()},
                     {"api_config", nlohmann::json::parse(p.api_config_json())}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& p : resp.problems()) {
    std::printf("%-22s %s\n", p.name().c_str(), p.description().c_str());
  }
  return 0;
}

// Reads a results CSV into a scoring input (errors printed with the `what` prefix).
std::optional<bbo::scoring::BuiltInput> ReadResults(const std::string& what, const std::string& path,
                                                    const std::string& random_search,
                                                    bool generalization) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", what.c_str(), path.c_str());
    return std::nullopt;
  }
  auto table = bbo::scoring::ParseResultsCsv(in);
  if (!table.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", what.c_str(), path.c_str(),
                 std::string(table.status().message()).c_str());
    return std::nullopt;
  }
  auto built = bbo::scoring::BuildScoringInput(*table, random_search, generalization);
  if (!built.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), std::string(built.status().message()).c_str());
    return std::nullopt;
  }
  for (const std::string& w : built->warnings) {
    std::fprintf(stderr, "%s: warning: %s\n", what.c_str(), w.c_str());
  }
  return *std::move(built);
}

// Dimension and attributes of the problems the practice suite knows (others stay unknown).
std::map<std::string, bbo::scoring::ProblemInfo> KnownProblemInfo(
    const bbo::scoring::ScoringInput& input) {
  std::map<std::string, bbo::scoring::ProblemInfo> info;
  for (const auto& [name, unused] : input.problems) {
    auto p = bbo::MakeProblem(name);
    if (p.ok()) info[name] = {(*p)->space().dims(), (*p)->attributes()};
  }
  return info;
}

int Score(const std::string& path, const std::string& random_search, bool json,
          bool generalization, double alpha, const bbo::scoring::BootstrapOptions& boot) {
  auto built = ReadResults("bbo score", path, random_search, generalization);
  if (!built) return 1;
  built->input.alpha = alpha;
  bbo::scoring::ReportOptions o;
  o.phase = "";
  o.source = path;
  o.baseline_row_name = "";  // random search is scored as the method it is in the table
  o.bootstrap = boot;
  o.familywise_alpha = alpha;
  o.warnings = built->warnings;
  o.problem_info = KnownProblemInfo(built->input);
  auto report = bbo::scoring::ComputeReport(built->input, o);
  if (!report.ok()) {
    std::fprintf(stderr, "bbo score: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  if (json) {
    std::cout << bbo::scoring::ReportJson(*report, built->input).dump(2) << "\n";
    return 0;
  }
  const bbo::scoring::Leaderboard* board = &report->board;
  const bbo::scoring::BootstrapResult* ranks = &report->bootstrap;
  const bbo::scoring::NonparametricRanking* ranking = &report->ranking;
  const int evals = built->input.batch_size * built->input.n_batches;
  std::printf("%d batches of %d, %zu problems; 100 = best value found every time, 0 = one random "
              "guess\n",
              built->input.n_batches, built->input.batch_size, built->input.problems.size());
  std::printf("%-4s %-28s %9s %9s %9s %11s %9s\n", "rank", "method", "score", "+/-", "median",
              "RS iters", "RS eff.");
  int rank = 0;
  for (const auto& r : board->rows) {
    const char* bound = r.rs_bound == bbo::scoring::MethodResult::Bound::kAtLeast  ? ">"
                        : r.rs_bound == bbo::scoring::MethodResult::Bound::kAtMost ? "<="
                                                                                    : "";
    std::string iters = absl::StrFormat("%s%.0f", bound, r.rs_equivalent_evals);
    std::printf("%-4d %-28s %9.3f %9.3f %9.3f %11s %9.3f\n", ++rank, r.method.c_str(), r.score,
                100 * r.mean_perf_eb.back(), r.table2_median_score, iters.c_str(),
                r.rs_efficiency);
  }
  std::printf("(score: seed 001 eq. 7; +/-: Student-t half-width over problems; median: seed 001 "
              "Table 2; RS iters: random-search evaluations with the same expected score, vs %d "
              "used)\n",
              evals);
  std::printf("\nBootstrap ranks (B = %d, seed 001 eq. 1): P(rank 1), P(top %d)\n",
              ranks->replicates, boot.top_k);
  for (size_t m = 0; m < ranks->methods.size(); ++m) {
    std::printf("%-28s %7.3f %7.3f\n", ranks->methods[m].c_str(),
                static_cast<double>(ranks->rank_counts[m][0]) / ranks->replicates,
                ranks->p_top_k[m]);
  }
  if (!ranks->top_rankings.empty()) {
    std::printf("most frequent top-%d ranking (%.1f%%):", boot.top_k,
                100 * ranks->top_rankings[0].second);
    for (const auto& name : ranks->top_rankings[0].first) std::printf(" %s", name.c_str());
    std::printf("\n");
  }
  std::printf("\nMann-Whitney / Borda ranking (familywise alpha %.3g, per test %.3g)\n",
              ranking->familywise_alpha, ranking->pairwise_alpha);
  std::printf("%-28s %7s %7s %9s\n", "method", "Borda", "firsts", "top three");
  for (const auto& r : ranking->rows) {
    std::printf("%-28s %7d %7d %9d\n", r.method.c_str(), r.borda, r.firsts, r.top_three);
  }
  return 0;
}

int Export(const std::string& db, const std::string& out_path, const std::string& board) {
  if (!std::filesystem::exists(db)) {
    std::fprintf(stderr, "bbo export: %s does not exist\n", db.c_str());
    return 1;
  }
  auto store = bbo::SqliteStore::Open(db);
  if (!store.ok()) {
    std::fprintf(stderr, "bbo export: %s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  absl::Status s;
  if (out_path.empty() || out_path == "-") {
    s = (*store)->ExportResultsCsv(std::cout, bbo::BoardFromName(board));
  } else {
    std::ofstream out(out_path);
    s = (*store)->ExportResultsCsv(out, bbo::BoardFromName(board));
  }
  if (!s.ok()) {
    std::fprintf(stderr, "bbo export: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}

struct ReportArgs {
  std::string server;
  bool server_set = false;
  std::string results, db, random_search = "random-search";
  bool generalization = false;
  std::string phase, board = "main", format = "html", out = "report";
  bbo::scoring::BootstrapOptions boot;
};

int WriteReportFiles(const std::vector<bbo::scoring::ReportFile>& files, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "bbo report: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  for (const auto& f : files) {
    // Names come from the renderer, but never let one escape the output folder.
    if (f.name.find('/') != std::string::npos || f.name.empty() || f.name[0] == '.') {
      std::fprintf(stderr, "bbo report: refusing to write file named \"%s\"\n", f.name.c_str());
      return 1;
    }
    const fs::path path = fs::path(dir) / f.name;
    const fs::path tmp = fs::path(dir) / ("." + f.name + ".tmp");
    {
      std::ofstream o(tmp, std::ios::binary);
      o << f.content;
      o.close();
      if (!o) {
        std::fprintf(stderr, "bbo report: cannot write %s\n", tmp.c_str());
        return 1;
      }
    }
    fs::rename(tmp, path, ec);  // atomic: a reader never sees half a report
    if (ec) {
      std::fprintf(stderr, "bbo report: cannot write %s: %s\n", path.c_str(), ec.message().c_str());
      return 1;
    }
    std::printf("%s (%zu bytes)\n", path.c_str(), f.content.size());
  }
  return 0;
}

int Report(const ReportArgs& a) {
  const int sources = !a.results.empty() + !a.db.empty() + a.server_set;
  if (sources > 1) {
    std::fprintf(stderr, "bbo report: give one of --server, --results, --db\n");
    return 2;
  }
  if (a.format != "html" && a.format != "json" && a.format != "csv") {
    std::fprintf(stderr, "bbo report: --format must be html, json or csv\n");
    return 2;
  }
  nlohmann::json report;
  if (a.results.empty() && a.db.empty()) {
    // From a running coordinator's scoring service.
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(1 << 30);
    auto stub = bbo::v1::ScoringService::NewStub(
        grpc::CreateCustomChannel(a.server, grpc::InsecureChannelCredentials(), args));
    grpc::ClientContext ctx;
    Prepare(ctx, 600);
    bbo::v1::GetReportRequest req;
    req.set_phase(a.phase);
    req.set_board(a.board);
    req.set_format(a.format == "html"  ? bbo::v1::REPORT_FORMAT_HTML
                   : a.format == "csv" ? bbo::v1::REPORT_FORMAT_CSV
                                       : bbo::v1::REPORT_FORMAT_JSON);
    req.set_bootstrap_replicates(a.boot.replicates);
    req.set_seed(a.boot.seed);
    req.set_top_k(a.boot.top_k);
    std::fprintf(stderr, "bbo report: asking %s for the %s report (B = %d)...\n",
                 a.server.c_str(), a.phase.empty() ? "current phase's" : a.phase.c_str(),
                 a.boot.replicates);
    bbo::v1::GetReportResponse resp;
    grpc::Status s = stub->GetReport(&ctx, req, &resp);
    if (!s.ok()) return Fail("report", s);
    std::vector<bbo::scoring::ReportFile> files;
    for (const auto& f : resp.files()) files.push_back({f.name(), f.media_type(), f.content()});
    return WriteReportFiles(files, a.out);
  }
  // Offline: a results CSV, or a coordinator's SQLite file exported to one.
  std::string csv_path = a.results, random_search = a.random_search, source = a.results;
  std::string tmp_csv;
  if (!a.db.empty()) {
    if (!fs::exists(a.db)) {
      std::fprintf(stderr, "bbo report: %s does not exist\n", a.db.c_str());
      return 1;
    }
    auto store = bbo::SqliteStore::Open(a.db);
    if (!store.ok()) {
      std::fprintf(stderr, "bbo report: %s\n", std::string(store.status().message()).c_str());
      return 1;
    }
    tmp_csv = (fs::temp_directory_path() / ("bbo-report-" + std::to_string(getpid()) + ".csv"));
    std::ofstream out(tmp_csv);
    absl::Status st = (*store)->ExportResultsCsv(out, bbo::BoardFromName(a.board));
    out.close();
    if (!st.ok()) {
      std::fprintf(stderr, "bbo report: %s\n", std::string(st.message()).c_str());
      return 1;
    }
    csv_path = tmp_csv;
    random_search = bbo::CompetitionOptions().baseline_name;
    source = a.db;
  }
  auto built = ReadResults("bbo report", csv_path, random_search, a.generalization);
  if (!tmp_csv.empty()) fs::remove(tmp_csv);
  if (!built) return 1;
  bbo::scoring::ReportOptions o;
  o.phase = a.phase.empty() ? "practice" : a.phase;
  o.source = source;
  o.baseline_row_name = "";
  o.bootstrap = a.boot;
  o.warnings = built->warnings;
  o.problem_info = KnownProblemInfo(built->input);
  std::fprintf(stderr,
               "bbo report: scoring %zu methods on %zu problems, bootstrap B = %d...\n",
               built->input.methods.size(), built->input.problems.size(), a.boot.replicates);
  auto computed = bbo::scoring::ComputeReport(built->input, o);
  if (!computed.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(computed.status().message()).c_str());
    return 1;
  }
  report = bbo::scoring::ReportJson(*computed, built->input);
  auto files = bbo::scoring::RenderReportFiles(report, a.format);
  if (!files.ok()) {
    std::fprintf(stderr, "bbo report: %s\n", std::string(files.status().message()).c_str());
    return 1;
  }
  return WriteReportFiles(*files, a.out);
}

// Re-evaluates recorded studies and compares the values bit for bit.
int Replay(const std::string& db, const std::vector<int64_t>& study_ids, bool all,
           const std::string& suite, const std::string& suite_file,
           const bbo::SuiteOptions& so) {
  if (!fs::exists(db)) {
    std::fprintf(stderr, "bbo replay: %s does not exist\n", db.c_str());
    return 1;
  }
  auto store = bbo::SqliteStore::Open(db);
  if (!store.ok()) {
    std::fprintf(stderr, "bbo replay: %s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  std::vector<int64_t> ids = study_ids;
  if (all) {
    auto every = (*store)->ListStudyIds();
    if (!every.ok()) {
      std::fprintf(stderr, "bbo replay: %s\n", std::string(every.status().message()).c_str());
      return 1;
    }
    ids = *every;
  }
  if (ids.empty()) {
    std::fprintf(stderr, "bbo replay: give --study ID (repeatable) or --all\n");
    return 2;
  }
  // The problems: the practice suite, plus the suite the studies ran on.
  std::map<std::string, std::unique_ptr<bbo::Problem>> problems;
  for (auto& p : bbo::MakePracticeSuite()) problems[p->name()] = std::move(p);
  if (!suite.empty() || !suite_file.empty()) {
    auto made = suite_file.empty() ? bbo::MakeSuite(suite, so)
                                   : bbo::MakeSuiteFromFile(suite_file, so);
    if (!made.ok()) {
      std::fprintf(stderr, "bbo replay: %s\n", std::string(made.status().message()).c_str());
      return 1;
    }
    for (auto& p : *made) problems[p->name()] = std::move(p);
  }
  int failed = 0, evaluations = 0;
  for (int64_t id : ids) {
    auto study = (*store)->GetStudy(id);
    if (!study.ok()) {
      std::fprintf(stderr, "bbo replay: %s\n", std::string(study.status().message()).c_str());
      return 1;
    }
    auto& problem = problems[study->problem];
    if (problem == nullptr) {
      std::printf("study %lld: problem %s is not in the practice suite or --suite; skipped\n",
                  static_cast<long long>(id), study->problem.c_str());
      continue;
    }
    auto r = bbo::ReplayStudy(store->get(), *problem, id);
    if (!r.ok()) {
      std::fprintf(stderr, "bbo replay: study %lld: %s\n", static_cast<long long>(id),
                   std::string(r.status().message()).c_str());
      return 1;
    }
    evaluations += r->evaluations;
    const bool signature_ok =
        r->recorded_signature.empty() || r->recorded_signature == r->signature_now;
    if (!r->ok() || !signature_ok) ++failed;
    if (!all || !r->ok() || !signature_ok) {
      std::printf("study %lld (%s): %d of %d values reproduced%s\n", static_cast<long long>(id),
                  r->problem.c_str(), r->reproduced, r->evaluations,
                  signature_ok ? "" : "; the problem's signature changed");
      for (const auto& d : r->differences) std::printf("  %s\n", d.c_str());
    }
  }
  std::printf("%zu studies, %d evaluations replayed; %d not reproduced\n", ids.size(),
              evaluations, failed);
  return failed == 0 ? 0 : 1;
}

// "real x3, int x1, cat x1" from a search space.
std::string ParamTypes(const bbo::SearchSpace& space) {
  std::map<std::string, int> counts;
  for (const auto& [name, spec] : space.api_config().items()) {
    counts[spec.value("type", std::string("?"))]++;
  }
  std::vector<std::string> parts;
  for (const char* t : {"real", "int", "bool", "cat"}) {
    if (counts.count(t)) parts.push_back(absl::StrFormat("%s x%d", t, counts[t]));
  }
  return absl::StrJoin(parts, ", ");
}

// Lists a suite on this machine (organizers: hidden suites are built from local definitions).
int ProblemsList(const std::string& suite, const std::string& suite_file,
                 const bbo::SuiteOptions& so, bool show_optimum, bool json, bool counts_only) {
  auto problems = suite_file.empty() ? bbo::MakeSuite(suite, so)
                                     : bbo::MakeSuiteFromFile(suite_file, so);
  if (!problems.ok()) {
    std::fprintf(stderr, "bbo problems list: %s\n",
                 std::string(problems.status().message()).c_str());
    return 1;
  }
  std::map<std::string, int> per_family;
  std::map<std::string, int> per_attribute;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : *problems) {
    per_family[p->family()]++;
    for (const auto& a : p->attributes()) per_attribute[a]++;
    nlohmann::json row = {{"name", p->name()},
                          {"family", p->family()},
                          {"dimension", p->space().dims()},
                          {"parameter_types", ParamTypes(p->space())},
                          {"attributes", p->attributes()},
                          {"description", p->description()}};
    if (show_optimum) {
      row["optimum"] = p->known_optimum() ? nlohmann::json(*p->known_optimum()) : nullptr;
    }
    out.push_back(row);
  }
  if (json) {
    std::cout << nlohmann::json{{"suite", suite_file.empty() ? suite : suite_file},
                                {"seed", so.seed},
                                {"problems", out},
                                {"per_family", per_family},
                                {"per_attribute", per_attribute}}
                     .dump(2)
              << "\n";
    return 0;
  }
  if (!counts_only) {
    std::printf("%-28s %-10s %4s %-26s %s%s\n", "name", "family", "dim", "parameters",
                "attributes", show_optimum ? "  [optimum]" : "");
    for (const auto& row : out) {
      std::vector<std::string> attrs = row["attributes"].get<std::vector<std::string>>();
      std::string opt;
      if (show_optimum) {
        opt = row["optimum"].is_null() ? "  [unknown]"
                                       : absl::StrFormat("  [%.10g]", row["optimum"].get<double>());
      }
      std::printf("%-28s %-10s %4d %-26s %s%s\n", row["name"].get<std::string>().c_str(),
                  row["family"].get<std::string>().c_str(), row["dimension"].get<int>(),
                  row["parameter_types"].get<std::string>().c_str(),
                  absl::StrJoin(attrs, ", ").c_str(), opt.c_str());
    }
  }
  std::printf("%zu problems;", problems->size());
  for (const auto& [family, n] : per_family) std::printf(" %s %d", family.c_str(), n);
  std::printf("\n");
  return 0;
}

int Leaderboard(const std::string& server, bool json, const std::string& board) {
  auto stub = Connect(server);
  grpc::ClientContext ctx;
  Prepare(ctx, 120);
  bbo::v1::GetLeaderboardRequest req;
  req.set_board(board);
  bbo::v1::GetLeaderboardResponse resp;
  grpc::Status s = stub->GetLeaderboard(&ctx, req, &resp);
  if (!s.ok()) return Fail("leaderboard", s);
  if (json) {
    if (resp.report_json().empty()) {
      // A hidden phase without the organizer token: overall scores only.
      nlohmann::json j;
      j["phase"] = resp.phase();
      j["board"] = resp.board();
      j["rows"] = nlohmann::json::array();
      for (const auto& row : resp.rows()) {
        j["rows"].push_back({{"rank", row.rank()},
                             {"name", row.name()},
                             {"score", row.score()},
                             {"median_score", row.median_score()},
                             {"baseline", row.baseline()},
                             {"complete", row.complete()}});
      }
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::cout << nlohmann::json::parse(resp.report_json()).dump(2) << "\n";
    return 0;
  }
  std::printf("Leaderboard of phase %s, %s board (%d batches of %d; 100 = the best value found "
              "on each problem every time, 0 = one random guess)\n",
              resp.phase().c_str(), resp.board().c_str(), resp.n_batches(), resp.batch_size());
  std::printf("%-5s %-32s %10s %10s\n", "rank", "name", "score", "median");
  for (const auto& row : resp.rows()) {
    std::printf("%-5d %-32s %10.3f %10.3f%s\n", row.rank(), row.name().c_str(), row.score(),
                row.median_score(),
                row.baseline() ? "  (baseline)" : (row.complete() ? "" : "  (partial)"));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bbo: the bbo-arena command line (black-box optimization competitions)"};
  app.require_subcommand(1);
  if (const char* env = std::getenv("BBO_TOKEN")) g_token = env;
  app.add_option("--token", g_token,
                 "Organizer token for hidden phases (default: $BBO_TOKEN)");
  std::string server = "127.0.0.1:50051";

  bbo::LocalRunOptions local;
  bool local_json = false;
  std::string local_problems;
  auto* cmd_local = app.add_subcommand(
      "local", "Score a submission on the practice problems on this machine (embedded coordinator "
               "and sandboxed worker).");
  cmd_local->add_option("SUBMISSION_DIR", local.submission_dir,
                        "Folder with optimizer.py (Bayesmark-style) or an executable `optimizer`")
      ->required();
  cmd_local->add_option("--trials", local.trials, "Trials per problem")
      ->default_val(3)
      ->check(CLI::Range(1, 100));
  cmd_local->add_flag("--json", local_json, "Print the report as JSON on stdout");
  cmd_local->add_option("--problems", local_problems,
                        "Comma-separated problems of the suite (default: all)");
  cmd_local->add_option("--suite", local.suite,
                        "practice (default), synthetic, bbob, ml, sklearn (with --problems), "
                        "generated")
      ->default_val(local.suite);
  cmd_local->add_option("--suite-seed", local.suite_seed, "Instance seed of the suite")
      ->default_val(0);
  cmd_local->add_option("--family", local.generated_family,
                        "--suite generated: the task family (bbo tasks list)")
      ->default_val(local.generated_family);
  cmd_local->add_option("--design", local.design_file,
                        "--suite generated: a design file from `bbo tasks design`");
  cmd_local->add_option("--workers", local.workers, "Optimizers run in parallel")
      ->default_val(1)
      ->check(CLI::Range(1, 64));
  cmd_local->add_option("--baseline-trials", local.baseline_trials,
                        "Random-search baseline trials per problem")
      ->default_val(10)
      ->check(CLI::Range(1, 1000));
  cmd_local->add_option("--batch-size", local.budget.batch_size, "Points per batch")->default_val(8);
  cmd_local->add_option("--n-batches", local.budget.n_batches, "Batches per study")->default_val(16);
  cmd_local->add_option("--suggest-budget", local.budget.suggest_budget_s,
                        "Optimizer seconds per suggest")
      ->default_val(40);
  cmd_local->add_option("--study-budget", local.budget.study_budget_s, "Optimizer seconds per study")
      ->default_val(640);
  cmd_local->add_option("--db", local.db_path, "Keep the results in this SQLite file");
  cmd_local->add_flag("--insecure-no-sandbox", local.insecure_no_sandbox,
                      "Run the optimizer without the bubblewrap sandbox (hosts without user "
                      "namespaces)");
  cmd_local->add_flag("--verbose", local.verbose, "Show the optimizer's stderr");

  std::string submit_path, submit_name, submit_team;
  int submit_trials = 0;
  auto* cmd_submit = app.add_subcommand("submit", "Register a submission with a bbo-server.");
  cmd_submit->add_option("SUBMISSION", submit_path,
                         "Submission folder, or a .zip / .tar.gz / .tar of it")
      ->required();
  cmd_submit->add_option("--name", submit_name, "Display name (default: the folder's name)");
  cmd_submit->add_option("--trials", submit_trials, "Trials per problem (0 = server default)");
  cmd_submit->add_option("--team", submit_team,
                         "Your team (required by phases that limit submissions per team)");
  cmd_submit->add_option("--server", server, "bbo-server address")->default_val(server);

  bool status_json = false;
  auto* cmd_status = app.add_subcommand("status", "List submissions and their progress.");
  cmd_status->add_option("--server", server, "bbo-server address")->default_val(server);
  cmd_status->add_flag("--json", status_json, "JSON output");

  bool board_json = false;
  std::string board_name = "main";
  auto* cmd_board = app.add_subcommand("leaderboard", "Show the current leaderboard.");
  cmd_board->add_option("--server", server, "bbo-server address")->default_val(server);
  cmd_board->add_flag("--json", board_json, "JSON output (full report)");
  cmd_board->add_option("--board", board_name,
                        "main, or warm-start (a final phase's run with real parameter names)")
      ->default_val(board_name);

  bool problems_json = false;
  auto* cmd_problems = app.add_subcommand(
      "problems", "List the practice problems a remote client can open studies on.");
  cmd_problems->add_option("--server", server, "bbo-server address")->default_val(server);
  cmd_problems->add_flag("--json", problems_json, "JSON output (with each api_config)");
  std::string list_suite = "practice", list_suite_file;
  bbo::SuiteOptions list_so;
  bool list_optimum = false, list_json = false, list_counts = false;
  auto* cmd_problems_list = cmd_problems->add_subcommand(
      "list", "List a problem suite on this machine: name, family, dimension, parameter types, "
              "attributes (organizers: --show-optimum).");
  cmd_problems_list->add_option("--suite", list_suite,
                                "practice, synthetic, bbob, ml, sklearn, generated")
      ->default_val(list_suite);
  cmd_problems_list->add_option("--suite-file", list_suite_file, "A suite file (JSON)");
  cmd_problems_list->add_option("--seed", list_so.seed, "Instance seed")->default_val(0);
  cmd_problems_list->add_option("--family", list_so.generated_family,
                                "generated: the task family (bbo tasks list)")
      ->default_val(list_so.generated_family);
  cmd_problems_list->add_option("--design", list_so.design_file,
                                "generated: a design file from `bbo tasks design`");
  cmd_problems_list->add_flag("--show-optimum", list_optimum,
                              "Show each problem's known optimum (organizers only)");
  cmd_problems_list->add_flag("--json", list_json, "JSON output");
  cmd_problems_list->add_flag("--counts", list_counts, "Only the counts per family");

  std::string score_path, score_rs = "random-search";
  bool score_json = false, score_gen = false;
  double score_alpha = 0.05;
  auto* cmd_score = app.add_subcommand(
      "score", "Score a results table offline with Bayesmark's estimators (no server).");
  cmd_score->add_option("RESULTS_CSV", score_path,
                        "CSV: problem,method,trial,batch,suggestion,value[,generalization]")
      ->required();
  cmd_score->add_option("--random-search", score_rs,
                        "The method whose evaluations are the random-search baseline")
      ->default_val(score_rs);
  cmd_score->add_flag("--json", score_json, "JSON output");
  cmd_score->add_flag("--generalization", score_gen,
                      "Score the generalization column at the argmin of the visible value");
  cmd_score->add_option("--alpha", score_alpha, "1 - confidence level of the error bars")
      ->default_val(0.05)
      ->check(CLI::Range(1e-6, 0.5));

  bbo::scoring::BootstrapOptions score_boot;
  cmd_score->add_option("--bootstrap", score_boot.replicates, "Bootstrap replicates B")
      ->default_val(10000)
      ->check(CLI::Range(1, 10000000));
  cmd_score->add_option("--seed", score_boot.seed, "Bootstrap seed")->default_val(1);
  cmd_score->add_option("--top-k", score_boot.top_k, "k of the bootstrap top-k tables")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));

  std::string export_db, export_out, export_board = "main";
  auto* cmd_export = app.add_subcommand(
      "export", "Write a coordinator's scored results as a CSV for `bbo score` (organizers).");
  cmd_export->add_option("--db", export_db, "The coordinator's SQLite file")->required();
  cmd_export->add_option("--out", export_out, "Output file (default: stdout)");
  cmd_export->add_option("--board", export_board, "main or warm-start")
      ->default_val(export_board);

  ReportArgs rep;
  rep.server = server;
  auto* cmd_report = app.add_subcommand(
      "report",
      "Write the full scoring report of a phase (leaderboard, bootstrap ranks, Borda tables, "
      "plots) as HTML, JSON or CSV: from a bbo-server (default), a results CSV or a SQLite file.");
  auto* server_opt = cmd_report->add_option("--server", rep.server, "bbo-server address")
                         ->default_val(server);
  cmd_report->add_option("--results", rep.results,
                         "Score this results CSV offline instead (format of `bbo score`)");
  cmd_report->add_option("--db", rep.db, "Score this coordinator SQLite file offline instead");
  cmd_report->add_option("--random-search", rep.random_search,
                         "With --results: the method that is the random-search baseline")
      ->default_val(rep.random_search);
  cmd_report->add_flag("--generalization", rep.generalization,
                       "With --results or --db: score the held-out (generalization) loss "
                       "at the visible argmin");
  cmd_report->add_option("--phase", rep.phase,
                         "Competition phase (practice, feedback, final; default: the server's)");
  cmd_report->add_option("--board", rep.board,
                         "main, or warm-start (a final phase's run with real parameter names)")
      ->default_val(rep.board);
  cmd_report->add_option("--format", rep.format, "html, json or csv")
      ->default_val("html")
      ->check(CLI::IsMember({"html", "json", "csv"}));
  cmd_report->add_option("--out", rep.out, "Output folder")->default_val("report");
  cmd_report->add_option("--bootstrap", rep.boot.replicates, "Bootstrap replicates B")
      ->default_val(10000)
      ->check(CLI::Range(1, 1000000));
  cmd_report->add_option("--seed", rep.boot.seed, "Bootstrap seed")->default_val(1);
  cmd_report->add_option("--top-k", rep.boot.top_k, "k of the bootstrap top-k tables")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));

  std::string replay_db;
  std::vector<int64_t> replay_ids;
  bool replay_all = false;
  auto* cmd_replay = app.add_subcommand(
      "replay", "Re-evaluate recorded studies from a coordinator's SQLite file and check that "
                "every value is reproduced bit for bit (organizers).");
  cmd_replay->add_option("--db", replay_db, "The coordinator's SQLite file")->required();
  cmd_replay->add_option("--study", replay_ids, "Study id (repeatable)");
  cmd_replay->add_flag("--all", replay_all, "Every study in the file");
  std::string replay_suite, replay_suite_file;
  bbo::SuiteOptions replay_so;
  cmd_replay->add_option("--suite", replay_suite, "The suite the studies ran on");
  cmd_replay->add_option("--suite-file", replay_suite_file, "Or the suite file");
  cmd_replay->add_option("--seed", replay_so.seed, "The suite's instance seed")->default_val(0);
  cmd_replay->add_option("--family", replay_so.generated_family,
                         "--suite generated: the task family")
      ->default_val(replay_so.generated_family);
  cmd_replay->add_option("--design", replay_so.design_file,
                         "--suite generated: the design file the tasks came from");
  cmd_replay->add_option("--tasks", replay_so.generated_tasks,
                         "--suite generated: number of tasks")
      ->default_val(replay_so.generated_tasks);

  bbo::AddTasksCommand(app);

  CLI11_PARSE(app, argc, argv);

  if (cmd_local->parsed()) {
    spdlog::set_level(local.verbose ? spdlog::level::info : spdlog::level::warn);
    spdlog::set_default_logger(spdlog::stderr_color_mt("bbo"));
    if (!local_problems.empty()) {
      local.problems = absl::StrSplit(local_problems, ',', absl::SkipEmpty());
    }
    auto report = bbo::RunLocal(local);
    if (!report.ok()) {
      std::fprintf(stderr, "bbo local: %s\n", std::string(report.status().message()).c_str());
      return 1;
    }
    if (local_json) {
      std::cout << report->dump(2) << "\n";
    } else {
      std::cout << bbo::FormatLocalReport(*report);
    }
    return 0;
  }
  if (cmd_submit->parsed()) {
    return Submit(server, submit_path, submit_name, submit_trials, submit_team);
  }
  if (cmd_status->parsed()) return Status(server, status_json);
  if (cmd_board->parsed()) return Leaderboard(server, board_json, board_name);
  if (cmd_problems_list->parsed()) {
    return ProblemsList(list_suite, list_suite_file, list_so, list_optimum, list_json,
                        list_counts);
  }
  if (cmd_problems->parsed()) return Problems(server, problems_json);
  if (cmd_export->parsed()) return Export(export_db, export_out, export_board);
  if (cmd_replay->parsed()) {
    return Replay(replay_db, replay_ids, replay_all, replay_suite, replay_suite_file, replay_so);
  }
  if (cmd_report->parsed()) {
    rep.server_set = server_opt->count() > 0;
    return Report(rep);
  }
  if (cmd_score->parsed()) {
    return Score(score_path, score_rs, score_json, score_gen, score_alpha, score_boot);
  }
  return 0;
}
