#include "report/internal/html_parts.h"

#include "absl/strings/str_cat.h"
#include "report/report_html.h"

namespace bbo::scoring::internal {

std::string HowTo(absl::string_view html) {
  return absl::StrCat("<p class=\"howto\"><b>How to read this.</b> ", html, "</p>\n");
}

std::string Td(absl::string_view text_html, bool numeric) {
  return absl::StrCat(numeric ? "<td class=\"n\">" : "<td>", text_html, "</td>");
}

std::string Th(absl::string_view text_html, bool numeric) {
  return absl::StrCat(numeric ? "<th class=\"n\">" : "<th>", text_html, "</th>");
}

std::string MethodCell(const std::string& name, bool baseline) {
  return absl::StrCat("<td class=\"m\">", HtmlEscape(name),
                      baseline ? "<span class=\"badge\">baseline</span>" : "", "</td>");
}

}  // namespace bbo::scoring::internal
