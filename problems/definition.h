#ifndef BBO_PROBLEMS_DEFINITION_H_
#define BBO_PROBLEMS_DEFINITION_H_

// ProblemDefinition: how to build one problem of the problem library again, on another host. The
// coordinator hands it to the worker that holds a job's lease, so that the worker evaluates the
// hidden objective itself (problems/library.h builds it); the coordinator then checks that the
// worker built the identical problem by comparing signatures (problems/signature.h). The
// optimizer never sees it. A plain value type.

#include <cstdint>
#include <string>
#include <string_view>

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
  // suite "generated" only: SuiteOptions::generated_family and generated_tasks.
  std::string generated_family;
  int generated_tasks = 0;
  // suite "generated" loaded from a design file (`bbo tasks design`): the file's content
  // address ("<bytes>-<FNV-1a 64 hex>"), which the worker fetches from the coordinator
  // (FetchProblemFiles) and keeps under that name; "" = no file.
  std::string files_digest;
  // Where the file is on this host: the coordinator's design_file, or the worker's fetched
  // copy. Never sent.
  std::string files_path;

  // One line naming everything above but files_path, e.g. "sklearn/SVM_digits_nll@0": a cache
  // key and a name for logs.
  std::string Key() const;

  friend bool operator==(const ProblemDefinition&, const ProblemDefinition&) = default;
};

// The content address of a problem file (ProblemDefinition::files_digest).
std::string ProblemFilesDigest(std::string_view bytes);

}  // namespace bbo

#endif  // BBO_PROBLEMS_DEFINITION_H_
