#include "common/utf8.h"

#include <algorithm>
#include <vector>

namespace bbo {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";
constexpr size_t kReplacementBytes = 3;

// Length of the valid UTF-8 sequence starting at s[i], or 0 when s[i] does not start one.
size_t ValidSequenceLength(absl::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const auto cont = [&](size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(1) > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && b(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

std::string TruncateUtf8(absl::string_view s, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes));
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = ValidSequenceLength(s, i);
    const size_t add = n == 0 ? kReplacementBytes : n;
    if (out.size() + add > max_bytes) break;
    if (n == 0) {
      out.append(kReplacement, kReplacementBytes);
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

std::string LastUtf8Bytes(absl::string_view s, size_t max_bytes) {
  if (max_bytes == 0) return "";
  // Start where the last max_bytes input bytes begin, moved forward past continuation bytes (at
  // most 3 of them belong to a character that started before the cut).
  size_t start = s.size() > max_bytes ? s.size() - max_bytes : 0;
  for (int k = 0; k < 3 && start > 0 && start < s.size() &&
                  (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80;
       ++k) {
    ++start;
  }
  // Sanitize the window piece by piece, then drop pieces from the front while the replacement
  // characters make it too long.
  std::vector<absl::string_view> pieces;
  size_t total = 0;
  for (size_t i = start; i < s.size();) {
    const size_t n = ValidSequenceLength(s, i);
    if (n == 0) {
      pieces.emplace_back(kReplacement, kReplacementBytes);
      total += kReplacementBytes;
      ++i;
    } else {
      pieces.push_back(s.substr(i, n));
      total += n;
      i += n;
    }
  }
  size_t first = 0;
  while (total > max_bytes) total -= pieces[first++].size();
  std::string out;
  out.reserve(total);
  for (size_t k = first; k < pieces.size(); ++k) out.append(pieces[k].data(), pieces[k].size());
  return out;
}

std::string StderrBlock(absl::string_view tail, size_t max_bytes) {
  const std::string text = LastUtf8Bytes(tail, max_bytes);
  const bool cut = text.size() < tail.size();
  std::string out;
  out.reserve(text.size() + text.size() / 16 + 16);
  absl::string_view rest = text;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.remove_suffix(1);
  if (rest.empty()) return "";
  out.append(cut ? "\n  | ..." : "\n  | ");
  for (size_t i = 0; i < rest.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(rest[i]);
    if (c == '\n') {
      out.append("\n  | ");
    } else if (c == '\r') {
      continue;
    } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
      out.append("\xEF\xBF\xBD");
    } else if (c == 0xC2 && i + 1 < rest.size() &&
               static_cast<unsigned char>(rest[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(rest[i + 1]) <= 0x9F) {
      out.append("\xEF\xBF\xBD");  // a C1 control (U+0080..U+009F)
      ++i;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

bool IsValidUtf8(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = ValidSequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace bbo
