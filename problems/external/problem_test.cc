#include "problems/external/problem.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr double kInf = std::numeric_limits<double>::infinity();
const std::string kToy = std::string(BBO_PROBLEMS_TESTDATA) + "/toy_problem.py";

ExternalProblemOptions ToyOptions(std::vector<std::string> args = {}) {
  ExternalProblemOptions o;
  o.argv = {"/usr/bin/python3", kToy};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.startup_time_limit = absl::Seconds(20);
  o.evaluate_time_limit = absl::Seconds(20);
  return o;
}

std::unique_ptr<ExternalProblem> StartOrDie(ExternalProblemOptions options) {
  absl::StatusOr<std::unique_ptr<ExternalProblem>> p = ExternalProblem::Start(std::move(options));
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : nullptr;
}

Point ToyPoint(double x, int64_t n, const std::string& c, bool flag) {
  return Point{{"x", x}, {"n", n}, {"c", c}, {"flag", flag}};
}

// The toy problem's objective, computed as toy_problem.py computes it.
double ToyValue(double x, int64_t n, const std::string& c, bool flag) {
  return (x - 1.0) * (x - 1.0) + static_cast<double>(n) + (c == "b" ? 0.5 : 0.0) +
         (flag ? 0.25 : 0.0);
}

// A fresh directory for one test's files.
std::string TempDir(const std::string& name) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/ext_", name, "_", getpid());
  std::string cmd = absl::StrCat("rm -rf '", dir, "' && mkdir -p '", dir, "'");
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// True while `pid` exists and is not a zombie.
bool Alive(pid_t pid) {
  std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  if (stat.empty()) return false;
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

bool WaitUntilGone(pid_t pid, absl::Duration timeout) {
  absl::Time until = absl::Now() + timeout;
  while (Alive(pid)) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

TEST(ExternalProblemTest, StartReadsTheDescribeReply) {
  auto p = StartOrDie(ToyOptions());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name(), "toy");
  EXPECT_EQ(p->family(), "toy");
  EXPECT_EQ(p->description(), "toy quadratic for tests");
  EXPECT_THAT(p->attributes(), ElementsAre("unimodal", "mixed integer"));
  EXPECT_EQ(p->known_optimum(), 0.0);
  ASSERT_EQ(p->space().dims(), 4);
  EXPECT_EQ(p->space().params()[0].name, "c");
  EXPECT_EQ(p->space().params()[3].type, ParamType::kReal);
  EXPECT_THAT(p->errors(), SizeIs(0));
}

TEST(ExternalProblemTest, EvaluateReturnsTheProblemsValues) {
  auto p = StartOrDie(ToyOptions());
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.5, 2, "b", true)), ToyValue(0.5, 2, "b", true));
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(1.0, 0, "a", false)), 0.0);

  std::vector<Point> batch = {ToyPoint(-2.5, 7, "a", true), ToyPoint(3.25, 1, "b", false),
                              ToyPoint(4.0, 0, "a", false), ToyPoint(-4.0, 0, "a", false)};
  std::vector<double> values = p->EvaluateBatch(batch);
  ASSERT_THAT(values, SizeIs(4));
  EXPECT_DOUBLE_EQ(values[0], ToyValue(-2.5, 7, "a", true));
  EXPECT_DOUBLE_EQ(values[1], ToyValue(3.25, 1, "b", false));
  EXPECT_TRUE(std::isnan(values[2]));  // the problem said "nan"
  EXPECT_EQ(values[3], kInf);          // the problem said "inf"

  std::vector<ExternalEvaluation> detailed = p->EvaluateDetailed({ToyPoint(2.0, 3, "a", false)});
  ASSERT_THAT(detailed, SizeIs(1));
  EXPECT_DOUBLE_EQ(detailed[0].value, 4.0);
  ASSERT_TRUE(detailed[0].generalization.has_value());
  EXPECT_DOUBLE_EQ(*detailed[0].generalization, 5.0);

  EXPECT_THAT(p->EvaluateBatch({}), SizeIs(0));
  EXPECT_THAT(p->errors(), SizeIs(0));
  EXPECT_EQ(p->restarts(), 0);
}

