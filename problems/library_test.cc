#include "problems/library.h"

#include <cmath>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/practice_suite.h"
#include "problems/signature.h"

namespace bbo {
namespace {

TEST(ProblemLibraryTest, BuildsAPracticeProblemWithTheCoordinatorsSignature) {
  ProblemLibrary library;
  absl::StatusOr<ProblemLibrary::Built> built = library.Get({"practice", "branin"});
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->problem->name(), "branin");
  // What a coordinator records for its own copy of the problem.
  absl::StatusOr<std::unique_ptr<Problem>> own = MakeProblem("branin");
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(built->signature, ProblemSignature(**own));
  // Built once: the same object again.
  absl::StatusOr<ProblemLibrary::Built> again = library.Get({"practice", "branin"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->problem, built->problem);
}

TEST(ProblemLibraryTest, SeedsGiveDifferentInstancesOfASuite) {
  ProblemLibrary library;
  // BBOB instance = seed + 1.
  auto a = library.Get({"bbob", "bbob_f03_i1_d2", 0});
  auto b = library.Get({"bbob", "bbob_f03_i2_d2", 1});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NE(a->problem, b->problem);
  EXPECT_NE(a->signature, b->signature);
  // The seed picks the instance: this name is not in seed 1's suite.
  EXPECT_TRUE(absl::IsNotFound(library.Get({"bbob", "bbob_f03_i1_d2", 1}).status()));
}

TEST(ProblemLibraryTest, TheSlowTestProblemTakesItsSeedInMilliseconds) {
  ProblemLibrary library;
  auto slow = library.Get({"test", "test_slow", 20});
  ASSERT_TRUE(slow.ok()) << slow.status();
  absl::Time start = absl::Now();
  EXPECT_DOUBLE_EQ(slow->problem->Evaluate(Point{{"x0", 0.25}}), 0.25);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(20));
}

TEST(ProblemLibraryTest, UnknownSuiteOrNameIsNotFound) {
  ProblemLibrary library;
  EXPECT_TRUE(absl::IsNotFound(library.Get({"nosuch", "x"}).status()));
  EXPECT_TRUE(absl::IsNotFound(library.Get({"practice", "nosuch"}).status()));
  EXPECT_TRUE(absl::IsNotFound(library.Get({"test", "nosuch"}).status()));
}

TEST(ProblemLibraryTest, AddedProblemsAreUsedAsTheyAre) {
  ProblemLibrary library;
  absl::StatusOr<std::unique_ptr<Problem>> own = MakeProblem("branin");
  ASSERT_TRUE(own.ok());
  library.Add({"practice", "branin"}, own->get());
  auto got = library.Get({"practice", "branin"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->problem.get(), own->get());
  EXPECT_EQ(got->signature, ProblemSignature(**own));
}

TEST(ProblemLibraryTest, KeepsOnlyTheMostRecentlyUsedProblemsAndTheirUsersKeepTheirs) {
  ProblemLibrary library(SuiteOptions(), 2);
  auto branin = library.Get({"practice", "branin"});
  ASSERT_TRUE(branin.ok());
  ASSERT_TRUE(library.Get({"practice", "hartmann6"}).ok());
  ASSERT_TRUE(library.Get({"practice", "branin"}).ok());  // used again: the newest
  ASSERT_TRUE(library.Get({"test", "test_sphere"}).ok());
  EXPECT_EQ(library.size(), 2u);
  // hartmann6 was dropped; branin was kept (the same object).
  auto again = library.Get({"practice", "branin"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->problem, branin->problem);
  // A dropped problem still held by a study stays valid.
  std::shared_ptr<const Problem> held = library.Get({"practice", "hartmann6"})->problem;
  ASSERT_TRUE(library.Get({"test", "test_nan"}).ok());
  ASSERT_TRUE(library.Get({"test", "test_crashing"}).ok());
  EXPECT_EQ(library.size(), 2u);
  EXPECT_EQ(held->name(), "hartmann6");
  std::mt19937_64 rng(1);
  EXPECT_TRUE(std::isfinite(held->Evaluate(held->space().SampleRandom(rng))));
}

TEST(ProblemDefinitionTest, KeyNamesEveryField) {
  ProblemDefinition d{"generated", "task_3", 7, "bbob-d5", 50};
  EXPECT_EQ(d.Key(), "generated/task_3@7/bbob-d5x50");
  EXPECT_EQ((ProblemDefinition{"sklearn", "SVM_digits_nll", 0}).Key(), "sklearn/SVM_digits_nll@0");
}

}  // namespace
}  // namespace bbo
