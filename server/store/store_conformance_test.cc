// The Store contract, run against every implementation (SqliteStore on a temp file,
// InMemoryStore): the same ids, status codes, ordering and scoring rules.

#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/requeue.h"
#include "server/store/export.h"
#include "server/store/memory_store.h"
#include "server/store/sqlite_store.h"

namespace bbo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::_;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct StoreFactory {
  std::string name;
  std::function<std::unique_ptr<Store>(const std::string& tag)> make;
  // gtest prints the parameter by its name, not as raw bytes.
  friend void PrintTo(const StoreFactory& f, std::ostream* os) { *os << f.name; }
};

std::string TempDb(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() /
           ("store_conformance_" + std::to_string(::getpid()) + "_" + tag + ".sqlite");
  std::filesystem::remove(p);
  return p.string();
}

class StoreConformanceTest : public ::testing::TestWithParam<StoreFactory> {
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

  static SubmissionRecord Sub(const std::string& name, int trials = 2) {
    SubmissionRecord s;
    s.name = name;
    s.kind = SubmissionKind::kPython;
    s.digest = "d";
    s.trials = trials;
    s.created_at = 1;
    return s;
  }
  int64_t Study(const JobRecord& job) {
    StudyRecord s;
    s.job_id = job.id;
    s.submission_id = job.submission_id;
    s.problem = job.problem;
    s.trial = job.trial;
    s.board = job.board;
    return *store_->CreateStudy(s);
  }
  absl::Status Batch(int64_t study, int batch, const std::vector<double>& values,
                     bool with_generalization = true) {
    BatchRecord b;
    b.study_id = study;
    b.batch = batch;
    for (double v : values) {
      EvaluationRecord e;
      e.params_json = "{}";
      e.value = v;
      if (with_generalization) e.generalization = v + 10;
      b.evaluations.push_back(e);
    }
    return store_->RecordBatch(b);
  }
  // Plays one leased job: a study of `values` (generalization = value + 10) that completes.
  int64_t PlayJob(const JobRecord& job, const std::vector<double>& values) {
    int64_t study = Study(job);
    EXPECT_TRUE(Batch(study, 0, values).ok());
    EXPECT_TRUE(store_->EndStudy(study, StudyState::kCompleted, "done", 1, 0).ok());
    EXPECT_TRUE(store_->FinishJob(job.id, job.worker_id, "", 3).ok());
    return study;
  }
  std::vector<JobRecord> LeaseAll(const std::string& worker = "w") {
    std::vector<JobRecord> jobs;
    while (true) {
      auto job = *store_->LeaseJob(worker, 100);
      if (!job) break;
      jobs.push_back(*job);
    }
    return jobs;
  }
  std::string Csv(const std::string& board = kMainBoard) {
    std::stringstream out;
    EXPECT_TRUE(ExportResultsCsv(*store_, out, board).ok());
    return out.str();
  }

  std::string tag_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreConformanceTest, DuplicateNameIsAlreadyExistsAndAddsNoJobs) {
  EXPECT_EQ(*store_->AddSubmission(Sub("a"), "", {"p"}, 1), 1);
  auto dup = store_->AddSubmission(Sub("a"), "", {"p"}, 1);
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(dup.status().message(), HasSubstr("\"a\" already exists"));
  // A repeated problem makes two equal jobs: nothing of the submission is kept.
  EXPECT_EQ(store_->AddSubmission(Sub("b"), "", {"p", "p"}, 1).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->AddSubmission(Sub("c"), "", {"p"}, 1, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListSubmissions()->size(), 1u);
  EXPECT_FALSE(store_->FindSubmission("b")->has_value());
  EXPECT_EQ(LeaseAll().size(), 2u);
  EXPECT_EQ(*store_->AddSubmission(Sub("b"), "", {"p"}, 1), 2);
}

TEST_P(StoreConformanceTest, SubmissionsAreFoundByIdNameDigestAndTeam) {
  SubmissionRecord a = Sub("a"), b = Sub("b"), c = Sub("c");
  a.team = b.team = "red";
  a.digest = b.digest = c.digest = "same";
  c.is_baseline = true;
  ASSERT_TRUE(store_->AddSubmission(a, "bytes-a", {"p"}, 1).ok());
  ASSERT_TRUE(store_->AddSubmission(b, "", {"p"}, 1).ok());
  ASSERT_TRUE(store_->AddSubmission(c, "", {"p"}, 1).ok());
  auto got = store_->GetSubmission(1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->name, "a");
  EXPECT_EQ(got->kind, SubmissionKind::kPython);
  EXPECT_EQ(got->trials, 2);
  EXPECT_EQ(got->team, "red");
  EXPECT_EQ(store_->GetSubmission(9).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ((*store_->FindSubmission("c"))->id, 3);
  EXPECT_TRUE((*store_->FindSubmission("c"))->is_baseline);
  EXPECT_FALSE(store_->FindSubmission("zzz")->has_value());
  EXPECT_EQ(*store_->GetSubmissionArchive(1), "bytes-a");
  EXPECT_EQ(store_->GetSubmissionArchive(9).status().code(), absl::StatusCode::kNotFound);
  auto all = *store_->ListSubmissions();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].name, "c");
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 2);
  EXPECT_EQ(*store_->CountChargedSubmissions("", 0), 1);
  EXPECT_EQ(*store_->CountChargedSubmissions("blue", 0), 0);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 1), 2);  // created at 1: at or after
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 1.5), 0);
  // The baseline is never a duplicate of a submission.
  auto same = *store_->FindSubmissionsByDigest("same");
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[0].name, "a");
  EXPECT_EQ(same[1].name, "b");
  EXPECT_TRUE(store_->FindSubmissionsByDigest("none")->empty());
}

TEST_P(StoreConformanceTest, JobsAreQueuedBoardByBoardTrialMajorWithPairedSeeds) {
  ASSERT_TRUE(
      store_->AddSubmission(Sub("a", 2), "", {"p", "q"}, 5, {kMainBoard, kWarmStartBoard}).ok());
  EXPECT_THAT(*store_->ListBoards(), ElementsAre("", "warm-start"));
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 8u);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].id, static_cast<int64_t>(i + 1));
    EXPECT_EQ(jobs[i].board, i < 4 ? "" : "warm-start");
    EXPECT_EQ(jobs[i].trial, static_cast<int>(i % 4) / 2);
    EXPECT_EQ(jobs[i].problem, i % 2 == 0 ? "p" : "q");
    EXPECT_EQ(jobs[i].state, JobState::kLeased);
    EXPECT_EQ(jobs[i].worker_id, "w");
    EXPECT_EQ(jobs[i].lease_expires_at, 100);
    EXPECT_EQ(jobs[i].attempts, 1);
    if (i >= 4) EXPECT_EQ(jobs[i].seed, jobs[i - 4].seed);
  }
  EXPECT_EQ(jobs[0].seed, (5 * 1000003 + 1 * 7919) & 0x7fffffff);
  EXPECT_EQ(jobs[3].seed, (5 * 1000003 + 1 * 7919 + 104729 + 1) & 0x7fffffff);
  EXPECT_EQ(store_->GetJob(99).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetJob(3)->problem, "p");
}

