#include "common/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path TempDir(const std::string& tag) {
  fs::path p = fs::temp_directory_path() / ("archive_test_" + std::to_string(getpid()) + tag);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Builds an archive in memory with the given entries (name -> content; names ending in '/' are
// folders), in libarchive format `format` (e.g. ARCHIVE_FORMAT_ZIP).
std::string MakeArchive(int format, const std::vector<std::pair<std::string, std::string>>& files,
                        bool symlink = false) {
  std::string out;
  struct archive* a = archive_write_new();
  archive_write_set_format(a, format);
  archive_write_set_bytes_in_last_block(a, 1);
  archive_write_open(
      a, &out, nullptr,
      [](struct archive*, void* u, const void* b, size_t n) -> la_ssize_t {
        static_cast<std::string*>(u)->append(static_cast<const char*>(b), n);
        return static_cast<la_ssize_t>(n);
      },
      nullptr);
  for (const auto& [name, content] : files) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    bool dir = !name.empty() && name.back() == '/';
    archive_entry_set_filetype(e, symlink ? AE_IFLNK : (dir ? AE_IFDIR : AE_IFREG));
    if (symlink) archive_entry_set_symlink(e, "/etc/passwd");
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, dir || symlink ? 0 : content.size());
    archive_write_header(a, e);
    if (!dir && !symlink) archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

TEST(ArchiveTest, RoundTripKeepsFilesFoldersAndExecutableBit) {
  fs::path src = TempDir("src");
  fs::create_directories(src / "lib");
  std::ofstream(src / "optimizer") << "#!/bin/sh\necho hi\n";
  chmod((src / "optimizer").c_str(), 0755);
  std::ofstream(src / "lib" / "util.py") << "X = 1\n";
  auto tar = TarDirectory(src.string());
  ASSERT_TRUE(tar.ok()) << tar.status();
  fs::path dst = TempDir("dst");
  ASSERT_TRUE(ExtractArchive(*tar, dst.string(), ExtractOptions()).ok());
  EXPECT_TRUE(fs::exists(dst / "lib" / "util.py"));
  struct stat st;
  ASSERT_EQ(stat((dst / "optimizer").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  std::ifstream in(dst / "optimizer");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "#!/bin/sh");
  fs::remove_all(src);
  fs::remove_all(dst);
}

TEST(ArchiveTest, ZipWithSingleTopFolderIsStripped) {
  std::string zip = MakeArchive(ARCHIVE_FORMAT_ZIP,
                                {{"my-opt/", ""}, {"my-opt/optimizer.py", "print(1)\n"}});
  fs::path dst = TempDir("zip");
  ASSERT_TRUE(ExtractArchive(zip, dst.string(), ExtractOptions()).ok());
  EXPECT_TRUE(fs::exists(dst / "optimizer.py"));
  fs::remove_all(dst);
}

TEST(ArchiveTest, RejectsEscapesLinksAndOversize) {
  fs::path dst = TempDir("bad");
  auto dotdot = ExtractArchive(MakeArchive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, {{"../evil", "x"}}),
                               dst.string(), ExtractOptions());
  EXPECT_EQ(dotdot.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dotdot.message(), HasSubstr("../evil"));
  EXPECT_FALSE(fs::exists(dst.parent_path() / "evil"));
  auto abs = ExtractArchive(MakeArchive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, {{"/tmp/abs", "x"}}),
                            dst.string(), ExtractOptions());
  EXPECT_THAT(abs.message(), HasSubstr("absolute"));
  auto link = ExtractArchive(
      MakeArchive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, {{"passwd", ""}}, /*symlink=*/true),
      dst.string(), ExtractOptions());
  EXPECT_THAT(link.message(), HasSubstr("links are not allowed"));
  ExtractOptions small;
  small.max_total_bytes = 10;
  auto big = ExtractArchive(
      MakeArchive(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, {{"big", std::string(100, 'x')}}),
      dst.string(), small);
  EXPECT_THAT(big.message(), HasSubstr("more than 10 bytes"));
  EXPECT_FALSE(ExtractArchive("definitely not an archive", dst.string(), ExtractOptions()).ok());
  fs::remove_all(dst);
}

// A gzip-compressed tar whose entries are all named "." (type `filetype`, `size` bytes of
// zeros each): libarchive must inflate each one to reach the next.
std::string GzipDotArchive(int entries, int64_t size, unsigned filetype) {
  std::string out;
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  archive_write_open(
      a, &out, nullptr,
      [](struct archive*, void* u, const void* b, size_t n) -> la_ssize_t {
        static_cast<std::string*>(u)->append(static_cast<const char*>(b), n);
        return static_cast<la_ssize_t>(n);
      },
      nullptr);
  const std::string zeros(1 << 16, '\0');
  for (int i = 0; i < entries; ++i) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, ".");
    archive_entry_set_filetype(e, filetype);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, size);
    archive_write_header(a, e);
    for (int64_t left = size; left > 0; left -= static_cast<int64_t>(zeros.size())) {
      archive_write_data(a, zeros.data(), std::min<int64_t>(left, zeros.size()));
    }
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

TEST(ArchiveTest, CountsTheDataOfEntriesNamedDot) {
  fs::path dst = TempDir("dot");
  ExtractOptions small;
  small.max_total_bytes = 1 << 20;
  // 64 MiB of zeros compress to ~64 KiB; before the fix the entry was inflated, dropped without
  // being counted, and the upload refused only later for a missing optimizer.py.
  const std::string bomb = GzipDotArchive(1, 64ll << 20, AE_IFREG);
  ASSERT_LT(bomb.size(), 1u << 20);
  auto st = ExtractArchive(bomb, dst.string(), small);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("more than 1048576 bytes"));
  fs::remove_all(dst);
}

TEST(ArchiveTest, CountsEntriesNamedDotAgainstTheEntryLimit) {
  fs::path dst = TempDir("dots");
  ExtractOptions few;
  few.max_entries = 5;
  auto st = ExtractArchive(GzipDotArchive(50, 0, AE_IFDIR), dst.string(), few);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("more than 5 entries"));
  fs::remove_all(dst);
}

}  // namespace
}  // namespace bbo
