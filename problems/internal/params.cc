#include "problems/internal/params.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"

namespace bbo::problems_internal {
namespace {

template <typename T>
const T& Get(const Point& p, const std::string& name, const char* type_name) {
  auto it = p.find(name);
  if (it == p.end()) {
    throw std::invalid_argument(absl::StrCat("missing parameter \"", name, "\""));
  }
  const T* v = std::get_if<T>(&it->second);
  if (v == nullptr) {
    throw std::invalid_argument(absl::StrCat("parameter \"", name, "\" is not a ", type_name, ": ",
                                             ParamValueToString(it->second)));
  }
  return *v;
}

}  // namespace

double RealParam(const Point& p, const std::string& name) { return Get<double>(p, name, "real"); }

int64_t IntParam(const Point& p, const std::string& name) { return Get<int64_t>(p, name, "int"); }

bool BoolParam(const Point& p, const std::string& name) { return Get<bool>(p, name, "bool"); }

const std::string& CatParam(const Point& p, const std::string& name) {
  return Get<std::string>(p, name, "cat");
}

std::vector<double> RealVector(const Point& p, int dims) {
  std::vector<double> x;
  x.reserve(dims);
  for (int i = 0; i < dims; ++i) x.push_back(RealParam(p, absl::StrCat("x", i)));
  return x;
}

nlohmann::json BoxConfig(const std::vector<std::pair<double, double>>& bounds) {
  nlohmann::json config = nlohmann::json::object();
  for (size_t i = 0; i < bounds.size(); ++i) {
    config[absl::StrCat("x", i)] = {
        {"type", "real"}, {"space", "linear"}, {"range", {bounds[i].first, bounds[i].second}}};
  }
  return config;
}

nlohmann::json BoxConfig(int dims, double lo, double hi) {
  return BoxConfig(std::vector<std::pair<double, double>>(dims, {lo, hi}));
}

}  // namespace bbo::problems_internal
