#ifndef BBO_COMMON_TESTING_SHELL_PROCESS_H_
#define BBO_COMMON_TESTING_SHELL_PROCESS_H_

// For tests of code that runs child processes: a ProcessSpec running `script` with /bin/sh, a
// minimal PATH and the parent's resource limits.

#include <string>

#include "common/child_process.h"

namespace bbo::testing {

inline ProcessSpec ShellProcess(const std::string& script, const std::string& name = "toy") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.limits = ResourceLimits::Unchanged();
  spec.name = name;
  return spec;
}

}  // namespace bbo::testing

#endif  // BBO_COMMON_TESTING_SHELL_PROCESS_H_
