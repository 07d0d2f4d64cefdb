#include "report/internal/chart_axis.h"

#include <algorithm>
#include <cmath>

namespace bbo::scoring::internal {

double NiceStep(double span, int target_ticks) {
  double raw = span / target_ticks;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / magnitude;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

int StepDecimals(double step) {
  return std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 12);
}

std::vector<int> IntegerTicks(int n) {
  int step = 1;
  for (int s : {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000}) {
    step = s;
    if (n / s <= 10) break;
  }
  std::vector<int> ticks = {1};
  for (int v = step; v <= n; v += step) {
    if (v != 1) ticks.push_back(v);
  }
  return ticks;
}

}  // namespace bbo::scoring::internal
