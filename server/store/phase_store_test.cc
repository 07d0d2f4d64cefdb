// The PhaseStore contract and the per-phase rules of the other stores (submission names,
// quotas, the baseline serving its own phase's boards), run against SqliteStore and
// InMemoryStore; and migration 9 on a version-8 file.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

std::string TempDb(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() /
           ("phase_store_" + std::to_string(::getpid()) + "_" + tag + ".sqlite");
  std::filesystem::remove(p);
  return p.string();
}

struct Factory {
  std::string name;
  std::function<std::unique_ptr<Store>(const std::string&)> make;
  friend void PrintTo(const Factory& f, std::ostream* os) { *os << f.name; }
};

class PhaseStoreTest : public ::testing::TestWithParam<Factory> {
 protected:
  void SetUp() override {
    tag_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : tag_) {
      if (c == '/') c = '_';
    }
    store_ = GetParam().make(tag_);
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove(TempDb(tag_));
  }
  static SubmissionRecord Sub(const std::string& name, const std::string& phase,
                              const std::string& team, int trials = 1) {
    SubmissionRecord s;
    s.name = name;
    s.kind = SubmissionKind::kPython;
    s.digest = "d-" + name;
    s.trials = trials;
    s.created_at = 1;
    s.team = team;
    s.phase = phase;
    return s;
  }
  // Runs a leased job's study to completion with one batch of `values`.
  void Play(const JobRecord& job, const std::vector<double>& values) {
    StudyRecord s;
    s.job_id = job.id;
    s.submission_id = job.submission_id;
    s.problem = job.problem;
    s.trial = job.trial;
    s.board = job.board;
    int64_t id = *store_->CreateStudy(s);
    BatchRecord b;
    b.study_id = id;
    for (double v : values) {
      EvaluationRecord e;
      e.params_json = "{}";
      e.value = v;
      b.evaluations.push_back(e);
    }
    ASSERT_TRUE(store_->RecordBatch(b).ok());
    ASSERT_TRUE(store_->EndStudy(id, StudyState::kCompleted, "done", 1, 0).ok());
    ASSERT_TRUE(store_->FinishJob(job.id, job.worker_id, "", 3).ok());
  }
  std::string tag_;
  std::unique_ptr<Store> store_;
};

TEST_P(PhaseStoreTest, NamesAndQuotasArePerPhase) {
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", "feedback", "red"), "a", {"p"}, 1, {"feedback"})
                  .ok());
  // The same name in another phase is another submission; in the same phase it is refused.
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", "practice", "red"), "a", {"p"}, 1, {"practice"})
                  .ok());
  absl::StatusOr<int64_t> again =
      store_->AddSubmission(Sub("opt", "feedback", "red"), "a", {"p"}, 1, {"feedback"});
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("in phase \"feedback\""));
  EXPECT_EQ((*store_->FindSubmission("opt", "feedback"))->phase, "feedback");
  EXPECT_EQ((*store_->FindSubmission("opt", "practice"))->phase, "practice");
  EXPECT_FALSE(store_->FindSubmission("opt")->has_value());  // the flags phase "" has none
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0, "feedback"), 1);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0, "practice"), 1);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0, "final"), 0);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 0);
}

TEST_P(PhaseStoreTest, ThePhaseRecordRoundTripsAndIsReplaced) {
  EXPECT_FALSE(store_->GetPhase("final")->has_value());
  ASSERT_TRUE(store_->PutPhase({"final", "fp1", "{}", 5}).ok());
  EXPECT_EQ((*store_->GetPhase("final"))->fingerprint, "fp1");
  ASSERT_TRUE(store_->PutPhase({"final", "fp2", "{}", 6}).ok());
  EXPECT_EQ((*store_->GetPhase("final"))->fingerprint, "fp2");
  EXPECT_EQ((*store_->GetPhase("final"))->recorded_at, 6);
}