TEST_P(StoreConformanceTest, BuiltinJobsAreLeasedOnlyByTheCoordinator) {
  SubmissionRecord rs = Sub("rs", 1);
  rs.kind = SubmissionKind::kBuiltin;
  ASSERT_TRUE(store_->AddSubmission(rs, "", {"p"}, 1).ok());
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 1), "", {"p"}, 1).ok());
  auto job = *store_->LeaseJob("w", 10);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->submission_id, 2);
  EXPECT_FALSE(store_->LeaseJob("w", 10)->has_value());
  auto builtin = *store_->LeaseBuiltinJob("coordinator", 10);
  ASSERT_TRUE(builtin.has_value());
  EXPECT_EQ(builtin->submission_id, 1);
  EXPECT_EQ(builtin->worker_id, "coordinator");
  EXPECT_FALSE(store_->LeaseBuiltinJob("coordinator", 10)->has_value());
}

TEST_P(StoreConformanceTest, SkippedJobsAreNotLeasedAndAReleasedLeaseCostsNoAttempt) {
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 2), "", {"p"}, 1).ok());
  auto first = *store_->LeaseJob("w", 10, {1});
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->id, 2);  // job 1 skipped
  EXPECT_FALSE(store_->LeaseJob("w2", 10, {1})->has_value());
  const int64_t study = *store_->CreateStudy(StudyRecord{0, 2, first->submission_id, "p", 0});
  // Only the holder may release it.
  EXPECT_EQ(store_->ReleaseLease(2, "w2").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->ReleaseLease(99, "w").code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(store_->ReleaseLease(2, "w").ok());
  JobRecord j = *store_->GetJob(2);
  EXPECT_EQ(j.state, JobState::kQueued);
  EXPECT_EQ(j.attempts, 0);
  EXPECT_EQ(store_->GetStudy(study)->state, StudyState::kAbandoned);
  EXPECT_EQ((*store_->LeaseJob("w2", 10, {1}))->id, 2);
  EXPECT_EQ(store_->ReleaseLease(2, "w").code(), absl::StatusCode::kFailedPrecondition);
}

TEST_P(StoreConformanceTest, CancellingQueuedJobsLeavesLeasedOnesAlone) {
  int64_t sub = *store_->AddSubmission(Sub("a", 3), "", {"p"}, 1);
  int64_t other = *store_->AddSubmission(Sub("b", 1), "", {"p"}, 1);
  ASSERT_TRUE(store_->RegisterWorker("w1", "host", 1, 100).ok());
  auto leased = store_->LeaseJob("w1", 130);
  ASSERT_TRUE(leased.ok() && leased->has_value());
  ASSERT_EQ((*leased)->submission_id, sub);
  EXPECT_EQ(*store_->CancelQueuedJobs(sub, "withdrawn"), 2);
  JobCounts c = *store_->CountJobs(sub);
  EXPECT_EQ(c.queued, 0);
  EXPECT_EQ(c.leased, 1);
  EXPECT_EQ(c.failed, 2);
  EXPECT_EQ(store_->CountJobs(other)->queued, 1);  // another submission is untouched
  EXPECT_EQ(*store_->CancelQueuedJobs(sub, "again"), 0);
  // The submission itself is marked, with the first reason (a race reads it between rounds).
  EXPECT_EQ((*store_->GetSubmission(sub)).withdrawn, "withdrawn");
  EXPECT_EQ((*store_->GetSubmission(other)).withdrawn, "");
}

// A study a race planned shorter than its phase: its planned batches reach the scoring data and
// the export, so no view reads the batches it never ran as results (TrialCurve::horizon).
TEST_P(StoreConformanceTest, AStudyPlannedShorterCarriesItsPlannedBatches) {
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", 2), "", {"p"}, 1).ok());
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    StudyRecord s;
    s.job_id = jobs[k].id;
    s.submission_id = jobs[k].submission_id;
    s.problem = jobs[k].problem;
    s.trial = jobs[k].trial;
    s.board = jobs[k].board;
    s.budget.n_batches = k == 0 ? 4 : 2;  // the second stopped at its tau_A
    const int64_t study = *store_->CreateStudy(s);
    for (int b = 0; b < s.budget.n_batches; ++b) ASSERT_TRUE(Batch(study, b, {1.0 + b}).ok());
    ASSERT_TRUE(store_->EndStudy(study, StudyState::kCompleted, "done", s.budget.n_batches, 1).ok());
  }
  auto data = store_->LoadScoringData();
  ASSERT_TRUE(data.ok()) << data.status();
  const auto& curves = data->methods.at("opt").at("p");
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].planned_batches, 4);
  EXPECT_EQ(curves[1].planned_batches, 2);
  auto rows = store_->ScoredEvaluations(kMainBoard);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 6u);
  for (const ScoredEvaluationRecord& r : *rows) {
    EXPECT_EQ(r.planned_batches, r.trial == jobs[0].trial ? 4 : 2) << r.trial;
  }
}

// A submission counts against its team's quotas unless the platform returned nothing for it:
// every job failed (withdrawn, or lost until its attempts ran out) and no study was scored.
TEST_P(StoreConformanceTest, ChargedSubmissionsLeaveOutWhatThePlatformLost) {
  auto red = [](const std::string& name, int trials = 1) {
    SubmissionRecord s = Sub(name, trials);
    s.team = "red";
    return s;
  };
  // Withdrawn while queued: free.
  int64_t withdrawn = *store_->AddSubmission(red("withdrawn"), "", {"p"}, 1);
  ASSERT_EQ(*store_->CancelQueuedJobs(withdrawn, "withdrawn"), 1);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 0);
  // Its worker vanished and the lease expired on the last attempt: free.
  ASSERT_TRUE(store_->AddSubmission(red("lost"), "", {"p"}, 1).ok());
  JobRecord lost = **store_->LeaseJob("w", 10);
  int64_t lost_study = Study(lost);
  ASSERT_TRUE(store_->ExpireLeases(20, 1).ok());
  ASSERT_EQ(store_->GetStudy(lost_study)->state, StudyState::kAbandoned);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 0);
  // Scored: charged.
  ASSERT_TRUE(store_->AddSubmission(red("scored"), "", {"p"}, 1).ok());
  PlayJob(**store_->LeaseJob("w", 100), {1.0});
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 1);
  // One study scored, then withdrawn: charged.
  int64_t partly = *store_->AddSubmission(red("partly", 2), "", {"p"}, 1);
  PlayJob(**store_->LeaseJob("w", 100), {2.0});
  ASSERT_EQ(*store_->CancelQueuedJobs(partly, "withdrawn"), 1);
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 2);
  // The optimizer died (a scored, failed study), then the host reported an error: charged.
  ASSERT_TRUE(store_->AddSubmission(red("died"), "", {"p"}, 1).ok());
  JobRecord died = **store_->LeaseJob("w", 100);
  int64_t died_study = Study(died);
  ASSERT_TRUE(store_->EndStudy(died_study, StudyState::kFailed, "optimizer died", 0, 0).ok());
  ASSERT_TRUE(store_->FinishJob(died.id, "w", "host error", 1).ok());
  ASSERT_EQ(store_->GetJob(died.id)->state, JobState::kDone);  // its final study ended
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 3);
  // Queued or running: charged.
  ASSERT_TRUE(store_->AddSubmission(red("queued"), "", {"p"}, 1).ok());
  EXPECT_EQ(*store_->CountChargedSubmissions("red", 0), 4);
  EXPECT_EQ(*store_->CountChargedSubmissions("blue", 0), 0);
}

