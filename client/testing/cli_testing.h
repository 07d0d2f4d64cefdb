#ifndef BBO_CLIENT_TESTING_CLI_TESTING_H_
#define BBO_CLIENT_TESTING_CLI_TESTING_H_

// Helpers of client_test: a fresh folder per test, files written into it, the environment
// variables `bbo` reads set for one scope, and `bbo` run in this process (cli.h Main) with its
// output captured. Not thread-safe (stdout, stderr and the environment are the process's).

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "client/cli.h"
#include "gtest/gtest.h"

namespace bbo::client::cli_testing {

// An empty folder under the test's temporary directory, named after the running test.
inline std::string MakeTempDir() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              ("client_test-" + std::to_string(getpid())) /
                              (std::string(test->test_suite_name()) + "." + test->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  return path;
}

// Sets (or with nullopt unsets) an environment variable until the end of the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// What `bbo ARGS...` printed and returned.
struct BboRun {
  int code = -1;
  std::string out;
  std::string err;
};

// Captures what `f()` prints on stdout and stderr, and what it returns.
template <typename F>
BboRun Capture(F f) {
  BboRun run;
  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  run.code = f();
  std::cout.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  run.out = ::testing::internal::GetCapturedStdout();
  run.err = ::testing::internal::GetCapturedStderr();
  return run;
}

// Runs `bbo ARGS...` (`args` without the program name) through Main.
inline BboRun RunBbo(std::vector<std::string> args) {
  args.insert(args.begin(), "bbo");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return Capture([&] { return Main(static_cast<int>(argv.size()), argv.data()); });
}

// The environment variables `bbo` reads, unset for a test (each test sets what it needs).
class CleanEnvironment {
 public:
  CleanEnvironment()
      : token_("BBO_TOKEN", std::nullopt),
        ca_("BBO_CA_FILE", std::nullopt),
        cert_("BBO_CERT_FILE", std::nullopt),
        key_("BBO_KEY_FILE", std::nullopt),
        check_("BBO_CLI_CHECK", std::nullopt) {}

 private:
  ScopedEnv token_, ca_, cert_, key_, check_;
};

}  // namespace bbo::client::cli_testing

#endif  // BBO_CLIENT_TESTING_CLI_TESTING_H_
