#ifndef BBO_REPORT_INTERNAL_FORMAT_H_
#define BBO_REPORT_INTERNAL_FORMAT_H_

// Number and text formatting for the HTML report. Fixed precision keeps a 65-method report small
// and its columns aligned. HtmlEscape (declared in report/report_html.h) is defined beside these.
//
// All functions are pure and thread-safe; none throws.

#include <cstddef>
#include <string>
#include <string_view>

namespace bbo::scoring::internal {

// What the page shows for a number that is missing or not finite.
inline constexpr char kDash[] = "–";

// `v` with `decimals` decimals ("%.*f"); kDash when not finite. Never "-0.00": a rounded negative
// zero would suggest a below-random score.
std::string Fixed(double v, int decimals);

// Integral values below 1e15 in full ("12000", never "1.2e+04"), others as "%.4g"; kDash when not
// finite; never a negative zero.
std::string General(double v);

// `fraction` as a percentage with one decimal and a "%" sign; kDash when not finite.
std::string Percent(double fraction);

// An SVG coordinate: one decimal, without a trailing ".0" and never "-0" (a tenth of a pixel is
// below what a screen shows). Non-finite values print as snprintf does ("nan", "inf").
std::string Coord(double v);

// The score of a normalized performance, 100 x (1 - perf) (Turner et al. (2021) eq. 7).
double Score(double perf);

// At most `max_chars` code points of `text`, with "…" appended when cut; never splits a UTF-8
// sequence, so the escaped result stays valid text.
std::string Truncate(std::string_view text, size_t max_chars);

// The number of UTF-8 code points in `text` (bytes that are not continuation bytes).
size_t CodePoints(std::string_view text);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_FORMAT_H_
