#include "server/notify/internal/email_message.h"

#include <sodium.h>

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/utf8.h"

namespace bbo::notify::internal {
namespace {

// Header values are cut well below SMTP's 998-byte line limit.
constexpr size_t kMaxSubjectBytes = 200;
constexpr size_t kMaxNameBytes = 100;
// Bytes of text per encoded word: base64 of 45 bytes is 60 characters, plus "=?UTF-8?B?" and
// "?=" makes 72, within RFC 2047's 75.
constexpr size_t kEncodedWordBytes = 45;
constexpr size_t kMaxLineBytes = 998;
constexpr size_t kQpLineChars = 76;
constexpr size_t kMaxBodyBytes = 1 << 20;

bool ForbiddenInAddress(unsigned char c) {
  return c <= 0x20 || c >= 0x7f || absl::StrContains("<>,;:\"()[]\\", static_cast<char>(c));
}

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

std::string EncodedWords(absl::string_view text) {
  std::vector<std::string> words;
  while (!text.empty()) {
    size_t n = std::min(kEncodedWordBytes, text.size());
    while (n < text.size() && n > 0 && IsContinuationByte(text[n])) --n;
    if (n == 0) n = std::min(kEncodedWordBytes, text.size());  // not UTF-8: cut anywhere
    words.push_back(absl::StrCat("=?UTF-8?B?", absl::Base64Escape(text.substr(0, n)), "?="));
    text.remove_prefix(n);
  }
  return absl::StrJoin(words, "\r\n ");
}

// One line (without its line end) in quoted-printable, soft-broken at 76 characters.
std::string QuotedPrintableLine(absl::string_view line) {
  std::string out;
  size_t column = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = line[i];
    const bool last = i + 1 == line.size();
    std::string token;
    if ((c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last)) {
      token.assign(1, static_cast<char>(c));
    } else {
      token = absl::StrFormat("=%02X", c);
    }
    if (column + token.size() > kQpLineChars - 1) {  // room for the soft break's '='
      out += "=\r\n";
      column = 0;
    }
    out += token;
    column += token.size();
  }
  return out;
}

// Lines of `text` with any line end (CRLF, LF, CR) and without controls other than TAB.
std::vector<std::string> BodyLines(absl::string_view text) {
  const std::string valid = TruncateUtf8(text, kMaxBodyBytes);
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < valid.size(); ++i) {
    const unsigned char c = valid[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < valid.size() && valid[i + 1] == '\n') ++i;
      lines.emplace_back();
    } else if (c == '\t' || (c >= 0x20 && c != 0x7f)) {
      lines.back().push_back(static_cast<char>(c));
    }
  }
  if (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  return lines;
}

std::string BodyText(const MessageFields& f) {
  std::string out = f.text;
  if (!out.empty() && out.back() != '\n') out += "\n";
  absl::StrAppend(&out, "\n-- \nCompetition: ", CleanHeaderText(f.competition, kMaxNameBytes),
                  "\nTeam: ", CleanHeaderText(f.team, kMaxNameBytes),
                  "\nEvent: ", CleanHeaderText(f.event, kMaxNameBytes), "\n");
  if (!f.details.is_null() && !f.details.empty()) {
    absl::StrAppend(&out, "Details:\n",
                    f.details.dump(2, ' ', false, nlohmann::json::error_handler_t::replace), "\n");
  }
  return out;
}

}  // namespace

absl::Status CheckEmailAddress(absl::string_view address, absl::string_view field) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
  };
  if (address.empty()) return invalid("empty address");
  if (address.size() > kMaxAddressBytes) {
    return invalid(absl::StrCat("address longer than ", kMaxAddressBytes, " bytes"));
  }
  for (unsigned char c : address) {
    if (ForbiddenInAddress(c)) {
      return invalid(
          "address has whitespace, a control or non-ASCII byte, or one of <>,;:\"()[]\\");
    }
  }
  const size_t at = address.find('@');
  if (at == absl::string_view::npos || address.find('@', at + 1) != absl::string_view::npos) {
    return invalid("address must have exactly one '@'");
  }
  if (at == 0 || at > 64) return invalid("local part empty or longer than 64 bytes");
  if (at + 1 == address.size()) return invalid("no domain after '@'");
  return absl::OkStatus();
}

