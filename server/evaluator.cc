#include "server/evaluator.h"

#include <cmath>
#include <exception>
#include <latch>
#include <limits>

#include "absl/time/clock.h"

namespace bbo {

Evaluator::Evaluator(int threads) {
  if (threads < 1) threads = 1;
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

Evaluator::~Evaluator() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void Evaluator::Run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

EvaluatedPoint Evaluator::EvaluateOne(const Problem& problem, const Point& point) {
  EvaluatedPoint out;
  absl::Time start = absl::Now();
  try {
    ProblemEvaluation e = problem.EvaluateWithHeldOut(point);
    out.value = e.value;
    out.generalization = e.generalization;
    if (std::isnan(out.value)) {
      out.error = "objective returned NaN";
      out.value = std::numeric_limits<double>::infinity();
    }
    if (out.generalization && std::isnan(*out.generalization)) {
      out.generalization = std::numeric_limits<double>::infinity();
    }
  } catch (const std::exception& e) {
    out.error = e.what();
    out.value = std::numeric_limits<double>::infinity();
  } catch (...) {
    out.error = "objective threw an unknown exception";
    out.value = std::numeric_limits<double>::infinity();
  }
  out.eval_time_s = absl::ToDoubleSeconds(absl::Now() - start);
  return out;
}

std::vector<EvaluatedPoint> Evaluator::EvaluateBatch(const Problem& problem,
                                                     const std::vector<Point>& points) {
  std::vector<EvaluatedPoint> out(points.size());
  if (points.empty()) return out;
  // Cheap objectives are faster inline than through the pool; the pool is for expensive ones,
  // where the batch's points run in parallel.
  if (threads_.size() <= 1 || points.size() == 1) {
    for (size_t i = 0; i < points.size(); ++i) out[i] = EvaluateOne(problem, points[i]);
    return out;
  }
  std::latch done(static_cast<std::ptrdiff_t>(points.size()));
  {
    std::lock_guard<std::mutex> l(mu_);
    for (size_t i = 0; i < points.size(); ++i) {
      tasks_.push_back([&, i] {
        out[i] = EvaluateOne(problem, points[i]);
        done.count_down();
      });
    }
  }
  cv_.notify_all();
  done.wait();
  return out;
}

}  // namespace bbo
