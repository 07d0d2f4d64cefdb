#ifndef BBO_PROBLEMS_LIBRARY_H_
#define BBO_PROBLEMS_LIBRARY_H_

// ProblemLibrary: builds problems from their definitions (problems/definition.h) with the
// problem registry, as the coordinator built them, and keeps the most recently used ones with
// their signatures (a worker builds a problem once and evaluates it for every study of it). A
// problem can hold processes and data (a scikit-learn problem keeps a Python process per
// evaluation slot, ~120 MiB each), so at most `max_problems` are kept: the least recently used
// one is dropped when another is built (a study still using it keeps it alive until it ends).
// Signatures are remembered for every problem ever built. A suite that builds all its problems
// at once (synthetic, bbob, ml, generated) keeps the ones of its build that fit.
//
// Thread-safe. Builds run outside the lock; two callers asking for the same problem at once may
// both build it, and the second result is dropped.

#include <algorithm>
#include <cstdint>
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
  // `max_problems` (>= 1): problems kept built.
  explicit ProblemLibrary(SuiteOptions host = SuiteOptions(), size_t max_problems = 16)
      : host_(std::move(host)), max_problems_(std::max<size_t>(1, max_problems)) {}
  ProblemLibrary(const ProblemLibrary&) = delete;
  ProblemLibrary& operator=(const ProblemLibrary&) = delete;

  struct Built {
    // Shared with the library (not owned when Add()ed): keep it while evaluating.
    std::shared_ptr<const Problem> problem;
    std::string signature;  // ProblemSignature(*problem)
  };
  // The problem of `definition`, built on first use. NotFound for an unknown suite or a name
  // that is not in it; the suite's own errors (a missing scikit-learn, say) as they come.
  absl::StatusOr<Built> Get(const ProblemDefinition& definition);

  // A problem already built in this process (bbo local's coordinator and worker share one): Get
  // returns it for `definition` instead of building another. Not owned; must outlive the
  // library's use. Never dropped.
  void Add(const ProblemDefinition& definition, const Problem* problem);
  // Problems kept built now.
  size_t size();

 private:
  absl::StatusOr<std::vector<std::unique_ptr<Problem>>> Build(
      const ProblemDefinition& definition) const;

  // Drops least recently used built problems until at most max_problems_ are kept.
  void Evict() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const SuiteOptions host_;
  const size_t max_problems_;
  absl::Mutex mu_;
  struct Entry {
    std::shared_ptr<const Problem> problem;
    bool added = false;  // Add()ed: never dropped
    uint64_t last_used = 0;
  };
  // By ProblemDefinition::Key().
  std::map<std::string, Entry> by_key_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> signatures_ ABSL_GUARDED_BY(mu_);
  uint64_t clock_ ABSL_GUARDED_BY(mu_) = 0;
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