TEST_P(PhaseStoreTest, AChoiceIsTheTeamsOwnSubmissionOfThatPhase) {
  int64_t red1 = *store_->AddSubmission(Sub("r1", "feedback", "red"), "a", {"p"}, 1, {"feedback"});
  int64_t red2 = *store_->AddSubmission(Sub("r2", "feedback", "red"), "b", {"p"}, 1, {"feedback"});
  int64_t blue = *store_->AddSubmission(Sub("b1", "feedback", "blue"), "c", {"p"}, 1, {"feedback"});
  int64_t other = *store_->AddSubmission(Sub("r3", "practice", "red"), "d", {"p"}, 1, {"practice"});
  ASSERT_TRUE(store_->SetChoice("feedback", "red", red1, 10).ok());
  ASSERT_TRUE(store_->SetChoice("feedback", "red", red2, 11).ok());  // changed its mind
  EXPECT_EQ(store_->SetChoice("feedback", "red", blue, 12).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->SetChoice("feedback", "red", other, 12).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->SetChoice("feedback", "red", 999, 12).code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(*store_->Choices("feedback"), ElementsAre(Pair("red", red2)));
  EXPECT_THAT(*store_->Choices("practice"), IsEmpty());
}

TEST_P(PhaseStoreTest, MigrationCopiesArchivesQueuesJobsAndHappensOnce) {
  int64_t red = *store_->AddSubmission(Sub("r1", "feedback", "red"), "red-archive", {"p"}, 1,
                                       {"feedback"});
  int64_t blue = *store_->AddSubmission(Sub("b1", "feedback", "blue"), "blue-archive", {"p"}, 1,
                                        {"feedback"});
  absl::StatusOr<std::vector<int64_t>> moved = store_->MigrateInto(
      "final", {{red, 2}, {blue, 2}}, {"q1", "q2"}, 7, {"final", "final/warm-start"}, 50,
      "from feedback");
  ASSERT_TRUE(moved.ok()) << moved.status();
  ASSERT_EQ(moved->size(), 2u);
  SubmissionRecord copy = *store_->GetSubmission((*moved)[0]);
  EXPECT_EQ(copy.name, "r1");
  EXPECT_EQ(copy.team, "red");
  EXPECT_EQ(copy.phase, "final");
  EXPECT_EQ(copy.migrated_from, red);
  EXPECT_EQ(copy.trials, 2);
  EXPECT_EQ(copy.created_at, 50);
  EXPECT_EQ(*store_->GetSubmissionArchive((*moved)[0]), "red-archive");
  EXPECT_EQ(*store_->GetSubmissionArchive((*moved)[1]), "blue-archive");
  // 2 problems x 2 trials x 2 boards each.
  EXPECT_EQ(store_->CountJobs((*moved)[0])->total, 8);
  EXPECT_EQ(store_->CountJobs((*moved)[0])->queued, 8);
  std::vector<PhaseEvent> events = *store_->PhaseEvents("final");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "migrated");
  EXPECT_EQ(events[0].detail, "from feedback");
  // Exactly once: a second migration changes nothing.
  absl::StatusOr<std::vector<int64_t>> again =
      store_->MigrateInto("final", {{red, 2}}, {"q1"}, 7, {"final"}, 60, "again");
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->ListSubmissions()->size(), 4u);
  EXPECT_EQ(store_->PhaseEvents("final")->size(), 1u);
}

TEST_P(PhaseStoreTest, AFailedMigrationChangesNothing) {
  int64_t red = *store_->AddSubmission(Sub("r1", "feedback", "red"), "a", {"p"}, 1, {"feedback"});
  absl::StatusOr<std::vector<int64_t>> moved =
      store_->MigrateInto("final", {{red, 1}, {12345, 1}}, {"q"}, 7, {"final"}, 50, "x");
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->ListSubmissions()->size(), 1u);
  EXPECT_THAT(*store_->PhaseEvents("final"), IsEmpty());
  // And it can then happen.
  EXPECT_TRUE(store_->MigrateInto("final", {{red, 1}}, {"q"}, 7, {"final"}, 50, "x").ok());
}

TEST_P(PhaseStoreTest, PublicationEventsAreKeptInOrder) {
  ASSERT_TRUE(store_->RecordPhaseEvent({0, "final", "published", 10, "organizer", ""}).ok());
  ASSERT_TRUE(
      store_->RecordPhaseEvent({0, "final", "unpublished", 11, "organizer", "typo"}).ok());
  EXPECT_EQ(store_->RecordPhaseEvent({0, "final", "migrated", 12, "x", ""}).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<PhaseEvent> events = *store_->PhaseEvents("final");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "published");
  EXPECT_EQ(events[1].kind, "unpublished");
  EXPECT_EQ(events[1].detail, "typo");
  EXPECT_LT(events[0].id, events[1].id);
}

