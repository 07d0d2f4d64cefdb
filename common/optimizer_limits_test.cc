#include "common/optimizer_limits.h"

#include "gtest/gtest.h"

namespace bbo {
namespace {

TEST(OptimizerLimitsTest, DefaultsAreValid) { EXPECT_TRUE(OptimizerLimits().Validate().ok()); }

TEST(OptimizerLimitsTest, RefusesTmpLargerThanMemoryAndNamesTheFields) {
  OptimizerLimits l;
  l.memory_mb = 256;
  l.tmp_mb = 512;
  absl::Status s = l.Validate();
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("tmp_mb (512 MiB)"), std::string::npos) << s;
  l.memory_mb = 0;  // no memory limit: any /tmp size
  EXPECT_TRUE(l.Validate().ok());
  l.tmp_mb = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(l.Validate()));
}

TEST(OptimizerLimitsTest, RefusesNonFiniteCpus) {
  OptimizerLimits l;
  l.cpus = std::nan("");
  EXPECT_TRUE(absl::IsInvalidArgument(l.Validate()));
  l.cpus = 0;  // no quota
  EXPECT_TRUE(l.Validate().ok());
}

TEST(OptimizerLimitsTest, FormatsMebibytes) {
  EXPECT_EQ(FormatMebibytes(4096), "4 GiB");
  EXPECT_EQ(FormatMebibytes(512), "512 MiB");
  EXPECT_EQ(FormatMebibytes(1536), "1.5 GiB");
  EXPECT_EQ(FormatMebibytes(1000), "1000 MiB");
}

}  // namespace
}  // namespace bbo
