#include "common/tls_files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kPem[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bbo_tls_files_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(TlsFilesTest, ReadsAPemFile) {
  absl::StatusOr<std::string> pem = ReadPemFile({Write("ca.pem", kPem), "--ca_file"});
  ASSERT_TRUE(pem.ok()) << pem.status();
  EXPECT_EQ(*pem, kPem);
}

TEST_F(TlsFilesTest, MissingFileNamesTheFlagAndThePath) {
  const std::string path = (dir_ / "nope.pem").string();
  absl::StatusOr<std::string> pem = ReadPemFile({path, "BBO_CA_FILE"});
  ASSERT_TRUE(absl::IsInvalidArgument(pem.status())) << pem.status();
  EXPECT_THAT(pem.status().message(), HasSubstr("BBO_CA_FILE"));
  EXPECT_THAT(pem.status().message(), HasSubstr(path));
  EXPECT_THAT(pem.status().message(), HasSubstr("No such file"));
}

TEST_F(TlsFilesTest, EmptyNonPemAndFolderAreRefused) {
  for (const std::string& path :
       {Write("empty.pem", ""), Write("text.pem", "not a certificate\n"), dir_.string()}) {
    absl::StatusOr<std::string> pem = ReadPemFile({path, "--tls_cert_file"});
    ASSERT_TRUE(absl::IsInvalidArgument(pem.status())) << path;
    EXPECT_THAT(pem.status().message(), HasSubstr("--tls_cert_file: " + path));
  }
}

TEST_F(TlsFilesTest, NoFilesIsPlaintext) {
  absl::StatusOr<ClientTls> tls =
      ReadClientTls({"", "--ca_file"}, {"", "--cert_file"}, {"", "--key_file"});
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_FALSE(tls->enabled());
}

TEST_F(TlsFilesTest, ReadsCaAndClientPair) {
  const std::string ca = Write("ca.pem", kPem);
  const std::string cert = Write("client.pem", kPem);
  const std::string key = Write("client.key", "-----BEGIN PRIVATE KEY-----\nx\n");
  absl::StatusOr<ClientTls> tls =
      ReadClientTls({ca, "--ca_file"}, {cert, "--cert_file"}, {key, "--key_file"});
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_TRUE(tls->enabled());
  EXPECT_EQ(tls->ca_pem, kPem);
  EXPECT_EQ(tls->cert_pem, kPem);
  EXPECT_THAT(tls->key_pem, HasSubstr("PRIVATE KEY"));
}

TEST_F(TlsFilesTest, CertWithoutKeyOrCaIsRefusedWithTheFlagsNamed) {
  const std::string pem = Write("x.pem", kPem);
  absl::StatusOr<ClientTls> tls =
      ReadClientTls({pem, "--ca_file"}, {pem, "--cert_file"}, {"", "--key_file"});
  ASSERT_TRUE(absl::IsInvalidArgument(tls.status()));
  EXPECT_THAT(tls.status().message(), HasSubstr("--cert_file needs --key_file"));
  tls = ReadClientTls({"", "--ca_file"}, {pem, "--cert_file"}, {pem, "--key_file"});
  ASSERT_TRUE(absl::IsInvalidArgument(tls.status()));
  EXPECT_THAT(tls.status().message(), HasSubstr("need --ca_file"));
}

TEST_F(TlsFilesTest, AnUnreadableKeyIsNamed) {
  const std::string pem = Write("x.pem", kPem);
  const std::string key = (dir_ / "missing.key").string();
  absl::StatusOr<ClientTls> tls =
      ReadClientTls({pem, "--ca_file"}, {pem, "--cert_file"}, {key, "BBO_KEY_FILE"});
  ASSERT_TRUE(absl::IsInvalidArgument(tls.status()));
  EXPECT_THAT(tls.status().message(), HasSubstr("BBO_KEY_FILE: cannot read " + key));
}

// Item 9 of issue 34: without a CA, plaintext only to this machine or with `insecure`.
TEST(ClientTlsTest, PlaintextOnlyToLoopbackOrWhenAskedFor) {
  for (const char* local : {"127.0.0.1:50051", "127.8.9.10:1", "localhost:50051", "localhost",
                            "[::1]:50051", "::1", "dns:///localhost:50051", "ipv4:127.0.0.1:5", "0.0.0.0:50051",
                            "unix:/tmp/bbo.sock"}) {
    EXPECT_TRUE(IsLoopbackTarget(local)) << local;
    EXPECT_FALSE(UsesTls(ClientTls(), local)) << local;
  }
  for (const char* remote : {"10.78.1.1:50051", "arena.example.org:443", "[fd00::2]:50051",
                             "dns:///arena.example.org", "128.0.0.1:1", "localhost.example:1"}) {
    EXPECT_FALSE(IsLoopbackTarget(remote)) << remote;
    EXPECT_TRUE(UsesTls(ClientTls(), remote)) << remote;
    ClientTls insecure;
    insecure.insecure = true;
    EXPECT_FALSE(UsesTls(insecure, remote)) << remote;
  }
  ClientTls ca;
  ca.ca_pem = "-----BEGIN CERTIFICATE-----";
  EXPECT_TRUE(UsesTls(ca, "127.0.0.1:50051"));
}

}  // namespace
}  // namespace bbo
