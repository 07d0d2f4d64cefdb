#include "server/notify/internal/address_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

namespace bbo::notify::internal {
namespace {

std::string NonPublicV4(const uint8_t a[4]) {
  if (a[0] == 0) return "unspecified";
  if (a[0] == 127) return "loopback";
  if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168)) {
    return "private (RFC 1918)";
  }
  if (a[0] == 100 && (a[1] & 0xc0) == 64) return "shared (RFC 6598)";
  if (a[0] == 169 && a[1] == 254) return "link-local";
  if (a[0] == 192 && a[1] == 0 && a[2] == 0) return "IETF protocol assignments";
  if (a[0] == 198 && (a[1] & 0xfe) == 18) return "benchmarking";
  if ((a[0] & 0xf0) == 224) return "multicast";
  if ((a[0] & 0xf0) == 240) return "reserved";
  return "";
}

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

std::string NonPublicV6(const uint8_t a[16]) {
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (AllZero(a, 16)) return "unspecified";
  if (AllZero(a, 15) && a[15] == 1) return "loopback";
  // The IPv4 address inside decides, so that ::ffff:127.0.0.1 is loopback.
  if (std::memcmp(a, kMapped, 12) == 0 || std::memcmp(a, kNat64, 12) == 0 || AllZero(a, 12)) {
    return NonPublicV4(a + 12);
  }
  if (a[0] == 0x20 && a[1] == 0x02) return NonPublicV4(a + 2);  // 6to4
  if ((a[0] & 0xfe) == 0xfc) return "unique-local";
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return "link-local";
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) return "site-local";
  if (a[0] == 0xff) return "multicast";
  if (a[0] == 0x01 && AllZero(a + 1, 7)) return "discard-only";
  return "";
}

}  // namespace

std::string NonPublicRange(const sockaddr* address) {
  if (address == nullptr) return "not an IP address";
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return NonPublicV4(reinterpret_cast<const uint8_t*>(&in->sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    return NonPublicV6(in6->sin6_addr.s6_addr);
  }
  return "not an IP address";
}

std::string NonPublicRange(absl::string_view ip) {
  const std::string text(ip);
  uint8_t v4[4];
  if (inet_pton(AF_INET, text.c_str(), v4) == 1) return NonPublicV4(v4);
  uint8_t v6[16];
  if (inet_pton(AF_INET6, text.c_str(), v6) == 1) return NonPublicV6(v6);
  return "not an IP address";
}

std::string AddressText(const sockaddr* address) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (address != nullptr && address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, buf, sizeof(buf));
  } else if (address != nullptr && address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, buf,
              sizeof(buf));
  }
  return buf;
}

}  // namespace bbo::notify::internal