// A job is run to a scored end at most once: whatever happens to its lease after its final
// study ended (the holder died before FinishJob, an error came after), it is done, and no second
// study of it can be opened.
TEST_P(StoreConformanceTest, AJobHasAtMostOneFinalStudy) {
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 3), "", {"p"}, 1).ok());
  // Job 1: its study ends, then the holder vanishes: the expired lease makes the job done.
  JobRecord j1 = **store_->LeaseJob("w", 10);
  int64_t s1 = Study(j1);
  ASSERT_TRUE(store_->EndStudy(s1, StudyState::kCompleted, "done", 0, 0).ok());
  // Job 2: its study ends, then the holder reports a host error: done all the same.
  JobRecord j2 = **store_->LeaseJob("w", 10);
  int64_t s2 = Study(j2);
  ASSERT_TRUE(store_->EndStudy(s2, StudyState::kFailed, "optimizer died", 0, 0).ok());
  ASSERT_TRUE(store_->FinishJob(j2.id, "w", "host error: lost the coordinator", 3).ok());
  EXPECT_EQ(store_->GetJob(j2.id)->state, JobState::kDone);
  // Job 3: no final study yet: the expired lease requeues it.
  JobRecord j3 = **store_->LeaseJob("w", 10);
  Study(j3);
  EXPECT_THAT(*store_->ExpireLeases(20, 3), ElementsAre(j3.id));
  EXPECT_EQ(store_->GetJob(j1.id)->state, JobState::kDone);
  EXPECT_EQ(store_->GetJob(j1.id)->worker_id, "");
  EXPECT_EQ(store_->GetStudy(s1)->state, StudyState::kCompleted);  // not abandoned
  // A second study of a job with its final study is refused, naming the first.
  StudyRecord again;
  again.job_id = j1.id;
  again.submission_id = j1.submission_id;
  again.problem = j1.problem;
  again.trial = j1.trial;
  auto refused = store_->CreateStudy(again);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("job " + std::to_string(j1.id) + " already has its final study " +
                        std::to_string(s1)));
  EXPECT_EQ(store_->CountJobs(j1.submission_id)->done, 2);
}

// A coordinator restart: epochs count up; running studies are abandoned; leased jobs go back to
// the queue without the lost attempt counting, or are done when their final study had ended.
TEST_P(StoreConformanceTest, RecoveryAfterARestartRequeuesWithoutDoubles) {
  EXPECT_EQ(*store_->BeginEpoch(1), 1);
  EXPECT_EQ(*store_->BeginEpoch(2), 2);
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 3), "", {"p"}, 1).ok());
  JobRecord ended = **store_->LeaseJob("w", 100);
  int64_t final_study = Study(ended);
  ASSERT_TRUE(store_->EndStudy(final_study, StudyState::kCompleted, "done", 0, 0).ok());
  JobRecord running = **store_->LeaseJob("w", 100);
  int64_t interrupted = Study(running);
  ASSERT_TRUE(Batch(interrupted, 0, {1.0}).ok());
  JobRecord queued = **store_->LeaseJob("w", 100);
  ASSERT_TRUE(store_->FinishJob(queued.id, "w", "sandbox broke", 3).ok());  // back in the queue
  RecoveryCounts r = *store_->RecoverAfterRestart(50);
  EXPECT_EQ(r.studies_abandoned, 1);
  EXPECT_EQ(r.jobs_requeued, 1);
  EXPECT_EQ(r.jobs_done, 1);
  EXPECT_EQ(store_->GetStudy(interrupted)->state, StudyState::kAbandoned);
  EXPECT_EQ(store_->GetStudy(final_study)->state, StudyState::kCompleted);
  EXPECT_EQ(store_->GetJob(ended.id)->state, JobState::kDone);
  JobRecord back = *store_->GetJob(running.id);
  EXPECT_EQ(back.state, JobState::kQueued);
  EXPECT_EQ(back.attempts, 0);  // the restart's lost attempt does not count
  EXPECT_EQ(back.worker_id, "");
  // Its committed batch is kept (not scored: the study was abandoned).
  EXPECT_EQ(store_->StudyValues(interrupted)->size(), 1u);
  // Nothing to do the second time.
  RecoveryCounts again = *store_->RecoverAfterRestart(60);
  EXPECT_EQ(again.studies_abandoned + again.jobs_requeued + again.jobs_done, 0);
}

// Organizers see the jobs that failed without a result and put them back in the queue; a
// team's withdrawal is not undone by "all".
TEST_P(StoreConformanceTest, FailedJobsAreListedAndRequeued) {
  int64_t lost = *store_->AddSubmission(Sub("lost", 1), "", {"p"}, 1);
  int64_t withdrawn = *store_->AddSubmission(Sub("withdrawn", 1), "", {"p"}, 1);
  ASSERT_EQ(*store_->CancelQueuedJobs(withdrawn, "withdrawn by team:red"), 1);
  JobRecord j = **store_->LeaseJob("w", 10);
  ASSERT_EQ(j.submission_id, lost);
  ASSERT_TRUE(store_->ExpireLeases(20, 1).ok());  // its only attempt lost
  std::vector<FailedJob> failed = *store_->ListFailedJobs();
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].job.id, j.id);
  EXPECT_EQ(failed[0].submission, "lost");
  EXPECT_EQ(failed[0].last_error, "lease expired");
  EXPECT_EQ(failed[1].submission, "withdrawn");
  EXPECT_EQ(RequeueFailedJobs(*store_, 999).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->RequeueFailedJob(999).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(*RequeueFailedJobs(*store_, 0), 1);  // not the withdrawn one
  EXPECT_EQ(store_->GetJob(j.id)->state, JobState::kQueued);
  EXPECT_EQ(store_->GetJob(j.id)->attempts, 0);
  EXPECT_EQ(RequeueFailedJobs(*store_, j.id).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->RequeueFailedJob(j.id).code(), absl::StatusCode::kFailedPrecondition);
  // By id, a withdrawn job stays withdrawn too (the rule is server/requeue.h's).
  auto refused = RequeueFailedJobs(*store_, failed[1].job.id);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("stays withdrawn"));
  ASSERT_EQ(store_->ListFailedJobs()->size(), 1u);
  // The store itself refuses a job of a withdrawn submission, whatever its last error says.
  EXPECT_EQ(store_->RequeueFailedJob(failed[1].job.id).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->ListFailedJobs()->size(), 1u);
}

