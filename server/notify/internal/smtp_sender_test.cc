#include "server/notify/internal/smtp_sender.h"

#include <string>

#include "gtest/gtest.h"

namespace bbo::notify::internal {
namespace {

TEST(SmtpTlsRequiredTest, RequiredExceptOnLoopback) {
  auto required = [](std::string url, bool require_tls) {
    return SmtpTlsRequired(SmtpOptions{url, "a@b.org", "", "", require_tls, 5});
  };
  EXPECT_TRUE(required("smtp://mail.example.org:587", true));
  EXPECT_FALSE(required("smtp://mail.example.org:587", false));
  EXPECT_TRUE(required("smtps://mail.example.org:465", false));
  EXPECT_TRUE(required("smtps://127.0.0.1:465", true));
  EXPECT_FALSE(required("smtp://127.0.0.1:25", true));
  EXPECT_FALSE(required("smtp://localhost:25", true));
  EXPECT_FALSE(required("smtp://[::1]:25", true));
  EXPECT_TRUE(required("smtp://127.example.org:25", true));
}

TEST(CheckSmtpOptionsTest, NamesTheBadField) {
  EXPECT_TRUE(
      CheckSmtpOptions(SmtpOptions{"smtps://mail.example.org", "a@b.org", "", "", true, 5}).ok());
  const std::pair<SmtpOptions, const char*> cases[] = {
      {SmtpOptions{"https://mail.example.org", "a@b.org", "", "", true, 5}, "smtp.url"},
      {SmtpOptions{"smtp://", "a@b.org", "", "", true, 5}, "smtp.url"},
      {SmtpOptions{"smtp://u:p@mail.example.org", "a@b.org", "", "", true, 5}, "smtp.url"},
      {SmtpOptions{"smtp://mail.example.org", "Arena <a@b.org>", "", "", true, 5}, "smtp.from"},
      {SmtpOptions{"smtp://mail.example.org", "a@b.org", "", "", true, 0}, "smtp.timeout_s"},
  };
  for (const auto& [smtp, field] : cases) {
    const absl::Status status = CheckSmtpOptions(smtp);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << smtp.url;
    EXPECT_EQ(status.message().substr(0, std::string(field).size()), field) << status;
  }
}

}  // namespace
}  // namespace bbo::notify::internal
