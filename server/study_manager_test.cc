#include "server/study_manager.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "gmock/gmock.h"
#include "common/utf8.h"
#include "gtest/gtest.h"
#include "problems/test_problems.h"
#include "server/store/sqlite_store.h"
#include "server/testing/fault_injection_store.h"
#include "server/testing/mixed_problem.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using testing::GoodPoint;
using testing::MixedProblem;

constexpr double kInf = std::numeric_limits<double>::infinity();

class StudyManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("study_manager_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    std::filesystem::remove(path_);
    store_ = *SqliteStore::Open(path_);
    std::vector<std::unique_ptr<Problem>> problems;
    problems.push_back(std::make_unique<MixedProblem>());
    problems.push_back(MakeCrashingProblem(0.5));
    problems.push_back(MakeNanProblem());
    problems_ = std::make_unique<ProblemSet>(std::move(problems));
    evaluator_ = std::make_unique<Evaluator>(2);
    StudyOptions opts;
    opts.budget.batch_size = 4;
    opts.budget.n_batches = 3;
    opts.budget.suggest_budget_s = 10;
    opts.budget.study_budget_s = 25;
    manager_ = std::make_unique<StudyManager>(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), opts}}, evaluator_.get(), &clock_);
  }
  void TearDown() override {
    manager_.reset();
    store_.reset();
    std::filesystem::remove(path_);
  }

  std::vector<IncomingPoint> Batch(int n, double x = 1.0) {
    std::vector<IncomingPoint> out;
    for (int i = 0; i < n; ++i) out.push_back({GoodPoint(x + 0.1 * i), ""});
    return out;
  }

  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<ProblemSet> problems_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<StudyManager> manager_;
};

TEST_F(StudyManagerTest, RunsAllBatchesAndCompletes) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->budget.batch_size, 4);
  EXPECT_EQ(study->budget.n_batches, 3);
  EXPECT_THAT(study->api_config.dump(), HasSubstr("kernel"));
  for (int b = 0; b < 3; ++b) {
    clock_.Advance(absl::Seconds(1));
    auto out = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, b, Batch(4),
                                     TurnReport{.suggest_s = 0.5, .observe_s = 0.1});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->values.size(), 4u);
    EXPECT_DOUBLE_EQ(out->values[0], 0.0);                   // x = 1: the optimum
    EXPECT_NEAR(out->values[1], 0.01, 1e-12);                // x = 1.1
    EXPECT_TRUE(out->errors.empty());
    EXPECT_EQ(out->study_done, b == 2);
    EXPECT_NEAR(out->remaining_s, 25.0 - (b + 1), 1e-9);
  }
  auto rec = store_->GetStudy(study->study_id);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->state, StudyState::kCompleted);
  auto values = store_->StudyValues(study->study_id);
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(values->size(), 3u);
  // A completed study takes no more batches.
  auto again = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 3, Batch(4));
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StudyManagerTest, InvalidSuggestionsOfEachKindAreReportedAndReplaced) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  std::vector<IncomingPoint> batch = Batch(4);
  batch[0].point["x"] = 7.5;                            // out of range
  batch[1].point["n"] = 2.5;                            // non-integral int
  batch[2].point["kernel"] = std::string("sigmoid");   // unknown cat
  batch[3].point.erase("flag");                         // missing key
  auto out = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, batch);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->errors.size(), 4u);
  EXPECT_THAT(out->errors[0], HasSubstr("\"x\""));
  EXPECT_THAT(out->errors[1], HasSubstr("\"n\""));
  EXPECT_THAT(out->errors[2], HasSubstr("sigmoid"));
  EXPECT_THAT(out->errors[3], HasSubstr("flag"));
  ASSERT_EQ(out->evaluated.size(), 4u);
  for (const Point& p : out->evaluated) {
    EXPECT_TRUE(problems_->Get("mixed").value()->space().Validate(p).ok());
  }
  EXPECT_EQ(out->values.size(), 4u);

  std::vector<IncomingPoint> batch2 = Batch(4);
  batch2[0].point["extra"] = 1.0;                                   // extra key
  batch2[1].point["x"] = std::numeric_limits<double>::quiet_NaN();  // NaN
  batch2[2].decode_error = "parameter \"x\": no value set";         // undecodable
  auto out2 = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, batch2);
  ASSERT_TRUE(out2.ok()) << out2.status();
  ASSERT_EQ(out2->errors.size(), 3u);
  EXPECT_THAT(out2->errors[0], HasSubstr("extra"));
  EXPECT_THAT(out2->errors[1], HasSubstr("\"x\""));
  EXPECT_THAT(out2->errors[2], HasSubstr("no value set"));
  // The valid fourth point was evaluated as suggested.
  EXPECT_NEAR(out2->values[3], 0.09, 1e-12);

  auto errors = store_->ListStudyErrors(study->study_id);
  ASSERT_TRUE(errors.ok());
  EXPECT_EQ(errors->size(), 7u);
  auto rec = store_->GetStudy(study->study_id);
  EXPECT_EQ(rec->state, StudyState::kRunning);  // the study goes on
}