TEST_P(StoreConformanceTest, LeaseExpiryRequeuesAndAbandonsStudy) {
  int64_t sub = *store_->AddSubmission(Sub("a", 1), "", {"p"}, 1);
  ASSERT_TRUE(store_->RegisterWorker("w1", "host", 1, 100).ok());
  auto job = store_->LeaseJob("w1", 130);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->submission_id, sub);
  EXPECT_FALSE(store_->LeaseJob("w2", 130)->has_value());  // nothing else queued
  int64_t study = Study(**job);
  // Not yet expired at 120; expired at 131.
  EXPECT_TRUE(store_->ExpireLeases(120, 3)->empty());
  auto requeued = store_->ExpireLeases(131, 3);
  ASSERT_TRUE(requeued.ok());
  EXPECT_THAT(*requeued, ElementsAre((*job)->id));
  EXPECT_EQ(store_->GetStudy(study)->state, StudyState::kAbandoned);
  EXPECT_EQ(store_->GetJob((*job)->id)->state, JobState::kQueued);
  EXPECT_EQ(store_->GetJob((*job)->id)->worker_id, "");
  // The old holder can no longer finish it; another worker leases it again.
  EXPECT_EQ(store_->FinishJob((*job)->id, "w1", "", 3).code(),
            absl::StatusCode::kFailedPrecondition);
  auto again = store_->LeaseJob("w2", 200);
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ((*again)->id, (*job)->id);
  EXPECT_EQ((*again)->attempts, 2);
  ASSERT_TRUE(store_->FinishJob((*job)->id, "w2", "", 3).ok());
  EXPECT_EQ(store_->CountJobs(sub)->done, 1);
  // A finished job cannot be finished again.
  EXPECT_EQ(store_->FinishJob((*job)->id, "w2", "", 3).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->FinishJob(99, "w2", "", 3).code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, RenewedLeasesSurviveAndExhaustedJobsFail) {
  int64_t sub = *store_->AddSubmission(Sub("a", 3), "", {"p"}, 1);
  auto j1 = **store_->LeaseJob("w1", 10);
  auto j2 = **store_->LeaseJob("w2", 10);
  auto j3 = **store_->LeaseJob("w1", 10);
  ASSERT_TRUE(store_->RenewLeases("w2", 50).ok());
  ASSERT_TRUE(store_->RenewLeases("nobody", 50).ok());
  EXPECT_EQ(store_->GetJob(j2.id)->lease_expires_at, 50);
  // w1's two jobs expire after their only allowed attempt.
  auto requeued = store_->ExpireLeases(20, 1);
  ASSERT_TRUE(requeued.ok());
  EXPECT_TRUE(requeued->empty());
  EXPECT_EQ(store_->GetJob(j1.id)->state, JobState::kFailed);
  EXPECT_EQ(store_->GetJob(j3.id)->state, JobState::kFailed);
  EXPECT_EQ(store_->GetJob(j2.id)->state, JobState::kLeased);
  requeued = store_->ExpireLeases(60, 3);
  EXPECT_THAT(*requeued, ElementsAre(j2.id));
  JobCounts c = *store_->CountJobs(sub);
  EXPECT_EQ(c.total, 3);
  EXPECT_EQ(c.failed, 2);
  EXPECT_EQ(c.queued, 1);
  EXPECT_EQ(c.leased, 0);
  EXPECT_EQ(store_->CountJobs(42)->total, 0);
}

TEST_P(StoreConformanceTest, JobFailsAfterMaxAttemptsAndAnErrorAbandonsItsStudy) {
  int64_t sub = *store_->AddSubmission(Sub("a", 1), "", {"p"}, 1);
  int64_t first_study = 0;
  for (int i = 0; i < 2; ++i) {
    auto job = store_->LeaseJob("w", 10);
    ASSERT_TRUE(job->has_value());
    if (i == 0) first_study = Study(**job);
    ASSERT_TRUE(store_->FinishJob((*job)->id, "w", "sandbox broke", 2).ok());
    if (i == 0) EXPECT_EQ(store_->GetJob((*job)->id)->state, JobState::kQueued);
  }
  EXPECT_FALSE(store_->LeaseJob("w", 10)->has_value());
  EXPECT_EQ(store_->CountJobs(sub)->failed, 1);
  EXPECT_EQ(store_->GetStudy(first_study)->state, StudyState::kAbandoned);
  // An abandoned study is not scored.
  EXPECT_EQ(store_->ScoringChangesSince(0)->seq, 0);
}

TEST_P(StoreConformanceTest, WorkersRegisterOnceAndUnknownHeartbeatIsNotFound) {
  EXPECT_EQ(store_->TouchWorker("ghost", 1).code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(store_->RegisterWorker("w", "h", 1, 1).ok());
  EXPECT_EQ(store_->RegisterWorker("w", "h", 1, 1).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(store_->TouchWorker("w", 2).ok());
}

TEST_P(StoreConformanceTest, StudiesRoundTripAndRefuseUnknownReferences) {
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 1), "", {"p"}, 1).ok());
  auto job = **store_->LeaseJob("w", 10);
  StudyRecord s;
  s.job_id = job.id;
  s.submission_id = 1;
  s.problem = "p";
  s.trial = 0;
  s.state = StudyState::kFailed;  // ignored: a study starts running
  s.budget.batch_size = 4;
  s.budget.n_batches = 7;
  s.budget.suggest_budget_s = 2.5;
  s.budget.study_budget_s = 30;
  s.started_at = 12.5;
  s.problem_signature = "sig";
  s.board = "warm-start";
  EXPECT_EQ(*store_->CreateStudy(s), 1);
  StudyRecord practice;
  practice.problem = "q";
  EXPECT_EQ(*store_->CreateStudy(practice), 2);
  auto got = store_->GetStudy(1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->id, 1);
  EXPECT_EQ(got->job_id, job.id);
  EXPECT_EQ(got->state, StudyState::kRunning);
  EXPECT_EQ(got->budget.batch_size, 4);
  EXPECT_EQ(got->budget.n_batches, 7);
  EXPECT_EQ(got->budget.suggest_budget_s, 2.5);
  EXPECT_EQ(got->budget.study_budget_s, 30);
  EXPECT_EQ(got->started_at, 12.5);
  EXPECT_EQ(got->problem_signature, "sig");
  EXPECT_EQ(got->board, "warm-start");
  EXPECT_FALSE(store_->GetStudy(2)->job_id.has_value());
  EXPECT_EQ(store_->GetStudy(3).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(*store_->ListStudyIds(), ElementsAre(1, 2));
  EXPECT_THAT(*store_->ProblemSignatures(), ElementsAre(Pair("p", "sig")));
  // References to what does not exist are refused and change nothing.
  s.job_id = 99;
  EXPECT_EQ(store_->CreateStudy(s).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Batch(42, 0, {1}).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->RecordStudyError({42, 0, "x", "y"}).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(*store_->ListStudyIds(), ElementsAre(1, 2));
  EXPECT_TRUE(store_->StudyValues(42)->empty());
  EXPECT_TRUE(store_->StudyEvaluations(42)->empty());
}

TEST_P(StoreConformanceTest, RecordsBatchesWithInfAndLoadsScoringData) {
  int64_t sub = *store_->AddSubmission(Sub("opt", 1), "", {"p"}, 1);
  auto job = *store_->LeaseJob("w", 10);
  int64_t study = Study(*job);
  ASSERT_EQ(store_->GetStudy(study)->submission_id, sub);
  BatchRecord b;
  b.study_id = study;
  b.batch = 0;
  b.evaluations = {{"{\"x\":1}", 3.0, false, 0},
                   {"{\"x\":2}", kInf, true, 0},
                   {"{\"x\":3}", std::numeric_limits<double>::quiet_NaN(), false, 0}};
  b.evaluations[1].suggested_json = "{\"x\":\"bad\"}";
  b.evaluations[2].generalization = std::numeric_limits<double>::quiet_NaN();
  b.errors = {"suggestion 1: bad"};
  ASSERT_TRUE(store_->RecordBatch(b).ok());
  b.batch = 1;
  b.evaluations = {{"{}", 5.0, false, 0}, {"{}", 2.0, false, 0}, {"{}", 4.0, false, 0}};
  b.errors.clear();
  ASSERT_TRUE(store_->RecordBatch(b).ok());
  // A duplicate batch is rejected and changes nothing.
  EXPECT_EQ(store_->RecordBatch(b).code(), absl::StatusCode::kAlreadyExists);
  auto values = store_->StudyValues(study);
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(values->size(), 2u);
  EXPECT_THAT((*values)[0], ElementsAre(3.0, kInf, kInf));  // NaN stored as +inf
  EXPECT_THAT((*values)[1], ElementsAre(5.0, 2.0, 4.0));
  EXPECT_EQ(store_->ListStudyErrors(study)->size(), 1u);
  auto evals = *store_->StudyEvaluations(study);
  ASSERT_EQ(evals.size(), 6u);
  EXPECT_EQ(evals[0].first, 0);
  EXPECT_EQ(evals[0].second.params_json, "{\"x\":1}");
  EXPECT_TRUE(evals[1].second.replaced);
  EXPECT_EQ(evals[1].second.suggested_json, "");  // not read back
  EXPECT_EQ(evals[2].second.generalization, kInf);
  EXPECT_FALSE(evals[0].second.generalization.has_value());
  EXPECT_EQ(evals[5].first, 1);
  EXPECT_EQ(evals[5].second.value, 4.0);

  // Running studies are not scored.
  EXPECT_TRUE(store_->LoadScoringData()->methods.empty());
  auto before = store_->ScoringChangesSince(0);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->problems.empty());
  ASSERT_EQ(store_->EndStudy(study, StudyState::kCutOff, "budget", 2, 1).value(),
            StudyState::kCutOff);
  // Ending again leaves the first final state.
  EXPECT_EQ(store_->EndStudy(study, StudyState::kCompleted, "x", 3, 1).value(),
            StudyState::kCutOff);
  EXPECT_EQ(store_->EndStudy(99, StudyState::kCompleted, "x", 3, 1).status().code(),
            absl::StatusCode::kNotFound);
  auto data = store_->LoadScoringData();
  ASSERT_TRUE(data.ok());
  const auto& curves = data->methods.at("opt").at("p");
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].study_id, study);
  EXPECT_THAT(curves[0].batch_min, ElementsAre(3.0, 2.0));
  // The cut-off study is the first scored final state, on problem p.
  auto changes = store_->ScoringChangesSince(before->seq);
  ASSERT_TRUE(changes.ok());
  EXPECT_EQ(changes->seq, before->seq + 1);
  EXPECT_THAT(changes->problems, ElementsAre("p"));
  EXPECT_TRUE(store_->ScoringChangesSince(changes->seq)->problems.empty());
  // Filtering by problem.
  EXPECT_EQ(store_->LoadScoringData({"p"})->methods.at("opt").at("p").size(), 1u);
  EXPECT_TRUE(store_->LoadScoringData({"other"})->methods.empty());
}

