#ifndef BBO_COMMON_BINARY_MAIN_H_
#define BBO_COMMON_BINARY_MAIN_H_

// Start-up shared by the bbo-server and bbo-worker binaries (not for libraries): flag parsing
// that accepts --flag-name as well as --flag_name (Abseil only knows underscores), --help that
// lists the binary's own flags, --version, and SIGINT/SIGTERM blocked in every thread so main can take
// them synchronously with sigwait (shutdown then runs outside signal-handler context), and
// Abseil's debug-only Mutex deadlock detector off.

#include <pthread.h>

#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/internal/program_name.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"

namespace bbo {

// argv with dashes in each "--name" (before any '=') turned into underscores.
inline std::vector<std::string> NormalizeFlagNames(int argc, char** argv) {
  std::vector<std::string> out(argv, argv + argc);
  for (size_t i = 1; i < out.size(); ++i) {
    std::string& a = out[i];
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    size_t end = a.find('=');
    if (end == std::string::npos) end = a.size();
    for (size_t j = 2; j < end; ++j) {
      if (a[j] == '-') a[j] = '_';
    }
  }
  return out;
}

// The exit codes of every binary: 0 success, 1 failure, 2 usage (a command line that cannot run).
inline constexpr int kExitUsage = 2;

// Checks the command line before Abseil parses it, so that a usage error exits 2 (Abseil exits 1)
// and --help exits 0 (Abseil exits 1): --help, -h and --helpshort print the binary's own flags
// to stdout, --helpfull every flag; an unknown flag or a value its flag cannot take prints what
// is wrong and exits 2. Flags read from --flagfile are checked by Abseil itself.
inline void CheckCommandLine(const std::vector<std::string>& args, const std::string& binary) {
  const std::string usage(absl::ProgramUsageMessage());
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help" || a == "--helpshort") {
      absl::flags_internal::FlagsHelp(std::cout, "main.", absl::flags_internal::HelpFormat::kHumanReadable,
                                      usage);
      std::exit(0);
    }
    if (a == "--helpfull") {
      absl::flags_internal::FlagsHelp(std::cout, "", absl::flags_internal::HelpFormat::kHumanReadable,
                                      usage);
      std::exit(0);
    }
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const size_t eq = a.find('=');
    std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (name == "flagfile" || name == "fromenv" || name == "tryfromenv" || name == "undefok" ||
        name == "version" || name.rfind("help", 0) == 0 || name == "only_check_args") {
      continue;
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    bool negated = false;
    if (flag == nullptr && name.rfind("no", 0) == 0) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      negated = flag != nullptr && flag->IsOfType<bool>();
      if (!negated) flag = nullptr;
    }
    if (flag == nullptr) {
      std::fprintf(stderr, "%s: unknown flag --%s (see %s --help)\n", binary.c_str(), name.c_str(),
                   binary.c_str());
      std::exit(kExitUsage);
    }
    if (negated) continue;
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (flag->IsOfType<bool>()) {
      continue;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      std::fprintf(stderr, "%s: --%s needs a value (see %s --help)\n", binary.c_str(),
                   name.c_str(), binary.c_str());
      std::exit(kExitUsage);
    }
    std::string error;
    // The same value Abseil sets next: checking it here only moves the error's exit code.
    if (!flag->ParseFrom(value, &error)) {
      std::fprintf(stderr, "%s: --%s: %s\n", binary.c_str(), name.c_str(), error.c_str());
      std::exit(kExitUsage);
    }
  }
}

// Parses flags (see above) and blocks SIGINT/SIGTERM; call first thing in main, before any
// thread starts. Returns the blocked set for sigwait.
inline sigset_t InitBinary(int argc, char** argv, const std::string& usage_message) {
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "main.cc");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  // --version: "<binary> <version>".
  const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
  const std::string binary = argc == 0 ? "bbo" : slash ? slash + 1 : argv[0];
  usage.version_string = [binary] { return binary + " " + BBO_VERSION + "\n"; };
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(usage_message +
                               "\nFlag names take dashes or underscores (--flag-name).");
  std::vector<std::string> args = NormalizeFlagNames(argc, argv);
  if (argc > 0) absl::flags_internal::SetProgramInvocationName(argv[0]);
  CheckCommandLine(args, binary);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(cargs.size()), cargs.data());
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // Debian builds Abseil without NDEBUG, which leaves absl::Mutex's deadlock detector on: every
  // Lock() looks the mutex up in a process-wide lock graph under one global spin lock, and
  // taking two mutexes in the opposite order of an earlier time aborts the process. Release
  // builds of Abseil never run it (tests, which do not call InitBinary, still do). Its cost was
  // within the noise of bench/load_bench (157 vs 160 us of server CPU per SubmitBatch); the
  // abort of a serving coordinator on a suspected cycle is the reason.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return signals;
}

}  // namespace bbo

#endif  // BBO_COMMON_BINARY_MAIN_H_