TEST_F(StudyManagerTest, WrongBatchSizeIsPaddedOrTruncated) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  auto few = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(2));
  ASSERT_TRUE(few.ok());
  EXPECT_EQ(few->values.size(), 4u);
  EXPECT_THAT(few->errors[0], HasSubstr("2 suggestions, expected 4"));
  auto many = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(6));
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->values.size(), 4u);
  EXPECT_THAT(many->errors[0], HasSubstr("extra points ignored"));
  auto none = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 2, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->values.size(), 4u);
  EXPECT_TRUE(none->study_done);
}

// Anyone but a study's owner is told "unknown study N" of every id, whether N exists, runs or
// ended, and learns no state: ids and states cannot be listed by trying them. The owner still
// ends its own ended study (idempotent). Before the fix, EndStudy on an ended study answered OK
// with its state to anyone, and unknown / running / ended ids had three different messages.
TEST_F(StudyManagerTest, StrangersCannotTellStudiesApart) {
  const Identity red = Identity::Team("red");
  auto running = manager_->OpenPractice(red, "mixed");
  auto ended = manager_->OpenPractice(red, "mixed");
  ASSERT_TRUE(running.ok() && ended.ok());
  ASSERT_TRUE(manager_->EndStudy(red, ended->study_id, "done", false).ok());
  const int64_t unknown = ended->study_id + 1000;
  for (const Identity& who : {Identity::Anonymous(), Identity::Team("blue"), Identity::Worker("w")}) {
    for (int64_t id : {running->study_id, ended->study_id, unknown}) {
      absl::StatusOr<StudyState> end = manager_->EndStudy(who, id, "probe", false);
      EXPECT_EQ(end.status().code(), absl::StatusCode::kNotFound) << who.Describe() << " " << id;
      EXPECT_EQ(end.status().message(), "unknown study " + std::to_string(id));
      auto batch = manager_->SubmitBatch(who, id, 0, Batch(4));
      EXPECT_EQ(batch.status().message(), "unknown study " + std::to_string(id));
    }
  }
  // Nothing changed: the running study still runs, and its owner ends both.
  EXPECT_EQ(store_->GetStudy(running->study_id)->state, StudyState::kRunning);
  EXPECT_TRUE(manager_->EndStudy(red, ended->study_id, "again", false).ok());
  EXPECT_TRUE(manager_->EndStudy(red, running->study_id, "done", false).ok());
  EXPECT_TRUE(manager_->EndStudy(Identity::Organizer(), unknown, "x", false).status().code() ==
              absl::StatusCode::kNotFound);
}

// A remote request with more points than any batch can hold is refused naming the limit, and
// the batch stays open for a correct request.
TEST_F(StudyManagerTest, ARequestOverThePointLimitIsRefusedAndTheBatchStaysOpen) {
  const Identity team = Identity::Team("red");
  auto study = manager_->OpenPractice(team, "mixed");
  ASSERT_TRUE(study.ok()) << study.status();
  auto flood = manager_->SubmitBatch(team, study->study_id, 0, Batch(kMaxBatchSize + 1));
  EXPECT_EQ(flood.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(flood.status().message(),
              HasSubstr("suggestions: 1025 points in one request is over the limit of 1024"));
  EXPECT_TRUE(store_->StudyValues(study->study_id)->empty());
  // At the limit: the extra points are ignored, as for any batch that is too long.
  auto at_limit = manager_->SubmitBatch(team, study->study_id, 0, Batch(kMaxBatchSize));
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->values.size(), 4u);
  EXPECT_THAT(at_limit->errors[0], HasSubstr("extra points ignored"));
}

