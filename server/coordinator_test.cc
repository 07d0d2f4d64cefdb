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

TEST(CoordinatorTest, FlagsBuildAOnePhaseCompetitionThatStillTakesNewFlagsOnARestart) {
  const std::string db = (std::filesystem::temp_directory_path() /
                          ("coordinator_flags_" + std::to_string(::getpid()) + ".sqlite"))
                             .string();
  std::filesystem::remove(db);
  CoordinatorOptions o;
  o.db_path = db;
  o.run_baseline = false;
  o.study.budget.batch_size = 4;
  o.study.budget.n_batches = 5;
  o.study.budget.suggest_budget_s = 7;
  o.study.budget.study_budget_s = 30;
  o.study.startup_budget_s = 9;
  o.study.optimizer_limits.memory_mb = 777;
  o.competition.phase = "warm-up";
  o.competition.default_trials = 2;
  o.competition.max_trials = 4;
  o.competition.max_submissions_per_team_per_day = 3;
  o.competition.evaluate_once = true;
  o.competition.warm_start_board = true;
  o.hidden_phase = true;
  const CompetitionSpec spec = Coordinator::FlagsCompetition(o);
  ASSERT_EQ(spec.phases.size(), 1u);
  EXPECT_EQ(spec.phases[0].name, "warm-up");
  EXPECT_EQ(spec.phases[0].key(), "");  // the store key of databases from before competitions
  {
    auto c = Coordinator::Create(o, One(0.25));
    ASSERT_TRUE(c.ok()) << c.status();
    // The flags' rules arrive in the phase and its studies as they did without a spec.
    const PhaseOptions& phase = (*c)->first_phase().options();
    EXPECT_EQ(phase.phase, "warm-up");
    EXPECT_EQ(phase.phase_key, "");
    EXPECT_EQ(phase.default_trials, 2);
    EXPECT_EQ(phase.max_trials, 4);
    EXPECT_EQ(phase.max_submissions_per_team_per_day, 3);
    EXPECT_TRUE(phase.evaluate_once);
    EXPECT_TRUE(phase.warm_start_board);
    EXPECT_TRUE(phase.hidden_phase);
    const StudyOptions& studies = (*c)->studies().options();
    EXPECT_EQ(studies.budget.batch_size, 4);
    EXPECT_EQ(studies.budget.n_batches, 5);
    EXPECT_EQ(studies.budget.study_budget_s, 30);
    EXPECT_EQ(studies.startup_budget_s, 9);
    EXPECT_EQ(studies.optimizer_limits.memory_mb, 777);
    EXPECT_TRUE(studies.hidden_phase);
    EXPECT_EQ((*c)->competition().name(), "");
  }
  // An organizer may restart a flags coordinator with other budgets (a competition file's
  // started phase may not: CoordinatorCompetitionTest).
  o.study.budget.n_batches = 6;
  o.competition.default_trials = 3;
  auto again = Coordinator::Create(o, One(0.25));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->studies().options().budget.n_batches, 6);
  again->reset();
  std::filesystem::remove(db);
  std::filesystem::remove(db + ".secret");
  std::filesystem::remove(db + ".lock");
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
    ASSERT_TRUE(
        (*c)->studies().OpenPractice(Identity::Organizer(), "quad").ok());  // records the signature
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
  auto worker = co.queue().RegisterWorker(Identity::Worker("test"), "host", 1);
  ASSERT_TRUE(worker.ok());
  auto job = co.queue().Lease(Identity::Worker("test"), worker->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value()) << job.status();
  EXPECT_EQ((*job)->submission_id, sub);
  auto study = co.studies().OpenForJob(Identity::Coordinator(), (*job)->job_id, worker->worker_id);
  ASSERT_TRUE(study.ok()) << study.status();
  for (int b = 0; b < 3; ++b) {
    std::vector<IncomingPoint> points = {{{{"x", 0.25}}, ""}, {{{"x", 0.5}}, ""}};
    auto out = co.studies().SubmitBatch(Identity::Coordinator(), study->study_id, b, points);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_DOUBLE_EQ(out->values[0], 0.0);
    EXPECT_EQ(out->study_done, b == 2);
  }
  ASSERT_TRUE(
      co.queue().Finish(Identity::Worker("test"), worker->worker_id, (*job)->job_id, "").ok());
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

