#ifndef BBO_PROBLEMS_EVALUATOR_H_
#define BBO_PROBLEMS_EVALUATOR_H_

// Evaluator: evaluates the hidden objective on a batch of points inside the coordinator
// (objectives never enter the sandbox). An objective that throws or returns NaN yields +inf,
// like Bayesmark's run_study. Thread-safe; EvaluateBatch blocks until the whole batch is done.
//
// Cheap objectives run on the calling thread: handing a point to another thread costs more
// (a wake-up, ~10-30 us) than a test function or a small model costs to evaluate. A batch is
// evaluated in order on the caller while each point takes less than `inline_threshold`; once
// one takes longer, the objective is expensive: the batch's remaining points, and every later
// batch of that problem from its first point, run in parallel on a pool of threads - 1
// threads, the caller evaluating its share alongside them (`threads` evaluations at once).

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
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
  // `threads` pool workers (values below 1 mean 1); with 1 every batch runs on the caller.
  // `inline_threshold`: an evaluation taking at least this long sends the rest of its batch to
  // the pool (1 ms: well above a test function, the wake-ups of a hand-off are then < 5 %).
  explicit Evaluator(int threads, absl::Duration inline_threshold = absl::Milliseconds(1));
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Evaluates `problem` at every point (already canonicalized). Results are in input order.
  std::vector<EvaluatedPoint> EvaluateBatch(const Problem& problem,
                                            const std::vector<Point>& points);

  // One evaluation on the calling thread, with the same crash/NaN handling.
  static EvaluatedPoint EvaluateOne(const Problem& problem, const Point& point);

 private:
  struct Fanout;
  void Run();
  // Evaluates points [first, end) of `out` on the pool and the calling thread.
  void EvaluateInParallel(const Problem& problem, const std::vector<Point>& points, size_t first,
                          std::vector<EvaluatedPoint>* out);
  // Whether `problem` took inline_threshold or more before (remembered by address).
  bool Expensive(const Problem& problem);
  void MarkExpensive(const Problem& problem);
  static constexpr size_t kRememberedProblems = 4096;

  const absl::Duration inline_threshold_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool stop_ = false;                          // guarded by mu_
  std::set<const Problem*> expensive_;         // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace bbo

#endif  // BBO_PROBLEMS_EVALUATOR_H_