// A client retrying a batch whose answer it lost (same request id) gets the same answer and
// the batch is evaluated once; the id is the caller's own: another caller gets nothing from it.
TEST_F(StudyManagerTest, ARetriedBatchIsAnsweredAgainAndEvaluatedOnce) {
  const Identity team = Identity::Team("red");
  auto study = manager_->OpenPractice(team, "mixed");
  ASSERT_TRUE(study.ok()) << study.status();
  auto first = manager_->SubmitBatch(team, study->study_id, 0, Batch(4), {}, "r0");
  ASSERT_TRUE(first.ok()) << first.status();
  auto again = manager_->SubmitBatch(team, study->study_id, 0, Batch(4, 2.0), {}, "r0");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->values, first->values);
  EXPECT_EQ(store_->StudyValues(study->study_id)->size(), 1u);
  // Another caller with the same id is refused as for any study not its own.
  EXPECT_EQ(manager_->SubmitBatch(Identity::Team("blue"), study->study_id, 0, Batch(4), {}, "r0")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  // Without the id, or with another one, a repeat is the protocol error it always was.
  EXPECT_EQ(manager_->SubmitBatch(team, study->study_id, 0, Batch(4), {}, "").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(manager_->SubmitBatch(team, study->study_id, 0, Batch(4), {}, "r9").status().code(),
            absl::StatusCode::kFailedPrecondition);
  // The last batch: answered again after the study ended.
  ASSERT_TRUE(manager_->SubmitBatch(team, study->study_id, 1, Batch(4), {}, "r1").ok());
  auto last = manager_->SubmitBatch(team, study->study_id, 2, Batch(4), {}, "r2");
  ASSERT_TRUE(last.ok()) << last.status();
  ASSERT_TRUE(last->study_done);
  auto last_again = manager_->SubmitBatch(team, study->study_id, 2, Batch(4), {}, "r2");
  ASSERT_TRUE(last_again.ok()) << last_again.status();
  EXPECT_TRUE(last_again->study_done);
  EXPECT_EQ(last_again->values, last->values);
  EXPECT_EQ(store_->StudyValues(study->study_id)->size(), 3u);
}

TEST_F(StudyManagerTest, SlowSuggestCutsOffStudyAndKeepsBestSoFar) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  auto first = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4, 1.5));
  ASSERT_TRUE(first.ok());
  clock_.Advance(absl::Seconds(10.5));  // over the 10 s per-suggest budget
  auto late = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(late.status().message(), HasSubstr("best value so far stands"));
  auto rec = store_->GetStudy(study->study_id);
  EXPECT_EQ(rec->state, StudyState::kCutOff);
  auto values = store_->StudyValues(study->study_id);
  ASSERT_EQ(values->size(), 1u);  // the late batch was not evaluated
  EXPECT_NEAR((*values)[0][0], 0.25, 1e-12);
  auto errors = store_->ListStudyErrors(study->study_id);
  ASSERT_EQ(errors->size(), 1u);
  EXPECT_EQ((*errors)[0].kind, "budget");
}

TEST_F(StudyManagerTest, StudyBudgetIsCumulative) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  clock_.Advance(absl::Seconds(9));
  ASSERT_TRUE(manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4)).ok());
  clock_.Advance(absl::Seconds(9));
  ASSERT_TRUE(manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4)).ok());
  clock_.Advance(absl::Seconds(9));  // 27 s > 25 s in total, though each turn < 10 s
  auto out = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 2, Batch(4));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(out.status().message(), HasSubstr("study budget"));
}

