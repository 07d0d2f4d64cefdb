#!/bin/bash
# Runs bbo-workers.sbatch outside Slurm, as the batch shell, with a fake bbo-worker: the worker
# gets one slot per SLURM_CPUS_PER_TASK and the flags for the secrets, drain and idle exit; a
# SIGTERM sent to the batch shell (what --signal=B:TERM does) reaches the worker, the script
# waits for its drain and exits with its status; a worker that ends by itself ends the task;
# the scratch folder is removed. Run by deploy/lint.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The fake worker records its flags, and on SIGUSR1 (the script's drain) records it, "drains"
# and exits 0; on SIGTERM records it and exits 0; without, it exits $FAKE_EXIT after
# $FAKE_RUN_S seconds. With --sweep_only it records that and exits.
cat >"$tmp/fake-worker" <<'FAKE'
#!/bin/bash
if [ "$1" = --sweep_only ]; then printf '%s\n' "$@" >"$FAKE_DIR/swept"; exit 0; fi
printf '%s\n' "$@" >"$FAKE_DIR/args"
trap 'echo USR1 >"$FAKE_DIR/signal"; sleep 0.5; echo drained >>"$FAKE_DIR/signal"; exit 0' USR1
trap 'echo TERM >"$FAKE_DIR/signal"; exit 0' TERM
for _ in $(seq $((FAKE_RUN_S * 10))); do sleep 0.1; done
exit "$FAKE_EXIT"
FAKE
chmod +x "$tmp/fake-worker"
mkdir -p "$tmp/secrets" "$tmp/scratch"
: >"$tmp/secrets/ca.pem"
: >"$tmp/secrets/worker.token"

start() {   # start FAKE_RUN_S FAKE_EXIT: runs the script in the background, sets $pid
  rm -f "$tmp/args" "$tmp/signal" "$tmp/swept"
  (cd "$tmp" && exec env BBO_COORDINATOR=arena.test:50051 BBO_WORKER="$tmp/fake-worker" \
     SLURM_CPUS_PER_TASK=3 SLURM_JOB_ID=77 SLURM_ARRAY_TASK_ID=5 TMPDIR="$tmp/scratch" \
     FAKE_DIR="$tmp" FAKE_RUN_S="$1" FAKE_EXIT="$2" \
     bash "$here/bbo-workers.sbatch" >"$tmp/log" 2>&1) &
  pid=$!
  for _ in $(seq 100); do [ -s "$tmp/args" ] && return 0; sleep 0.1; done
  fail "the fake worker never started"; cat "$tmp/log"
}

# 1. SIGTERM to the batch shell drains the worker.
start 30 9
for flag in --coordinator=arena.test:50051 --slots=3 --ca_file=secrets/ca.pem \
  --token_file=secrets/worker.token --drain_timeout_s=1400 --exit_when_idle_s=600 \
  --eval_slots=3 --cgroups=required --cgroup_favordynmods=false --on_sigterm=hand_back \
  --cgroup_follow_memory=true --cgroup_parent=bbo-arena \
  --work_dir="$tmp/scratch/bbo-worker-77_5"; do
  grep -qx -- "$flag" "$tmp/args" || fail "worker not given $flag: $(tr '\n' ' ' <"$tmp/args")"
done
grep -q -- --cert_file "$tmp/args" && fail "--cert_file given without secrets/worker.pem"
[ -d "$tmp/scratch/bbo-worker-77_5" ] || fail "no scratch folder while the worker runs"
kill -TERM "$pid"
wait "$pid"
status=$?
[ "$status" -eq 0 ] || fail "exit status $status after a drain, expected the worker's 0"
[ "$(cat "$tmp/signal" 2>/dev/null)" = "$(printf 'USR1\ndrained')" ] ||
  fail "the worker did not get SIGUSR1 and finish its drain: $(cat "$tmp/signal" 2>/dev/null)"
[ -e "$tmp/scratch/bbo-worker-77_5" ] && fail "scratch folder left behind"
grep -qx -- --work_dir="$tmp/scratch/bbo-worker-77_5" "$tmp/swept" 2>/dev/null ||
  fail "no --sweep_only of the scratch folder at the end"

# 2. A worker that exits by itself (the queue stayed empty) ends the task with its status;
#    with worker.pem present, the client certificate is passed.
: >"$tmp/secrets/worker.pem"
: >"$tmp/secrets/worker.key"
start 1 3
wait "$pid"
status=$?
[ "$status" -eq 3 ] || fail "exit status $status, expected the worker's 3"
grep -qx -- --cert_file=secrets/worker.pem "$tmp/args" || fail "no --cert_file with worker.pem"
grep -qx -- --key_file=secrets/worker.key "$tmp/args" || fail "no --key_file with worker.pem"
[ -e "$tmp/signal" ] && fail "the worker got a signal it was not sent"

[ "$failures" -eq 0 ] && echo "bbo-workers_test: ok"
[ "$failures" -eq 0 ]
