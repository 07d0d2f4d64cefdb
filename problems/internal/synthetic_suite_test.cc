#include "problems/internal/synthetic_suite.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::problems_internal {
namespace {

constexpr uint64_t kSeed = 20240601;

double Tolerance(double value) { return 1e-9 * std::max(1.0, std::fabs(value)); }

bool InVocabulary(const std::string& tag) {
  return std::find_if(std::begin(kSyntheticAttributes), std::end(kSyntheticAttributes),
                      [&tag](const char* v) { return tag == v; }) != std::end(kSyntheticAttributes);
}

bool HasAttribute(const Problem& p, const std::string& tag) {
  const std::vector<std::string> tags = p.attributes();
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

class SyntheticSuiteTest : public ::testing::Test {
 protected:
  SyntheticSuiteTest() : suite_(MakeSyntheticSuite(kSeed)), optima_(SyntheticOptima(kSeed)) {}

  std::vector<std::unique_ptr<Problem>> suite_;
  std::vector<SyntheticInfo> optima_;
};

TEST_F(SyntheticSuiteTest, HasAtLeastFortyUniquelyNamedProblemsWithKnownOptima) {
  EXPECT_GE(suite_.size(), 40u);
  ASSERT_EQ(optima_.size(), suite_.size());
  std::set<std::string> names;
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    EXPECT_TRUE(names.insert(p.name()).second) << "duplicate " << p.name();
    EXPECT_EQ(optima_[i].name, p.name());
    EXPECT_EQ(p.name().rfind("syn_", 0), 0u) << p.name();
    ASSERT_TRUE(p.known_optimum().has_value()) << p.name();
    EXPECT_EQ(*p.known_optimum(), optima_[i].optimum_value) << p.name();
    EXPECT_FALSE(p.description().empty()) << p.name();
    EXPECT_TRUE(p.family() == "synthetic" || p.family() == "bbob") << p.name();
    EXPECT_GE(p.space().dims(), 2) << p.name();
    EXPECT_LE(p.space().dims(), 20) << p.name();
  }
}

TEST_F(SyntheticSuiteTest, NamesDoNotDependOnTheSeed) {
  const std::vector<std::unique_ptr<Problem>> other = MakeSyntheticSuite(kSeed + 1);
  ASSERT_EQ(other.size(), suite_.size());
  for (size_t i = 0; i < suite_.size(); ++i) EXPECT_EQ(other[i]->name(), suite_[i]->name());
}

TEST_F(SyntheticSuiteTest, EveryProblemIsTaggedAndEveryTagIsUsedTwice) {
  std::map<std::string, int> by_attribute, by_family, by_dims;
  for (const auto& p : suite_) {
    int in_vocabulary = 0;
    for (const std::string& tag : p->attributes()) {
      ++by_attribute[tag];
      in_vocabulary += InVocabulary(tag);
    }
    EXPECT_GE(in_vocabulary, 1) << p->name();
    ++by_family[p->family()];
    ++by_dims[absl::StrCat("d", p->space().dims())];
  }
  for (const char* tag : kSyntheticAttributes) {
    EXPECT_GE(by_attribute[tag], 2) << "attribute \"" << tag << "\"";
  }
  auto format = [](const std::map<std::string, int>& counts) {
    return absl::StrJoin(counts, ", ", absl::PairFormatter("="));
  };
  RecordProperty("problems", static_cast<int>(suite_.size()));
  RecordProperty("by_family", format(by_family));
  RecordProperty("by_attribute", format(by_attribute));
  RecordProperty("by_dims", format(by_dims));
  std::cout << "by_family: " << format(by_family) << "\nby_attribute: " << format(by_attribute)
            << "\nby_dims: " << format(by_dims) << "\n";
}

TEST_F(SyntheticSuiteTest, OptimumPointIsValidAndAttainsTheKnownOptimum) {
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    const SyntheticInfo& info = optima_[i];
    ASSERT_TRUE(p.space().Validate(info.optimum_point).ok())
        << p.name() << ": " << p.space().Validate(info.optimum_point);
    absl::StatusOr<Point> canonical = p.space().Canonicalize(info.optimum_point);
    ASSERT_TRUE(canonical.ok()) << p.name();
    EXPECT_EQ(*canonical, info.optimum_point) << p.name() << ": optimum point is not canonical";
    EXPECT_NEAR(p.Evaluate(info.optimum_point), info.optimum_value, Tolerance(info.optimum_value))
        << p.name();
  }
}

