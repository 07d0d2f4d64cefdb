#include "report/internal/format.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "report/report_html.h"

namespace bbo::scoring {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace internal {
namespace {

std::string StripNegativeZero(std::string s) {
  if (!s.empty() && s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) {
    s.erase(0, 1);
  }
  return s;
}

}  // namespace

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return kDash;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return StripNegativeZero(buf);
}

std::string General(double v) {
  if (!std::isfinite(v)) return kDash;
  char buf[64];
  // Counts (replicates, Borda points) read better in full than as "1e+04".
  const bool integral = std::abs(v) < 1e15 && v == std::floor(v);
  std::snprintf(buf, sizeof(buf), integral ? "%.0f" : "%.4g", v);
  return StripNegativeZero(buf);
}

std::string Percent(double fraction) {
  if (!std::isfinite(fraction)) return kDash;
  return absl::StrCat(Fixed(100 * fraction, 1), "%");
}

std::string Coord(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

double Score(double perf) { return 100 * (1 - perf); }

std::string Truncate(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars) return absl::StrCat(std::string(text.substr(0, i)), "…");
    ++chars;
  }
  return std::string(text);
}

size_t CodePoints(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace internal
}  // namespace bbo::scoring
