#ifndef BBO_REPORT_INTERNAL_CHART_AXIS_H_
#define BBO_REPORT_INTERNAL_CHART_AXIS_H_

// Axis tick arithmetic shared by the report's SVG charts. Pure and thread-safe; none throws.

#include <vector>

namespace bbo::scoring::internal {

// A "nice" tick step (1, 2, 5 or 10 times a power of ten) giving about `target_ticks` ticks
// over `span`. Precondition: span > 0 and finite, target_ticks > 0.
double NiceStep(double span, int target_ticks);

// Decimals needed to print multiples of `step` (a NiceStep result) exactly, in [0, 12].
int StepDecimals(double step);

// Integer axis ticks 1, s, 2s, ... up to n (s from 1, 2, 5, 10, 20, 25, 50, ..., 1000), at most
// about 10 of them; {1} when n < 2.
std::vector<int> IntegerTicks(int n);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_CHART_AXIS_H_