TEST_F(StudyManagerTest, SuggestFailureIsFilledByRandomSearch) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  auto out = manager_->ReportSuggestFailure(Identity::Coordinator(), study->study_id, 0,
                                            "ValueError: boom", false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->evaluated.size(), 4u);
  EXPECT_EQ(out->values.size(), 4u);
  for (double v : out->values) EXPECT_TRUE(std::isfinite(v));
  auto errors = store_->ListStudyErrors(study->study_id);
  ASSERT_EQ(errors->size(), 1u);
  EXPECT_THAT((*errors)[0].message, HasSubstr("ValueError: boom"));
  // The study goes on with the next batch.
  EXPECT_TRUE(manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4)).ok());
}

TEST_F(StudyManagerTest, WorkerTextIsStoredBoundedAndValidUtf8) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  const std::string huge = std::string(60u << 20, 'm') + "\xff";
  auto out = manager_->ReportSuggestFailure(Identity::Coordinator(), study->study_id, 0,
                                            "\xff" + huge, false);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->errors.size(), 1u);
  EXPECT_LE(out->errors[0].size(), 9000u);
  ASSERT_TRUE(manager_->EndStudy(Identity::Coordinator(), study->study_id, huge).ok());
  auto errors = store_->ListStudyErrors(study->study_id);
  ASSERT_EQ(errors->size(), 2u);
  for (const auto& e : *errors) {
    EXPECT_LE(e.message.size(), 8192u);
    EXPECT_TRUE(IsValidUtf8(e.message));
  }
  EXPECT_THAT((*errors)[0].message, HasSubstr("\xEF\xBF\xBDmmm"));
}

TEST_F(StudyManagerTest, DeadOptimizerEndsStudyAsFailedWithBestSoFar) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  ASSERT_TRUE(
      manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4, 2.0)).ok());
  auto out = manager_->ReportSuggestFailure(Identity::Coordinator(), study->study_id, 1,
                                            "exited with status 3", true);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->study_done);
  auto rec = store_->GetStudy(study->study_id);
  EXPECT_EQ(rec->state, StudyState::kFailed);
  auto values = store_->StudyValues(study->study_id);
  ASSERT_EQ(values->size(), 1u);
  EXPECT_NEAR((*values)[0][0], 1.0, 1e-12);
}

TEST_F(StudyManagerTest, CrashingAndNanObjectivesYieldInf) {
  for (const std::string& name : problems_->names()) {
    if (name == "mixed") continue;
    auto study = manager_->OpenPractice(Identity::Organizer(), name);
    ASSERT_TRUE(study.ok());
    std::vector<IncomingPoint> batch;
    for (double x : {0.1, 0.2, 0.9, 0.95}) batch.push_back({Point{{"x0", x}}, ""});
    auto out = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, batch);
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    EXPECT_TRUE(std::isfinite(out->values[0])) << name;
    EXPECT_EQ(out->values[2], kInf) << name;
    EXPECT_EQ(out->values[3], kInf) << name;
    auto values = store_->StudyValues(study->study_id);
    EXPECT_EQ((*values)[0][3], kInf) << name;
  }
}

