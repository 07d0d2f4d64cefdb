#include "report/internal/json_view.h"

#include <limits>

namespace bbo::scoring::internal {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const json& Null() {
  static const json* const kNull = new json();
  return *kNull;
}

const json& EmptyArray() {
  static const json* const kEmpty = new json(json::array());
  return *kEmpty;
}

const json& EmptyObject() {
  static const json* const kEmpty = new json(json::object());
  return *kEmpty;
}

}  // namespace

const json& Get(const json& j, std::string_view key) {
  if (!j.is_object()) return Null();
  auto it = j.find(key);
  return it == j.end() ? Null() : *it;
}

const json& At(const json& j, size_t i) { return j.is_array() && i < j.size() ? j[i] : Null(); }

const json& Arr(const json& j) { return j.is_array() ? j : EmptyArray(); }

const json& Obj(const json& j) { return j.is_object() ? j : EmptyObject(); }

double Num(const json& j) { return j.is_number() ? j.get<double>() : kNaN; }

bool Bool(const json& j) { return j.is_boolean() && j.get<bool>(); }

std::string Str(const json& j) {
  if (j.is_string()) return j.get_ref<const std::string&>();
  if (j.is_number() || j.is_boolean()) return j.dump();
  return "";
}

std::vector<double> Nums(const json& j) {
  std::vector<double> out;
  for (const json& v : Arr(j)) out.push_back(Num(v));
  return out;
}

double Last(const std::vector<double>& v) { return v.empty() ? kNaN : v.back(); }

}  // namespace bbo::scoring::internal
