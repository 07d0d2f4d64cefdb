#include "server/replay.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/evaluator.h"
#include "problems/practice_suite.h"
#include "problems/test_problems.h"
#include "server/store/sqlite_store.h"
#include "server/study_manager.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

TEST(ReplayTest, ReproducesARecordedStudyAndDetectsAChangedProblem) {
  const std::string db = (std::filesystem::temp_directory_path() /
                          ("replay_test_" + std::to_string(::getpid()) + ".sqlite"))
                             .string();
  std::filesystem::remove(db);
  auto store = *SqliteStore::Open(db);
  std::vector<std::unique_ptr<Problem>> problems;
  problems.push_back(*MakeProblem("warped_mix"));  // mixed int/cat/log: canonicalization matters
  problems.push_back(MakeCrashingProblem(0.5));    // crashes recorded as +inf
  ProblemSet set(std::move(problems));
  Evaluator evaluator(2);
  FakeClock clock;
  StudyOptions so;
  so.budget.batch_size = 4;
  so.budget.n_batches = 3;
  StudyManager studies(store.get(), store.get(), std::vector<StudyPhase>{StudyPhase{"", &set, so}}, &evaluator, &clock);
  std::mt19937_64 rng(3);
  for (const std::string& name : set.names()) {
    auto study = studies.OpenPractice(Identity::Organizer(), name);
    ASSERT_TRUE(study.ok());
    const Problem* p = *set.Get(name);
    for (int b = 0; b < 3; ++b) {
      std::vector<IncomingPoint> batch;
      for (const Point& pt : p->space().SampleRandom(4, rng)) batch.push_back({pt, ""});
      ASSERT_TRUE(studies.SubmitBatch(Identity::Coordinator(), study->study_id, b, batch).ok());
    }
    auto replay = ReplayStudy(store.get(), *p, study->study_id);
    ASSERT_TRUE(replay.ok()) << replay.status();
    EXPECT_EQ(replay->evaluations, 12);
    EXPECT_TRUE(replay->ok()) << name << ": " << replay->differences.front();
    EXPECT_EQ(replay->recorded_signature, replay->signature_now);
  }
  // The crashing problem with a different threshold is "the same problem, changed": values and
  // signature differ.
  auto changed = MakeCrashingProblem(0.2);
  const int64_t crash_study = 2;
  auto replay = ReplayStudy(store.get(), *changed, crash_study);
  ASSERT_TRUE(replay.ok()) << replay.status();
  EXPECT_NE(replay->recorded_signature, replay->signature_now);
  // Wrong problem for the study.
  EXPECT_EQ(ReplayStudy(store.get(), **set.Get("warped_mix"), crash_study).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReplayStudy(store.get(), *changed, 999).status().code(), absl::StatusCode::kNotFound);
  std::filesystem::remove(db);
}

}  // namespace
}  // namespace bbo