TEST_F(SyntheticSuiteTest, RandomPointsAreNeverBelowTheKnownOptimum) {
  std::mt19937_64 rng(11);
  for (const auto& p : suite_) {
    const double optimum = *p->known_optimum();
    for (const Point& x : p->space().SampleRandom(500, rng)) {
      const double v = p->Evaluate(x);
      ASSERT_TRUE(std::isfinite(v)) << p->name();
      EXPECT_GE(v, optimum - Tolerance(optimum)) << p->name();
    }
  }
}

TEST_F(SyntheticSuiteTest, PointsNearTheOptimumAreNotBelowIt) {
  // Local check that the reported optimum is a minimum: perturb the real coordinates slightly
  // (clipped to the box), keep the discrete ones.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    const double optimum = optima_[i].optimum_value;
    for (double radius : {1e-6, 1e-3, 1e-2}) {
      for (int n = 0; n < 20; ++n) {
        Point x = optima_[i].optimum_point;
        for (const ParamSpec& spec : p.space().params()) {
          if (spec.type != ParamType::kReal || !spec.lo) continue;
          double& v = std::get<double>(x[spec.name]);
          const double width = *spec.hi - *spec.lo;
          if (spec.space == WarpKind::kLog) {
            v = std::clamp(v * std::exp(radius * unit(rng)), *spec.lo, *spec.hi);
          } else {
            v = std::clamp(v + radius * width * unit(rng), *spec.lo, *spec.hi);
          }
        }
        EXPECT_GE(p.Evaluate(x), optimum - Tolerance(optimum)) << p.name() << " radius " << radius;
      }
    }
  }
}

TEST_F(SyntheticSuiteTest, OptimaAreNeitherAtTheCentreNorOnIntegerCoordinates) {
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    const Point& x = optima_[i].optimum_point;
    const std::vector<double> warped = p.space().Warp(x);
    const std::vector<std::pair<double, double>> bounds = p.space().WarpedBounds();
    double max_offset = 0.0;  // largest |x - centre| / width over the real coordinates
    int reals = 0;
    for (size_t j = 0; j < p.space().params().size(); ++j) {
      const ParamSpec& spec = p.space().params()[j];
      if (spec.type != ParamType::kReal) continue;
      ++reals;
      const double centre = 0.5 * (bounds[j].first + bounds[j].second);
      max_offset = std::max(max_offset,
                            std::fabs(warped[j] - centre) / (bounds[j].second - bounds[j].first));
      const double v = std::get<double>(x.at(spec.name));
      EXPECT_GT(std::fabs(v - std::round(v)), 1e-6)
          << p.name() << ": " << spec.name << " = " << v << " is an integer";
    }
    if (reals > 0) {
      EXPECT_GT(max_offset, 0.01) << p.name() << ": optimum at the centre";
    }
  }
}

TEST_F(SyntheticSuiteTest, ADifferentSeedMovesTheOptima) {
  const std::vector<SyntheticInfo> other = SyntheticOptima(kSeed + 1);
  ASSERT_EQ(other.size(), optima_.size());
  for (size_t i = 0; i < optima_.size(); ++i) {
    const std::string& name = optima_[i].name;
    if (name.rfind("syn_bbob_f20_", 0) == 0 || name.rfind("syn_bbob_f24_", 0) == 0) {
      // BBOB draws only the signs of these optima (x_opt = c (+-1)^d), so two seeds share them
      // with probability 2^-d: require a move within a few seeds instead.
      bool moved = false;
      for (uint64_t s = 1; s <= 6; ++s) {
        moved = moved || SyntheticOptima(kSeed + s)[i].optimum_point != optima_[i].optimum_point;
      }
      EXPECT_TRUE(moved) << name;
      continue;
    }
    EXPECT_NE(other[i].optimum_point, optima_[i].optimum_point) << name;
  }
}

TEST_F(SyntheticSuiteTest, TheSameSeedReproducesTheSuite) {
  const std::vector<std::unique_ptr<Problem>> again = MakeSyntheticSuite(kSeed);
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < suite_.size(); ++i) {
    for (const Point& x : suite_[i]->space().SampleRandom(5, rng)) {
      EXPECT_EQ(again[i]->Evaluate(x), suite_[i]->Evaluate(x)) << suite_[i]->name();
    }
  }
}

