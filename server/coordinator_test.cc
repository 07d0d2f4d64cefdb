#include "server/coordinator.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/memory_store.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

// y = (x - shift)^2: the same problem name with different data when `shift` changes.
class Quadratic : public BuiltinProblem {
 public:
  explicit Quadratic(double shift)
      : BuiltinProblem("quad", "(x - shift)^2",
                       {{"x", {{"type", "real"}, {"space", "linear"}, {"range", {-1.0, 1.0}}}}},
                       0.0),
        shift_(shift) {}
  double Evaluate(const Point& p) const override {
    const double d = std::get<double>(p.at("x")) - shift_;
    return d * d;
  }

 private:
  double shift_;
};

std::vector<std::unique_ptr<Problem>> One(double shift) {
  std::vector<std::unique_ptr<Problem>> v;
  v.push_back(std::make_unique<Quadratic>(shift));
  return v;
}

TEST(CoordinatorTest, RefusesAProblemThatChangedSinceItsStudies) {
  const std::string db = (std::filesystem::temp_directory_path() /
                          ("coordinator_test_" + std::to_string(::getpid()) + ".sqlite"))
                             .string();
  std::filesystem::remove(db);
  CoordinatorOptions o;
  o.db_path = db;
  o.run_baseline = false;
  {
    auto c = Coordinator::Create(o, One(0.25));
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE((*c)->studies().OpenPractice("quad").ok());  // records the signature
  }
  {
    auto same = Coordinator::Create(o, One(0.25));
    EXPECT_TRUE(same.ok()) << same.status();
  }
  auto changed = Coordinator::Create(o, One(0.3));
  ASSERT_EQ(changed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(changed.status().message(), HasSubstr("quad"));
  EXPECT_THAT(changed.status().message(), HasSubstr("--allow_changed_problems"));
  o.allow_changed_problems = true;
  EXPECT_TRUE(Coordinator::Create(o, One(0.3)).ok());
  std::filesystem::remove(db);
}

TEST(CoordinatorTest, RunsACompetitionEndToEndOnTheInMemoryStore) {
  CoordinatorOptions o;
  o.db_path = "/nonexistent-dir/never-opened.sqlite";  // the in-memory store is used instead
  o.run_baseline = false;
  o.study.budget.batch_size = 2;
  o.study.budget.n_batches = 3;
  o.competition.baseline_trials = 2;
  auto store = std::make_unique<InMemoryStore>();
  InMemoryStore* mem = store.get();
  auto c = Coordinator::Create(o, One(0.25), nullptr, std::move(store));
  ASSERT_TRUE(c.ok()) << c.status();
  Coordinator& co = **c;
  EXPECT_EQ(&co.store(), mem);
  // The baseline the coordinator queued runs through the same study path.
  auto ran = co.baseline().RunPending();
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ(*ran, 2);
  // A worker runs a registered job's study to completion.
  int64_t sub = *mem->AddSubmission({0, "opt", SubmissionKind::kPython, "d", 1}, "", {"quad"}, 3);
  auto worker = co.queue().RegisterWorker("host", 1);
  ASSERT_TRUE(worker.ok());
  auto job = co.queue().Lease(worker->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value()) << job.status();
  EXPECT_EQ((*job)->submission_id, sub);
  auto study = co.studies().OpenForJob((*job)->job_id, worker->worker_id);
  ASSERT_TRUE(study.ok()) << study.status();
  for (int b = 0; b < 3; ++b) {
    std::vector<IncomingPoint> points = {{{{"x", 0.25}}, ""}, {{{"x", 0.5}}, ""}};
    auto out = co.studies().SubmitBatch(study->study_id, b, points, 0, 0);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_DOUBLE_EQ(out->values[0], 0.0);
    EXPECT_EQ(out->study_done, b == 2);
  }
  ASSERT_TRUE(co.queue().Finish(worker->worker_id, (*job)->job_id, "").ok());
  EXPECT_EQ(mem->GetStudy(study->study_id)->state, StudyState::kCompleted);
  EXPECT_EQ(mem->CountJobs(sub)->done, 1);
  auto data = mem->LoadScoringData();
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->methods.at("opt").at("quad").size(), 1u);
  EXPECT_THAT(data->methods.at("opt").at("quad")[0].batch_min, ::testing::ElementsAre(0, 0, 0));
  EXPECT_EQ(data->baseline_evals.at("quad").size(), 2u * 3u * 2u);
  // Nothing was written to disk.
  EXPECT_FALSE(std::filesystem::exists(o.db_path));
}

}  // namespace
}  // namespace bbo
