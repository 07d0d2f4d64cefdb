#!/usr/bin/env bash
# Runs the protocol benchmark and prints the ratio (batch round trip / bare gRPC echo) measured
# in this one run. Usage: bench/run_protocol_bench.sh [BUILD_DIR] [--smoke]
# --smoke: each case for a fraction of a second (ctest's protocol_bench_smoke). A case that
# errors fails the run (exit 1) instead of printing a number.
set -euo pipefail
BUILD=${1:-build}
min_time=()
if [ "${2:-}" = "--smoke" ]; then min_time=(--benchmark_min_time=0.05); fi
# Under ctest (--smoke) the build is done; by hand, bring it up to date first.
if [ ${#min_time[@]} -eq 0 ] || [ ! -x "$BUILD/bench/protocol_bench" ]; then
  cmake --build "$BUILD" --target protocol_bench >/dev/null
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$BUILD/bench/protocol_bench" --benchmark_format=json --benchmark_out="$out" \
  --benchmark_out_format=json "${min_time[@]}" >/dev/null
/usr/bin/python3 - "$out" <<'PY'
import json, sys
benchmarks = json.load(open(sys.argv[1]))["benchmarks"]
failed = [f'{b["name"]}: {b.get("error_message", "")}' for b in benchmarks if b.get("error_occurred")]
if failed:
    sys.exit("protocol_bench: a case failed, no ratio: " + "; ".join(failed))
runs = {b["name"].split("/")[0]: b for b in benchmarks}
if "BM_BareEcho" not in runs or "BM_BatchRoundTrip" not in runs:
    sys.exit("protocol_bench: a case is missing from the run")
echo = runs["BM_BareEcho"]["real_time"]
rt = runs["BM_BatchRoundTrip"]["real_time"]
unit = runs["BM_BareEcho"]["time_unit"]
print(f"bare gRPC echo       : {echo:10.1f} {unit} per call")
print(f"batch round trip     : {rt:10.1f} {unit} per batch (8 points, validation, evaluation, SQLite)")
print(f"ratio round trip/echo: {rt / echo:10.2f}x  (goal <= 3x)")
PY
