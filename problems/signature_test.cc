#include "problems/signature.h"

#include <atomic>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "problems/practice_suite.h"

namespace bbo {
namespace {

using ::testing::StartsWith;

// A 1-d quadratic whose offset can be changed: the "same" problem with changed data.
class Shifted : public BuiltinProblem {
 public:
  explicit Shifted(double offset)
      : BuiltinProblem("shifted", "x^2 + offset",
                       {{"x", {{"type", "real"}, {"space", "linear"}, {"range", {-1.0, 1.0}}}}},
                       offset),
        offset_(offset) {}
  double Evaluate(const Point& p) const override {
    const double x = std::get<double>(p.at("x"));
    return x * x + offset_;
  }

 private:
  double offset_;
};

TEST(ProblemSignatureTest, StableForTheSameProblemAndChangesWithItsValues) {
  const std::string a = ProblemSignature(Shifted(0.0));
  EXPECT_THAT(a, StartsWith("v1:"));
  EXPECT_EQ(a, ProblemSignature(Shifted(0.0)));
  EXPECT_NE(a, ProblemSignature(Shifted(1e-9)));
  // Every practice problem has a deterministic signature (a fresh instance gives the same).
  for (const auto& p : MakePracticeSuite()) {
    auto again = MakeProblem(p->name());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(ProblemSignature(*p), ProblemSignature(**again)) << p->name();
  }
}

TEST(ProblemSignatureTest, ChangesWithTheSearchSpace) {
  auto branin = MakeProblem("branin");
  auto hartmann = MakeProblem("hartmann3");
  ASSERT_TRUE(branin.ok() && hartmann.ok());
  const std::string a = ProblemSignature(**branin), b = ProblemSignature(**hartmann);
  EXPECT_NE(a.substr(0, 20), b.substr(0, 20));  // different api_config digests
}

}  // namespace
}  // namespace bbo
