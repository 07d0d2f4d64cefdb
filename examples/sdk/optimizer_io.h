#ifndef BBO_EXAMPLES_SDK_OPTIMIZER_IO_H_
#define BBO_EXAMPLES_SDK_OPTIMIZER_IO_H_

// The optimizer's side of bbo-arena's hosting protocol (docs/hosting-protocol.md): JSON lines on
// stdin/stdout. A tiny header for C++ submissions; logging goes to stderr.

#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

#include "common/search_space.h"
#include "nlohmann/json.hpp"

namespace bbo_sdk {

// The next JSON object from the worker, or nullopt at end of input.
inline std::optional<nlohmann::json> Receive() {
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) return j;
    std::cerr << "optimizer: ignoring malformed line\n";
  }
  return std::nullopt;
}

inline void Send(const nlohmann::json& msg) { std::cout << msg.dump() << std::endl; }

// An observed value: a number, or "inf" for a crashed evaluation.
inline double Value(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return std::numeric_limits<double>::infinity();
}

// The seed the worker passes (BBO_SEED), or `fallback`.
inline uint64_t Seed(uint64_t fallback = 12345) {
  const char* s = std::getenv("BBO_SEED");
  return s ? std::strtoull(s, nullptr, 10) : fallback;
}

// Answers a `start` message: parses its api_config and replies `ready` (or `error`, returning
// nullopt, when the search space cannot be parsed).
inline std::optional<bbo::SearchSpace> Start(const nlohmann::json& msg, const std::string& name) {
  auto parsed = bbo::SearchSpace::FromJson(msg.value("api_config", nlohmann::json()));
  if (!parsed.ok()) {
    Send({{"type", "error"}, {"message", std::string(parsed.status().message())}});
    return std::nullopt;
  }
  Send({{"type", "ready"}, {"name", name}, {"version", "1.0"}});
  return *std::move(parsed);
}

}  // namespace bbo_sdk

#endif  // BBO_EXAMPLES_SDK_OPTIMIZER_IO_H_
