#ifndef BBO_COMMON_TESTING_SETUP_ERRORS_H_
#define BBO_COMMON_TESTING_SETUP_ERRORS_H_

// For tests whose setup can fail (a control group cannot be made, bubblewrap does not start):
// a setup error is a test FAILURE, never a silent skip. A test skips only when the environment
// gives a specific, documented reason it cannot run there ("not root", "no cgroup controller is
// mounted", "bubblewrap is not installed"), and never under CI=true: CI is the kind of machine
// these tests are written for (root, cgroups, bubblewrap), so there every setup error fails.
//
//   if (!status.ok()) BBO_SKIP_OR_FAIL_SETUP(CgroupUnsupportedReason(), status);
//
// `environment_reason` is "" when the environment plainly supports the test (then the error is
// a failure everywhere); `error` is anything streamable (a Status, a probe's output). Like
// GTEST_SKIP and GTEST_FAIL it returns from the current function, so use it in SetUp or a
// test body, not in a helper whose caller goes on.

#include <cstdlib>
#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace bbo::testing {

// Whether this run is CI's: the CI environment variable is "true" (GitHub Actions, GitLab and
// most CI systems set it) or "1".
inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0);
}

// What a failing setup check says about why it is a failure rather than a skip.
inline std::string WhySetupErrorFails(const std::string& environment_reason) {
  if (InCi()) {
    return environment_reason.empty()
               ? " [CI=true: a setup error is a failure]"
               : " [CI=true: a setup error is a failure; the environment: " + environment_reason +
                     "]";
  }
  return " [this environment supports the test, so the setup error is a failure]";
}

}  // namespace bbo::testing

#define BBO_SKIP_OR_FAIL_SETUP(environment_reason, error)                       \
  do {                                                                          \
    const std::string bbo_setup_reason_ = (environment_reason);                 \
    if (!bbo_setup_reason_.empty() && !::bbo::testing::InCi()) {                \
      GTEST_SKIP() << bbo_setup_reason_ << " (setup error: " << (error) << ")"; \
    }                                                                           \
    GTEST_FAIL() << "setup error: " << (error)                                  \
                 << ::bbo::testing::WhySetupErrorFails(bbo_setup_reason_);      \
  } while (0)

#endif  // BBO_COMMON_TESTING_SETUP_ERRORS_H_
