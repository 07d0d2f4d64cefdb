#ifndef BBO_SERVER_BASELINE_RUNNER_H_
#define BBO_SERVER_BASELINE_RUNNER_H_

// BaselineRunner: runs the coordinator's own random-search studies (the built-in baseline every
// score is normalized against) through the same StudyManager path as submissions, so they are
// stored and scored identically. Not thread-safe: call RunPending from one thread.

#include <atomic>

#include "absl/status/statusor.h"
#include "server/problem_set.h"
#include "server/store/job_store.h"
#include "server/study_manager.h"

namespace bbo {

class BaselineRunner {
 public:
  // Dependencies are not owned and must outlive the runner.
  BaselineRunner(JobStore* jobs, const ProblemSet* problems, StudyManager* studies, Clock* clock)
      : jobs_(jobs), problems_(problems), studies_(studies), clock_(clock) {}

  // Runs queued baseline jobs until none is left or `stop` becomes true. Returns the number of
  // studies run.
  absl::StatusOr<int> RunPending(const std::atomic<bool>* stop = nullptr);

 private:
  JobStore* jobs_;
  const ProblemSet* problems_;
  StudyManager* studies_;
  Clock* clock_;
};

}  // namespace bbo

#endif  // BBO_SERVER_BASELINE_RUNNER_H_
