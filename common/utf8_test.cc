#include "common/utf8.h"

#include <string>

#include "absl/strings/match.h"

#include "gtest/gtest.h"

namespace bbo {
namespace {

const std::string kEuro = "\xE2\x82\xAC";       // 3 bytes
const std::string kSmile = "\xF0\x9F\x98\x80";  // 4 bytes
const std::string kFffd = "\xEF\xBF\xBD";

TEST(TruncateUtf8Test, EmptyAndZero) {
  EXPECT_EQ(TruncateUtf8("", 10), "");
  EXPECT_EQ(TruncateUtf8("abc", 0), "");
  EXPECT_EQ(LastUtf8Bytes("", 10), "");
  EXPECT_EQ(LastUtf8Bytes("abc", 0), "");
}

TEST(TruncateUtf8Test, ExactLengthIsKept) {
  EXPECT_EQ(TruncateUtf8("abcd", 4), "abcd");
  EXPECT_EQ(TruncateUtf8("a" + kEuro, 4), "a" + kEuro);
  EXPECT_EQ(LastUtf8Bytes(kEuro + "a", 4), kEuro + "a");
  EXPECT_EQ(TruncateUtf8("abcd", 3), "abc");
}

TEST(TruncateUtf8Test, NeverSplitsACodePoint) {
  const std::string s = "ab" + kEuro + kSmile;  // 2 + 3 + 4 bytes
  EXPECT_EQ(TruncateUtf8(s, 2), "ab");
  EXPECT_EQ(TruncateUtf8(s, 3), "ab");
  EXPECT_EQ(TruncateUtf8(s, 4), "ab");
  EXPECT_EQ(TruncateUtf8(s, 5), "ab" + kEuro);
  EXPECT_EQ(TruncateUtf8(s, 8), "ab" + kEuro);
  EXPECT_EQ(TruncateUtf8(s, 9), s);
  EXPECT_EQ(LastUtf8Bytes(s, 4), kSmile);
  EXPECT_EQ(LastUtf8Bytes(s, 6), kSmile);
  EXPECT_EQ(LastUtf8Bytes(s, 7), kEuro + kSmile);
  EXPECT_EQ(LastUtf8Bytes(s, 8), "b" + kEuro + kSmile);
}

TEST(TruncateUtf8Test, NonAsciiTailIsNeverCutToNothing) {
  std::string tail;
  for (int i = 0; i < 1000; ++i) tail += kEuro;  // "Fehler: €€€..." style stderr
  for (size_t max : {4u, 5u, 100u, 2000u, 2001u}) {
    std::string t = LastUtf8Bytes(tail, max);
    EXPECT_FALSE(t.empty()) << max;
    EXPECT_LE(t.size(), max);
    EXPECT_TRUE(IsValidUtf8(t));
    EXPECT_EQ(t.size() % 3, 0u);
  }
}

TEST(TruncateUtf8Test, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(TruncateUtf8("a\xFF" "b", 100), "a" + kFffd + "b");
  EXPECT_EQ(TruncateUtf8("\xC3", 100), kFffd);                   // truncated sequence
  EXPECT_EQ(TruncateUtf8("\xC0\xAF", 100), kFffd + kFffd);       // overlong '/'
  EXPECT_EQ(TruncateUtf8("\xED\xA0\x80", 100), kFffd + kFffd + kFffd);  // surrogate
  EXPECT_EQ(TruncateUtf8("\xF4\x90\x80\x80", 100).substr(0, 3), kFffd);  // > U+10FFFF
  EXPECT_EQ(TruncateUtf8("\x80x", 100), kFffd + "x");
  // A replacement is 3 bytes: it is left out whole when it does not fit.
  EXPECT_EQ(TruncateUtf8("ab\xFF", 4), "ab");
  EXPECT_EQ(LastUtf8Bytes("ab\xFF", 4), "b" + kFffd);
  EXPECT_EQ(LastUtf8Bytes("\xFF\xFF\xFF", 4), kFffd);
  EXPECT_TRUE(IsValidUtf8(TruncateUtf8("\xFE\xFF\xC3\x28\xE2\x28\xA1", 1000)));
  EXPECT_TRUE(IsValidUtf8(LastUtf8Bytes("\xFE\xFF\xC3\x28\xE2\x28\xA1", 1000)));
}

TEST(TruncateUtf8Test, ValidTextPassesUnchanged) {
  const std::string s = "h\xC3\xA9llo " + kEuro + kSmile + std::string("\0z", 2);
  EXPECT_TRUE(IsValidUtf8(s));
  EXPECT_EQ(TruncateUtf8(s, 1000), s);
  EXPECT_EQ(LastUtf8Bytes(s, 1000), s);
  EXPECT_FALSE(IsValidUtf8("\xC3"));
}

TEST(TruncateUtf8Test, HugeInputCostsOnlyTheLimit) {
  const std::string big(60u << 20, '\xFF');
  std::string t = TruncateUtf8(big, 4096);
  EXPECT_LE(t.size(), 4096u);
  EXPECT_EQ(t.size(), 4095u);  // 1365 replacement characters
  EXPECT_EQ(LastUtf8Bytes(big, 4096).size(), 4095u);
}

TEST(StderrBlockTest, QuotesTheTailAsIndentedReadableLines) {
  EXPECT_EQ(StderrBlock("", 100), "");
  EXPECT_EQ(StderrBlock("\n\r\n", 100), "");
  EXPECT_EQ(StderrBlock("line one\r\nline \"two\"\n", 100), "\n  | line one\n  | line \"two\"");
  // A terminal escape (ESC [ 2 J), a bell, DEL and a C1 CSI (U+009B) are shown, not obeyed;
  // tabs stay.
  EXPECT_EQ(StderrBlock("a\x1b[2Jb\x07\x7f\tc\xc2\x9b" "d", 100),
            "\n  | a\xEF\xBF\xBD[2Jb\xEF\xBF\xBD\xEF\xBF\xBD\tc\xEF\xBF\xBD" "d");
}

TEST(StderrBlockTest, CutsOnACharacterBoundaryAndSaysSo) {
  // 10,001 bytes of valid UTF-8 ("é" is 2 bytes) cut to 2,000: no U+FFFD at the cut, marked "...".
  std::string text = "x";
  for (int i = 0; i < 5000; ++i) text += "\xC3\xA9";
  const std::string block = StderrBlock(text, 2000);
  ASSERT_TRUE(absl::StartsWith(block, "\n  | ..."));
  const std::string body = block.substr(std::string("\n  | ...").size());
  EXPECT_EQ(body.find("\xEF\xBF\xBD"), std::string::npos);
  EXPECT_EQ(body.size(), 2000u);
  EXPECT_TRUE(IsValidUtf8(block));
}

}  // namespace
}  // namespace bbo
