#ifndef BBO_SERVER_NOTIFY_INTERNAL_ADDRESS_GUARD_H_
#define BBO_SERVER_NOTIFY_INTERNAL_ADDRESS_GUARD_H_

// The webhook's SSRF guard: which IP addresses a webhook may not reach unless the organizer
// allows private webhooks. The check runs on the address libcurl is about to connect to (its
// CURLOPT_OPENSOCKETFUNCTION), after libcurl resolved the name, so a name that resolves to a
// public address when checked and to a private one when connecting (DNS rebinding) cannot
// slip through: there is no second resolution. Plain functions; thread-safe.

#include <sys/socket.h>

#include <string>

#include "absl/strings/string_view.h"

namespace bbo::notify::internal {

// "" when `address` (AF_INET or AF_INET6) is a public unicast address; otherwise the name of
// the range it is in: "unspecified", "loopback", "private (RFC 1918)", "shared (RFC 6598)",
// "link-local", "unique-local", "site-local", "multicast", "reserved", "benchmarking",
// "discard-only", "IETF protocol assignments". IPv4 embedded in IPv6 (mapped ::ffff:0:0/96,
// compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by its IPv4 address. Any
// other family: "not an IP address".
std::string NonPublicRange(const sockaddr* address);

// The same for a textual IPv4 or IPv6 address ("not an IP address" for anything else).
std::string NonPublicRange(absl::string_view ip);

// "1.2.3.4" or "2001:db8::1" for logs and reasons; "?" for other families.
std::string AddressText(const sockaddr* address);

}  // namespace bbo::notify::internal

#endif  // BBO_SERVER_NOTIFY_INTERNAL_ADDRESS_GUARD_H_
