#include "server/notify/internal/address_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "gtest/gtest.h"

namespace bbo::notify::internal {
namespace {

TEST(NonPublicRangeTest, NamesTheRange) {
  const std::pair<const char*, const char*> cases[] = {
      {"0.0.0.0", "unspecified"},
      {"127.0.0.1", "loopback"},
      {"127.255.255.254", "loopback"},
      {"10.0.0.1", "private (RFC 1918)"},
      {"172.16.0.1", "private (RFC 1918)"},
      {"172.31.255.255", "private (RFC 1918)"},
      {"192.168.1.1", "private (RFC 1918)"},
      {"100.64.0.1", "shared (RFC 6598)"},
      {"169.254.169.254", "link-local"},
      {"224.0.0.1", "multicast"},
      {"255.255.255.255", "reserved"},
      {"::", "unspecified"},
      {"::1", "loopback"},
      {"fc00::1", "unique-local"},
      {"fd12:3456::1", "unique-local"},
      {"fe80::1", "link-local"},
      {"fec0::1", "site-local"},
      {"ff02::1", "multicast"},
      {"::ffff:127.0.0.1", "loopback"},
      {"::ffff:10.1.2.3", "private (RFC 1918)"},
      {"64:ff9b::a9fe:a9fe", "link-local"},
      {"2002:c0a8:0101::1", "private (RFC 1918)"},
      {"::127.0.0.1", "loopback"},
      {"not-an-ip", "not an IP address"},
  };
  for (const auto& [ip, range] : cases) EXPECT_EQ(NonPublicRange(ip), range) << ip;
}

TEST(NonPublicRangeTest, PublicAddressesPass) {
  for (const char* ip : {"1.1.1.1", "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1",
                         "169.253.0.1", "193.0.0.1", "2001:4860:4860::8888", "2a00:1450::1",
                         "::ffff:8.8.8.8", "2002:0808:0808::1"}) {
    EXPECT_EQ(NonPublicRange(ip), "") << ip;
  }
}

TEST(NonPublicRangeTest, ReadsSocketAddresses) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  inet_pton(AF_INET, "192.168.0.7", &v4.sin_addr);
  EXPECT_EQ(NonPublicRange(reinterpret_cast<const sockaddr*>(&v4)), "private (RFC 1918)");
  EXPECT_EQ(AddressText(reinterpret_cast<const sockaddr*>(&v4)), "192.168.0.7");
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "2001:4860::1", &v6.sin6_addr);
  EXPECT_EQ(NonPublicRange(reinterpret_cast<const sockaddr*>(&v6)), "");
  EXPECT_EQ(AddressText(reinterpret_cast<const sockaddr*>(&v6)), "2001:4860::1");
  sockaddr other{};
  other.sa_family = AF_UNIX;
  EXPECT_EQ(NonPublicRange(&other), "not an IP address");
}

}  // namespace
}  // namespace bbo::notify::internal