// A coordinator killed mid-study (its object gone without a word to the store: the state a
// SIGKILL leaves) and started again on the same file: a new epoch, the interrupted study
// abandoned and its job queued again without the lost attempt counting, the old worker id
// unknown, and the job then runs once to its one final study.
TEST(CoordinatorTest, ARestartReRunsInterruptedJobsOnceInANewEpoch) {
  const std::string db = (std::filesystem::temp_directory_path() /
                          ("coordinator_restart_" + std::to_string(::getpid()) + ".sqlite"))
                             .string();
  std::filesystem::remove(db);
  CoordinatorOptions o;
  o.db_path = db;
  o.run_baseline = false;
  o.study.budget.batch_size = 2;
  o.study.budget.n_batches = 2;
  std::vector<IncomingPoint> points = {{{{"x", 0.25}}, ""}, {{{"x", 0.5}}, ""}};
  int64_t first_study = 0, job_id = 0, sub = 0;
  std::string old_worker;
  {
    auto c = Coordinator::Create(o, One(0.25));
    ASSERT_TRUE(c.ok()) << c.status();
    Coordinator& co = **c;
    EXPECT_EQ(co.queue().epoch(), 1);
    // One coordinator per database: a second one is refused while the first runs.
    auto second = Coordinator::Create(o, One(0.25));
    EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(second.status().message(), HasSubstr("another bbo-server is using"));
    sub = *co.store().AddSubmission({0, "opt", SubmissionKind::kPython, "d", 1}, "", {"quad"}, 3);
    auto worker = co.queue().RegisterWorker(Identity::Worker("test"), "host", 1);
    ASSERT_TRUE(worker.ok());
    EXPECT_EQ(worker->epoch, 1);
    old_worker = worker->worker_id;
    auto job = co.queue().Lease(Identity::Worker("test"), old_worker);
    ASSERT_TRUE(job.ok() && job->has_value());
    EXPECT_EQ((*job)->epoch, 1);
    job_id = (*job)->job_id;
    auto study = co.studies().OpenForJob(Identity::Coordinator(), job_id, old_worker);
    ASSERT_TRUE(study.ok()) << study.status();
    first_study = study->study_id;
    ASSERT_TRUE(co.studies().SubmitBatch(Identity::Coordinator(), first_study, 0, points).ok());
    // ... and the coordinator dies here.
  }
  auto c = Coordinator::Create(o, One(0.25));
  ASSERT_TRUE(c.ok()) << c.status();
  Coordinator& co = **c;
  EXPECT_EQ(co.queue().epoch(), 2);
  EXPECT_EQ(co.store().GetStudy(first_study)->state, StudyState::kAbandoned);
  JobRecord requeued = *co.store().GetJob(job_id);
  EXPECT_EQ(requeued.state, JobState::kQueued);
  EXPECT_EQ(requeued.attempts, 0);
  // The old worker learns it from its next call; the study's next batch is refused.
  EXPECT_EQ(co.queue().Heartbeat(Identity::Worker("test"), old_worker).code(),
            absl::StatusCode::kNotFound);
  auto stale = co.studies().SubmitBatch(Identity::Coordinator(), first_study, 1, points);
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.status().message(), HasSubstr("abandoned"));
  // Registered again, the worker runs the job from the start, once.
  auto worker = co.queue().RegisterWorker(Identity::Worker("test"), "host", 1);
  ASSERT_TRUE(worker.ok());
  auto job = co.queue().Lease(Identity::Worker("test"), worker->worker_id);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->job_id, job_id);
  EXPECT_EQ((*job)->epoch, 2);
  auto study = co.studies().OpenForJob(Identity::Coordinator(), job_id, worker->worker_id);
  ASSERT_TRUE(study.ok()) << study.status();
  for (int b = 0; b < 2; ++b) {
    ASSERT_TRUE(co.studies().SubmitBatch(Identity::Coordinator(), study->study_id, b, points).ok());
  }
  ASSERT_TRUE(co.queue().Finish(Identity::Worker("test"), worker->worker_id, job_id, "").ok());
  EXPECT_EQ(co.store().CountJobs(sub)->done, 1);
  auto data = co.store().LoadScoringData();
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->methods.at("opt").at("quad").size(), 1u);
  std::filesystem::remove(db);
  std::filesystem::remove(db + ".lock");
  std::filesystem::remove(db + ".secret");
}

}  // namespace
}  // namespace bbo
