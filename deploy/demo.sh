#!/usr/bin/env bash
# The main job: a full local competition on the embedded defaults.
#   builds everything, starts bbo-server on 127.0.0.1 with a SQLite file, two sandboxed
#   bbo-workers, submits the three example optimizers, runs the practice suite with several
#   trials, prints the leaderboard, leaves demo-out/arena.sqlite, demo-out/leaderboard.json and
#   the HTML scoring report demo-out/report/report.html,
#   and shuts everything down.
# Idempotent: every run starts from a fresh demo-out/. Environment: TRIALS (default 5),
# PORT (default 50051), WORKER_FLAGS (e.g. --insecure-no-sandbox on hosts without user
# namespaces).
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/build.sh

TRIALS=${TRIALS:-5}
PORT=${PORT:-50051}
OUT=demo-out
BIN=build
rm -rf "$OUT"
mkdir -p "$OUT"
SERVER="127.0.0.1:$PORT"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# Identities (docs/organizers.md): a token per team, one for the workers, one for the organizer.
# Only keyed hashes are stored (in arena.sqlite, keyed by arena.sqlite.secret); the tokens
# themselves live in these 0600 files.
echo "== issuing tokens: teams py, cpp and cma, the workers, the organizer ($OUT/tokens/)"
mkdir -p "$OUT/tokens"
chmod 700 "$OUT/tokens"
umask 077
for who in "team py" "team cpp" "team cma" "worker demo-workers" "organizer demo"; do
  read -r kind name <<<"$who"
  "$BIN/client/bbo" admin --db "$OUT/arena.sqlite" "$kind" add "$name" >"$OUT/tokens/$name" 2>/dev/null
done
umask 022

echo "== starting bbo-server on $SERVER (SQLite: $OUT/arena.sqlite)"
"$BIN/server/bbo-server" --listen="$SERVER" --db="$OUT/arena.sqlite" \
  --default_trials="$TRIALS" --port_file="$OUT/port" >"$OUT/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [ -f "$OUT/port" ] && break; sleep 0.1; done
[ -f "$OUT/port" ] || { echo "bbo-server did not start:"; cat "$OUT/server.log"; exit 1; }

for i in 1 2; do
  echo "== starting bbo-worker $i"
  # shellcheck disable=SC2086  # WORKER_FLAGS holds several flags: split on purpose
  "$BIN/worker/bbo-worker" --coordinator="$SERVER" --work_dir="$OUT/worker$i" \
    --token_file="$OUT/tokens/demo-workers" \
    ${WORKER_FLAGS:-} >"$OUT/worker$i.log" 2>&1 &
  pids+=($!)
done

echo "== submitting the example optimizers ($TRIALS trials per problem)"
"$BIN/client/bbo" --token_file "$OUT/tokens/py" submit examples/random-search-py \
  --name random-search-py --trials "$TRIALS" --server "$SERVER"
"$BIN/client/bbo" --token_file "$OUT/tokens/cpp" submit "$BIN/examples/random-search-cpp" \
  --name random-search-cpp --trials "$TRIALS" --server "$SERVER"
"$BIN/client/bbo" --token_file "$OUT/tokens/cma" submit "$BIN/examples/cma-es-cpp" \
  --name cma-es-cpp --trials "$TRIALS" --server "$SERVER"

echo "== running (progress every 5 s)"
start=$(date +%s)
while true; do
  status=$("$BIN/client/bbo" --token_file "$OUT/tokens/demo" status --json --server "$SERVER")
  summary=$(echo "$status" | /usr/bin/python3 -c '
import json, sys
subs = json.load(sys.stdin)
done = sum(s["jobs_done"] for s in subs)
total = sum(s["jobs_total"] for s in subs)
print(done, total, " ".join("%s:%d/%d" % (s["name"], s["jobs_done"], s["jobs_total"]) for s in subs))')
  read -r ndone total detail <<<"$summary"
  echo "  [$(( $(date +%s) - start )) s] $ndone/$total studies  $detail"
  [ "$ndone" -ge "$total" ] && break
  if [ $(( $(date +%s) - start )) -gt 1800 ]; then echo "demo timed out"; exit 1; fi
  sleep 5
done

echo
"$BIN/client/bbo" leaderboard --server "$SERVER"
"$BIN/client/bbo" leaderboard --json --server "$SERVER" >"$OUT/leaderboard.json"
"$BIN/client/bbo" export --db "$OUT/arena.sqlite" --out "$OUT/results.csv"
"$BIN/client/bbo" score "$OUT/results.csv" --random-search random-search-baseline --json \
  >"$OUT/scores.json" 2>/dev/null
# The full report from the server's scoring service: HTML with plots, and every number as CSV.
"$BIN/client/bbo" report --server "$SERVER" --format html --out "$OUT/report" >/dev/null
"$BIN/client/bbo" report --server "$SERVER" --format csv --out "$OUT/report" >/dev/null
echo
echo "== results: $OUT/arena.sqlite (every suggestion, value and timing), $OUT/leaderboard.json,"
echo "   $OUT/results.csv and $OUT/scores.json (offline re-scoring: error bars, bootstrap ranks,"
echo "   Mann-Whitney/Borda), $OUT/report/report.html (open it in a browser) and its CSV tables"
echo "== shutting down"
