// The e-mail channel end to end: a Notifier sending through libcurl to an SMTP sink
// (testing/smtp_sink.h) on 127.0.0.1.

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/notify/notifier.h"
#include "server/notify/testing/smtp_sink.h"

namespace bbo::notify {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ::bbo::notify::testing::ReceivedMail;
using ::bbo::notify::testing::SmtpSink;

struct ParsedMessage {
  std::vector<std::pair<std::string, std::string>> headers;  // unfolded
  std::string body;
};

ParsedMessage Parse(const std::string& data) {
  ParsedMessage out;
  const size_t blank = data.find("\r\n\r\n");
  const std::string head = data.substr(0, blank);
  out.body = blank == std::string::npos ? "" : data.substr(blank + 4);
  for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t') && !out.headers.empty()) {
      absl::StrAppend(&out.headers.back().second, line);  // folded continuation
      continue;
    }
    const size_t colon = line.find(':');
    out.headers.emplace_back(
        std::string(line.substr(0, colon)),
        std::string(absl::StripLeadingAsciiWhitespace(line.substr(colon + 1))));
  }
  return out;
}

std::string Header(const ParsedMessage& message, absl::string_view name) {
  for (const auto& [key, value] : message.headers) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "<missing>";
}

// The text of a header value made of RFC 2047 "=?UTF-8?B?...?=" words (whitespace between
// adjacent encoded words is not part of the text).
std::string DecodeEncodedWords(absl::string_view value) {
  std::string out;
  for (absl::string_view word : absl::StrSplit(value, ' ', absl::SkipEmpty())) {
    EXPECT_TRUE(absl::StartsWith(word, "=?UTF-8?B?") && absl::EndsWith(word, "?=")) << word;
    EXPECT_LE(word.size(), 75u);
    word.remove_prefix(10);
    word.remove_suffix(2);
    std::string decoded;
    EXPECT_TRUE(absl::Base64Unescape(word, &decoded));
    out += decoded;
  }
  return out;
}

NotifierOptions EmailOptions(const SmtpSink& sink) {
  NotifierOptions options;
  options.smtp = SmtpOptions{sink.url(), "arena@example.org", "", "", true, 5};
  options.competition = "bbo-2025";
  options.retry_delay_s = 0.05;
  return options;
}

Notification Finished(std::string subject, std::string text) {
  return Notification{"team-a",
                      "submission_finished",
                      std::move(subject),
                      std::move(text),
                      nlohmann::json{{"submission", 7}},
                      "team-a@example.org",
                      ""};
}