std::string CleanHeaderText(absl::string_view text, size_t max_bytes) {
  const std::string valid = TruncateUtf8(text, kMaxBodyBytes);
  std::string out;
  for (unsigned char c : valid) {
    const bool space = c == '\r' || c == '\n' || c == '\t' || c == ' ';
    if (space) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else if (c >= 0x20 && c != 0x7f) {
      out.push_back(static_cast<char>(c));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return TruncateUtf8(out, max_bytes);
}

std::string EncodeHeaderValue(absl::string_view clean) {
  bool plain = !absl::StrContains(clean, "=?");
  for (unsigned char c : clean) plain = plain && c >= 0x20 && c < 0x7f;
  if (plain) return std::string(clean);
  return EncodedWords(clean);
}

EncodedBody EncodeBody(absl::string_view text) {
  const std::vector<std::string> lines = BodyLines(text);
  bool long_line = false;
  for (const std::string& line : lines) long_line = long_line || line.size() > kMaxLineBytes;
  EncodedBody out;
  out.transfer_encoding = long_line ? "quoted-printable" : "8bit";
  for (const std::string& line : lines) {
    absl::StrAppend(&out.body, long_line ? QuotedPrintableLine(line) : line, "\r\n");
  }
  return out;
}

std::string FormatDate(absl::Time time) {
  static const char* const kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const absl::CivilSecond cs = absl::ToCivilSecond(time, absl::UTCTimeZone());
  const int day = static_cast<int>(absl::GetWeekday(absl::CivilDay(cs)));
  return absl::StrFormat("%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[day], cs.day(),
                         kMonths[cs.month() - 1], cs.year(), cs.hour(), cs.minute(), cs.second());
}

std::string FormatMessage(const MessageFields& f) {
  const std::string competition = CleanHeaderText(f.competition, kMaxNameBytes);
  std::string subject = CleanHeaderText(f.subject, kMaxSubjectBytes);
  if (!competition.empty()) subject = absl::StrCat("[", competition, "] ", subject);
  const EncodedBody body = EncodeBody(BodyText(f));
  std::string out;
  absl::StrAppend(&out, "Date: ", FormatDate(f.date), "\r\n");
  absl::StrAppend(&out, "From: ", f.from, "\r\n", "To: ", f.to, "\r\n");
  absl::StrAppend(&out, "Subject: ", EncodeHeaderValue(subject), "\r\n");
  absl::StrAppend(&out, "Message-ID: <", f.message_id, ">\r\n");
  absl::StrAppend(&out, "MIME-Version: 1.0\r\n", "Content-Type: text/plain; charset=utf-8\r\n");
  absl::StrAppend(&out, "Content-Transfer-Encoding: ", body.transfer_encoding, "\r\n");
  absl::StrAppend(&out, "X-BBO-Team: ", EncodeHeaderValue(CleanHeaderText(f.team, kMaxNameBytes)),
                  "\r\n");
  absl::StrAppend(&out, "X-BBO-Event: ", EncodeHeaderValue(CleanHeaderText(f.event, kMaxNameBytes)),
                  "\r\n");
  absl::StrAppend(&out, "\r\n", body.body);
  return out;
}

std::string NewMessageId(absl::string_view from, absl::Time now) {
  static const bool sodium_ok = sodium_init() >= 0;
  unsigned char random[16] = {};
  if (sodium_ok) randombytes_buf(random, sizeof(random));
  char hex[2 * sizeof(random) + 1];
  sodium_bin2hex(hex, sizeof(hex), random, sizeof(random));
  const size_t at = from.rfind('@');
  const absl::string_view domain =
      at == absl::string_view::npos ? "localhost" : from.substr(at + 1);
  return absl::StrCat(hex, ".", absl::ToUnixSeconds(now), "@", domain);
}

}  // namespace bbo::notify::internal
