#ifndef BBO_SCORING_PLACKETT_LUCE_INTERNAL_PARALLEL_H_
#define BBO_SCORING_PLACKETT_LUCE_INTERNAL_PARALLEL_H_

// Runs independent work items on several threads: the one helper of every parallel loop of the
// Plackett-Luce code. Items are handed out one at a time, so uneven items balance; a result that
// must not depend on the number of threads must not depend on which thread ran an item.

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace bbo::scoring::pl::internal {

// `requested` threads (0 = hardware concurrency), at most `work`, at least 1.
inline int ThreadCount(int requested, int work) {
  const int t = requested > 0 ? requested : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(t, work));
}

// f(0), ..., f(count - 1) on ThreadCount(threads, count) threads, the caller's among them.
template <typename F>
void ParallelFor(int count, int threads, F&& f) {
  std::atomic<int> next{0};
  auto work = [&] {
    for (int k; (k = next.fetch_add(1)) < count;) f(k);
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < ThreadCount(threads, count); ++k) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
}

}  // namespace bbo::scoring::pl::internal

#endif  // BBO_SCORING_PLACKETT_LUCE_INTERNAL_PARALLEL_H_