// The optimizer-seconds clock of scoring (the Plackett-Luce seconds view): per batch the
// running sum of the recorded turn times, of the scored study only, a missing batch adding nothing.
TEST_P(StoreConformanceTest, ScoringDataCarriesTheCumulativeTurnTimesOfTheScoredStudy) {
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", 2), "", {"p"}, 1).ok());
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 2u);
  auto timed = [&](int64_t study, int batch, double value, double turn_s, double total_s) {
    BatchRecord b;
    b.study_id = study;
    b.batch = batch;
    b.turn_time_s = turn_s;
    b.host_suggest_time_s = turn_s / 2;  // informational: must not count
    b.eval_time_s = 100;                 // the objective's time: must not count
    b.optimizer_time_s = total_s;
    b.evaluations = {{"{}", value, false, 0}};
    return store_->RecordBatch(b);
  };
  // An abandoned study of trial 0 whose times must not leak into the scored one.
  int64_t old = Study(jobs[0]);
  ASSERT_TRUE(timed(old, 0, 1.0, 64.0, 64.0).ok());
  ASSERT_TRUE(store_->EndStudy(old, StudyState::kAbandoned, "worker lost", 1, 64).ok());
  // Turn times that are exact in binary, so the sums are exact in any order.
  int64_t latest = Study(jobs[0]);
  ASSERT_TRUE(timed(latest, 0, 5.0, 0.5, 0.5).ok());
  ASSERT_TRUE(timed(latest, 1, 4.0, 0.25, 0.75).ok());
  ASSERT_TRUE(timed(latest, 3, 3.0, 1.0, 1.75).ok());  // batch 2 missing
  ASSERT_TRUE(store_->EndStudy(latest, StudyState::kCompleted, "done", 2, 1.75).ok());
  int64_t other = Study(jobs[1]);
  ASSERT_TRUE(timed(other, 0, 6.0, 2.0, 2.0).ok());
  ASSERT_TRUE(store_->EndStudy(other, StudyState::kCutOff, "budget", 2, 9).ok());

  auto data = store_->LoadScoringData();
  ASSERT_TRUE(data.ok()) << data.status();
  const auto& curves = data->methods.at("opt").at("p");
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].study_id, latest);
  EXPECT_THAT(curves[0].batch_min, ElementsAre(5.0, 4.0, kInf, 3.0));
  EXPECT_THAT(curves[0].batch_end_seconds, ElementsAre(0.5, 0.75, 0.75, 1.75));
  EXPECT_EQ(curves[1].study_id, other);
  EXPECT_THAT(curves[1].batch_end_seconds, ElementsAre(2.0));
  // Same through the per-problem filter.
  EXPECT_THAT(store_->LoadScoringData({"p"})->methods.at("opt").at("p")[0].batch_end_seconds,
              ElementsAre(0.5, 0.75, 0.75, 1.75));
}

TEST_P(StoreConformanceTest, PerBatchFiguresReachTheScoringDataAndTheExport) {
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", 1), "", {"p"}, 1).ok());
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 1u);
  int64_t study = Study(jobs[0]);
  for (int batch = 0; batch < 2; ++batch) {
    BatchRecord b;
    b.study_id = study;
    b.batch = batch;
    if (batch == 1) b.figures.optimizer_cpu_s = 0.75;  // batch 0: the host could not say
    b.evaluations = {{"{}", 2.0 - batch, false, 0}, {"{}", 3.0, false, 0}};
    ASSERT_TRUE(store_->RecordBatch(b).ok());
  }
  ASSERT_TRUE(store_->EndStudy(study, StudyState::kCompleted, "done", 2, 1).ok());

  auto data = store_->LoadScoringData();
  ASSERT_TRUE(data.ok()) << data.status();
  const StudyCurve& curve = data->methods.at("opt").at("p").at(0);
  ASSERT_EQ(curve.batch_figures.size(), 2u);
  EXPECT_FALSE(curve.batch_figures[0].optimizer_cpu_s.has_value());
  EXPECT_EQ(curve.batch_figures[1].optimizer_cpu_s, 0.75);
  auto rows = store_->ScoredEvaluations(kMainBoard);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 4u);
  for (const ScoredEvaluationRecord& r : *rows) {
    EXPECT_EQ(r.figures.optimizer_cpu_s.has_value(), r.batch == 1) << r.batch;
  }
  EXPECT_EQ(rows->back().figures.optimizer_cpu_s, 0.75);
}

