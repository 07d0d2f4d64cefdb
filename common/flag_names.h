#ifndef BBO_COMMON_FLAG_NAMES_H_
#define BBO_COMMON_FLAG_NAMES_H_

// Lets binaries accept both --flag-name and --flag_name (Abseil flags only know underscores):
// returns argv with dashes in each "--name" (before any '=') turned into underscores.

#include <string>
#include <vector>

namespace bbo {

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

}  // namespace bbo

#endif  // BBO_COMMON_FLAG_NAMES_H_