TEST_P(PhaseStoreTest, EachPhasesBaselineServesOnlyItsOwnBoards) {
  for (const std::string phase : {"feedback", "final"}) {
    SubmissionRecord rs = Sub("random-search-baseline", phase, "");
    rs.is_baseline = true;
    rs.kind = SubmissionKind::kBuiltin;
    ASSERT_TRUE(store_->AddSubmission(rs, "", {"p"}, 1, {phase}).ok());
  }
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", "final", "red"), "a", {"p"}, 1,
                                    {"final", "final/warm-start"})
                  .ok());
  std::vector<JobRecord> jobs;
  while (auto job = *store_->LeaseBuiltinJob("coordinator", 100)) jobs.push_back(*job);
  while (auto job = *store_->LeaseJob("w", 100)) jobs.push_back(*job);
  ASSERT_EQ(jobs.size(), 4u);
  Play(jobs[0], {1, 2});  // feedback's baseline
  Play(jobs[1], {7, 8});  // final's baseline
  Play(jobs[2], {5});
  Play(jobs[3], {6});
  ScoringData final_main = *store_->LoadScoringData({}, "final");
  ScoringData final_warm = *store_->LoadScoringData({}, "final/warm-start");
  ScoringData feedback = *store_->LoadScoringData({}, "feedback");
  EXPECT_THAT(final_main.baseline_evals.at("p"), ElementsAre(7.0, 8.0));
  EXPECT_THAT(final_warm.baseline_evals.at("p"), ElementsAre(7.0, 8.0));
  EXPECT_THAT(feedback.baseline_evals.at("p"), ElementsAre(1.0, 2.0));
  EXPECT_THAT(final_main.methods.at("opt").at("p")[0].batch_min, ElementsAre(5.0));
  EXPECT_THAT(final_warm.methods.at("opt").at("p")[0].batch_min, ElementsAre(6.0));
  EXPECT_TRUE(feedback.methods.empty());
  std::vector<ScoredEvaluationRecord> rows = *store_->ScoredEvaluations("final/warm-start");
  ASSERT_EQ(rows.size(), 3u);  // opt's one evaluation and final's two baseline ones
}

INSTANTIATE_TEST_SUITE_P(
    Stores, PhaseStoreTest,
    ::testing::Values(Factory{"Sqlite",
                              [](const std::string& tag) -> std::unique_ptr<Store> {
                                auto s = SqliteStore::Open(TempDb(tag));
                                if (!s.ok()) return nullptr;
                                return *std::move(s);
                              }},
                      Factory{"InMemory",
                              [](const std::string&) -> std::unique_ptr<Store> {
                                return std::make_unique<InMemoryStore>();
                              }}),
    [](const ::testing::TestParamInfo<Factory>& info) { return info.param.name; });

// Migration 9 on a version-8 file: every submission, job and study kept, in phase "", names
// unique per phase from then on, and references still enforced.
TEST(SqliteStoreMigrationTest, NineKeepsEverySubmissionInTheFlagsPhase) {
  const std::string path = TempDb("v8");
  {
    auto db = sqlite::Database::Open(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(MigrateTo(db->get(), 8).ok());
    ASSERT_TRUE((*db)
                    ->Exec(R"sql(
INSERT INTO submissions (id, name, kind, archive, digest, trials, created_at, team)
  VALUES (1, 'old', 1, x'0102', 'd', 1, 1, 'red'), (2, 'rs', 100, x'', 'builtin', 1, 1, '');
UPDATE submissions SET is_baseline = 1 WHERE id = 2;
INSERT INTO jobs (id, submission_id, problem, trial, seed, state) VALUES (7, 1, 'p', 0, 1, 'done');
INSERT INTO studies (id, job_id, submission_id, problem, trial, state, batch_size, n_batches,
                     suggest_budget_s, study_budget_s, started_at, final_seq)
  VALUES (3, 7, 1, 'p', 0, 'completed', 1, 1, 40, 640, 1, 1);
)sql")
                    .ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(*(*store)->SchemaVersion(), LatestSchemaVersion());
  SubmissionRecord old = *(*store)->GetSubmission(1);
  EXPECT_EQ(old.name, "old");
  EXPECT_EQ(old.team, "red");
  EXPECT_EQ(old.phase, "");
  EXPECT_EQ(old.migrated_from, 0);
  EXPECT_EQ(*(*store)->GetSubmissionArchive(1), std::string("\x01\x02", 2));
  EXPECT_TRUE((*(*store)->FindSubmission("rs"))->is_baseline);
  EXPECT_EQ((*store)->GetJob(7)->submission_id, 1);
  EXPECT_EQ((*store)->GetStudy(3)->submission_id, 1);
  EXPECT_EQ((*store)->GetJob(7)->max_batches, 0);  // migration 10: the phase's n_batches
  EXPECT_EQ((*store)->CountJobs(1)->done, 1);
  // A job of an unknown submission is still refused (foreign keys on again).
  EXPECT_FALSE((*store)
                   ->ExecForTesting("INSERT INTO jobs (submission_id, problem, trial, seed, state)"
                                    " VALUES (99, 'p', 0, 1, 'queued')")
                   .ok());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace bbo
