#ifndef BBO_REPORT_INTERNAL_HTML_PARTS_H_
#define BBO_REPORT_INTERNAL_HTML_PARTS_H_

// Small HTML building blocks shared by the report's sections. Arguments named *_html are
// inserted as they are (the caller escapes); plain names are escaped here. Pure, thread-safe.

#include <string>

#include "absl/strings/string_view.h"

namespace bbo::scoring::internal {

// A "How to read this." paragraph (class "howto") around `html`.
std::string HowTo(absl::string_view html);

// A table cell / header cell; `numeric` right-aligns it with tabular digits (class "n").
std::string Td(absl::string_view text_html, bool numeric = false);
std::string Th(absl::string_view text_html, bool numeric = false);

// A method-name cell (class "m"), with a "baseline" badge when `baseline`.
std::string MethodCell(const std::string& name, bool baseline);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_HTML_PARTS_H_