TEST(ExternalProblemTest, FindsABareProgramNameOnTheChildsPath) {
  ExternalProblemOptions o = ToyOptions();
  o.argv[0] = "python3";
  o.env = {"PATH=/nonexistent:/usr/bin"};
  auto p = StartOrDie(o);
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 1, "a", false)), 2.0);
}

TEST(ExternalProblemTest, CrashScoresInfRecordsAnErrorAndRestarts) {
  auto p = StartOrDie(ToyOptions({"--crash-after", "2"}));
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), 1.0);
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 1, "a", false)), 2.0);
  EXPECT_THAT(p->EvaluateBatch({ToyPoint(0.0, 2, "a", false), ToyPoint(0.0, 3, "a", false)}),
              ElementsAre(kInf, kInf));
  ASSERT_THAT(p->errors(), SizeIs(1));
  EXPECT_THAT(p->errors()[0],
              AllOf(HasSubstr("external problem \"toy\""),
                    HasSubstr("evaluate request 3 (2 points)"), HasSubstr("exited with status 3"),
                    HasSubstr("toy: simulated crash"), HasSubstr("+inf")));
  // The next call starts a new process, which answers again.
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 4, "a", false)), 5.0);
  EXPECT_EQ(p->restarts(), 1);
  EXPECT_EQ(p->error_count(), 1);
}

TEST(ExternalProblemTest, KilledProcessScoresInfAndRestarts) {
  auto p = StartOrDie(ToyOptions({"--kill-after", "0"}));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);
  ASSERT_THAT(p->errors(), SizeIs(1));
  EXPECT_THAT(p->errors()[0], HasSubstr("killed by signal 9 (SIGKILL)"));
  // The restarted process is killed on its first request too; each failure is recorded.
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);
  EXPECT_EQ(p->restarts(), 1);
  EXPECT_EQ(p->error_count(), 2);
  EXPECT_FALSE(p->broken());
}

TEST(ExternalProblemTest, HangIsKilledWithinTheTimeLimit) {
  const std::string dir = TempDir("hang");
  const std::string pid_file = dir + "/grandchild.pid";
  ExternalProblemOptions o = ToyOptions({"--hang-after", "1", "--grandchild-pid-file", pid_file});
  o.evaluate_time_limit = absl::Seconds(1);
  auto p = StartOrDie(o);
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(1.0, 0, "a", false)), 0.0);

  absl::Time start = absl::Now();
  EXPECT_EQ(p->Evaluate(ToyPoint(1.0, 1, "a", false)), kInf);
  absl::Duration elapsed = absl::Now() - start;
  EXPECT_GE(elapsed, absl::Seconds(1));
  EXPECT_LT(elapsed, absl::Seconds(4));
  ASSERT_THAT(p->errors(), SizeIs(1));
  EXPECT_THAT(p->errors()[0],
              AllOf(HasSubstr("external problem \"toy\""), HasSubstr("no reply within 1s"),
                    HasSubstr("killed the process group")));
  // The grandchild the hanging process started died with its process group.
  std::string pid_text = ReadFile(pid_file);
  ASSERT_FALSE(pid_text.empty());
  EXPECT_TRUE(WaitUntilGone(std::stoi(pid_text), absl::Seconds(2)));

  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(1.0, 2, "a", false)), 2.0);
  EXPECT_EQ(p->restarts(), 1);
}

class ExternalProblemGarbageTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ExternalProblemGarbageTest, ScoresInfAndNamesTheProblemAndTheFault) {
  const auto& [mode, expected] = GetParam();
  auto p = StartOrDie(ToyOptions({"--garbage-after", "1", "--garbage", mode}));
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 5, "a", false)), 6.0);
  EXPECT_THAT(p->EvaluateBatch({ToyPoint(0.0, 0, "a", false), ToyPoint(0.0, 1, "a", false)}),
              ElementsAre(kInf, kInf));
  ASSERT_THAT(p->errors(), SizeIs(1));
  EXPECT_THAT(p->errors()[0], AllOf(HasSubstr("external problem \"toy\""),
                                    HasSubstr("invalid reply"), HasSubstr(expected)));
  // The untrusted process was replaced.
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 2, "a", false)), 3.0);
  EXPECT_EQ(p->restarts(), 1);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ExternalProblemGarbageTest,
    ::testing::Values(std::make_tuple("text", "reply is not JSON: \"Traceback: something printed"),
                      std::make_tuple("count", "\"values\" has 3 entries for 2 points"),
                      std::make_tuple("type", "\"values\"[0] is \"abc\"; expected a number"),
                      std::make_tuple("missing", "reply has no \"values\""),
                      std::make_tuple("array", "reply is not a JSON object"),
                      std::make_tuple("bare-nan", "bare NaN/Infinity are not JSON"),
                      std::make_tuple("wrong-id", "reply \"id\" is 102, expected 2")));

