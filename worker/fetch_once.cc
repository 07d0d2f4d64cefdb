#include "worker/fetch_once.h"

#include <utility>

namespace bbo {

absl::StatusOr<std::string> FetchOnce::Get(
    const std::string& key, const std::function<absl::StatusOr<std::string>()>& fetch) {
  while (true) {
    std::promise<absl::StatusOr<std::string>> mine;
    Result other;
    {
      absl::MutexLock l(&mu_);
      auto [it, inserted] = running_.try_emplace(key);
      if (inserted) {
        it->second = mine.get_future().share();
      } else {
        other = it->second;
      }
    }
    if (other.valid()) {
      // Another caller is fetching the key: wait for it, no lock held. Its failure is not
      // taken as this caller's: this caller then fetches (or waits for whoever leads now).
      const absl::StatusOr<std::string>& result = other.get();
      if (result.ok()) return result;
      continue;
    }
    absl::StatusOr<std::string> result = fetch();
    {
      absl::MutexLock l(&mu_);
      running_.erase(key);
    }
    mine.set_value(result);
    return result;
  }
}

}  // namespace bbo
