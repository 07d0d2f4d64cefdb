#ifndef BBO_REPORT_INTERNAL_JSON_VIEW_H_
#define BBO_REPORT_INTERNAL_JSON_VIEW_H_

// A tolerant, read-only view of a report JSON (layout in report/report.h), shared by the CSV and
// HTML renderings. nlohmann's value() and get() throw on a key of the wrong type, and a report
// may come from another version of the server, so every read goes through these: a missing key,
// a null or a value of the wrong JSON type reads as null, an empty array or object, NaN or "".
//
// Every function is pure, thread-safe and never throws. Returned references point into the
// argument or to immutable process-lifetime values.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace bbo::scoring::internal {

// j[key] when j is an object holding `key`, else null.
const nlohmann::json& Get(const nlohmann::json& j, std::string_view key);

// j[i] when j is an array longer than i, else null.
const nlohmann::json& At(const nlohmann::json& j, size_t i);

// j when it is an array (object), else an empty array (object): safe to iterate.
const nlohmann::json& Arr(const nlohmann::json& j);
const nlohmann::json& Obj(const nlohmann::json& j);

// j as a double when it is a number, else NaN.
double Num(const nlohmann::json& j);

// j when it is a boolean, else false.
bool Bool(const nlohmann::json& j);

// j when it is a string; numbers and booleans as their JSON text; anything else "".
std::string Str(const nlohmann::json& j);

// Num of every element of Arr(j).
std::vector<double> Nums(const nlohmann::json& j);

// The last element of `v`, or NaN when `v` is empty.
double Last(const std::vector<double>& v);

}  // namespace bbo::scoring::internal

#endif  // BBO_REPORT_INTERNAL_JSON_VIEW_H_
