#include "server/problems/registry.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/problems/signature.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

std::string WriteFile(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("registry_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(RegistryTest, BuiltInSuitesHaveUniqueNamesFamiliesAndAttributes) {
  SuiteOptions o;
  o.generated_tasks = 20;
  for (const std::string& suite : {"practice", "synthetic", "bbob", "generated"}) {
    auto problems = MakeSuite(suite, o);
    ASSERT_TRUE(problems.ok()) << suite << ": " << problems.status();
    std::set<std::string> names;
    for (const auto& p : *problems) {
      EXPECT_TRUE(names.insert(p->name()).second) << suite << ": duplicate " << p->name();
      EXPECT_NE(p->family(), "builtin") << p->name();
      EXPECT_FALSE(p->attributes().empty()) << p->name();
      EXPECT_GE(p->space().dims(), 1);
    }
    EXPECT_GE(problems->size(), suite == "practice" ? 13u : 20u) << suite;
  }
  auto unknown = MakeSuite("nope", o);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("synthetic"));
}

TEST(RegistryTest, SeedsChangeInstancesDeterministically) {
  SuiteOptions a, b;
  b.seed = 5;
  auto s0 = MakeSuite("synthetic", a), s0again = MakeSuite("synthetic", a),
       s5 = MakeSuite("synthetic", b);
  ASSERT_TRUE(s0.ok() && s0again.ok() && s5.ok());
  int changed = 0;
  for (size_t i = 0; i < s0->size(); ++i) {
    const std::string sig0 = ProblemSignature(*(*s0)[i]);
    EXPECT_EQ(sig0, ProblemSignature(*(*s0again)[i])) << (*s0)[i]->name();
    changed += sig0 != ProblemSignature(*(*s5)[i]);
  }
  EXPECT_GT(changed, static_cast<int>(s0->size()) / 2);
}

TEST(RegistryTest, SuiteFilePicksProblemsWithPerProblemSeeds) {
  const std::string path = WriteFile("suite.json", R"({"name": "feedback", "problems": [
      {"suite": "practice", "problem": "branin"},
      {"suite": "bbob", "problem": "bbob_f01_i1_d2"},
      {"suite": "bbob", "problem": "bbob_f01_i8_d2", "seed": 7}]})");
  auto suite = MakeSuiteFromFile(path, SuiteOptions{});
  ASSERT_TRUE(suite.ok()) << suite.status();
  ASSERT_EQ(suite->size(), 3u);
  EXPECT_EQ((*suite)[0]->name(), "branin");
  EXPECT_EQ((*suite)[2]->name(), "bbob_f01_i8_d2");
  EXPECT_NE(ProblemSignature(*(*suite)[1]), ProblemSignature(*(*suite)[2]));

  auto missing = MakeSuiteFromFile(
      WriteFile("missing.json", R"({"problems": [{"suite": "practice", "problem": "nope"}]})"),
      SuiteOptions{});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("problems[0]"));
  auto bad = MakeSuiteFromFile(WriteFile("bad.json", R"({"problems": [{"problem": "x"}]})"),
                               SuiteOptions{});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  auto twice = MakeSuiteFromFile(
      WriteFile("twice.json", R"({"problems": [{"suite": "practice", "problem": "branin"},
                                              {"suite": "practice", "problem": "branin"}]})"),
      SuiteOptions{});
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(MakeSuiteFromFile("/nonexistent/suite.json", SuiteOptions{}).ok());
}

}  // namespace
}  // namespace bbo
