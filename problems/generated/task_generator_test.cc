#include "problems/generated/task_generator.h"

#include <cmath>
#include <filesystem>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/practice_suite.h"

namespace bbo {
namespace {

// A family of tasks on one space: f_c(x, y, n) = (x - c0)^2 + 3 (log10 y - c1)^2 + 0.1 n c2
// with a log-scaled real and an int, like hyperparameter problems.
class Bowl : public BuiltinProblem {
 public:
  Bowl(int k, double c0, double c1, double c2)
      : BuiltinProblem(
            "bowl" + std::to_string(k), "test bowl",
            {{"x", {{"type", "real"}, {"space", "linear"}, {"range", {-2.0, 2.0}}}},
             {"y", {{"type", "real"}, {"space", "log"}, {"range", {1e-3, 1e1}}}},
             {"n", {{"type", "int"}, {"space", "linear"}, {"range", {1, 10}}}}},
            std::nullopt),
        c0_(c0), c1_(c1), c2_(c2) {}
  double Evaluate(const Point& p) const override {
    const double x = std::get<double>(p.at("x")), y = std::get<double>(p.at("y"));
    const double n = static_cast<double>(std::get<int64_t>(p.at("n")));
    return (x - c0_) * (x - c0_) + 3 * (std::log10(y) - c1_) * (std::log10(y) - c1_) +
           0.1 * n * c2_;
  }

 private:
  double c0_, c1_, c2_;
};

std::vector<std::unique_ptr<Problem>> Family() {
  std::vector<std::unique_ptr<Problem>> v;
  for (int k = 0; k < 6; ++k) {
    v.push_back(std::make_unique<Bowl>(k, -1.0 + 0.4 * k, -2.0 + 0.5 * k, k % 3 - 1.0));
  }
  return v;
}

TEST(TaskGeneratorTest, DesignRoundTripsThroughSqliteAndReproducesRealTasks) {
  auto family = Family();
  std::vector<const Problem*> tasks;
  for (auto& p : family) tasks.push_back(p.get());
  auto design = RunDesign("bowls", tasks, 64);
  ASSERT_TRUE(design.ok()) << design.status();
  EXPECT_EQ(design->values.size(), 6u);
  EXPECT_EQ(design->unit_points.size(), 64u);
  const std::string db = (std::filesystem::temp_directory_path() /
                          ("task_generator_test_" + std::to_string(::getpid()) + ".sqlite"))
                             .string();
  std::filesystem::remove(db);
  ASSERT_TRUE(SaveDesign(*design, db).ok());
  auto loaded = LoadDesign(db, "bowls");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->tasks, design->tasks);
  EXPECT_EQ(loaded->values, design->values);
  EXPECT_EQ(loaded->unit_points, design->unit_points);
  EXPECT_EQ(LoadDesign(db, "other").status().code(), absl::StatusCode::kNotFound);
  std::filesystem::remove(db);

  auto gen = TaskGenerator::Fit(*loaded);
  ASSERT_TRUE(gen.ok()) << gen.status();
  // With a real task's own latent coordinates, mean and scale, the generated task reproduces
  // the real one at the design points (the PCA is exact on K tasks, the GP interpolates).
  for (int k = 0; k < 6; ++k) {
    auto again = (*gen)->GenerateFromLatent("again", (*gen)->task_latent(k), (*gen)->task_mean(k),
                                            (*gen)->task_scale(k));
    // Evaluate at the design points via their unit coordinates -> points.
    auto redesign = RunDesign("check", {again.get()}, 64);
    ASSERT_TRUE(redesign.ok());
    double worst = 0;
    for (int i = 0; i < 64; ++i) {
      worst = std::max(worst, std::abs(redesign->values[0][i] - design->values[k][i]));
    }
    EXPECT_LT(worst, 1e-3 * (*gen)->task_scale(k)) << "task " << k;
  }
}

TEST(TaskGeneratorTest, GeneratedTasksAreDeterministicDistinctAndPlausible) {
  auto family = Family();
  std::vector<const Problem*> tasks;
  for (auto& p : family) tasks.push_back(p.get());
  auto design = RunDesign("bowls", tasks, 64);
  ASSERT_TRUE(design.ok());
  auto gen = TaskGenerator::Fit(*design);
  ASSERT_TRUE(gen.ok());
  auto a = (*gen)->Generate(1), a2 = (*gen)->Generate(1), b = (*gen)->Generate(2);
  EXPECT_EQ(a->name(), "gen_bowls_1");
  EXPECT_EQ(a->family(), "generated");
  EXPECT_EQ(a->space().api_config(), family[0]->space().api_config());
  std::mt19937_64 rng(5);
  double differ = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
  double real_lo = HUGE_VAL, real_hi = -HUGE_VAL;
  for (int i = 0; i < 200; ++i) {
    const Point p = *family[0]->space().Canonicalize(family[0]->space().SampleRandom(rng));
    const double va = a->Evaluate(p);
    EXPECT_EQ(va, a2->Evaluate(p));  // deterministic
    differ = std::max(differ, std::abs(va - b->Evaluate(p)));
    lo = std::min(lo, va);
    hi = std::max(hi, va);
    for (auto& t : family) {
      real_lo = std::min(real_lo, t->Evaluate(p));
      real_hi = std::max(real_hi, t->Evaluate(p));
    }
  }
  EXPECT_GT(differ, 1e-6);  // different seeds, different tasks
  // Values on the scale of the family's (a loose plausibility bound, not a fit test).
  const double span = real_hi - real_lo;
  EXPECT_GT(lo, real_lo - 2 * span);
  EXPECT_LT(hi, real_hi + 2 * span);
  // A thousand tasks can be generated.
  for (uint64_t s = 0; s < 1000; ++s) ASSERT_NE((*gen)->Generate(s), nullptr);
}

TEST(TaskGeneratorTest, RejectsMismatchedSpacesAndTooFewTasks) {
  auto family = Family();
  auto branin = MakeProblem("branin");
  ASSERT_TRUE(branin.ok());
  EXPECT_EQ(RunDesign("x", {family[0].get(), branin->get()}, 16).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(RunDesign("x", {}, 16).ok());
  auto one = RunDesign("x", {family[0].get()}, 16);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(TaskGenerator::Fit(*one).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(RunDesign("x", {family[0].get()}, 2).ok());
}

}  // namespace
}  // namespace bbo
