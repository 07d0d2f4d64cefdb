#!/usr/bin/env bash
# `bbo local` end to end for one native random-search study on branin (plus its one baseline
# trial): wall time as a ratio to the CPU time it used (its own and its children's: the
# embedded coordinator, the worker, bubblewrap and the optimizer), median of N runs. The
# difference is time spent waiting; the goal is <= 3x.
#
#   bench/local_wall_bench.sh [build-dir=build] [runs=9]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
runs="${2:-9}"
bbo="$build/client/bbo"
optimizer="$build/examples/random-search-cpp"
if [ ! -x "$bbo" ] || [ ! -x "$optimizer/optimizer" ]; then
  echo "local_wall_bench: build first (missing $bbo or $optimizer/optimizer)" >&2
  exit 2
fi
/usr/bin/python3 - "$bbo" "$optimizer" "$runs" <<'PY'
import resource, statistics, subprocess, sys, time
bbo, optimizer, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmd = [bbo, "local", optimizer, "--problems", "branin", "--trials", "1", "--baseline-trials", "1"]
walls, cpus = [], []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    walls.append(wall)
    cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
w, c = statistics.median(walls), statistics.median(cpus)
print(f"bbo local, 1 native random-search study on branin (+1 baseline trial), {runs} runs")
print(f"median wall {w * 1e3:.0f} ms, median CPU {c * 1e3:.0f} ms: wall/CPU = {w / c:.2f}x "
      f"(goal <= 3x)")
PY
