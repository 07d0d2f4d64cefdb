// What reading an optimizer's output costs the worker against what writing it cost the
// optimizer, for a flood of empty lines (issue 24: the worker spent 23-28 CPU-s per GiB of bare
// newlines, about 1,000 times the optimizer's own cost, outside the study's quota). Reads N MiB
// of empty lines (and, for comparison, of 1 KiB lines) from a child's stdout with
// Subprocess::ReadLine and from its stderr with the line callback, and prints both sides' CPU
// time and their ratio, measured in this one run. Exits 1 when a case fails (a short read, an
// error) or the amplification is over the goal (<= 20x).
//   build/bench/subprocess_lines_bench [MiB=64]
#include <sys/resource.h>

#include <cstdio>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/subprocess.h"

namespace {

double CpuSeconds(int who = RUSAGE_SELF) {
  rusage u{};
  getrusage(who, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Cost {
  double reader = -1;  // CPU seconds of this process (the worker's side)
  double writer = 0;   // CPU seconds of the child that wrote the lines (the optimizer's side)
};

// What reading `mib` MiB of lines `line_bytes` long (newline included) from the child's stdout
// (`on_stdout`) or stderr costs; reader -1 on a failure.
Cost Read(int mib, int line_bytes, bool on_stdout) {
  const std::string fill = line_bytes > 1 ? absl::StrCat("tr '\\000' x | fold -w ", line_bytes - 1)
                                          : "tr '\\000' '\\n'";
  bbo::SubprocessOptions o;
  o.argv = {"/bin/sh", "-c",
            absl::StrCat("head -c ", static_cast<long long>(mib) << 20, " /dev/zero | ", fill,
                         on_stdout ? "" : " >&2")};
  o.env = {"PATH=/usr/bin:/bin"};
  // Counted on the drain thread (stderr) or this one (stdout); a callback as cheap as can be, so
  // that what is measured is the line splitting.
  std::atomic<long long> lines{0};
  if (!on_stdout) {
    o.on_stderr_line = [&](absl::string_view) { lines.fetch_add(1, std::memory_order_relaxed); };
  }
  const double start = CpuSeconds();
  const double children = CpuSeconds(RUSAGE_CHILDREN);
  absl::StatusOr<std::unique_ptr<bbo::Subprocess>> p = bbo::Subprocess::Spawn(std::move(o));
  if (!p.ok()) return {};
  const absl::Time deadline = absl::Now() + absl::Minutes(10);
  if (on_stdout) {
    while (true) {
      absl::StatusOr<std::string> line = (*p)->ReadLine(deadline, 1 << 20);
      if (!line.ok()) break;
      ++lines;
    }
  }
  if (!(*p)->WaitExit(deadline) || !(*p)->WaitStderrClosed(deadline)) return {};
  Cost cost{CpuSeconds() - start, CpuSeconds(RUSAGE_CHILDREN) - children};
  const long long expected = (static_cast<long long>(mib) << 20) / line_bytes;
  if (lines.load() < expected) {
    std::fprintf(stderr, "subprocess_lines_bench: read %lld lines, expected %lld\n", lines.load(),
                 expected);
    return {};
  }
  return cost;
}

}  // namespace

int main(int argc, char** argv) {
  const int mib = argc > 1 ? std::atoi(argv[1]) : 64;
  if (mib < 1) {
    std::fprintf(stderr, "usage: subprocess_lines_bench [MiB >= 1]\n");
    return 2;
  }
  bool ok = true;
  for (bool on_stdout : {true, false}) {
    const Cost empty = Read(mib, 1, on_stdout);
    const Cost long_lines = Read(mib, 1024, on_stdout);
    if (empty.reader < 0 || long_lines.reader < 0) {
      std::fprintf(stderr, "subprocess_lines_bench: a case failed\n");
      return 1;
    }
    // The amplification: what the reader spends per CPU-second the writer spent on the same
    // flood (a floor of 10 ms on the writer's side: below it the clock cannot tell).
    const double amplification = empty.reader / std::max(empty.writer, 0.01);
    std::printf("%s: %d MiB of empty lines: reader %.3f CPU-s (%.1f MB/s), writer %.3f CPU-s: "
                "amplification %.1fx (goal <= 20x); of 1 KiB lines: reader %.3f CPU-s\n",
                on_stdout ? "stdout (ReadLine)" : "stderr (line callback)", mib, empty.reader,
                (mib * 1.048576) / std::max(empty.reader, 1e-3), empty.writer, amplification,
                long_lines.reader);
    ok = ok && amplification <= 20;
  }
  return ok ? 0 : 1;
}