TEST_P(StoreConformanceTest, ScoringSequenceCountsScoredEndsOnly) {
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 1), "", {"p", "q", "r", "s"}, 1).ok());
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 4u);
  std::vector<int64_t> studies;
  for (const JobRecord& j : jobs) studies.push_back(Study(j));
  ASSERT_TRUE(store_->EndStudy(studies[3], StudyState::kAbandoned, "gone", 1, 0).ok());
  EXPECT_EQ(store_->ScoringChangesSince(0)->seq, 0);
  ASSERT_TRUE(store_->EndStudy(studies[2], StudyState::kFailed, "died", 1, 0).ok());
  ASSERT_TRUE(store_->EndStudy(studies[0], StudyState::kCompleted, "done", 1, 0).ok());
  ASSERT_TRUE(store_->EndStudy(studies[1], StudyState::kCutOff, "slow", 1, 0).ok());
  // Idempotent ends do not move the sequence.
  ASSERT_TRUE(store_->EndStudy(studies[1], StudyState::kCompleted, "again", 1, 0).ok());
  auto all = *store_->ScoringChangesSince(0);
  EXPECT_EQ(all.seq, 3);
  EXPECT_THAT(all.problems, ElementsAre("p", "q", "r"));
  EXPECT_THAT(store_->ScoringChangesSince(1)->problems, ElementsAre("p", "q"));
  EXPECT_THAT(store_->ScoringChangesSince(2)->problems, ElementsAre("q"));
  EXPECT_EQ(store_->GetStudy(studies[3])->state, StudyState::kAbandoned);
}

TEST_P(StoreConformanceTest, AHiddenSubmissionLeavesTheScoringDataAndMarksItsProblems) {
  const int64_t a = *store_->AddSubmission(Sub("a", 1), "", {"p", "q"}, 1);
  const int64_t b = *store_->AddSubmission(Sub("b", 1), "", {"p"}, 1);
  for (const JobRecord& j : LeaseAll()) PlayJob(j, {j.submission_id == a ? 1.0 : 2.0});
  const int64_t seen = store_->ScoringChangesSince(0)->seq;
  ASSERT_EQ(store_->LoadScoringData()->methods.size(), 2u);

  ASSERT_TRUE(*store_->SetHidden(a, "hidden by organizer ops: copied"));
  EXPECT_FALSE(*store_->SetHidden(a, "hidden by organizer ops: copied"));  // no change
  EXPECT_EQ(store_->GetSubmission(a)->hidden, "hidden by organizer ops: copied");
  EXPECT_FALSE(store_->GetSubmission(a)->on_board());
  ScoringChanges changed = *store_->ScoringChangesSince(seen);
  EXPECT_GT(changed.seq, seen);
  EXPECT_THAT(changed.problems, ElementsAre("p", "q"));  // every problem it ran on
  EXPECT_THAT(store_->LoadScoringData()->methods, ElementsAre(Pair("b", _)));
  EXPECT_THAT(Csv(), Not(HasSubstr(",a,")));

  ASSERT_TRUE(*store_->SetHidden(a, ""));
  EXPECT_EQ(store_->LoadScoringData()->methods.size(), 2u);
  // A withdrawn submission stays scored on what it ran.
  ASSERT_EQ(*store_->CancelQueuedJobs(b, "withdrawn by team:blue"), 0);  // nothing was queued
  EXPECT_EQ(store_->LoadScoringData()->methods.size(), 2u);
  EXPECT_EQ(store_->SetHidden(99, "x").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, AJobOfAWithdrawnSubmissionIsNeverQueuedAgain) {
  const int64_t sub = *store_->AddSubmission(Sub("a", 4), "", {"p"}, 1);
  ASSERT_TRUE(store_->RegisterWorker("w1", "host", 1, 100).ok());
  std::vector<JobRecord> jobs;
  for (double expiry : {130.0, 1000.0, 1000.0}) jobs.push_back(**store_->LeaseJob("w1", expiry));
  ASSERT_EQ(*store_->CancelQueuedJobs(sub, "withdrawn by team:red"), 1);
  // A lease expires, a worker reports an error, the coordinator restarts: each job fails with
  // the withdrawal, none is queued again.
  EXPECT_TRUE(store_->ExpireLeases(131, 3)->empty());
  EXPECT_EQ(store_->GetJob(jobs[0].id)->state, JobState::kFailed);
  EXPECT_EQ(store_->FinishJob(jobs[1].id, "w1", "optimizer died", 3).code(),
            absl::StatusCode::kOk);
  EXPECT_EQ(store_->GetJob(jobs[1].id)->state, JobState::kFailed);
  ASSERT_TRUE(store_->RecoverAfterRestart(600).ok());
  EXPECT_EQ(store_->GetJob(jobs[2].id)->state, JobState::kFailed);
  EXPECT_FALSE(store_->LeaseJob("w2", 700)->has_value());
  // Organizers cannot requeue them either, whatever their last error says.
  for (const JobRecord& j : jobs) {
    EXPECT_EQ(store_->RequeueFailedJob(j.id).code(), absl::StatusCode::kFailedPrecondition)
        << j.id;
  }
  const JobCounts c = *store_->CountJobs(sub);
  // Every one counts as withdrawn, none as lost to the platform.
  EXPECT_EQ(c.failed, 4);
  EXPECT_EQ(c.withdrawn, 4);
  EXPECT_EQ(c.lost(), 0);
  EXPECT_EQ(store_->GetJob(jobs[1].id)->state, JobState::kFailed);
}

TEST_P(StoreConformanceTest, PhaseEventsCarryTheirTeamAndSubmission) {
  ASSERT_EQ(store_->RecordPhaseEvent({0, "final", "migrated", 1, "x", ""}).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(store_->RecordPhaseEvent({0, "final", "hidden", 5, "organizer ops", "copied",
                                        "red", 7}).ok());
  ASSERT_TRUE(store_->RecordPhaseEvent({0, "final", "disqualified", 6, "organizer ops", "cheat",
                                        "blue", 0}).ok());
  std::vector<PhaseEvent> events = *store_->PhaseEvents("final");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "hidden");
  EXPECT_EQ(events[0].team, "red");
  EXPECT_EQ(events[0].submission_id, 7);
  EXPECT_EQ(events[0].detail, "copied");
  EXPECT_EQ(events[1].team, "blue");
  EXPECT_EQ(events[1].submission_id, 0);
}

TEST_P(StoreConformanceTest, MigrateOneCopiesASubmissionWithItsJobsAndEvent) {
  SubmissionRecord red = Sub("red-1", 1);
  red.team = "red";
  red.phase = "feedback";
  const int64_t src = *store_->AddSubmission(red, "archive-bytes", {"p"}, 1);
  const int64_t id = *store_->MigrateOne(
      "final", {src, 2}, {"p", "q"}, 9, {"final"},
      {0, "final", "finalist_replaced", 50, "organizer ops", "crashed entry", "red", 0});
  const SubmissionRecord copy = *store_->GetSubmission(id);
  EXPECT_EQ(copy.phase, "final");
  EXPECT_EQ(copy.migrated_from, src);
  EXPECT_EQ(copy.team, "red");
  EXPECT_EQ(copy.trials, 2);
  EXPECT_EQ(*store_->GetSubmissionArchive(id), "archive-bytes");
  EXPECT_EQ(store_->CountJobs(id)->queued, 4);
  std::vector<PhaseEvent> events = *store_->PhaseEvents("final");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].submission_id, id);
  EXPECT_EQ(events[0].kind, "finalist_replaced");
  // The same name again in that phase: refused, nothing added.
  EXPECT_EQ(store_->MigrateOne("final", {src, 2}, {"p"}, 9, {"final"},
                               {0, "final", "finalist_replaced", 51, "o", "again", "red", 0})
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->PhaseEvents("final")->size(), 1u);
  EXPECT_EQ(store_->MigrateOne("final", {999, 2}, {"p"}, 9, {"final"},
                               {0, "final", "finalist_replaced", 52, "o", "x", "red", 0})
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, ErrorsAreListedInOrderWithTheirProblems) {
  ASSERT_TRUE(store_->AddSubmission(Sub("a", 1), "", {"p", "q"}, 1).ok());
  ASSERT_TRUE(store_->AddSubmission(Sub("b", 1), "", {"p"}, 1).ok());
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 3u);
  int64_t s1 = Study(jobs[0]), s2 = Study(jobs[1]), s3 = Study(jobs[2]);
  ASSERT_TRUE(store_->RecordStudyError({s2, 0, "budget", "slow"}).ok());
  ASSERT_TRUE(store_->RecordStudyError({s1, 1, "ended_early", "bye"}).ok());
  ASSERT_TRUE(store_->RecordStudyError({s3, 0, "budget", "other submission"}).ok());
  ASSERT_TRUE(store_->RecordStudyError({s2, 2, "optimizer_died", "dead"}).ok());
  auto errors = *store_->ListStudyErrors(s2);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].kind, "budget");
  EXPECT_EQ(errors[1].batch, 2);
  EXPECT_EQ(errors[1].message, "dead");
  EXPECT_TRUE(store_->ListStudyErrors(42)->empty());
  auto first_two = *store_->ListSubmissionErrors(1, 2);
  ASSERT_EQ(first_two.size(), 2u);
  EXPECT_EQ(first_two[0].first, "q");
  EXPECT_EQ(first_two[0].second.study_id, s2);
  EXPECT_EQ(first_two[1].first, "p");
  EXPECT_EQ(first_two[1].second.message, "bye");
  EXPECT_EQ(store_->ListSubmissionErrors(1, 50)->size(), 3u);
  EXPECT_EQ(store_->ListSubmissionErrors(1, -1)->size(), 3u);
  EXPECT_TRUE(store_->ListSubmissionErrors(1, 0)->empty());
  // Counted once the studies have ended as they count (an attempt the platform abandoned does
  // not count against the submission).
  EXPECT_EQ(*store_->CountStudiesWithErrors(1), 0);
  ASSERT_TRUE(store_->EndStudy(s1, StudyState::kCompleted, "done", 1, 0).ok());
  ASSERT_TRUE(store_->EndStudy(s2, StudyState::kFailed, "died", 1, 0).ok());
  ASSERT_TRUE(store_->EndStudy(s3, StudyState::kAbandoned, "worker lost", 1, 0).ok());
  EXPECT_EQ(*store_->CountStudiesWithErrors(1), 2);
  EXPECT_EQ(*store_->CountStudiesWithErrors(2), 0);
  EXPECT_EQ(*store_->CountStudiesWithErrors(3), 0);
}

