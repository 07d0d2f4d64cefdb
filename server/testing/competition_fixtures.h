#ifndef BBO_SERVER_TESTING_COMPETITION_FIXTURES_H_
#define BBO_SERVER_TESTING_COMPETITION_FIXTURES_H_

// Small helpers the tests of competitions share: a calendar time from RFC 3339 text, and the
// archive of a submission that registers but is never run (the tests play its jobs themselves).

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/time/time.h"
#include "common/archive.h"
#include "gtest/gtest.h"

namespace bbo::testing {

// "2026-02-10T00:00:00Z" as an absl::Time (a test failure when it does not parse).
inline absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return t;
}

// A tar archive holding an optimizer.py that is never run, made under the temporary folder in
// its own sub-folder `tag`.
inline std::string PlaceholderArchive(const std::string& tag) {
  const std::string dir = std::filesystem::temp_directory_path() / ("bbo_test_sub_" + tag);
  std::filesystem::create_directories(dir);
  FILE* f = std::fopen((dir + "/optimizer.py").c_str(), "w");
  std::fputs("# never run in these tests\n", f);
  std::fclose(f);
  return *TarDirectory(dir);
}

}  // namespace bbo::testing

#endif  // BBO_SERVER_TESTING_COMPETITION_FIXTURES_H_
