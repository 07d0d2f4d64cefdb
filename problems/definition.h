#ifndef BBO_PROBLEMS_DEFINITION_H_
#define BBO_PROBLEMS_DEFINITION_H_

// ProblemDefinition: how to build one problem of the problem library again, on another host. The
// coordinator hands it to the worker that holds a job's lease, so that the worker evaluates the
// hidden objective itself (problems/library.h builds it); the coordinator then checks that the
// worker built the identical problem by comparing signatures (problems/signature.h). The
// optimizer never sees it. A plain value type.

#include <cstdint>
#include <string>

namespace bbo {

struct ProblemDefinition {
  // The suite (problems/registry.h): "practice", "synthetic", "bbob", "ml", "sklearn",
  // "generated", or "test" (the fault-injecting problems of problems/test_problems.h, for tests
  // and benchmarks: "test_slow" sleeps `seed` milliseconds per evaluation).
  std::string suite;
  // The problem's name in the suite.
  std::string name;
  // The suite's instance seed (SuiteOptions::seed).
  uint64_t seed = 0;
  // suite "generated" only: SuiteOptions::generated_family and generated_tasks. A generated
  // suite loaded from a design file has no definition (the file stays on the coordinator).
  std::string generated_family;
  int generated_tasks = 0;

  // One line naming everything above, e.g. "sklearn/SVM_digits_nll@0": a cache key and a name
  // for logs.
  std::string Key() const;

  friend bool operator==(const ProblemDefinition&, const ProblemDefinition&) = default;
};

}  // namespace bbo

#endif  // BBO_PROBLEMS_DEFINITION_H_