TEST_P(StoreConformanceTest, OnlyTheFinalStudyOfAJobIsScoredAndExported) {
  SubmissionRecord rs = Sub("rs", 1);
  rs.is_baseline = true;
  ASSERT_TRUE(store_->AddSubmission(rs, "", {"p"}, 1).ok());
  ASSERT_TRUE(store_->AddSubmission(Sub("opt", 2), "", {"p"}, 1).ok());
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 3u);
  // The baseline's completed study.
  PlayJob(jobs[0], {5, 6});
  // Trial 0: an abandoned study (its worker was lost), then the final one; no study of the
  // job can follow its final one.
  int64_t old = Study(jobs[1]);
  ASSERT_TRUE(Batch(old, 0, {9}).ok());
  ASSERT_TRUE(store_->EndStudy(old, StudyState::kAbandoned, "worker lost", 1, 0).ok());
  int64_t latest = Study(jobs[1]);
  ASSERT_TRUE(Batch(latest, 0, {4, 3}, /*with_generalization=*/false).ok());
  ASSERT_TRUE(Batch(latest, 2, {7}, false).ok());  // batch 1 missing
  ASSERT_TRUE(store_->EndStudy(latest, StudyState::kCompleted, "done", 1, 0).ok());
  StudyRecord after;
  after.job_id = jobs[1].id;
  after.submission_id = jobs[1].submission_id;
  after.problem = jobs[1].problem;
  EXPECT_EQ(store_->CreateStudy(after).status().code(), absl::StatusCode::kAlreadyExists);
  // Trial 1: cut off before any evaluation.
  int64_t empty = Study(jobs[2]);
  ASSERT_TRUE(store_->EndStudy(empty, StudyState::kCutOff, "slow", 1, 0).ok());
  // A practice study on the same problem is never scored.
  StudyRecord practice;
  practice.problem = "p";
  int64_t ps = *store_->CreateStudy(practice);
  ASSERT_TRUE(Batch(ps, 0, {-100}).ok());
  ASSERT_TRUE(store_->EndStudy(ps, StudyState::kCompleted, "done", 1, 0).ok());

  auto data = *store_->LoadScoringData();
  const auto& curves = data.methods.at("opt").at("p");
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].study_id, latest);
  EXPECT_EQ(curves[0].trial, 0);
  EXPECT_THAT(curves[0].batch_min, ElementsAre(3.0, kInf, 7.0));
  EXPECT_EQ(curves[1].study_id, empty);
  EXPECT_THAT(curves[1].batch_min, IsEmpty());
  EXPECT_THAT(data.baseline_evals.at("p"), ElementsAre(5.0, 6.0));
  EXPECT_EQ(data.methods.size(), 1u);
  // Loading a problem twice loads it twice.
  EXPECT_EQ(store_->LoadScoringData({"p", "p"})->methods.at("opt").at("p").size(), 4u);

  EXPECT_EQ(Csv(),
            "problem,method,trial,batch,suggestion,value,generalization\n"
            "p,opt,0,0,0,4,4\np,opt,0,0,1,3,3\np,opt,0,2,0,7,7\n"
            "p,opt,1,0,0,inf,inf\n"
            "p,rs,0,0,0,5,15\np,rs,0,0,1,6,16\n");
  auto rows = *store_->ScoredEvaluations(kMainBoard);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_FALSE(rows[3].has_evaluation);
  EXPECT_FALSE(rows[0].generalization.has_value());
  EXPECT_EQ(rows[4].generalization, 15);
}

