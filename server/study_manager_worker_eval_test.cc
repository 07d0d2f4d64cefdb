// StudyManager with objectives that take time: a batch evaluated by the study's worker
// (ReportValues) or here, slower than every budget, is never charged to the optimizer; the
// worker must have built the very problem the coordinator records (its signature).

#include <filesystem>
#include <functional>
#include <limits>

#include "common/sqlite.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/signature.h"
#include "problems/test_problems.h"
#include "server/baseline_runner.h"
#include "server/store/sqlite_store.h"
#include "server/study_manager.h"
#include "server/testing/mixed_problem.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;
using testing::GoodPoint;
using testing::MixedProblem;

// An objective that takes `cost` on the fake clock (as a real one takes wall time); `after`,
// if set, runs after each evaluation (the coordinator's sweep, say).
class ClockedProblem : public BuiltinProblem {
 public:
  ClockedProblem(FakeClock* clock, absl::Duration cost, std::function<void()> after = nullptr,
                 std::string name = "clocked")
      : BuiltinProblem(std::move(name), "x0 after `cost` of fake time",
                       nlohmann::json::parse(
                           R"({"x0": {"type": "real", "space": "linear", "range": [0, 1]}})"),
                       0.0),
        clock_(clock),
        cost_(cost),
        after_(std::move(after)) {}
  double Evaluate(const Point& p) const override {
    clock_->Advance(cost_);
    if (after_) after_();
    return std::get<double>(p.at("x0"));
  }

 private:
  FakeClock* clock_;
  absl::Duration cost_;
  std::function<void()> after_;
};

class WorkerEvaluationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("worker_eval_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    std::filesystem::remove(path_);
    store_ = *SqliteStore::Open(path_);
    std::vector<std::unique_ptr<Problem>> problems;
    problems.push_back(std::make_unique<MixedProblem>());
    // 1000 s of fake time per evaluation: over the 10 s turn and 25 s study budgets, and over
    // any RPC deadline.
    problems.push_back(std::make_unique<ClockedProblem>(&clock_, absl::Seconds(1000)));
    // 500 s per evaluation, the coordinator's lease sweep running after each.
    problems.push_back(std::make_unique<ClockedProblem>(&clock_, absl::Seconds(500), [this] {
      if (store_ != nullptr && sweep_leases_) (void)store_->ExpireLeases(clock_.NowSeconds(), 3);
    }, "clocked_slow"));
    problems_ = std::make_unique<ProblemSet>(std::move(problems));
    evaluator_ = std::make_unique<Evaluator>(1);
    StudyOptions opts;
    opts.budget.batch_size = 4;
    opts.budget.n_batches = 3;
    opts.budget.suggest_budget_s = 10;
    opts.budget.study_budget_s = 25;
    manager_ = std::make_unique<StudyManager>(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), opts}}, evaluator_.get(), &clock_);
    manager_->set_signature_mismatch([this](int64_t job, const std::string& worker) {
      mismatches_.emplace_back(job, worker);
    });
  }
  void TearDown() override {
    manager_.reset();
    store_.reset();
    std::filesystem::remove(path_);
  }

  // Leases a job of a new one-trial submission on `problem` to worker "w".
  JobRecord LeaseJobOn(const std::string& problem) {
    EXPECT_TRUE(
        store_->AddSubmission({0, "opt", SubmissionKind::kPython, "d", 1}, "", {problem}, 1).ok());
    return **store_->LeaseJob("w", 1e12);
  }
  std::string SignatureOf(const std::string& problem) {
    return ProblemSignature(**problems_->Get(problem));
  }
  std::vector<IncomingPoint> Batch(int n, double x = 1.0) {
    std::vector<IncomingPoint> out;
    for (int i = 0; i < n; ++i) out.push_back({GoodPoint(x + 0.1 * i), ""});
    return out;
  }
  // (turn_time_s, host_suggest_time_s + host_observe_time_s, eval_time_s) of every batch.
  std::vector<std::tuple<double, double, double>> Turns(int64_t study_id) {
    auto db = *sqlite::Database::Open(path_);
    auto q = *db->Prepare(
        "SELECT turn_time_s, host_suggest_time_s + host_observe_time_s, eval_time_s FROM batches"
        " WHERE study_id = ? ORDER BY batch");
    q->Bind(1, study_id);
    std::vector<std::tuple<double, double, double>> out;
    while (*q->Step()) out.emplace_back(q->Double(0), q->Double(1), q->Double(2));
    return out;
  }
  std::vector<EvaluatedPoint> Values(const BatchOutcome& asked, double v) {
    std::vector<EvaluatedPoint> out(asked.to_evaluate.size());
    for (auto& e : out) {
      e.value = v;
      e.eval_time_s = 250;
    }
    return out;
  }

  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<ProblemSet> problems_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<StudyManager> manager_;
  std::vector<std::pair<int64_t, std::string>> mismatches_;
  bool sweep_leases_ = false;
};

