#include "problems/ml/internal/table_reader.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace bbo::ml_internal {
namespace {

std::string TempPath(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/bbo_ml_table_reader";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

TEST(ReadMaybeGzipFileTest, ReadsPlainAndGzipFilesAlike) {
  const std::string text = "1,2,3\n4 5 6\n";
  const std::string plain = TempPath("plain.csv");
  std::ofstream(plain) << text;
  const std::string gz = TempPath("packed.csv.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), text.size()), static_cast<int>(text.size()));
  gzclose(f);

  absl::StatusOr<std::string> a = ReadMaybeGzipFile(plain);
  absl::StatusOr<std::string> b = ReadMaybeGzipFile(gz);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, text);
  EXPECT_EQ(*b, text);
}

TEST(ReadMaybeGzipFileTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadMaybeGzipFile(TempPath("absent.csv")).status().code(), absl::StatusCode::kNotFound);
}

TEST(NonEmptyLinesTest, DropsBlankLinesAndCarriageReturns) {
  const std::vector<absl::string_view> lines = NonEmptyLines("a\r\n\n  \nb\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "a");
  EXPECT_EQ(lines[1], "b");
}

TEST(ParseNumberRowTest, AcceptsCommasAndWhitespace) {
  absl::StatusOr<std::vector<double>> row = ParseNumberRow("1.5, 2\t3e2  -4", "t");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(*row, (std::vector<double>{1.5, 2, 300, -4}));
}

TEST(ParseNumberRowTest, NamesTheBadField) {
  absl::StatusOr<std::vector<double>> row = ParseNumberRow("1,x,3", "f.csv line 9");
  EXPECT_EQ(row.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(row.status().message().find("f.csv line 9 field 2"), absl::string_view::npos)
      << row.status();
}

}  // namespace
}  // namespace bbo::ml_internal