TEST_P(StoreConformanceTest, BoardsQueueTheSameJobsAndAreScoredAndExportedApart) {
  SubmissionRecord rs = Sub("rs", 1);
  rs.is_baseline = true;
  ASSERT_TRUE(store_->AddSubmission(rs, "", {"p"}, 1, {kMainBoard}).ok());
  auto baseline = *store_->FindSubmission("rs");
  int64_t sub = *store_->AddSubmission(Sub("opt", 2), "", {"p"}, 1, {kMainBoard, kWarmStartBoard});
  EXPECT_EQ(store_->CountJobs(sub)->total, 4);
  EXPECT_THAT(*store_->ListBoards(), ElementsAre("", "warm-start"));
  std::vector<JobRecord> jobs = LeaseAll();
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(jobs[0].submission_id, baseline->id);
  // The main board's jobs first; the warm-start board repeats them with the same seeds.
  EXPECT_EQ(jobs[1].board, "");
  EXPECT_EQ(jobs[2].board, "");
  EXPECT_EQ(jobs[3].board, "warm-start");
  EXPECT_EQ(jobs[3].seed, jobs[1].seed);
  EXPECT_EQ(jobs[4].seed, jobs[2].seed);
  EXPECT_NE(jobs[1].seed, jobs[2].seed);
  PlayJob(jobs[0], {5, 6});
  PlayJob(jobs[1], {4, 3});
  PlayJob(jobs[2], {4, 2});
  int64_t warm_study = PlayJob(jobs[3], {1, 0.5});
  PlayJob(jobs[4], {1, 0.25});
  EXPECT_EQ(store_->GetStudy(warm_study)->board, "warm-start");

  auto main_data = *store_->LoadScoringData({}, kMainBoard);
  auto warm_data = *store_->LoadScoringData({}, kWarmStartBoard);
  ASSERT_EQ(main_data.methods.at("opt").at("p").size(), 2u);
  ASSERT_EQ(warm_data.methods.at("opt").at("p").size(), 2u);
  EXPECT_THAT(main_data.methods.at("opt").at("p")[0].batch_min, ElementsAre(3.0));
  EXPECT_THAT(warm_data.methods.at("opt").at("p")[0].batch_min, ElementsAre(0.5));
  // The baseline serves both boards.
  EXPECT_THAT(main_data.baseline_evals.at("p"), ElementsAre(5.0, 6.0));
  EXPECT_THAT(warm_data.baseline_evals.at("p"), ElementsAre(5.0, 6.0));

  EXPECT_EQ(Csv(kMainBoard),
            "problem,method,trial,batch,suggestion,value,generalization\n"
            "p,opt,0,0,0,4,14\np,opt,0,0,1,3,13\np,opt,1,0,0,4,14\np,opt,1,0,1,2,12\n"
            "p,rs,0,0,0,5,15\np,rs,0,0,1,6,16\n");
  std::string warm_csv = Csv(kWarmStartBoard);
  EXPECT_THAT(warm_csv, HasSubstr("p,opt,0,0,1,0.5,10.5\n"));
  EXPECT_THAT(warm_csv, HasSubstr("p,rs,0,0,0,5,15\n"));
  // The held-out loss round-trips.
  auto evals = *store_->StudyEvaluations(warm_study);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[1].second.generalization, 10.5);
}

TEST_P(StoreConformanceTest, CredentialsAreFoundByHashAndRevokedByOwner) {
  CredentialRecord a;
  a.kind = CredentialKind::kTeam;
  a.owner = "alpha";
  a.token_hash = std::string("\x01\x00hash-a", 8);  // a blob: NUL bytes survive
  a.created_at = 10;
  ASSERT_EQ(*store_->AddCredential(a), 1);
  CredentialRecord w = a;
  w.kind = CredentialKind::kWorker;
  w.token_hash = "hash-w";
  ASSERT_EQ(*store_->AddCredential(w), 2);
  // The same hash twice is a uniqueness failure.
  EXPECT_EQ(store_->AddCredential(a).status().code(), absl::StatusCode::kAlreadyExists);

  auto found = store_->FindCredential(a.token_hash);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->owner, "alpha");
  EXPECT_EQ((*found)->kind, CredentialKind::kTeam);
  EXPECT_EQ((*found)->token_hash, a.token_hash);
  EXPECT_FALSE((*found)->revoked_at.has_value());
  EXPECT_FALSE(store_->FindCredential("nope")->has_value());

  // Revoking the team "alpha" leaves the worker "alpha" alone; a second revoke finds none.
  EXPECT_EQ(*store_->RevokeCredentials(CredentialKind::kTeam, "alpha", 20), 1);
  EXPECT_EQ(*store_->RevokeCredentials(CredentialKind::kTeam, "alpha", 21), 0);
  EXPECT_EQ((*store_->FindCredential(a.token_hash))->revoked_at, 20);
  EXPECT_FALSE((*store_->FindCredential("hash-w"))->revoked_at.has_value());
  auto all = store_->ListCredentials();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, 1);
  EXPECT_EQ((*all)[1].kind, CredentialKind::kWorker);
}

TEST_P(StoreConformanceTest, AuditKeepsTheLatestEntriesInOrder) {
  for (int i = 0; i < 5; ++i) {
    AuditRecord a;
    a.at = i;
    a.who = "organizer";
    a.action = absl::StrCat("action ", i);
    a.allowed = i % 2 == 0;
    a.detail = "d";
    ASSERT_EQ(*store_->AppendAudit(a), i + 1);
  }
  auto last = store_->ListAudit(2);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0].action, "action 3");
  EXPECT_FALSE((*last)[0].allowed);
  EXPECT_EQ((*last)[1].action, "action 4");
  EXPECT_TRUE((*last)[1].allowed);
  EXPECT_EQ(store_->ListAudit(100)->size(), 5u);
}

TEST_P(StoreConformanceTest, TeamContactsAreSetReplacedAndListedByTeam) {
  EXPECT_EQ(*store_->GetTeamContact("t1"), std::nullopt);
  EXPECT_EQ(store_->SetTeamContact({"", "a@example.org", "", 1}).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(store_->SetTeamContact({"t2", "b@example.org", "", 1}).ok());
  ASSERT_TRUE(store_->SetTeamContact({"t1", "a@example.org", "https://example.org/h", 2}).ok());
  ASSERT_TRUE(store_->SetTeamContact({"t1", "", "https://example.org/other", 3}).ok());
  absl::StatusOr<std::optional<TeamContact>> t1 = store_->GetTeamContact("t1");
  ASSERT_TRUE(t1.ok());
  ASSERT_TRUE(t1->has_value());
  EXPECT_EQ((*t1)->team, "t1");
  EXPECT_EQ((*t1)->email, "");
  EXPECT_EQ((*t1)->webhook_url, "https://example.org/other");
  EXPECT_EQ((*t1)->updated_at, 3);
  absl::StatusOr<std::vector<TeamContact>> all = store_->ListTeamContacts();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].team, "t1");
  EXPECT_EQ((*all)[1].team, "t2");
  EXPECT_EQ((*all)[1].email, "b@example.org");
}

TEST_P(StoreConformanceTest, ANoticeIsMarkedNotifiedOnlyTheFirstTime) {
  EXPECT_EQ(*store_->MarkNotified("phase_opened:final", 10), true);
  EXPECT_EQ(*store_->MarkNotified("phase_opened:final", 11), false);
  EXPECT_EQ(*store_->MarkNotified("phase_closed:final", 12), true);
  EXPECT_EQ(*store_->MarkNotified("phase_opened:feedback", 12), true);
}

INSTANTIATE_TEST_SUITE_P(
    Stores, StoreConformanceTest,
    ::testing::Values(StoreFactory{"Sqlite",
                                   [](const std::string& tag) -> std::unique_ptr<Store> {
                                     auto s = SqliteStore::Open(TempDb(tag));
                                     if (!s.ok()) return nullptr;
                                     return *std::move(s);
                                   }},
                      StoreFactory{"InMemory",
                                   [](const std::string&) -> std::unique_ptr<Store> {
                                     return std::make_unique<InMemoryStore>();
                                   }}),
    [](const ::testing::TestParamInfo<StoreFactory>& info) { return info.param.name; });

}  // namespace
}  // namespace bbo