TEST_F(StudyManagerTest, RejectsOutOfOrderBatchAndUnknownStudy) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  auto skip = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4));
  EXPECT_EQ(skip.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(skip.status().message(), HasSubstr("expects batch 0"));
  auto unknown = manager_->SubmitBatch(Identity::Coordinator(), 424242, 0, Batch(4));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  auto bad_problem = manager_->OpenPractice(Identity::Organizer(), "no-such-problem");
  EXPECT_EQ(bad_problem.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StudyManagerTest, StartUpIsNotChargedOnceTheOptimizerIsReady) {
  ASSERT_TRUE(store_->AddSubmission({0, "opt", SubmissionKind::kPython, "d", 2}, "", {"mixed"}, 1)
                  .ok());
  auto ready_job = **store_->LeaseJob("w", 1e12);
  auto ready = manager_->OpenForJob(Identity::Coordinator(), ready_job.id, "w");
  ASSERT_TRUE(ready.ok()) << ready.status();
  auto slow_job = **store_->LeaseJob("w", 1e12);
  auto slow = manager_->OpenForJob(Identity::Coordinator(), slow_job.id, "w");
  ASSERT_TRUE(slow.ok());
  clock_.Advance(absl::Seconds(30));  // start-up: three times the 10 s turn budget
  EXPECT_TRUE(manager_->OptimizerReady(Identity::Coordinator(), ready->study_id).ok());
  EXPECT_TRUE(manager_->OptimizerReady(Identity::Coordinator(), ready->study_id)
                  .ok());  // repeated: no change
  clock_.Advance(absl::Seconds(2));
  auto batch = manager_->SubmitBatch(Identity::Coordinator(), ready->study_id, 0, Batch(4));
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(manager_->OptimizerReady(Identity::Coordinator(), ready->study_id).code(),
            absl::StatusCode::kFailedPrecondition);  // past batch 0
  // Control: a host that never reports ready is charged from the opening, as before.
  EXPECT_EQ(
      manager_->SubmitBatch(Identity::Coordinator(), slow->study_id, 0, Batch(4)).status().code(),
      absl::StatusCode::kDeadlineExceeded);
  // Practice studies have no start-up: their clock starts when they open.
  auto practice = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(practice.ok());
  EXPECT_EQ(manager_->OptimizerReady(Identity::Coordinator(), practice->study_id).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(StudyManagerTest, StartUpHasItsOwnBudget) {
  ASSERT_TRUE(store_->AddSubmission({0, "opt", SubmissionKind::kPython, "d", 2}, "", {"mixed"}, 1)
                  .ok());
  auto late =
      manager_->OpenForJob(Identity::Coordinator(), (**store_->LeaseJob("w", 1e12)).id, "w");
  auto stuck =
      manager_->OpenForJob(Identity::Coordinator(), (**store_->LeaseJob("w", 1e12)).id, "w");
  ASSERT_TRUE(late.ok() && stuck.ok());
  clock_.Advance(absl::Seconds(30));
  ASSERT_TRUE(manager_->Sweep().ok());  // 30 s of start-up: within the 60 s start-up budget
  EXPECT_EQ(store_->GetStudy(stuck->study_id)->state, StudyState::kRunning);
  clock_.Advance(absl::Seconds(31));
  // Ready after 61 s: too late, the study is cut off with no optimizer time charged.
  EXPECT_EQ(manager_->OptimizerReady(Identity::Coordinator(), late->study_id).code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(store_->GetStudy(late->study_id)->state, StudyState::kCutOff);
  clock_.Advance(absl::Seconds(5));
  ASSERT_TRUE(manager_->Sweep().ok());  // 66 s > 60 s + 5 s grace
  EXPECT_EQ(store_->GetStudy(stuck->study_id)->state, StudyState::kCutOff);
  auto errors = store_->ListStudyErrors(stuck->study_id);
  ASSERT_TRUE(errors.ok());
  ASSERT_EQ(errors->size(), 1u);
  EXPECT_THAT((*errors)[0].message, HasSubstr("start-up budget"));
}

TEST_F(StudyManagerTest, SweepCutsOffAbandonedPracticeStudy) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  ASSERT_TRUE(manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4)).ok());
  clock_.Advance(absl::Seconds(12));  // within budget + 5 s grace: left alone
  manager_->Sweep();
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kRunning);
  clock_.Advance(absl::Seconds(4));  // 16 s > 10 s + 5 s grace
  manager_->Sweep();
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kCutOff);
  EXPECT_EQ(manager_->LiveStudies(), 0);
  // The late host learns that the budget ran out (not a host error to retry).
  auto late = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(StudyManagerTest, FullDiskLosesNothingAndTheStudyCanResume) {
  StudyOptions opts;
  opts.budget.batch_size = 4;
  opts.budget.n_batches = 100000;
  StudyManager manager(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), opts}}, evaluator_.get(), &clock_);
  auto study = manager.OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  // A database that cannot grow: SQLite reports SQLITE_FULL exactly as for a full disk.
  ASSERT_TRUE(store_->ExecForTesting("PRAGMA max_page_count = 40").ok());
  int ok_batches = 0;
  absl::Status failure;
  for (int b = 0; b < 5000; ++b) {
    auto out = manager.SubmitBatch(Identity::Coordinator(), study->study_id, b, Batch(4));
    if (!out.ok()) {
      failure = out.status();
      break;
    }
    ++ok_batches;
  }
  ASSERT_EQ(failure.code(), absl::StatusCode::kResourceExhausted) << failure;
  ASSERT_GT(ok_batches, 0);
  // Every acknowledged batch is complete; the failed one left nothing behind.
  auto values = store_->StudyValues(study->study_id);
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(static_cast<int>(values->size()), ok_batches);
  for (const auto& batch : *values) EXPECT_EQ(batch.size(), 4u);
  // Space comes back: the same batch index is accepted and the study goes on.
  ASSERT_TRUE(store_->ExecForTesting("PRAGMA max_page_count = 1073741823").ok());
  auto retry = manager.SubmitBatch(Identity::Coordinator(), study->study_id, ok_batches, Batch(4));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(static_cast<int>(store_->StudyValues(study->study_id)->size()), ok_batches + 1);
}