TEST_F(WorkerEvaluationTest, AWorkerEvaluatedBatchSlowerThanEveryBudgetIsNotCharged) {
  JobRecord job = LeaseJobOn("mixed");
  auto study = manager_->OpenForJob(Identity::Coordinator(), job.id, "w", SignatureOf("mixed"));
  ASSERT_TRUE(study.ok()) << study.status();
  ASSERT_TRUE(manager_->OptimizerReady(Identity::Coordinator(), study->study_id).ok());
  for (int b = 0; b < 3; ++b) {
    // The optimizer's turn: 2 s on the coordinator's clock, of which the worker measured 1.5 s
    // of suggest + observe (the rest is network and the worker's own work).
    clock_.Advance(absl::Seconds(2));
    auto asked = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, b, Batch(4),
                                       TurnReport{.suggest_s = 1.0, .observe_s = 0.5});
    ASSERT_TRUE(asked.ok()) << asked.status();
    ASSERT_EQ(asked->to_evaluate.size(), 4u);
    EXPECT_TRUE(asked->values.empty());
    EXPECT_FALSE(asked->study_done);
    // The worker evaluates for 1000 s; the sweep meanwhile must not cut the study off.
    clock_.Advance(absl::Seconds(1000));
    EXPECT_TRUE(manager_->Sweep().ok());
    auto done = manager_->ReportValues(Identity::Coordinator(), study->study_id, b,
                                       Values(*asked, 0.5 + b), 1000);
    ASSERT_TRUE(done.ok()) << done.status();
    EXPECT_EQ(done->study_done, b == 2);
    EXPECT_NEAR(done->remaining_s, 25 - 1.5 * (b + 1), 1e-9);
  }
  auto rec = store_->GetStudy(study->study_id);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->state, StudyState::kCompleted);
  // Charged: the worker's measure of the optimizer, never the evaluation.
  for (const auto& [turn, host, eval] : Turns(study->study_id)) {
    EXPECT_DOUBLE_EQ(turn, 1.5);
    EXPECT_DOUBLE_EQ(host, 1.5);
    EXPECT_DOUBLE_EQ(eval, 1000);
  }
  auto values = store_->StudyValues(study->study_id);
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(values->size(), 3u);
  EXPECT_DOUBLE_EQ((*values)[2][0], 2.5);
}

