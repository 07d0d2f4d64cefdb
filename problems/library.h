#ifndef BBO_PROBLEMS_LIBRARY_H_
#define BBO_PROBLEMS_LIBRARY_H_

// ProblemLibrary: builds problems from their definitions (problems/definition.h) with the
// problem registry, as the coordinator built them, and keeps each with its signature for the
// library's lifetime (a worker builds a problem once and evaluates it for every study of it).
// A suite that builds all its problems at once (synthetic, bbob, ml, generated) is built once per
// seed and kept whole.
//
// Thread-safe. Builds run outside the lock; two callers asking for the same problem at once may
// both build it, and the second result is dropped.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "problems/definition.h"
#include "problems/problem.h"
#include "problems/registry.h"

namespace bbo {

class ProblemLibrary {
 public:
  // `host`: what this host's suites use (python_dir, max_processes_per_problem); the seeds and
  // suite names come from each definition.
  explicit ProblemLibrary(SuiteOptions host = SuiteOptions()) : host_(std::move(host)) {}
  ProblemLibrary(const ProblemLibrary&) = delete;
  ProblemLibrary& operator=(const ProblemLibrary&) = delete;

  struct Built {
    const Problem* problem = nullptr;  // owned by the library (or by whoever Add()ed it)
    std::string signature;             // ProblemSignature(*problem)
  };
  // The problem of `definition`, built on first use. NotFound for an unknown suite or a name
  // that is not in it; the suite's own errors (a missing scikit-learn, say) as they come.
  absl::StatusOr<Built> Get(const ProblemDefinition& definition);

  // A problem already built in this process (bbo local's coordinator and worker share one): Get
  // returns it for `definition` instead of building another. Not owned; must outlive the
  // library's use.
  void Add(const ProblemDefinition& definition, const Problem* problem);

 private:
  absl::StatusOr<std::vector<std::unique_ptr<Problem>>> Build(
      const ProblemDefinition& definition) const;

  const SuiteOptions host_;
  absl::Mutex mu_;
  // By ProblemDefinition::Key(). Built problems are owned by `owned_`.
  std::map<std::string, Built> by_key_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Problem>> owned_ ABSL_GUARDED_BY(mu_);
};

// How a worker builds each of the problems `names` again, by name: problems built by MakeSuite
// (`suite`; also "practice" and "test") or MakeSuiteFromFile (`suite_file`, which wins when set)
// with `options`. A problem that cannot be rebuilt on another host (a generated suite loaded
// from a design file, which stays on the coordinator) gets no definition, and the coordinator
// evaluates it. NotFound / InvalidArgument for a suite file that cannot be read.
absl::StatusOr<std::map<std::string, ProblemDefinition>> SuiteDefinitions(
    const std::string& suite, const std::string& suite_file, const SuiteOptions& options,
    const std::vector<std::string>& names);

}  // namespace bbo

#endif  // BBO_PROBLEMS_LIBRARY_H_