TEST_F(StudyManagerTest, EndStudyEarlyMarksFailedAndIsIdempotent) {
  auto study = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  auto st =
      manager_->EndStudy(Identity::Coordinator(), study->study_id, "optimizer failed to start");
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(*st, StudyState::kFailed);
  auto again = manager_->EndStudy(Identity::Coordinator(), study->study_id, "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, StudyState::kFailed);
}

TEST_F(StudyManagerTest, AnonymizedStudyHidesNamesAndEvaluatesUnderRealOnes) {
  StudyOptions opts = manager_->options();
  opts.anonymize = true;
  opts.anonymize_seed = 7;
  StudyManager anon(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), opts}}, evaluator_.get(), &clock_);
  auto study = anon.OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok()) << study.status();
  const nlohmann::json& config = study->api_config;
  for (const char* real : {"x", "n", "kernel", "flag"}) {
    EXPECT_THAT(study->api_config.dump(), ::testing::Not(HasSubstr(std::string("\"") + real + "\"")))
        << real;
  }
  // The opaque names are p0..p3, and the same problem gets the same names again.
  std::map<std::string, std::string> type_of;
  for (const auto& [name, spec] : config.items()) type_of[name] = spec["type"];
  EXPECT_EQ(type_of.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(type_of.count("p" + std::to_string(i)), 1u);
  auto again = anon.OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->api_config, study->api_config);
  // Build the optimum under the opaque names from the types.
  Point opt;
  for (const auto& [name, type] : type_of) {
    if (type == "real") opt[name] = 1.0;
    if (type == "int") opt[name] = int64_t{3};
    if (type == "cat") opt[name] = std::string("rbf");
    if (type == "bool") opt[name] = true;
  }
  // The fourth suggestion puts the real parameter out of its range [-5, 5].
  Point bad = opt;
  std::string real_param;
  for (const auto& [name, type] : type_of) {
    if (type == "real") {
      bad[name] = 99.0;
      real_param = name;
    }
  }
  std::vector<IncomingPoint> batch = {{opt, ""}, {opt, ""}, {opt, ""}, {bad, ""}};
  auto out = anon.SubmitBatch(Identity::Coordinator(), study->study_id, 0, batch);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->values[0], 0.0);  // evaluated at the real optimum
  EXPECT_TRUE(std::isfinite(out->values[3]));
  // The error names the parameter as the optimizer knows it, never by its real name.
  ASSERT_EQ(out->errors.size(), 1u);
  EXPECT_THAT(out->errors[0], HasSubstr("suggestion 3"));
  EXPECT_THAT(out->errors[0], HasSubstr("\"" + real_param + "\""));
  EXPECT_THAT(out->errors[0], ::testing::Not(HasSubstr("\"x\"")));
  // Points come back under the opaque names; the database keeps the real ones.
  EXPECT_EQ(out->evaluated[0].count("kernel"), 0u);
  EXPECT_EQ(out->evaluated[0].size(), 4u);
  auto stored = store_->StudyEvaluations(study->study_id);
  ASSERT_TRUE(stored.ok());
  EXPECT_THAT((*stored)[0].second.params_json, HasSubstr("\"kernel\""));
  // The study records the problem's signature.
  EXPECT_EQ(store_->GetStudy(study->study_id)->problem_signature,
            anon.SignatureOf(*problems_->Get("mixed")));
}

