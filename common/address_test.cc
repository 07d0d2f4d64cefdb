#include "common/address.h"

#include "gtest/gtest.h"

namespace bbo {
namespace {

TEST(AddressTest, AHostWithoutAPortGetsTheDefaultPort) {
  EXPECT_EQ(WithDefaultPort("127.0.0.1"), "127.0.0.1:50051");
  EXPECT_EQ(WithDefaultPort("arena.example.org"), "arena.example.org:50051");
  EXPECT_EQ(WithDefaultPort("arena.example.org:"), "arena.example.org:50051");
  EXPECT_EQ(WithDefaultPort("127.0.0.1:7000"), "127.0.0.1:7000");
  EXPECT_EQ(WithDefaultPort("[::1]"), "[::1]:50051");
  EXPECT_EQ(WithDefaultPort("[::1]:7000"), "[::1]:7000");
  EXPECT_EQ(WithDefaultPort("::1"), "[::1]:50051");
  EXPECT_EQ(WithDefaultPort("localhost", 9), "localhost:9");
  EXPECT_EQ(WithDefaultPort(""), "");
}

}  // namespace
}  // namespace bbo
