#include "problems/evaluator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>

#include "absl/time/clock.h"

namespace bbo {

Evaluator::Evaluator(int threads, absl::Duration inline_threshold)
    : inline_threshold_(inline_threshold) {
  if (threads < 1) threads = 1;
  // The caller evaluates too: `threads` evaluations at once take threads - 1 pool threads.
  for (int i = 1; i < threads; ++i) threads_.emplace_back([this] { Run(); });
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

// The part of a batch evaluated in parallel. Shared by the caller and the pool's tasks: a task
// may start after the caller has returned, finds no index left and touches nothing else.
struct Evaluator::Fanout {
  const Problem* problem;
  const std::vector<Point>* points;
  std::vector<EvaluatedPoint>* out;
  std::atomic<size_t> next;
  size_t end;
  std::mutex mu;
  std::condition_variable done_cv;
  size_t remaining;  // points claimed but not finished, or not claimed; guarded by mu

  // Evaluates unclaimed points until none is left.
  void Work() {
    for (size_t i; (i = next.fetch_add(1)) < end;) {
      // Claimed: the caller waits for this point, so `points` and `out` are alive.
      (*out)[i] = EvaluateOne(*problem, (*points)[i]);
      std::lock_guard<std::mutex> l(mu);
      if (--remaining == 0) done_cv.notify_all();
    }
  }
};

void Evaluator::EvaluateInParallel(const Problem& problem, const std::vector<Point>& points,
                                   size_t first, std::vector<EvaluatedPoint>* out) {
  auto f = std::make_shared<Fanout>();
  f->problem = &problem;
  f->points = &points;
  f->out = out;
  f->next = first;
  f->end = points.size();
  f->remaining = points.size() - first;
  // The caller works too: one task fewer than points left.
  const size_t tasks = std::min(threads_.size(), f->remaining - 1);
  {
    std::lock_guard<std::mutex> l(mu_);
    for (size_t t = 0; t < tasks; ++t) tasks_.push_back([f] { f->Work(); });
  }
  for (size_t t = 0; t < tasks; ++t) cv_.notify_one();
  f->Work();
  std::unique_lock<std::mutex> l(f->mu);
  f->done_cv.wait(l, [&] { return f->remaining == 0; });
}

std::vector<EvaluatedPoint> Evaluator::EvaluateBatch(const Problem& problem,
                                                     const std::vector<Point>& points) {
  std::vector<EvaluatedPoint> out(points.size());
  if (threads_.empty() || points.size() < 2) {
    for (size_t i = 0; i < points.size(); ++i) out[i] = EvaluateOne(problem, points[i]);
    return out;
  }
  // A problem seen to be expensive before: the whole batch in parallel at once.
  if (Expensive(problem)) {
    EvaluateInParallel(problem, points, 0, &out);
    return out;
  }
  const double threshold_s = absl::ToDoubleSeconds(inline_threshold_);
  for (size_t i = 0; i < points.size(); ++i) {
    out[i] = EvaluateOne(problem, points[i]);
    // An expensive objective: the rest of the batch in parallel (with a pool to share it).
    if (out[i].eval_time_s >= threshold_s) {
      MarkExpensive(problem);
      if (i + 1 < points.size()) EvaluateInParallel(problem, points, i + 1, &out);
      break;
    }
  }
  return out;
}

bool Evaluator::Expensive(const Problem& problem) {
  std::lock_guard<std::mutex> l(mu_);
  return expensive_.count(&problem) > 0;
}

void Evaluator::MarkExpensive(const Problem& problem) {
  std::lock_guard<std::mutex> l(mu_);
  // A bounded memory of problems: forgetting one costs one inline evaluation.
  if (expensive_.size() >= kRememberedProblems) expensive_.clear();
  expensive_.insert(&problem);
}

}  // namespace bbo
