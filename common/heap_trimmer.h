#ifndef BBO_COMMON_HEAP_TRIMMER_H_
#define BBO_COMMON_HEAP_TRIMMER_H_

// HeapTrimmer: keeps a long-running server's resident memory close to what it really holds
// (glibc malloc; for binaries, not libraries: it sets process-wide malloc options).
//
// glibc keeps what a process frees for reuse and gives little of it back. Under the soak run
// (bench/soak.py) the coordinator held 31 MB of live blocks but 205 MB resident after three
// minutes, spread over 16 per-thread arenas, and still growing. Two causes, two remedies:
//  * the mmap threshold is dynamic: once a 20 MiB request buffer is freed, every block smaller
//    than that comes from the arenas, where it fragments them. A fixed threshold keeps large
//    blocks in their own mappings, returned to the system when freed;
//  * free pages inside an arena go back to the system only through malloc_trim, which a thread
//    calls every `period`.
//
// Thread-safe; one per process.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace bbo {

class HeapTrimmer {
 public:
  // Blocks of at least this size get their own mapping.
  static constexpr size_t kMmapThresholdBytes = 256 << 10;

  explicit HeapTrimmer(std::chrono::milliseconds period);
  ~HeapTrimmer();  // stops the thread
  HeapTrimmer(const HeapTrimmer&) = delete;
  HeapTrimmer& operator=(const HeapTrimmer&) = delete;

  // How many times the thread has trimmed the heap so far.
  long trims() const;

 private:
  void Loop(std::chrono::milliseconds period);

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  long trims_ = 0;
  std::thread thread_;
};

}  // namespace bbo

#endif  // BBO_COMMON_HEAP_TRIMMER_H_
