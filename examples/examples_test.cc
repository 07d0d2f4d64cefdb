// Runs each example submission through a full study of the hosting protocol (OptimizerHost, no
// sandbox) on Branin written inline, and checks that CMA-ES beats random search.

#include <cmath>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/search_space.h"
#include "gtest/gtest.h"
#include "worker/optimizer_host.h"
#include "worker/sandbox.h"

namespace {

constexpr double kPi = 3.14159265358979323846;

double Branin(double x1, double x2) {
  const double b = 5.1 / (4 * kPi * kPi), c = 5 / kPi, t = 1 / (8 * kPi);
  return std::pow(x2 - b * x1 * x1 + c * x1 - 6, 2) + 10 * (1 - t) * std::cos(x1) + 10;
}

const char* kBranin =
    R"({"x0": {"type": "real", "space": "linear", "range": [-5, 10]},
        "x1": {"type": "real", "space": "linear", "range": [0, 15]}})";

// Runs one 16 x 8 study; returns the best value found.
double RunStudy(const std::vector<std::string>& argv, const std::string& dir, int seed) {
  bbo::SandboxOptions opts;
  opts.insecure_no_sandbox = true;
  bbo::Sandbox sandbox(opts);
  bbo::SandboxedCommand cmd;
  cmd.submission_dir = dir;
  cmd.argv = argv;
  cmd.env = {absl::StrCat("BBO_SEED=", seed), absl::StrCat("PYTHONPATH=", BBO_PYTHON_DIR),
             "BBO_ARENA_HOSTED=1"};
  auto child = sandbox.Launch(cmd);
  EXPECT_TRUE(child.ok()) << child.status();
  bbo::OptimizerHost host(*std::move(child));
  bbo::StartInfo info;
  info.api_config = nlohmann::json::parse(kBranin);
  auto space = *bbo::SearchSpace::FromJson(info.api_config);
  EXPECT_TRUE(host.Start(info).ok());
  double best = HUGE_VAL;
  for (int b = 0; b < 16; ++b) {
    auto x = host.Suggest(b, 8, 600, absl::Seconds(30));
    EXPECT_TRUE(x.ok()) << x.status();
    if (!x.ok()) return HUGE_VAL;
    EXPECT_EQ(x->size(), 8u);
    std::vector<double> y;
    for (const auto& j : *x) {
      auto p = bbo::PointFromJson(j);
      EXPECT_TRUE(p.ok() && space.Validate(*p).ok()) << j.dump();
      double v = Branin(std::get<double>(space.Canonicalize(*p)->at("x0")),
                        std::get<double>(space.Canonicalize(*p)->at("x1")));
      y.push_back(v);
      best = std::min(best, v);
    }
    y[7] = HUGE_VAL;  // every optimizer must cope with a crashed evaluation
    EXPECT_TRUE(host.Observe(b, *x, y, absl::Seconds(30)).ok());
  }
  host.End("done");
  EXPECT_EQ(host.child().Wait(absl::Seconds(5)), 0);
  return best;
}

std::string Dir(const char* path) { return std::filesystem::path(path).parent_path().string(); }

TEST(ExamplesTest, RandomSearchCppCompletesAStudy) {
  EXPECT_LT(RunStudy({RANDOM_SEARCH_CPP}, Dir(RANDOM_SEARCH_CPP), 1), 10.0);
}

TEST(ExamplesTest, RandomSearchPythonCompletesAStudy) {
  EXPECT_LT(RunStudy({"/usr/bin/python3", "-u", "optimizer.py"}, Dir(RANDOM_SEARCH_PY), 1), 10.0);
}

TEST(ExamplesTest, CmaEsBeatsRandomSearchOnBranin) {
  double cma = 0, rs = 0;
  const int seeds = 10;
  for (int s = 0; s < seeds; ++s) {
    cma += RunStudy({CMA_ES_CPP}, Dir(CMA_ES_CPP), 100 + s) / seeds;
    rs += RunStudy({RANDOM_SEARCH_CPP}, Dir(RANDOM_SEARCH_CPP), 100 + s) / seeds;
  }
  // Branin's minimum is 0.397887.
  EXPECT_LT(cma, rs) << "cma-es mean best " << cma << " vs random search " << rs;
  EXPECT_LT(cma, 0.6);
}

}  // namespace
