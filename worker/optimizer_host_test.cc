#include "worker/optimizer_host.h"

#include <limits>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/sandbox.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<OptimizerHost> Start(const std::string& mode, std::vector<std::string>* stray) {
  static Sandbox* sandbox = new Sandbox(SandboxOptions());
  SandboxedCommand cmd;
  cmd.submission_dir = BBO_WORKER_TESTDATA;
  cmd.argv = {"/usr/bin/python3", "-u", "protocol_echo.py"};
  cmd.env = {"MODE=" + mode};
  auto child = sandbox->Launch(cmd);
  EXPECT_TRUE(child.ok()) << child.status();
  auto host = std::make_unique<OptimizerHost>(
      *std::move(child), [stray](absl::string_view l) { if (stray) stray->emplace_back(l); });
  StartInfo info;
  info.api_config = nlohmann::json::parse(
      R"({"x0": {"type": "real", "space": "linear", "range": [0, 1]}})");
  EXPECT_TRUE(host->Start(info).ok());
  return host;
}

TEST(OptimizerHostTest, FullExchange) {
  auto host = Start("ok", nullptr);
  for (int b = 0; b < 3; ++b) {
    auto x = host->Suggest(b, 8, 600, absl::Seconds(10));
    ASSERT_TRUE(x.ok()) << x.status();
    ASSERT_EQ(x->size(), 8u);
    EXPECT_EQ((*x)[0]["x0"], 0.5);
    std::vector<double> y(8, 1.0);
    y[2] = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(host->Observe(b, *x, y, absl::Seconds(10)).ok());
  }
  EXPECT_GT(host->last_suggest_seconds(), 0);
  host->End("done");
  EXPECT_EQ(host->child().Wait(absl::Seconds(1)), 0);
}

TEST(OptimizerHostTest, SlowSuggestTimesOut) {
  auto host = Start("slow", nullptr);
  absl::Time start = absl::Now();
  auto x = host->Suggest(0, 8, 600, absl::Seconds(1));
  EXPECT_EQ(x.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  host->Kill();
}

TEST(OptimizerHostTest, DeadOptimizerIsUnavailableWithExitStatus) {
  auto host = Start("dies", nullptr);
  ASSERT_TRUE(host->Suggest(0, 8, 600, absl::Seconds(10)).ok());
  auto x = host->Suggest(1, 8, 600, absl::Seconds(10));
  EXPECT_EQ(x.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(x.status().message(), HasSubstr("status 3"));
  EXPECT_THAT(x.status().message(), HasSubstr("dying now"));
}

TEST(OptimizerHostTest, ErrorReplyIsAborted) {
  auto host = Start("raises", nullptr);
  auto x = host->Suggest(0, 8, 600, absl::Seconds(10));
  EXPECT_EQ(x.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(x.status().message(), HasSubstr("no suggestion"));
}

TEST(OptimizerHostTest, GarbageLinesAreSkipped) {
  std::vector<std::string> stray;
  auto host = Start("garbage", &stray);
  auto x = host->Suggest(0, 8, 600, absl::Seconds(10));
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->size(), 8u);
  EXPECT_THAT(stray, ::testing::Contains("hello from a stray print"));
}

TEST(OptimizerHostTest, BareNanLiteralsAreReadAsStrings) {
  auto host = Start("nan", nullptr);
  auto x = host->Suggest(0, 2, 600, absl::Seconds(10));
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ((*x)[0]["x0"], "NaN");
}

}  // namespace
}  // namespace bbo
