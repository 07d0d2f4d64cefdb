#!/bin/bash
# Runs bbo-worker.sh outside HTCondor with a fake bbo-worker: the worker gets SLOTS, the drain
# and idle flags and the transferred secrets of the scratch folder, and it replaces the wrapper,
# so the kill_sig HTCondor sends to the job (SIGTERM) reaches the worker itself. Run by
# deploy/lint.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cat >"$tmp/fake-worker" <<'FAKE'
#!/bin/bash
printf '%s\n' "$@" >"$FAKE_DIR/args"
echo $$ >"$FAKE_DIR/pid"
trap 'echo TERM >"$FAKE_DIR/signal"; exit 0' TERM
for _ in $(seq 300); do sleep 0.1; done
exit 9
FAKE
chmod +x "$tmp/fake-worker"
scratch="$tmp/scratch"
mkdir -p "$scratch"
for f in ca.pem worker.token worker.pem worker.key; do : >"$scratch/$f"; done

(cd "$scratch" && exec env BBO_COORDINATOR=arena.test:50051 BBO_WORKER="$tmp/fake-worker" \
   _CONDOR_SCRATCH_DIR="$scratch" FAKE_DIR="$tmp" \
   bash "$here/bbo-worker.sh" 4 1400 600 >"$tmp/log" 2>&1) &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
[ -s "$tmp/args" ] || { fail "the fake worker never started"; cat "$tmp/log"; }
[ "$(cat "$tmp/pid" 2>/dev/null)" = "$pid" ] || fail "bbo-worker.sh did not exec the worker"
for flag in --coordinator=arena.test:50051 --slots=4 --drain_timeout_s=1400 \
  --exit_when_idle_s=600 --eval_slots=4 --ca_file="$scratch/ca.pem" \
  --token_file="$scratch/worker.token" \
  --cert_file="$scratch/worker.pem" --key_file="$scratch/worker.key" --work_dir="$scratch/work" \
  --cgroups=required --cgroup_favordynmods=false; do
  grep -qx -- "$flag" "$tmp/args" || fail "worker not given $flag: $(tr '\n' ' ' <"$tmp/args")"
done
kill -TERM "$pid"
wait "$pid"
status=$?
[ "$status" -eq 0 ] || fail "exit status $status after SIGTERM, expected the worker's 0"
[ "$(cat "$tmp/signal" 2>/dev/null)" = TERM ] || fail "the worker did not get SIGTERM"

bash "$here/bbo-worker.sh" 4 1400 >/dev/null 2>&1 && fail "accepted two arguments"

[ "$failures" -eq 0 ] && echo "bbo-worker_test: ok"
[ "$failures" -eq 0 ]
