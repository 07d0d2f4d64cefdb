// Random search as an executable submission: samples uniformly in the warped search space.

#include <random>

#include "common/search_space.h"
#include "examples/sdk/optimizer_io.h"

int main() {
  std::mt19937_64 rng(bbo_sdk::Seed());
  std::optional<bbo::SearchSpace> space;
  while (auto msg = bbo_sdk::Receive()) {
    const std::string type = msg->value("type", "");
    if (type == "start") {
      space = bbo_sdk::Start(*msg, "random-search-cpp");
      if (!space) return 1;
    } else if (type == "suggest") {
      nlohmann::json x = nlohmann::json::array();
      for (const bbo::Point& p : space->SampleRandom(msg->value("n", 1), rng)) {
        x.push_back(bbo::PointToJson(p));
      }
      bbo_sdk::Send({{"type", "suggestions"}, {"x", x}});
    } else if (type == "observe") {
      bbo_sdk::Send({{"type", "observed"}});
    } else if (type == "end") {
      return 0;
    }
  }
  return 0;
}