TEST(ExternalProblemTest, ErrorReplyScoresInfAndKeepsTheProcess) {
  auto p = StartOrDie(ToyOptions({"--error-after", "0"}));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);
  ASSERT_THAT(p->errors(), SizeIs(1));
  EXPECT_THAT(p->errors()[0], HasSubstr("replied with an error: \"model fit failed"));
  EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, 1, "a", false)), 2.0);
  EXPECT_EQ(p->restarts(), 0);
}

TEST(ExternalProblemTest, StderrFloodNeitherBlocksNorOverflowsTheLog) {
  const std::string dir = TempDir("flood");
  ExternalProblemOptions o = ToyOptions({"--stderr-flood", "1000000"});
  o.stderr_log_path = dir + "/stderr.log";
  o.stderr_log_limit_bytes = 100000;
  auto p = StartOrDie(o);
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(p->Evaluate(ToyPoint(0.0, i, "a", false)), 1.0 + i);
  }
  EXPECT_THAT(p->errors(), SizeIs(0));
  std::string log = ReadFile(o.stderr_log_path);
  EXPECT_GE(log.size(), 100000u);
  EXPECT_LT(log.size(), 100200u);
  EXPECT_THAT(log, HasSubstr("[stderr log limit reached"));
}

class ExternalProblemDescribeTest
    : public ::testing::TestWithParam<std::tuple<std::string, absl::StatusCode, std::string>> {};

TEST_P(ExternalProblemDescribeTest, StartFailsWithAClearMessage) {
  const auto& [mode, code, expected] = GetParam();
  ExternalProblemOptions o = ToyOptions({"--describe", mode});
  o.startup_time_limit = absl::Seconds(2);
  absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<ExternalProblem>> p = ExternalProblem::Start(o);
  EXPECT_LT(absl::Now() - start, absl::Seconds(6));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), code) << p.status();
  EXPECT_THAT(std::string(p.status().message()),
              AllOf(HasSubstr("external problem [\"/usr/bin/python3\", "),
                    HasSubstr("toy_problem.py"), HasSubstr(expected)));
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ExternalProblemDescribeTest,
    ::testing::Values(std::make_tuple("not-json", absl::StatusCode::kInvalidArgument,
                                      "describe reply is not JSON: \"hello, I am not JSON\""),
                      std::make_tuple("no-name", absl::StatusCode::kInvalidArgument,
                                      "field \"name\" is missing"),
                      std::make_tuple("bad-name", absl::StatusCode::kInvalidArgument,
                                      "field \"name\" \"has space\" must be"),
                      std::make_tuple("bad-api-config", absl::StatusCode::kInvalidArgument,
                                      "field \"api_config\" is invalid: parameter \"lr\""),
                      std::make_tuple("bad-protocol", absl::StatusCode::kInvalidArgument,
                                      "unsupported protocol \"bbo-problem/2\""),
                      std::make_tuple("bad-known-optimum", absl::StatusCode::kInvalidArgument,
                                      "field \"known_optimum\" is neither null nor a number"),
                      std::make_tuple("error", absl::StatusCode::kInvalidArgument,
                                      "answered describe with an error: \"data set not found\""),
                      std::make_tuple("exit", absl::StatusCode::kUnavailable,
                                      "exited with status 5; its stderr ended with:\n  | cannot load the model"),
                      std::make_tuple("hang", absl::StatusCode::kDeadlineExceeded,
                                      "no describe reply within 2s")));

