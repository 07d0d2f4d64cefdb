#ifndef BBO_REPORT_INTERNAL_METHOD_STYLES_H_
#define BBO_REPORT_INTERNAL_METHOD_STYLES_H_

// The report's methods as the HTML plots see them: their leaderboard rows, one line style per
// method for the whole page (so a method has the same colour in every plot), and which of them a
// plot draws.
//
// Functions are pure and thread-safe. MethodStyles is not thread-safe (For() assigns styles
// lazily); one instance serves one page render.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace bbo::scoring::internal {

// Plots beyond a dozen lines stop being readable; the tables keep every method.
inline constexpr int kMaxLines = 12;
inline constexpr int kMaxAttainmentMethods = 6;

// One entry of report["methods"]. `row` points into the report, which must outlive it.
struct MethodRow {
  std::string name;
  bool baseline = false;
  const nlohmann::json* row = nullptr;
};

// report["methods"] in order (best first); names and flags read tolerantly.
std::vector<MethodRow> ReadMethods(const nlohmann::json& report);

struct LineStyle {
  std::string color;
  std::string dash;  // SVG stroke-dasharray; "" = solid
};

// Baselines are grey and dashed. Other methods take the categorical palette in order of first
// request (the constructor requests `rows` in order); each further cycle of its 8 colours adds a
// dash pattern to keep lines distinguishable.
class MethodStyles {
 public:
  explicit MethodStyles(const std::vector<MethodRow>& rows);

  bool IsBaseline(const std::string& method) const { return baselines_.count(method) > 0; }

  // The style of `method`, assigned on first request. The reference stays valid for the
  // lifetime of this object.
  const LineStyle& For(const std::string& method);

 private:
  std::set<std::string> baselines_;
  std::map<std::string, LineStyle> styles_;
  int next_ = 0;
};

struct Selection {
  std::vector<std::string> drawn;  // best first, baselines last
  int candidates = 0;              // non-baseline methods that have data
  int drawn_candidates = 0;
  bool baseline_drawn = false;
};

// The best `cap` non-baseline methods of `ordered` (best first) for which `has_data(name)` holds,
// then every baseline that has data.
template <typename HasData>
Selection Select(const std::vector<std::string>& ordered, const MethodStyles& styles, int cap,
                 HasData has_data) {
  Selection s;
  std::vector<std::string> baselines;
  for (const std::string& name : ordered) {
    if (!has_data(name)) continue;
    if (styles.IsBaseline(name)) {
      baselines.push_back(name);
      continue;
    }
    ++s.candidates;
    if (s.drawn_candidates < cap) {
      s.drawn.push_back(name);
      ++s.drawn_candidates;
    }
  }
  s.baseline_drawn = !baselines.empty();
  s.drawn.insert(s.drawn.end(), baselines.begin(), baselines.end());
  return s;
}

// Leaderboard order, then names only `section` (an object keyed by method) knows, in key order.
std::vector<std::string> OrderedNames(const std::vector<MethodRow>& rows,
                                      const nlohmann::json& section);

// A caption saying how many methods a plot left out, or "" when it drew them all.
std::string CapCaption(const Selection& s, int cap);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_METHOD_STYLES_H_
