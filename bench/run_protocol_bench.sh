#!/usr/bin/env bash
# Runs the protocol benchmark and prints the ratio (batch round trip / bare gRPC echo) measured
# in this one run. Usage: bench/run_protocol_bench.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
cmake --build "$BUILD" --target protocol_bench >/dev/null
out=$(mktemp)
"$BUILD/bench/protocol_bench" --benchmark_format=json --benchmark_out="$out" \
  --benchmark_out_format=json >/dev/null
/usr/bin/python3 - "$out" <<'PY'
import json, sys
runs = {b["name"].split("/")[0]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
echo = runs["BM_BareEcho"]["real_time"]
rt = runs["BM_BatchRoundTrip"]["real_time"]
unit = runs["BM_BareEcho"]["time_unit"]
print(f"bare gRPC echo       : {echo:10.1f} {unit} per call")
print(f"batch round trip     : {rt:10.1f} {unit} per batch (8 points, validation, evaluation, SQLite)")
print(f"ratio round trip/echo: {rt / echo:10.2f}x  (goal <= 3x)")
PY
rm -f "$out"