TEST(ExternalProblemTest, StartFailsForAProgramThatCannotRun) {
  ExternalProblemOptions o;
  o.argv = {"/nonexistent/problem"};
  absl::StatusOr<std::unique_ptr<ExternalProblem>> p = ExternalProblem::Start(o);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("is not executable"));

  // Executable bits on a file execve cannot run: the failure comes back from the child.
  const std::string dir = TempDir("noexec");
  const std::string bogus = dir + "/bogus";
  std::ofstream(bogus) << std::string("\x7f\x01\x02\x03garbage", 11);
  chmod(bogus.c_str(), 0755);
  o.argv = {bogus};
  p = ExternalProblem::Start(o);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("cannot execute"));

  o.argv = {};
  EXPECT_EQ(ExternalProblem::Start(o).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ExternalProblemTest, GivesUpAfterRepeatedStartFailures) {
  const std::string dir = TempDir("giveup");
  ExternalProblemOptions o =
      ToyOptions({"--crash-after", "0", "--fail-if-exists", dir + "/started"});
  o.max_consecutive_start_failures = 2;
  auto p = StartOrDie(o);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);  // crash
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);  // restart fails (1)
  EXPECT_FALSE(p->broken());
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);  // restart fails (2)
  EXPECT_TRUE(p->broken());
  const int64_t errors = p->error_count();
  absl::Time start = absl::Now();
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(100));
  EXPECT_EQ(p->error_count(), errors);
  EXPECT_THAT(p->errors(), testing::Contains(HasSubstr("exited with status 4")));
  EXPECT_THAT(p->errors().back(), HasSubstr("giving up after 2 failed starts in a row"));
}

TEST(ExternalProblemTest, RestartMustDescribeTheSameProblem) {
  const std::string dir = TempDir("rename");
  auto p = StartOrDie(ToyOptions({"--crash-after", "0", "--rename-if-exists", dir + "/seen"}));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);  // crash
  EXPECT_EQ(p->Evaluate(ToyPoint(0.0, 0, "a", false)), kInf);  // the restart says "toy2"
  ASSERT_THAT(p->errors(), SizeIs(2));
  EXPECT_THAT(p->errors()[1], AllOf(HasSubstr("starting a new process failed"),
                                    HasSubstr("describes a different problem: name \"toy2\"")));
  EXPECT_EQ(p->restarts(), 0);
}

class ExternalProblemConcurrencyTest : public ::testing::TestWithParam<int> {};

TEST_P(ExternalProblemConcurrencyTest, FourThreadsGetTheirOwnValues) {
  ExternalProblemOptions o = ToyOptions();
  o.max_processes = GetParam();
  auto p = StartOrDie(o);
  ASSERT_NE(p, nullptr);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 15; ++i) {
        double x = -3.0 + 0.37 * i + 0.01 * t;
        int64_t n = (t + i) % 11;
        std::string c = i % 2 == 0 ? "a" : "b";
        bool flag = t % 2 == 1;
        double v = i % 3 == 0 ? p->EvaluateBatch({ToyPoint(x, n, c, flag)})[0]
                              : p->Evaluate(ToyPoint(x, n, c, flag));
        if (v != ToyValue(x, n, c, flag)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_THAT(p->errors(), SizeIs(0));
  EXPECT_LE(p->restarts(), GetParam() - 1);
}

INSTANTIATE_TEST_SUITE_P(Processes, ExternalProblemConcurrencyTest, ::testing::Values(1, 2));

TEST(ExternalProblemTest, DestructorEndsTheProcess) {
  const std::string dir = TempDir("dtor");
  auto p = StartOrDie(ToyOptions({"--pid-file", dir + "/pid"}));
  ASSERT_NE(p, nullptr);
  pid_t pid = std::stoi(ReadFile(dir + "/pid"));
  EXPECT_TRUE(Alive(pid));
  absl::Time start = absl::Now();
  p.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_FALSE(Alive(pid));
}

// The scikit-learn pack, against the same procedure written out directly with scikit-learn.
const char kSklearnReference[] = R"py(
import json, os
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"
import numpy as np
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics import get_scorer
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

def losses(X, y, model, scoring):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, random_state=0, shuffle=True)
    cv = -np.mean(cross_val_score(model, X_train, y_train, scoring=scoring, cv=5))
    model.fit(X_train, y_train)
    return [float(cv), float(-get_scorer(scoring)(model, X_test, y_test))]

print(json.dumps({
    "DT_iris_nll": losses(*load_iris(return_X_y=True), DecisionTreeClassifier(
        max_depth=4, max_features=0.7, min_impurity_decrease=0.01, min_samples_leaf=0.05,
        min_samples_split=0.1, min_weight_fraction_leaf=0.02, max_leaf_nodes=None,
        random_state=0), "neg_log_loss"),
    "kNN_wine_acc": losses(*load_wine(return_X_y=True),
                           KNeighborsClassifier(n_neighbors=7, p=1), "accuracy"),
}))
)py";

