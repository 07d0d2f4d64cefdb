#ifndef BBO_SERVER_STORE_WORKER_STORE_H_
#define BBO_SERVER_STORE_WORKER_STORE_H_

// WorkerStore: the registered workers and their last heartbeat. Part of the Store contract
// (server/store/store.h): every method is one transaction; implementations are thread-safe.

#include <string>

#include "absl/status/status.h"

namespace bbo {

class WorkerStore {
 public:
  virtual ~WorkerStore() = default;

  // AlreadyExists when `worker_id` is registered already.
  virtual absl::Status RegisterWorker(const std::string& worker_id, const std::string& hostname,
                                      int slots, double now) = 0;
  // Records a heartbeat at `now`. NotFound when the worker is unknown.
  virtual absl::Status TouchWorker(const std::string& worker_id, double now) = 0;
};

}  // namespace bbo

#endif  // BBO_SERVER_STORE_WORKER_STORE_H_