TEST_F(WorkerEvaluationTest, TheCoordinatorsClockCapsWhatAWorkerReports) {
  JobRecord job = LeaseJobOn("mixed");
  auto study = manager_->OpenForJob(Identity::Coordinator(), job.id, "w", SignatureOf("mixed"));
  ASSERT_TRUE(study.ok());
  ASSERT_TRUE(manager_->OptimizerReady(Identity::Coordinator(), study->study_id).ok());
  clock_.Advance(absl::Seconds(3));
  // More than elapsed (clock skew, a bug): charged what the coordinator saw.
  auto asked = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4),
                                     TurnReport{.suggest_s = 7, .observe_s = 0});
  ASSERT_TRUE(asked.ok());
  ASSERT_TRUE(
      manager_->ReportValues(Identity::Coordinator(), study->study_id, 0, Values(*asked, 1), 0)
          .ok());
  // A slow optimizer is still cut off: 11 s measured by the worker, over the 10 s turn.
  clock_.Advance(absl::Seconds(12));
  auto over = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 1, Batch(4),
                                    TurnReport{.suggest_s = 11, .observe_s = 0});
  EXPECT_EQ(over.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(over.status().message(), HasSubstr("11.000 s"));
  ASSERT_EQ(Turns(study->study_id).size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<0>(Turns(study->study_id)[0]), 3);
}

TEST_F(WorkerEvaluationTest, ACoordinatorEvaluatedSlowObjectiveIsNotChargedEither) {
  JobRecord job = LeaseJobOn("clocked");
  auto study =
      manager_->OpenForJob(Identity::Coordinator(), job.id, "w");  // no signature: evaluated here
  ASSERT_TRUE(study.ok());
  ASSERT_TRUE(manager_->OptimizerReady(Identity::Coordinator(), study->study_id).ok());
  for (int b = 0; b < 3; ++b) {
    clock_.Advance(absl::Seconds(1));
    std::vector<IncomingPoint> batch(4, IncomingPoint{Point{{"x0", 0.25}}, ""});
    auto out = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, b, batch,
                                     TurnReport{.suggest_s = 0.5, .observe_s = 0.5});
    ASSERT_TRUE(out.ok()) << out.status();  // 4000 s of evaluation per batch
    EXPECT_TRUE(out->to_evaluate.empty());
    ASSERT_EQ(out->values.size(), 4u);
  }
  for (const auto& [turn, host, eval] : Turns(study->study_id)) {
    EXPECT_DOUBLE_EQ(turn, 1);
    EXPECT_DOUBLE_EQ(eval, 4000);
  }
  EXPECT_EQ(store_->GetStudy(study->study_id)->state, StudyState::kCompleted);
}

// The random-search baseline runs on the coordinator: a study whose evaluations take hours is
// not taken for a lost one (its lease is renewed batch by batch) and completes once.
TEST_F(WorkerEvaluationTest, ABaselineStudyLongerThanItsLeaseIsNotAbandoned) {
  SubmissionRecord rs{0, "random-search-baseline", SubmissionKind::kBuiltin, "", 1};
  ASSERT_TRUE(store_->AddSubmission(rs, "", {"clocked_slow"}, 1).ok());
  sweep_leases_ = true;
  BaselineRunner baseline(store_.get(), problems_.get(), manager_.get(), &clock_);
  // 3 batches x 4 points x 500 s = 6000 s, longer than any one lease.
  absl::StatusOr<int> ran = baseline.RunPending();
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ(*ran, 1);
  JobRecord job = *store_->GetJob(1);
  EXPECT_EQ(job.state, JobState::kDone);
  EXPECT_EQ(job.attempts, 1);
  auto study = store_->GetStudy(1);
  ASSERT_TRUE(study.ok());
  EXPECT_EQ(study->state, StudyState::kCompleted);
}

TEST_F(WorkerEvaluationTest, AnotherProblemSignatureIsRefusedAndReported) {
  JobRecord job = LeaseJobOn("mixed");
  auto refused = manager_->OpenForJob(Identity::Coordinator(), job.id, "w", "v1:something-else");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("another worker"));
  ASSERT_EQ(mismatches_.size(), 1u);
  EXPECT_EQ(mismatches_[0], std::make_pair(job.id, std::string("w")));
  EXPECT_EQ(manager_->LiveStudies(), 0);
  // The right one opens.
  EXPECT_TRUE(
      manager_->OpenForJob(Identity::Coordinator(), job.id, "w", SignatureOf("mixed")).ok());
  EXPECT_EQ(mismatches_.size(), 1u);
}