ExternalProblemOptions PackOptions(const std::string& problem) {
  ExternalProblemOptions o;
  o.argv = {"/usr/bin/python3", "python/problems/sklearn_pack.py", "--problem", problem};
  o.working_dir = BBO_SOURCE_DIR;
  o.startup_time_limit = absl::Seconds(30);
  o.evaluate_time_limit = absl::Seconds(30);
  return o;
}

TEST(SklearnPackTest, ListsTheBayesmarkGrid) {
  std::string out = RunCommand(
      absl::StrCat("/usr/bin/python3 ", BBO_SOURCE_DIR, "/python/problems/sklearn_pack.py --list"));
  std::vector<std::string> names;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) names.push_back(line);
  EXPECT_THAT(names, SizeIs(108));  // 9 models x (4 classification x 2 + 2 regression x 2)
  EXPECT_THAT(names, testing::Contains("DT_iris_nll"));
  EXPECT_THAT(names, testing::Contains("MLP-adam_digits_acc"));
  EXPECT_THAT(names, testing::Contains("lasso_boston_mse"));
  EXPECT_THAT(names, testing::Contains("linear_diabetes_mae"));
}

TEST(SklearnPackTest, MatchesCrossValScoreComputedDirectly) {
  const std::string dir = TempDir("sklearn");
  const std::string script = dir + "/reference.py";
  std::ofstream(script) << kSklearnReference;
  // The reference runs while the pack evaluates.
  std::string reference_out;
  std::thread reference([&] { reference_out = RunCommand("/usr/bin/python3 " + script); });

  auto dt = StartOrDie(PackOptions("DT_iris_nll"));
  auto knn = StartOrDie(PackOptions("kNN_wine_acc"));
  ASSERT_NE(dt, nullptr);
  ASSERT_NE(knn, nullptr);
  EXPECT_EQ(dt->name(), "DT_iris_nll");
  EXPECT_EQ(dt->family(), "sklearn");
  EXPECT_EQ(dt->space().dims(), 6);
  EXPECT_THAT(knn->attributes(), ElementsAre("integer", "discrete valued"));

  Point dt_point = {{"max_depth", int64_t{4}},       {"max_features", 0.7},
                    {"min_impurity_decrease", 0.01}, {"min_samples_leaf", 0.05},
                    {"min_samples_split", 0.1},      {"min_weight_fraction_leaf", 0.02}};
  Point knn_point = {{"n_neighbors", int64_t{7}}, {"p", int64_t{1}}};
  ASSERT_TRUE(dt->space().Validate(dt_point).ok());
  ASSERT_TRUE(knn->space().Validate(knn_point).ok());
  std::vector<ExternalEvaluation> dt_value = dt->EvaluateDetailed({dt_point});
  std::vector<ExternalEvaluation> knn_value = knn->EvaluateDetailed({knn_point});
  reference.join();

  nlohmann::json expected = nlohmann::json::parse(reference_out, nullptr, false);
  ASSERT_TRUE(expected.is_object()) << reference_out;
  ASSERT_THAT(dt_value, SizeIs(1));
  ASSERT_THAT(knn_value, SizeIs(1));
  EXPECT_NEAR(dt_value[0].value, expected["DT_iris_nll"][0].get<double>(), 1e-9);
  EXPECT_NEAR(*dt_value[0].generalization, expected["DT_iris_nll"][1].get<double>(), 1e-9);
  EXPECT_NEAR(knn_value[0].value, expected["kNN_wine_acc"][0].get<double>(), 1e-9);
  EXPECT_NEAR(*knn_value[0].generalization, expected["kNN_wine_acc"][1].get<double>(), 1e-9);
  // Accuracy is minimized as -accuracy (Bayesmark's loss = -score).
  EXPECT_LT(knn_value[0].value, 0.0);
  EXPECT_GE(knn_value[0].value, -1.0);
  EXPECT_THAT(dt->errors(), SizeIs(0));
  EXPECT_THAT(knn->errors(), SizeIs(0));
}

}  // namespace
}  // namespace bbo
