#include "report/internal/method_styles.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "report/internal/json_view.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {
namespace {

constexpr char kBaselineColor[] = "#6e6e6e";
constexpr char kBaselineDash[] = "3 3";

}  // namespace

std::vector<MethodRow> ReadMethods(const nlohmann::json& report) {
  std::vector<MethodRow> rows;
  for (const nlohmann::json& m : Arr(Get(report, "methods"))) {
    rows.push_back({Str(Get(m, "method")), Bool(Get(m, "baseline")), &m});
  }
  return rows;
}

MethodStyles::MethodStyles(const std::vector<MethodRow>& rows) {
  for (const MethodRow& r : rows) {
    if (r.baseline) baselines_.insert(r.name);
  }
  for (const MethodRow& r : rows) For(r.name);
}

const LineStyle& MethodStyles::For(const std::string& method) {
  auto it = styles_.find(method);
  if (it != styles_.end()) return it->second;
  LineStyle style;
  if (IsBaseline(method)) {
    style = {kBaselineColor, kBaselineDash};
  } else {
    static constexpr std::array<const char*, 4> kDashes = {"", "7 3", "2 2", "9 3 2 3"};
    style = {CategoricalColor(next_), kDashes[(next_ / 8) % kDashes.size()]};
    ++next_;
  }
  return styles_.emplace(method, style).first->second;
}

std::vector<std::string> OrderedNames(const std::vector<MethodRow>& rows,
                                      const nlohmann::json& section) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const MethodRow& r : rows) {
    if (seen.insert(r.name).second) names.push_back(r.name);
  }
  for (const auto& [name, value] : Obj(section).items()) {
    if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

std::string CapCaption(const Selection& s, int cap) {
  if (s.candidates <= cap) return "";
  return absl::StrCat("<p class=\"caption\">Showing the best ", s.drawn_candidates, " of ",
                      s.candidates, " methods",
                      s.baseline_drawn ? " and the random-search baseline" : "",
                      "; the tables and the heatmap list every method.</p>\n");
}

}  // namespace bbo::scoring::internal
