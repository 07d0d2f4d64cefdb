// CMA-ES as an executable submission: a model-free optimizer that beats random search.
// It optimizes in the warped search space scaled to the unit cube; ints, bools and cats are
// rounded by SearchSpace::Unwarp. One CMA-ES generation per batch (lambda = batch size).

#include <memory>
#include <random>

#include "common/search_space.h"
#include "examples/cma-es-cpp/cma_es.h"
#include "examples/sdk/optimizer_io.h"

namespace {

struct Scaler {
  std::vector<std::pair<double, double>> bounds;
  std::vector<double> ToWarped(const Eigen::VectorXd& u) const {
    std::vector<double> w(bounds.size());
    for (size_t i = 0; i < bounds.size(); ++i) {
      w[i] = bounds[i].first + u[i] * (bounds[i].second - bounds[i].first);
    }
    return w;
  }
  Eigen::VectorXd ToUnit(const std::vector<double>& w) const {
    Eigen::VectorXd u(bounds.size());
    for (size_t i = 0; i < bounds.size(); ++i) {
      double span = bounds[i].second - bounds[i].first;
      u[i] = span > 0 ? (w[i] - bounds[i].first) / span : 0.5;
    }
    return u;
  }
};

}  // namespace

int main() {
  const uint64_t seed = bbo_sdk::Seed();
  std::optional<bbo::SearchSpace> space;
  std::unique_ptr<bbo_examples::CmaEs> es;
  Scaler scaler;
  std::vector<Eigen::VectorXd> proposed;
  std::vector<nlohmann::json> proposed_json;
  while (auto msg = bbo_sdk::Receive()) {
    const std::string type = msg->value("type", "");
    if (type == "start") {
      space = bbo_sdk::Start(*msg, "cma-es-cpp");
      if (!space) return 1;
      scaler.bounds = space->WarpedBounds();
      es = std::make_unique<bbo_examples::CmaEs>(space->dims(), msg->value("batch_size", 8), 0.3,
                                                 seed);
    } else if (type == "suggest") {
      proposed = es->Ask();
      const int n = msg->value("n", 8);
      proposed.resize(n, proposed.empty() ? Eigen::VectorXd::Constant(space->dims(), 0.5)
                                          : proposed.back());
      proposed_json.clear();
      nlohmann::json x = nlohmann::json::array();
      for (const auto& u : proposed) {
        proposed_json.push_back(bbo::PointToJson(space->Unwarp(scaler.ToWarped(u))));
        x.push_back(proposed_json.back());
      }
      bbo_sdk::Send({{"type", "suggestions"}, {"x", x}});
    } else if (type == "observe") {
      std::vector<Eigen::VectorXd> xs;
      std::vector<double> fs;
      const auto& x = (*msg)["x"];
      const auto& y = (*msg)["y"];
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (i < proposed_json.size() && x[i] == proposed_json[i]) {
          xs.push_back(proposed[i]);  // our own continuous sample
        } else {
          // Replaced by random search (or rounded): learn from the point actually evaluated.
          auto p = bbo::PointFromJson(x[i]);
          auto c = p.ok() ? space->Canonicalize(*p) : p.status();
          if (!c.ok()) continue;
          xs.push_back(scaler.ToUnit(space->Warp(*c)));
        }
        fs.push_back(bbo_sdk::Value(y[i]));
      }
      es->Tell(xs, fs);
      bbo_sdk::Send({{"type", "observed"}});
    } else if (type == "end") {
      return 0;
    }
  }
  return 0;
}
