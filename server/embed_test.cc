#include "server/embed.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/sqlite_store.h"
#include "server/testing/mixed_problem.h"

namespace bbo {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string TempDb(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() /
           ("embed_test_" + std::to_string(::getpid()) + "_" + tag + ".sqlite");
  std::filesystem::remove(p);
  return p.string();
}

SubmissionRecord Sub(const std::string& name, int trials) {
  SubmissionRecord s;
  s.name = name;
  s.kind = SubmissionKind::kPython;
  s.digest = name;
  s.trials = trials;
  s.created_at = 1;
  return s;
}

// One evaluation: `g` < 0 means no held-out loss.
EvaluationRecord Eval(double value, double g = -1) {
  EvaluationRecord e;
  e.params_json = "{}";
  e.value = value;
  if (g >= 0) e.generalization = g;
  return e;
}

// Plays a study of `job` with `batches` (each a list of evaluations) and ends it in `state`.
int64_t Play(SqliteStore& store, const JobRecord& job,
             const std::vector<std::vector<EvaluationRecord>>& batches, StudyState state) {
  StudyRecord s;
  s.job_id = job.id;
  s.submission_id = job.submission_id;
  s.problem = job.problem;
  s.trial = job.trial;
  s.board = job.board;
  int64_t study = *store.CreateStudy(s);
  for (size_t b = 0; b < batches.size(); ++b) {
    BatchRecord r;
    r.study_id = study;
    r.batch = static_cast<int>(b);
    r.evaluations = batches[b];
    r.turn_time_s = 0.25 * static_cast<double>(b + 1);  // the optimizer's time on the batch
    EXPECT_TRUE(store.RecordBatch(r).ok());
  }
  EXPECT_TRUE(store.EndStudy(study, state, "end", 2, 0).ok());
  return study;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void ExpectSameDoubles(const std::vector<double>& a, const std::vector<double>& b,
                       const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(SameBits(a[i], b[i])) << what << " [" << i << "]";
  }
}

// Every field of the scoring input, bit for bit.
void ExpectSameInput(const scoring::BuiltInput& a, const scoring::BuiltInput& b) {
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_EQ(a.input.n_batches, b.input.n_batches);
  EXPECT_EQ(a.input.batch_size, b.input.batch_size);
  ASSERT_EQ(a.input.problems.size(), b.input.problems.size());
  for (const auto& [name, pa] : a.input.problems) {
    ASSERT_TRUE(b.input.problems.count(name)) << name;
    const auto& pb = b.input.problems.at(name);
    ExpectSameDoubles(pa.random_evals, pb.random_evals, name + " random_evals");
    EXPECT_TRUE(SameBits(pa.all_evals_min, pb.all_evals_min)) << name;
    EXPECT_EQ(pa.known_optimum, pb.known_optimum) << name;
  }
  ASSERT_EQ(a.input.methods.size(), b.input.methods.size());
  for (const auto& [method, per_problem] : a.input.methods) {
    ASSERT_TRUE(b.input.methods.count(method)) << method;
    const auto& other = b.input.methods.at(method);
    ASSERT_EQ(per_problem.size(), other.size()) << method;
    for (const auto& [problem, data] : per_problem) {
      ASSERT_TRUE(other.count(problem)) << method << " " << problem;
      const auto& trials = other.at(problem).trials;
      ASSERT_EQ(data.trials.size(), trials.size()) << method << " " << problem;
      for (size_t t = 0; t < trials.size(); ++t) {
        const std::string what = method + "/" + problem + "/" + std::to_string(t);
        ExpectSameDoubles(data.trials[t].batch_min, trials[t].batch_min, what + " batch_min");
        ExpectSameDoubles(data.trials[t].visible_min, trials[t].visible_min, what + " visible");
      }
    }
  }
}

// What `bbo report --db` computed before: the exported CSV, parsed and built.
scoring::BuiltInput ViaCsv(ArenaDatabase& db, const std::string& board, bool generalization) {
  std::stringstream csv;
  EXPECT_TRUE(db.ExportResultsCsv(board, csv).ok());
  auto table = scoring::ParseResultsCsv(csv);
  EXPECT_TRUE(table.ok()) << table.status();
  auto built = scoring::BuildScoringInput(*table, "random-search-baseline", generalization);
  EXPECT_TRUE(built.ok()) << built.status();
  return *built;
}

// Two problems; the baseline (3 trials, main board only), "opt" on both boards with a cut-off
// study, a failed study without evaluations, a short batch, a job played twice, crashes and
// evaluations without a held-out loss; "partial" on one problem only.
std::string MakeArena() {
  const std::string path = TempDb("arena");
  auto store = *SqliteStore::Open(path);
  EXPECT_TRUE(store->AddSubmission(Sub("random-search-baseline", 3), "", {"p", "q"}, 1).ok());
  EXPECT_TRUE(store->ExecForTesting("UPDATE submissions SET is_baseline = 1").ok());
  EXPECT_TRUE(
      store->AddSubmission(Sub("opt", 2), "", {"p", "q"}, 2, {kMainBoard, kWarmStartBoard}).ok());
  EXPECT_TRUE(store->AddSubmission(Sub("partial", 1), "", {"q"}, 3).ok());
  std::vector<JobRecord> jobs;
  while (auto job = *store->LeaseJob("w", 100)) jobs.push_back(*job);
  int i = 0;
  for (const JobRecord& job : jobs) {
    const double base = 10 + i++;
    auto sub = *store->GetSubmission(job.submission_id);
    if (sub.is_baseline) {
      Play(*store, job,
           {{Eval(base), Eval(base - 1, base)}, {Eval(base + 2), Eval(kInf)}},
           StudyState::kCompleted);
    } else if (sub.name == "opt" && job.problem == "p" && job.trial == 0 && job.board.empty()) {
      // Played twice: the first run was abandoned (its worker was lost), the second counts.
      Play(*store, job, {{Eval(1), Eval(1)}, {Eval(1), Eval(1)}}, StudyState::kAbandoned);
      Play(*store, job, {{Eval(base, 3), Eval(base - 2, 2)}}, StudyState::kCutOff);
    } else if (sub.name == "opt" && job.problem == "q" && job.trial == 1) {
      Play(*store, job, {}, StudyState::kFailed);
    } else if (sub.name == "opt" && job.problem == "p" && job.trial == 1) {
      Play(*store, job, {{Eval(base - 3, 1)}, {Eval(base - 4), Eval(kInf, 0)}},
           StudyState::kCompleted);
    } else {
      Play(*store, job, {{Eval(base - 5, 4), Eval(base - 6, 5)}, {Eval(base), Eval(base - 7)}},
           StudyState::kCompleted);
    }
  }
  return path;
}

TEST(ArenaDatabaseTest, ReportInputIsTheExportedCsvsBitForBit) {
  auto db = ArenaDatabase::Open(MakeArena());
  ASSERT_TRUE(db.ok()) << db.status();
  for (const std::string board : {"main", "warm-start"}) {
    for (bool generalization : {false, true}) {
      SCOPED_TRACE(board + (generalization ? " generalization" : ""));
      auto direct = (*db)->LoadReportInput(board, generalization);
      ASSERT_TRUE(direct.ok()) << direct.status();
      ExpectSameInput(*direct, ViaCsv(**db, board, generalization));
    }
  }
  // The data above is ragged: the warnings say so.
  auto main = (*db)->LoadReportInput("main", false);
  EXPECT_THAT(main->warnings, Contains(HasSubstr("has results on 1 of 2 problems")));
  EXPECT_THAT(main->warnings, Contains(HasSubstr("fewer than 2 suggestions")));
  EXPECT_EQ(main->input.methods.count("random-search-baseline"), 1u);
  EXPECT_EQ(main->input.problems.at("p").random_evals.size(), 12u);
}

TEST(ArenaDatabaseTest, ReportsABoardAsTheCoordinatorDoesWithTheSecondsView) {
  const std::string path = MakeArena();
  auto db = ArenaDatabase::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  scoring::BootstrapOptions b;
  b.replicates = 50;
  auto report = (*db)->Report("main", "", b);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ((*report)["source"], path);
  EXPECT_EQ((*report)["bootstrap"]["replicates"], 50);
  const nlohmann::json& s = (*report)["plackett_luce_seconds"];
  ASSERT_FALSE(s.contains("error")) << s.dump();
  EXPECT_EQ(s["anytime"]["unit"], "seconds");
  EXPECT_THAT(s["methods"], ::testing::UnorderedElementsAre("opt", "partial"));
}

TEST(ArenaDatabaseTest, EmptyFileHasNoReportInput) {
  const std::string path = TempDb("empty");
  ASSERT_TRUE(SqliteStore::Open(path).ok());
  auto db = ArenaDatabase::Open(path);
  ASSERT_TRUE(db.ok());
  auto input = (*db)->LoadReportInput("main", false);
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(input.status().message(), HasSubstr("no rows"));
}

TEST(ArenaDatabaseTest, MissingFileIsNotFoundAndNotCreated) {
  const std::string path = TempDb("missing");
  auto db = ArenaDatabase::Open(path);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(db.status().message(), path + " does not exist");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ArenaDatabaseTest, ReplaysStudiesSkipsUnknownProblemsAndStopsAtAnUnknownStudy) {
  const std::string path = TempDb("replay");
  int64_t good = 0, other = 0;
  {
    auto store = *SqliteStore::Open(path);
    testing::MixedProblem problem;
    StudyRecord s;
    s.problem = "mixed";
    good = *store->CreateStudy(s);
    BatchRecord b;
    b.study_id = good;
    const Point p = testing::GoodPoint(2.0);
    b.evaluations = {Eval(problem.Evaluate(p)), Eval(problem.Evaluate(p) + 1)};
    b.evaluations[0].params_json = PointToJson(p).dump();
    b.evaluations[1].params_json = b.evaluations[0].params_json;
    ASSERT_TRUE(store->RecordBatch(b).ok());
    s.problem = "elsewhere";
    other = *store->CreateStudy(s);
  }
  auto db = ArenaDatabase::Open(path);
  ASSERT_TRUE(db.ok());
  EXPECT_THAT(*(*db)->StudyIds(), ElementsAre(good, other));
  std::map<std::string, std::unique_ptr<Problem>> problems;
  problems["mixed"] = std::make_unique<testing::MixedProblem>();
  ReplayRun run = (*db)->ReplayStudies({good, other, 999, good}, problems);
  ASSERT_EQ(run.studies.size(), 2u);
  EXPECT_EQ(run.studies[0].evaluations, 2);
  EXPECT_EQ(run.studies[0].reproduced, 1);
  EXPECT_FALSE(run.studies[0].ok());
  EXPECT_EQ(run.studies[0].differences.size(), 1u);
  EXPECT_TRUE(run.studies[1].skipped);
  EXPECT_EQ(run.studies[1].problem, "elsewhere");
  EXPECT_EQ(run.error.code(), absl::StatusCode::kNotFound);
}

TEST(LocalServerTest, ServesOnALocalPortAndRefusesABadArchive) {
  LocalServerOptions o;
  o.db_path = TempDb("local");
  o.budget.batch_size = 2;
  o.budget.n_batches = 2;
  o.baseline_trials = 1;
  std::vector<std::unique_ptr<Problem>> problems;
  problems.push_back(std::make_unique<testing::MixedProblem>());
  auto server = LocalServer::Start(o, std::move(problems));
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_THAT((*server)->address(), HasSubstr("127.0.0.1:"));
  EXPECT_EQ((*server)->Register("bad", "not an archive", 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((*server)->WaitForBaseline(absl::Seconds(30)));
  auto board = (*server)->Leaderboard();
  ASSERT_TRUE(board.ok()) << board.status();
  ASSERT_EQ(board->rows.size(), 1u);
  EXPECT_TRUE(board->rows[0].is_baseline);
  (*server)->Stop();
  (*server)->Stop();  // idempotent
}

}  // namespace
}  // namespace bbo
