#ifndef BBO_SERVER_EVALUATOR_H_
#define BBO_SERVER_EVALUATOR_H_

// Evaluator: evaluates the hidden objective on a batch of points on a bounded pool of threads
// inside the coordinator (objectives never enter the sandbox). An objective that throws or
// returns NaN yields +inf, like Bayesmark's run_study. Thread-safe; EvaluateBatch blocks until
// the whole batch is done.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/search_space.h"
#include "problems/problem.h"

namespace bbo {

struct EvaluatedPoint {
  double value = 0;        // +inf when the objective crashed or returned NaN
  double eval_time_s = 0;  // wall time of this evaluation
  std::string error;       // what the objective threw, if it did
  // The problem's held-out loss (Problem::EvaluateWithHeldOut; NaN mapped to +inf), unset
  // when it has none or the evaluation failed.
  std::optional<double> generalization;
};

class Evaluator {
 public:
  // `threads` >= 1 workers.
  explicit Evaluator(int threads);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Evaluates `problem` at every point (already canonicalized). Results are in input order.
  std::vector<EvaluatedPoint> EvaluateBatch(const Problem& problem,
                                            const std::vector<Point>& points);

  // One evaluation on the calling thread, with the same crash/NaN handling.
  static EvaluatedPoint EvaluateOne(const Problem& problem, const Point& point);

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool stop_ = false;                          // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace bbo

#endif  // BBO_SERVER_EVALUATOR_H_
