#ifndef BBO_WORKER_FETCH_ONCE_H_
#define BBO_WORKER_FETCH_ONCE_H_

// FetchOnce: at most one fetch per key at a time (a submission's archive, a problem's file).
// Callers asking for a key that another caller is fetching now wait for that fetch instead of
// starting their own; callers of different keys never wait on each other. No lock is held
// while a fetch runs (fetches are RPCs of up to 64 MiB). Thread-safe.

#include <functional>
#include <future>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace bbo {

class FetchOnce {
 public:
  // Answers what the fetch (download and store) of `key` answers: `fetch` runs unless another
  // caller is fetching `key` now, in which case its result is returned when it is OK. When it
  // failed, `fetch` runs for this caller too (the other caller's failure may be its own: its
  // lease lost, say). `fetch` should find what an earlier fetch of `key` stored and answer it
  // without fetching again: FetchOnce keeps no results, only the fetches running now.
  absl::StatusOr<std::string> Get(const std::string& key,
                                  const std::function<absl::StatusOr<std::string>()>& fetch)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using Result = std::shared_future<absl::StatusOr<std::string>>;
  absl::Mutex mu_;
  // The fetches running now, by key.
  std::map<std::string, Result> running_ ABSL_GUARDED_BY(mu_);
};

}  // namespace bbo

#endif  // BBO_WORKER_FETCH_ONCE_H_
