#ifndef BBO_COMMON_DIGEST_H_
#define BBO_COMMON_DIGEST_H_

// FNV-1a 64: a stable, fast content fingerprint (submission archives, api_configs, shuffle
// seeds). Not a security boundary.

#include <cstdint>
#include <string>
#include <string_view>

namespace bbo {

inline uint64_t Fnv1a64(std::string_view bytes, uint64_t basis = 1469598103934665603ull) {
  uint64_t h = basis;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Fnv1a64 as 16 lowercase hex digits.
std::string Fnv1a64Hex(std::string_view bytes);

}  // namespace bbo

#endif  // BBO_COMMON_DIGEST_H_
