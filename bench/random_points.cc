#include "bench/random_points.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nlohmann/json.hpp"

namespace bbo::bench {

std::vector<Param> ParseApiConfig(const std::string& json) {
  std::vector<Param> out;
  nlohmann::json j = nlohmann::json::parse(json);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const nlohmann::json& spec = it.value();
    Param p;
    p.name = it.key();
    p.type = spec.at("type").get<std::string>();
    if (p.type == "real" || p.type == "int") {
      p.log = spec.value("space", std::string("linear")) == "log";
      if (spec.contains("range")) {
        p.lo = spec["range"][0].get<double>();
        p.hi = spec["range"][1].get<double>();
        if (p.type == "int") {
          p.lo = std::ceil(p.lo);
          p.hi = std::floor(p.hi);
        }
      } else {
        for (const auto& v : spec.at("values")) p.numeric_values.push_back(v.get<double>());
      }
    } else if (p.type == "cat") {
      for (const auto& v : spec.at("values")) p.cat_values.push_back(v.get<std::string>());
    } else if (p.type != "bool") {
      throw std::runtime_error("unsupported parameter type " + p.type);
    }
    out.push_back(std::move(p));
  }
  return out;
}

void RandomPoint(const std::vector<Param>& space, std::mt19937_64& rng, bbo::v1::Suggestion* s) {
  auto& params = *s->mutable_params();
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const Param& p : space) {
    bbo::v1::ParamValue& v = params[p.name];
    if (p.type == "bool") {
      v.set_bool_value(u(rng) < 0.5);
    } else if (p.type == "cat") {
      v.set_cat_value(p.cat_values[rng() % p.cat_values.size()]);
    } else if (!p.numeric_values.empty()) {
      double x = p.numeric_values[rng() % p.numeric_values.size()];
      if (p.type == "int") {
        v.set_int_value(static_cast<int64_t>(x));
      } else {
        v.set_real_value(x);
      }
    } else if (p.type == "int") {
      int64_t lo = static_cast<int64_t>(p.lo), hi = static_cast<int64_t>(p.hi);
      v.set_int_value(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
    } else {
      double x = p.log ? std::exp(std::log(p.lo) + u(rng) * (std::log(p.hi) - std::log(p.lo)))
                       : p.lo + u(rng) * (p.hi - p.lo);
      v.set_real_value(std::clamp(x, p.lo, p.hi));
    }
  }
}

}  // namespace bbo::bench