TEST_F(SyntheticSuiteTest, NoisyProblemsAreDeterministicButNoisy) {
  std::mt19937_64 rng(9);
  int noisy = 0;
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    EXPECT_EQ(optima_[i].noisy, HasAttribute(p, "noisy")) << p.name();
    if (!optima_[i].noisy) continue;
    ++noisy;
    int jumps = 0;
    for (const Point& x : p.space().SampleRandom(50, rng)) {
      // Replays give the same value.
      EXPECT_EQ(p.Evaluate(x), p.Evaluate(x)) << p.name();
      // A relative nudge of 1e-12 changes the noise draw, so the value moves by far more than
      // the smooth objective would.
      Point nudged = x;
      for (auto& [name, value] : nudged) {
        if (double* d = std::get_if<double>(&value)) *d += 1e-12 * std::max(1.0, std::fabs(*d));
      }
      const double a = p.Evaluate(x) - *p.known_optimum();
      const double b = p.Evaluate(nudged) - *p.known_optimum();
      if (std::fabs(a - b) > 1e-3 * std::max(std::fabs(a), std::fabs(b))) ++jumps;
    }
    EXPECT_GE(jumps, 40) << p.name();
  }
  EXPECT_GE(noisy, 2);
}

TEST_F(SyntheticSuiteTest, NoiselessProblemsAreSmoothUnderTinyNudges) {
  // The contrast case for the test above: without noise a 1e-12 nudge barely moves the value
  // (except across a step of a discrete-valued objective).
  std::mt19937_64 rng(13);
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    if (optima_[i].noisy || HasAttribute(p, "discrete valued") || HasAttribute(p, "nonsmooth") ||
        p.family() == "bbob") {
      continue;
    }
    for (const Point& x : p.space().SampleRandom(20, rng)) {
      Point nudged = x;
      for (auto& [name, value] : nudged) {
        if (double* d = std::get_if<double>(&value)) *d += 1e-12 * std::max(1.0, std::fabs(*d));
      }
      const double a = p.Evaluate(x), b = p.Evaluate(nudged);
      EXPECT_NEAR(a, b, 1e-6 * std::max(1.0, std::fabs(a))) << p.name();
    }
  }
}

TEST_F(SyntheticSuiteTest, MixedIntegerProblemsHaveDiscreteParameters) {
  int mixed = 0;
  for (const auto& p : suite_) {
    if (!HasAttribute(*p, "mixed integer")) continue;
    ++mixed;
    int discrete = 0;
    for (const ParamSpec& spec : p->space().params()) discrete += spec.type != ParamType::kReal;
    EXPECT_GE(discrete, 1) << p->name();
  }
  EXPECT_GE(mixed, 2);
}

TEST_F(SyntheticSuiteTest, DiscreteValuedProblemsTakeFewValues) {
  std::mt19937_64 rng(17);
  for (const auto& p : suite_) {
    if (!HasAttribute(*p, "discrete valued")) continue;
    std::set<double> values;
    for (const Point& x : p->space().SampleRandom(300, rng)) values.insert(p->Evaluate(x));
    // Random points of a continuous objective would give 300 distinct values.
    EXPECT_LT(values.size(), 300u) << p->name();
  }
}

TEST_F(SyntheticSuiteTest, BoundaryOptimaLieOnTheBoundary) {
  for (size_t i = 0; i < suite_.size(); ++i) {
    const Problem& p = *suite_[i];
    if (!HasAttribute(p, "boundary optimum")) continue;
    int on_bound = 0;
    for (const ParamSpec& spec : p.space().params()) {
      if (spec.type != ParamType::kReal) continue;
      const double v = std::get<double>(optima_[i].optimum_point.at(spec.name));
      on_bound += v == *spec.lo || v == *spec.hi;
    }
    EXPECT_GE(on_bound, 1) << p.name();
  }
}

TEST_F(SyntheticSuiteTest, MostlyBoringProblemsAreFlatAlmostEverywhere) {
  std::mt19937_64 rng(19);
  for (const auto& p : suite_) {
    if (!HasAttribute(*p, "mostly boring")) continue;
    std::vector<double> values;
    for (const Point& x : p->space().SampleRandom(400, rng)) values.push_back(p->Evaluate(x));
    std::sort(values.begin(), values.end());
    // At least 80% of random points are within 1% of the optimum's depth of the median.
    const double median = values[values.size() / 2];
    const double depth = std::fabs(median - *p->known_optimum());
    const int flat = std::count_if(values.begin(), values.end(),
                                   [&](double v) { return std::fabs(v - median) <= 0.01 * depth; });
    EXPECT_GE(flat, 320) << p->name();
  }
}

}  // namespace
}  // namespace bbo::problems_internal
