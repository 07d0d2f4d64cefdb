#include "common/heap_trimmer.h"

#include <malloc.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace bbo {
namespace {

long RssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// Fragments the heap as a server does: a 20 MiB buffer (which, freed, raises glibc's dynamic
// mmap threshold), then 4,000 blocks of 32 KiB of which every other one stays allocated, so
// the freed half cannot be returned by shrinking the heap's top.
std::vector<char*> Fragment() {
  char* big = static_cast<char*>(malloc(20 << 20));
  for (size_t i = 0; i < (20u << 20); i += 4096) big[i] = 1;
  free(big);
  std::vector<char*> blocks;
  for (int i = 0; i < 4000; ++i) {
    char* b = static_cast<char*>(malloc(32 << 10));
    for (size_t j = 0; j < (32u << 10); j += 4096) b[j] = 1;
    blocks.push_back(b);
  }
  std::vector<char*> kept;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i % 2 == 0) {
      free(blocks[i]);
    } else {
      kept.push_back(blocks[i]);
    }
  }
  return kept;
}

// The trimmer's thread gives the freed half (~62 MiB) back to the system within its period;
// without it the pages stay resident.
TEST(HeapTrimmerTest, FreedPagesInsideTheHeapGoBackToTheSystem) {
  std::vector<char*> kept = Fragment();
  const long fragmented = RssKb();
  {
    HeapTrimmer trimmer(std::chrono::milliseconds(50));
    for (int i = 0; i < 100 && trimmer.trims() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_GE(trimmer.trims(), 2);
  }
  const long trimmed = RssKb();
  EXPECT_LT(trimmed, fragmented - (40 << 10)) << fragmented << " kB -> " << trimmed << " kB";
  for (char* b : kept) free(b);
}

TEST(HeapTrimmerTest, StopsAtOnceWhenDestroyed) {
  const auto start = std::chrono::steady_clock::now();
  { HeapTrimmer trimmer(std::chrono::hours(1)); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace bbo
