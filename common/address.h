#ifndef BBO_COMMON_ADDRESS_H_
#define BBO_COMMON_ADDRESS_H_

// Addresses of a bbo-server as users type them: a host without a port gets the default port.

#include <string>

namespace bbo {

// The port bbo-server listens on by default.
inline constexpr int kDefaultPort = 50051;

// "host" -> "host:50051"; "host:port" and "[v6]:port" unchanged; "[v6]" -> "[v6]:50051"; a bare
// IPv6 address ("::1", more than one ':') -> "[::1]:50051"; "" stays "" (the caller's default).
inline std::string WithDefaultPort(const std::string& address, int port = kDefaultPort) {
  if (address.empty()) return address;
  const std::string p = std::to_string(port);
  if (address.front() == '[') {
    const size_t close = address.find(']');
    if (close != std::string::npos && close + 1 == address.size()) return address + ":" + p;
    return address;
  }
  const size_t first = address.find(':');
  if (first == std::string::npos) return address + ":" + p;
  if (address.find(':', first + 1) != std::string::npos) return "[" + address + "]:" + p;
  if (first + 1 == address.size()) return address + p;  // "host:"
  return address;
}

}  // namespace bbo

#endif  // BBO_COMMON_ADDRESS_H_
