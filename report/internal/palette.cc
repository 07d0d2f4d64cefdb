// CategoricalColor and ScoreColor, declared in report/report_html.h.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "report/report_html.h"

namespace bbo::scoring {

std::string CategoricalColor(int index) {
  // Okabe & Ito (2008), reordered so the low-contrast yellow comes last.
  static constexpr std::array<const char*, 8> kPalette = {
      "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return kPalette[static_cast<size_t>(std::max(index, 0)) % kPalette.size()];
}

std::string ScoreColor(double score) {
  if (!std::isfinite(score)) return "#bdbdbd";
  // ColorBrewer PuOr, 5 classes, at scores 0, 25, 50, 75, 100; linear in between.
  static constexpr std::array<std::array<int, 3>, 5> kStops = {
      {{179, 88, 6}, {241, 163, 64}, {247, 247, 247}, {153, 142, 195}, {84, 39, 136}}};
  double pos = std::clamp(score, 0.0, 100.0) / 25.0;
  size_t i = std::min<size_t>(static_cast<size_t>(pos), kStops.size() - 2);
  double f = pos - static_cast<double>(i);
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  }
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

}  // namespace bbo::scoring
