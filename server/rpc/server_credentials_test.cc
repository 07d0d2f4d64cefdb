#include "server/rpc/server_credentials.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::rpc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(IsLoopbackAddressTest, LoopbackForms) {
  for (const char* a : {"127.0.0.1:50051", "127.0.0.1:0", "127.1.2.3:1", "localhost:50051",
                        "LocalHost:1", "[::1]:50051", "::1", "[::ffff:127.0.0.1]:5",
                        "ipv4:127.0.0.1:5", "dns:///localhost:5", "unix:/tmp/bbo.sock"}) {
    EXPECT_TRUE(IsLoopbackAddress(a)) << a;
  }
}

TEST(IsLoopbackAddressTest, EverythingElseIsNot) {
  for (const char* a : {"0.0.0.0:50051", "0.0.0.0:0", "[::]:50051", ":50051", "10.0.0.5:1",
                        "128.0.0.1:1", "example.org:443", "localhost.example.org:1",
                        "[::ffff:10.0.0.1]:5", "[2001:db8::1]:5", ""}) {
    EXPECT_FALSE(IsLoopbackAddress(a)) << a;
  }
}

GrpcServerOptions Listen(const std::string& address) {
  GrpcServerOptions o;
  o.address = address;
  return o;
}

TEST(CheckServerOptionsTest, PlaintextOnLoopbackNeedsNothing) {
  EXPECT_TRUE(CheckServerOptions(Listen("127.0.0.1:0")).ok());
  EXPECT_TRUE(CheckServerOptions(Listen("[::1]:0")).ok());
}

TEST(CheckServerOptionsTest, PlaintextElsewhereIsRefusedWithWhatToPass) {
  absl::Status s = CheckServerOptions(Listen("0.0.0.0:50051"));
  ASSERT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("0.0.0.0:50051"));
  EXPECT_THAT(s.message(), HasSubstr("--tls_cert_file="));
  EXPECT_THAT(s.message(), HasSubstr("--tls_key_file="));
  EXPECT_THAT(s.message(), HasSubstr("--insecure"));
  GrpcServerOptions o = Listen("0.0.0.0:50051");
  o.allow_insecure = true;
  EXPECT_TRUE(CheckServerOptions(o).ok());
}

TEST(CheckServerOptionsTest, UnpairedFilesAreRefusedWithTheFlagsNamed) {
  GrpcServerOptions o = Listen("127.0.0.1:0");
  o.tls_cert_file = "/x/cert.pem";
  absl::Status s = CheckServerOptions(o);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("--tls_cert_file needs --tls_key_file"));
  o = Listen("127.0.0.1:0");
  o.tls_client_ca_file = "/x/ca.pem";
  s = CheckServerOptions(o);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("--tls_client_ca_file needs"));
}

TEST(CheckServerOptionsTest, UnreadableFilesAreNamed) {
  const fs::path dir = fs::temp_directory_path() / ("bbo_srv_cred_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "cert.pem") << "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n";
  GrpcServerOptions o = Listen("0.0.0.0:0");
  o.tls_cert_file = (dir / "cert.pem").string();
  o.tls_key_file = (dir / "missing.key").string();
  absl::Status s = CheckServerOptions(o);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("--tls_key_file: cannot read " + o.tls_key_file));
  EXPECT_FALSE(MakeServerCredentials(o).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace bbo::rpc