// A mixed problem with a held-out loss of 2 f + 1, NaN where x > 3.
class HeldOutProblem : public MixedProblem {
 public:
  HeldOutProblem() : MixedProblem("held_out") {}
  ProblemEvaluation EvaluateWithHeldOut(const Point& p) const override {
    const double f = Evaluate(p);
    const double x = std::get<double>(p.at("x"));
    return {f, x > 3 ? std::numeric_limits<double>::quiet_NaN() : 2 * f + 1};
  }
};

TEST_F(StudyManagerTest, RecordsTheHeldOutLossTheOptimizerNeverSees) {
  std::vector<std::unique_ptr<Problem>> problems;
  problems.push_back(std::make_unique<HeldOutProblem>());
  ProblemSet set(std::move(problems));
  StudyOptions opts;
  opts.budget.batch_size = 2;
  opts.budget.n_batches = 1;
  StudyManager manager(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", &set, opts}}, evaluator_.get(), &clock_);
  auto study = manager.OpenPractice(Identity::Organizer(), "held_out");
  ASSERT_TRUE(study.ok()) << study.status();
  std::vector<IncomingPoint> batch = {{GoodPoint(2.0), ""}, {GoodPoint(4.0), ""}};
  auto out = manager.SubmitBatch(Identity::Coordinator(), study->study_id, 0, batch);
  ASSERT_TRUE(out.ok()) << out.status();
  // The optimizer gets the objective only.
  EXPECT_DOUBLE_EQ(out->values[0], 1.0);
  EXPECT_DOUBLE_EQ(out->values[1], 9.0);
  auto evals = store_->StudyEvaluations(study->study_id);
  ASSERT_TRUE(evals.ok());
  ASSERT_EQ(evals->size(), 2u);
  EXPECT_EQ((*evals)[0].second.generalization, 3.0);
  EXPECT_EQ((*evals)[1].second.generalization, kInf);  // NaN held-out loss stored as +inf
  // Problems without a held-out loss store none.
  auto plain = manager_->OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(manager_->SubmitBatch(Identity::Coordinator(), plain->study_id, 0, Batch(4)).ok());
  EXPECT_FALSE((*store_->StudyEvaluations(plain->study_id))[0].second.generalization.has_value());
}

// Study ends the store refuses: the study is over in memory at once, and its end reaches the
// store later (Sweep retries). `faulty_` wraps the fixture's SQLite store.
class StudyManagerStoreFaultTest : public StudyManagerTest {
 protected:
  void SetUp() override {
    StudyManagerTest::SetUp();
    faulty_ = std::make_unique<testing::FaultInjectionStore>(store_.get());
    StudyOptions opts = manager_->options();
    faulty_manager_ = std::make_unique<StudyManager>(faulty_.get(), faulty_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), opts}}, evaluator_.get(), &clock_);
  }
  void TearDown() override {
    faulty_manager_.reset();
    faulty_.reset();
    StudyManagerTest::TearDown();
  }
  std::unique_ptr<testing::FaultInjectionStore> faulty_;
  std::unique_ptr<StudyManager> faulty_manager_;
};

