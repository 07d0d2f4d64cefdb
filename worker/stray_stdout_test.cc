// The optimizer host's bound on what a study prints to stdout outside the protocol, with a real
// child process that floods its stdout (issue 34, item 13: a flood of empty lines was read on the
// study's clock and reported as "took 41 s, over the 40 s per-suggest budget").
#include <sys/resource.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/child_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/optimizer_host.h"

namespace bbo {
namespace {

using ::testing::HasSubstr;

// An optimizer in sh: answers `start`, then at `suggest` prints `mib` MiB of `line` lines
// (empty: bare newlines) before its reply.
std::unique_ptr<OptimizerHost> Flooder(int mib, const std::string& fill) {
  ProcessSpec spec;
  spec.name = "optimizer";
  spec.argv = {"/bin/sh", "-c",
               absl::StrCat("read l; echo '{\"type\": \"ready\"}'; read l; head -c ", mib,
                            "M /dev/zero | ", fill,
                            "; echo '{\"type\": \"suggestions\", \"x\": [{\"x0\": 0.5}]}'; "
                            "read l; cat >/dev/null")};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.limits = ResourceLimits::Unchanged();
  spec.stdin_is_socket = true;
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = launcher.Launch(spec);
  EXPECT_TRUE(child.ok()) << child.status();
  auto host = std::make_unique<OptimizerHost>(*std::move(child));
  StartInfo info;
  info.api_config = nlohmann::json::parse(R"({"x0": {"type": "real", "range": [0, 1]}})");
  EXPECT_TRUE(host->Start(info).ok());
  return host;
}

constexpr char kEmptyLines[] = "tr '\\000' '\\n'";
constexpr char kTextLines[] = "tr '\\000' x | fold -w 99";

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

TEST(StrayStdoutTest, AFloodOfEmptyLinesIsRefusedWithItsOwnMessage) {
  auto host = Flooder(100, kEmptyLines);
  const absl::Time start = absl::Now();
  auto x = host->Suggest(0, 1, 600, absl::Seconds(60));
  EXPECT_EQ(x.status().code(), absl::StatusCode::kResourceExhausted) << x.status();
  EXPECT_THAT(x.status().message(),
              HasSubstr("the optimizer wrote over 64 MiB to stdout outside the protocol"));
  EXPECT_THAT(x.status().message(), HasSubstr("print to stderr or log less"));
  // Refused as the bound is passed, not at the deadline.
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  // And it stays refused.
  EXPECT_EQ(host->Suggest(1, 1, 600, absl::Seconds(1)).status().code(),
            absl::StatusCode::kResourceExhausted);
  host->Kill();
}

TEST(StrayStdoutTest, PrintedTextCountsToo) {
  auto host = Flooder(80, kTextLines);
  auto x = host->Suggest(0, 1, 600, absl::Seconds(60));
  EXPECT_EQ(x.status().code(), absl::StatusCode::kResourceExhausted) << x.status();
  host->Kill();
}

// Under the bound the reply is taken, and reading the flood costs the worker little: empty
// lines are skipped at the speed of a scan, not parsed.
TEST(StrayStdoutTest, EmptyLinesUnderTheBoundAreReadAtMemorySpeed) {
  auto host = Flooder(48, kEmptyLines);
  const double cpu = CpuSeconds();
  auto x = host->Suggest(0, 1, 600, absl::Seconds(60));
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->size(), 1u);
  const double used = CpuSeconds() - cpu;
  RecordProperty("reader_cpu_s", absl::StrCat(used));
  EXPECT_LT(used, 8.0) << "48 MiB of empty lines cost the reader " << used << " CPU-s";
  host->End("done");
}

}  // namespace
}  // namespace bbo
