#include "server/notify/internal/email_message.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bbo::notify::internal {
namespace {

using ::testing::HasSubstr;

// RFC 2045 quoted-printable decoding: soft breaks "=\r\n" vanish, "=XX" is a byte.
std::string DecodeQuotedPrintable(absl::string_view qp) {
  std::string out;
  for (size_t i = 0; i < qp.size(); ++i) {
    if (qp[i] != '=') {
      out.push_back(qp[i]);
    } else if (qp.substr(i + 1, 2) == "\r\n") {
      i += 2;
    } else {
      int byte = 0;
      EXPECT_TRUE(absl::SimpleHexAtoi(qp.substr(i + 1, 2), &byte)) << qp.substr(i, 3);
      out.push_back(static_cast<char>(byte));
      i += 2;
    }
  }
  return out;
}

std::string DecodeEncodedWords(absl::string_view value) {
  std::string out;
  for (absl::string_view word :
       absl::StrSplit(value, absl::ByAnyChar(" \r\n"), absl::SkipEmpty())) {
    EXPECT_TRUE(absl::ConsumePrefix(&word, "=?UTF-8?B?")) << word;
    EXPECT_TRUE(absl::ConsumeSuffix(&word, "?=")) << word;
    std::string decoded;
    EXPECT_TRUE(absl::Base64Unescape(word, &decoded));
    out += decoded;
  }
  return out;
}

TEST(CheckEmailAddressTest, AcceptsPlainAddresses) {
  for (const char* address :
       {"team@example.org", "a.b+tag@sub.example.co.uk", "x@localhost", "O'Brien@example.org"}) {
    EXPECT_TRUE(CheckEmailAddress(address, "email").ok()) << address;
  }
  EXPECT_TRUE(CheckEmailAddress(std::string(64, 'a') + "@" + std::string(189, 'b'), "e").ok());
}

TEST(CheckEmailAddressTest, RefusesWhatCouldCarryAnotherCommand) {
  for (const std::string& address :
       {std::string(""), std::string("plain"), std::string("a@b@c"), std::string("a @b.org"),
        std::string("a@b.org "), std::string("<a@b.org>"), std::string("a@b.org,c@d.org"),
        std::string("a@b.org;"), std::string("\"a\"@b.org"), std::string("a@b.org\r\n"),
        std::string("a@b.org\nRCPT TO:<x@y>"), std::string("a\0b@c.org", 9), std::string("é@b.org"),
        std::string("@b.org"), std::string("a@"), std::string(65, 'a') + "@b.org",
        std::string(64, 'a') + "@" + std::string(190, 'b')}) {
    const absl::Status status = CheckEmailAddress(address, "email");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << address;
    EXPECT_TRUE(absl::StartsWith(status.message(), "email: ")) << status;
  }
}

TEST(CleanHeaderTextTest, RemovesLineBreaksAndControls) {
  EXPECT_EQ(CleanHeaderText("hi\r\nBcc: evil@x", 100), "hi Bcc: evil@x");
  EXPECT_EQ(CleanHeaderText("a\rb\nc\td", 100), "a b c d");
  EXPECT_EQ(CleanHeaderText(std::string("a\0b\x01\x1b[31m\x7f"
                                        "c",
                                        11),
                            100),
            "ab[31mc");
  EXPECT_EQ(CleanHeaderText("  padded   out \r\n", 100), "padded out");
  EXPECT_EQ(CleanHeaderText("bad \xff byte", 100), "bad \xef\xbf\xbd byte");
  EXPECT_EQ(CleanHeaderText("ééé", 5), "éé");  // never half a character
}

TEST(EncodeHeaderValueTest, AsciiStaysPlainElseEncodedWords) {
  EXPECT_EQ(EncodeHeaderValue("Submission 7 finished"), "Submission 7 finished");
  const std::string lookalike = "=?UTF-8?B?c3Bvb2Y=?=";
  EXPECT_EQ(DecodeEncodedWords(EncodeHeaderValue(lookalike)), lookalike);
  const std::string text = "日本語の件名がとても長い場合は複数の符号化語に分割される ✓ — ok";
  const std::string encoded = EncodeHeaderValue(text);
  EXPECT_EQ(DecodeEncodedWords(encoded), text);
  for (absl::string_view line : absl::StrSplit(encoded, "\r\n")) {
    EXPECT_LE(line.size(), 76u) << line;  // a leading space and a word of at most 75
    absl::string_view word = absl::StripLeadingAsciiWhitespace(line);
    ASSERT_TRUE(absl::ConsumePrefix(&word, "=?UTF-8?B?"));
    ASSERT_TRUE(absl::ConsumeSuffix(&word, "?="));
    std::string bytes;
    ASSERT_TRUE(absl::Base64Unescape(word, &bytes));
    EXPECT_EQ(bytes.size() > 0 && (bytes[0] & 0xc0) == 0x80, false) << "word starts mid-character";
  }
  EXPECT_GT(std::count(encoded.begin(), encoded.end(), '\n'), 0);
}

TEST(EncodeBodyTest, NormalisesLineEndsAndKeeps8bit) {
  const EncodedBody body = EncodeBody("one\ntwo\r\nthree\rfour\n.\nné\x01");
  EXPECT_EQ(body.transfer_encoding, "8bit");
  EXPECT_EQ(body.body, "one\r\ntwo\r\nthree\r\nfour\r\n.\r\nné\r\n");
}

TEST(EncodeBodyTest, LongLinesBecomeQuotedPrintable) {
  std::string text = "short = line \nlong: ";
  for (int i = 0; i < 300; ++i) text += "héllo ";
  text += "\nend ";
  const EncodedBody body = EncodeBody(text);
  EXPECT_EQ(body.transfer_encoding, "quoted-printable");
  for (absl::string_view line : absl::StrSplit(body.body, "\r\n")) {
    EXPECT_LE(line.size(), 76u) << line;
    EXPECT_FALSE(absl::EndsWith(line, " ")) << line;
  }
  std::string expected = text;
  absl::StrReplaceAll({{"\n", "\r\n"}}, &expected);
  EXPECT_EQ(DecodeQuotedPrintable(body.body), expected + "\r\n");
}

TEST(FormatDateTest, Rfc5322InUtc) {
  EXPECT_EQ(FormatDate(absl::FromUnixSeconds(603416520)), "Mon, 13 Feb 1989 23:42:00 +0000");
  EXPECT_EQ(FormatDate(absl::FromUnixSeconds(0)), "Thu, 01 Jan 1970 00:00:00 +0000");
}

TEST(FormatMessageTest, HeadersThenBody) {
  MessageFields fields;
  fields.from = "arena@example.org";
  fields.to = "team@example.org";
  fields.competition = "bbo\r\n2025";
  fields.team = "Team\nBcc: x@y";
  fields.event = "phase_closed";
  fields.subject = "Phase\r\nBcc: evil@x closed";
  fields.text = "Thanks.";
  fields.details = {{"phase", "final"}};
  fields.date = absl::FromUnixSeconds(0);
  fields.message_id = "abc.0@example.org";
  const std::string message = FormatMessage(fields);
  const std::string head = message.substr(0, message.find("\r\n\r\n"));
  EXPECT_EQ(head,
            "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"
            "From: arena@example.org\r\n"
            "To: team@example.org\r\n"
            "Subject: [bbo 2025] Phase Bcc: evil@x closed\r\n"
            "Message-ID: <abc.0@example.org>\r\n"
            "MIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: 8bit\r\n"
            "X-BBO-Team: Team Bcc: x@y\r\n"
            "X-BBO-Event: phase_closed");
  EXPECT_THAT(message, HasSubstr("\r\n\r\nThanks.\r\n\r\n-- \r\nCompetition: bbo 2025\r\n"));
  EXPECT_THAT(message, HasSubstr("\"phase\": \"final\""));
}

TEST(NewMessageIdTest, RandomAndInTheSendersDomain) {
  const std::string a = NewMessageId("arena@example.org", absl::FromUnixSeconds(42));
  const std::string b = NewMessageId("arena@example.org", absl::FromUnixSeconds(42));
  EXPECT_NE(a, b);
  EXPECT_THAT(a, ::testing::MatchesRegex("[0-9a-f]{32}\\.42@example\\.org"));
}

}  // namespace
}  // namespace bbo::notify::internal
