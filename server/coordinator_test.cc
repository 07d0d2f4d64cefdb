#include "server/coordinator.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

}  // namespace
}  // namespace bbo
