#include "common/heap_trimmer.h"

#include <malloc.h>

namespace bbo {

HeapTrimmer::HeapTrimmer(std::chrono::milliseconds period) {
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdBytes));
  thread_ = std::thread([this, period] { Loop(period); });
}

HeapTrimmer::~HeapTrimmer() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

long HeapTrimmer::trims() const {
  std::lock_guard<std::mutex> l(mu_);
  return trims_;
}

void HeapTrimmer::Loop(std::chrono::milliseconds period) {
  std::unique_lock<std::mutex> l(mu_);
  while (!wake_.wait_for(l, period, [this] { return stop_; })) {
    l.unlock();
    malloc_trim(0);
    l.lock();
    ++trims_;
  }
}

}  // namespace bbo