TEST_F(StudyManagerStoreFaultTest, SweepRetriesACutOffTheStoreRefusedUntilItIsStored) {
  StudyManager& m = *faulty_manager_;
  auto study = m.OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  ASSERT_TRUE(m.SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4)).ok());
  clock_.Advance(absl::Seconds(16));  // over 10 s + 5 s grace
  faulty_->FailUntilHealed("EndStudy", absl::UnavailableError("disk went away"));
  EXPECT_EQ(m.Sweep().code(), absl::StatusCode::kUnavailable);
  // Cut off in memory, not yet in the store: no more batches, the end is pending.
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kRunning);
  EXPECT_EQ(m.PendingEnds(), 1);
  auto late = m.SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(m.Sweep().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(faulty_->InjectedFailures("EndStudy"), 2);
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kRunning);
  // Healed: the next sweep stores the cut-off, once, with its budget error recorded once.
  faulty_->Heal("EndStudy");
  ASSERT_TRUE(m.Sweep().ok());
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kCutOff);
  EXPECT_EQ(m.PendingEnds(), 0);
  EXPECT_EQ(m.LiveStudies(), 0);
  auto errors = store_->ListStudyErrors(study->study_id);
  ASSERT_EQ(errors->size(), 1u);
  EXPECT_EQ((*errors)[0].kind, "budget");
  EXPECT_EQ(store_->ScoringChangesSince(0)->seq, 1);
  late = m.SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(m.Sweep().ok());
  EXPECT_EQ(faulty_->Calls("EndStudy"), 1);
}

TEST_F(StudyManagerStoreFaultTest, ARefusedErrorRecordIsRetriedAndTheEndStillStored) {
  StudyManager& m = *faulty_manager_;
  auto study = m.OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  faulty_->FailNext("RecordStudyError", absl::ResourceExhaustedError("disk full"));
  auto dead = m.ReportSuggestFailure(Identity::Coordinator(), study->study_id, 0, "segfault",
                                     /*optimizer_dead=*/true);
  EXPECT_EQ(dead.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kFailed);
  EXPECT_TRUE(store_->ListStudyErrors(study->study_id)->empty());
  EXPECT_EQ(m.PendingEnds(), 1);
  ASSERT_TRUE(m.Sweep().ok());
  auto errors = store_->ListStudyErrors(study->study_id);
  ASSERT_EQ(errors->size(), 1u);
  EXPECT_EQ((*errors)[0].kind, "optimizer_died");
  EXPECT_EQ(m.PendingEnds(), 0);
}

TEST_F(StudyManagerStoreFaultTest, EndStudyReturnsTheStoreErrorAndACallAgainStoresTheEnd) {
  StudyManager& m = *faulty_manager_;
  auto study = m.OpenPractice(Identity::Organizer(), "mixed");
  ASSERT_TRUE(study.ok());
  faulty_->FailNext("EndStudy", absl::UnavailableError("locked"));
  EXPECT_EQ(m.EndStudy(Identity::Coordinator(), study->study_id, "gave up").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kRunning);
  auto again = m.EndStudy(Identity::Coordinator(), study->study_id, "gave up");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, StudyState::kFailed);
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kFailed);
  EXPECT_EQ(store_->ListStudyErrors(study->study_id)->size(), 1u);  // ended_early, once
  EXPECT_EQ(m.LiveStudies(), 0);
}

TEST_F(StudyManagerStoreFaultTest, AReopenedJobWhoseOldStudyCannotBeEndedIsNotOpened) {
  StudyManager& m = *faulty_manager_;
  ASSERT_TRUE(store_->AddSubmission({0, "opt", SubmissionKind::kPython, "d", 1}, "", {"mixed"}, 1)
                  .ok());
  auto job = **store_->LeaseJob("w", 1e12);
  auto first = m.OpenForJob(Identity::Coordinator(), job.id, "w");
  ASSERT_TRUE(first.ok());
  faulty_->FailNext("EndStudy", absl::UnavailableError("locked"));
  EXPECT_EQ(m.OpenForJob(Identity::Coordinator(), job.id, "w").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->GetStudy(first->study_id)->state, StudyState::kRunning);
  EXPECT_EQ(store_->ListStudyIds()->size(), 1u);
  // The old study is over: a late batch is refused; the sweep stores its end.
  EXPECT_EQ(m.SubmitBatch(Identity::Coordinator(), first->study_id, 0, Batch(4)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(m.Sweep().ok());
  EXPECT_EQ(store_->GetStudy(first->study_id)->state, StudyState::kAbandoned);
  auto second = m.OpenForJob(Identity::Coordinator(), job.id, "w");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(second->study_id, first->study_id);
}

}  // namespace
}  // namespace bbo