TEST(NotifierEmailTest, DeliversEnvelopeHeadersAndBody) {
  SmtpSink sink;
  Notifier notifier(EmailOptions(sink));
  ASSERT_TRUE(notifier.Enqueue(Finished("Submission 7 finished", "Score 0.93.\n.\n..\nend")).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  EXPECT_EQ(notifier.Counters().email.sent, 1);
  EXPECT_EQ(notifier.Counters().email.failed, 0);
  const std::vector<ReceivedMail> mails = sink.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].mail_from, "arena@example.org");
  EXPECT_THAT(mails[0].rcpt_to, ElementsAre("team-a@example.org"));
  const ParsedMessage message = Parse(mails[0].data);
  EXPECT_EQ(Header(message, "Subject"), "[bbo-2025] Submission 7 finished");
  EXPECT_EQ(Header(message, "From"), "arena@example.org");
  EXPECT_EQ(Header(message, "To"), "team-a@example.org");
  EXPECT_EQ(Header(message, "MIME-Version"), "1.0");
  EXPECT_EQ(Header(message, "Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(Header(message, "Content-Transfer-Encoding"), "8bit");
  EXPECT_THAT(Header(message, "Message-ID"),
              ::testing::MatchesRegex("<[0-9a-f]+\\.[0-9]+@example\\.org>"));
  EXPECT_THAT(Header(message, "Date"), HasSubstr(" +0000"));
  // Lines "." and ".." arrive as written: libcurl stuffed them, the sink unstuffed them.
  EXPECT_TRUE(absl::StartsWith(message.body, "Score 0.93.\r\n.\r\n..\r\nend\r\n")) << message.body;
  EXPECT_THAT(message.body, HasSubstr("Team: team-a\r\n"));
  EXPECT_THAT(message.body, HasSubstr("\"submission\": 7"));
}

TEST(NotifierEmailTest, EncodesNonAsciiSubjectAsRfc2047) {
  SmtpSink sink;
  Notifier notifier(EmailOptions(sink));
  const std::string subject =
      "Résultat de la soumission ✓ — 日本語のテキストも含む長い件名 (phase Ω)";
  ASSERT_TRUE(notifier.Enqueue(Finished(subject, "ok")).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  const std::vector<ReceivedMail> mails = sink.mails();
  ASSERT_EQ(mails.size(), 1u);
  const std::string raw = Header(Parse(mails[0].data), "Subject");
  EXPECT_TRUE(absl::StartsWith(raw, "=?UTF-8?B?")) << raw;
  EXPECT_EQ(DecodeEncodedWords(raw), "[bbo-2025] " + subject);
}

TEST(NotifierEmailTest, HeaderInjectionThroughSubjectOrTeamAddsNoHeader) {
  SmtpSink sink;
  Notifier notifier(EmailOptions(sink));
  Notification n = Finished("hi\r\nBcc: evil@x", "body");
  n.team = "team\r\nBcc: evil2@x\nX-Evil: 1";
  ASSERT_TRUE(notifier.Enqueue(n).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  const std::vector<ReceivedMail> mails = sink.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_THAT(mails[0].rcpt_to, ElementsAre("team-a@example.org"));
  const ParsedMessage message = Parse(mails[0].data);
  for (const auto& [name, value] : message.headers) {
    EXPECT_FALSE(absl::EqualsIgnoreCase(name, "Bcc")) << value;
    EXPECT_FALSE(absl::EqualsIgnoreCase(name, "X-Evil")) << value;
  }
  EXPECT_EQ(Header(message, "Subject"), "[bbo-2025] hi Bcc: evil@x");
  EXPECT_EQ(Header(message, "X-BBO-Team"), "team Bcc: evil2@x X-Evil: 1");
}

TEST(NotifierEmailTest, RefusesImplausibleAddressAtEnqueue) {
  SmtpSink sink;
  Notifier notifier(EmailOptions(sink));
  for (const std::string& address :
       {std::string("no-at-sign"), std::string("a@b@c"), std::string("a b@example.org"),
        std::string("<a@example.org>"), std::string("a@example.org,b@example.org"),
        std::string("a@example.org;"), std::string("a@example.org\r\nRCPT TO:<x@y>"),
        std::string("@example.org"), std::string("a@"), std::string(250, 'a') + "@x.org"}) {
    Notification n = Finished("s", "t");
    n.email = address;
    EXPECT_EQ(notifier.Enqueue(n).code(), absl::StatusCode::kInvalidArgument) << address;
  }
  ASSERT_TRUE(notifier.Flush(absl::Seconds(5)).ok());
  EXPECT_EQ(notifier.Counters().email.sent + notifier.Counters().email.failed, 0);
  EXPECT_EQ(sink.rcpt_commands(), 0);
}

TEST(NotifierEmailTest, RefusedRecipientFailsAfterMaxAttempts) {
  SmtpSink sink(/*rcpt_code=*/550);
  NotifierOptions options = EmailOptions(sink);
  options.max_attempts = 3;
  Notifier notifier(options);
  ASSERT_TRUE(notifier.Enqueue(Finished("s", "t")).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(30)).ok());
  const ChannelCounters counters = notifier.Counters().email;
  EXPECT_EQ(counters.sent, 0);
  EXPECT_EQ(counters.failed, 1);
  EXPECT_EQ(counters.refused, 0);
  EXPECT_EQ(sink.rcpt_commands(), 3);
  EXPECT_TRUE(sink.mails().empty());
}

TEST(NotifierEmailTest, RequireTlsOnLoopbackSendsWithoutTls) {
  SmtpSink sink;  // offers no STARTTLS
  NotifierOptions options = EmailOptions(sink);
  options.smtp->require_tls = true;
  options.max_attempts = 1;
  Notifier notifier(options);
  ASSERT_TRUE(notifier.Enqueue(Finished("s", "t")).ok());
  ASSERT_TRUE(notifier.Flush(absl::Seconds(20)).ok());
  EXPECT_EQ(notifier.Counters().email.sent, 1);
  EXPECT_EQ(sink.mails().size(), 1u);
}

TEST(NotifierEmailTest, EmailWithoutSmtpServerIsFailedPrecondition) {
  Notifier notifier(NotifierOptions{});
  EXPECT_EQ(notifier.Enqueue(Finished("s", "t")).code(), absl::StatusCode::kFailedPrecondition);
  NotifierOptions bad;
  bad.smtp = SmtpOptions{"http://127.0.0.1:25", "arena@example.org", "", "", true, 5};
  Notifier misconfigured(bad);
  EXPECT_EQ(misconfigured.Enqueue(Finished("s", "t")).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace bbo::notify