TEST_F(WorkerEvaluationTest, ValuesAreTakenOnceInOrderAndChecked) {
  JobRecord job = LeaseJobOn("mixed");
  auto study = manager_->OpenForJob(Identity::Coordinator(), job.id, "w", SignatureOf("mixed"));
  ASSERT_TRUE(study.ok());
  const Identity worker = Identity::Worker("(in-process)");
  manager_->set_worker_check(
      [](const Identity& who, const std::string& id) {
        return who.is_worker() && who.name == "(in-process)" && id == "w";
      });
  // Another caller's study is answered as an unknown one.
  EXPECT_EQ(manager_->ReportValues(Identity::Worker("other"), study->study_id, 0, {}, 0, "x")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  // No batch awaits values yet.
  EXPECT_EQ(
      manager_->ReportValues(Identity::Coordinator(), study->study_id, 0, {}, 0).status().code(),
      absl::StatusCode::kFailedPrecondition);
  auto asked = manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4));
  ASSERT_TRUE(asked.ok());
  // While values are awaited, no other batch is taken.
  EXPECT_EQ(
      manager_->SubmitBatch(Identity::Coordinator(), study->study_id, 0, Batch(4)).status().code(),
      absl::StatusCode::kFailedPrecondition);
  // A wrong number of values is refused and the batch still awaits them.
  std::vector<EvaluatedPoint> three(3);
  EXPECT_EQ(
      manager_->ReportValues(Identity::Coordinator(), study->study_id, 0, three, 0).status().code(),
      absl::StatusCode::kInvalidArgument);
  // NaN is a crash (+inf), as when the coordinator evaluates.
  std::vector<EvaluatedPoint> four = Values(*asked, 2);
  four[1].value = std::numeric_limits<double>::quiet_NaN();
  auto first = manager_->ReportValues(worker, study->study_id, 0, four, 1, "req-1");
  ASSERT_TRUE(first.ok()) << first.status();
  // A retry of the same call answers the same and records nothing more.
  auto retry = manager_->ReportValues(worker, study->study_id, 0, four, 1, "req-1");
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->remaining_s, first->remaining_s);
  auto values = store_->StudyValues(study->study_id);
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(values->size(), 1u);
  EXPECT_EQ((*values)[0][1], std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ((*values)[0][0], 2);
}

TEST_F(WorkerEvaluationTest, AnAnonymizedStudyGivesTheWorkerRealNamesAndTheOptimizerOpaqueOnes) {
  StudyOptions opts;
  opts.budget.batch_size = 2;
  opts.budget.n_batches = 1;
  opts.anonymize = true;
  opts.anonymize_seed = 3;
  StudyManager anon(store_.get(), store_.get(), std::vector<StudyPhase>{StudyPhase{"", problems_.get(), opts}}, evaluator_.get(), &clock_);
  JobRecord job = LeaseJobOn("mixed");
  auto study = anon.OpenForJob(Identity::Coordinator(), job.id, "w",
                               ProblemSignature(**problems_->Get("mixed")));
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_FALSE(study->api_config.contains("x"));
  std::vector<IncomingPoint> batch;
  for (int i = 0; i < 2; ++i) {
    Point p;
    for (auto& [name, spec] : study->api_config.items()) {
      // Any valid point of the opaque space: the random fill covers what this does not.
      (void)spec;
      p[name] = 0.0;
    }
    batch.push_back({p, ""});
  }
  auto asked = anon.SubmitBatch(Identity::Coordinator(), study->study_id, 0, batch);
  ASSERT_TRUE(asked.ok()) << asked.status();
  ASSERT_EQ(asked->to_evaluate.size(), 2u);
  for (const Point& p : asked->to_evaluate) {
    EXPECT_TRUE(p.count("x")) << "the worker evaluates under the real names";
    EXPECT_TRUE((*problems_->Get("mixed"))->space().Validate(p).ok());
  }
  for (const Point& p : asked->evaluated) EXPECT_FALSE(p.count("x"));
}

}  // namespace
}  // namespace bbo
