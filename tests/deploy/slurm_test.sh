#!/bin/bash
# shellcheck disable=SC2317  # functions called through traps and wait_for
# deploy/slurm/bbo-workers.sbatch under a real one-node Slurm (Debian's slurm-wlm and munge):
# slurmctld, slurmd and munged started here on 127.0.0.1 with a slurm.conf, a munge key and
# their state in a temp folder; a real bbo-server on 127.0.0.1 with TLS (the recipe's own
# ca.pem; no client certificates) and a SQLite file; the script submitted with sbatch as its
# comment says. Checks: studies run; the tasks exit when idle; a drain by
# `scancel --batch --signal=TERM` (the running study finishes); a plain `scancel` (studies handed
# back at once, before KillWait); a SIGKILLed task (its batch shell and worker); and at the end
# every job done, no attempt counted but the killed task's, no control group of the workers
# under /sys/fs/cgroup/*/ and no scratch folder left.
#
# Slurm's process tracking is proctrack/linuxproc with task/none, not proctrack/cgroup: on this
# host Slurm's cgroup plugins would move the job's processes into /sys/fs/cgroup/<c>/slurm at the
# hierarchy's top, out of the cgroup the test itself runs in. The workers' study groups are
# checked all the same (and the job-group case by worker/stale_groups_test.cc).
#
# Usage: tests/deploy/slurm_test.sh BUILD_DIR. Needs root and the Debian packages slurm-wlm and
# munge (deploy/install-deps.sh). Without them: skipped (exit 77), but a FAILURE when CI=true.
# Bounded: every wait has a deadline, the whole run `timeout`s at 600 s; daemons and temp
# folders are removed at the end, also on failure.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)

cant() {  # cant WHY: a missing prerequisite
  if [ "${CI:-}" = true ]; then echo "FAIL: cannot set up Slurm: $*"; exit 1; fi
  echo "SKIP: $*"; exit 77
}
[ "$(id -u)" -eq 0 ] || cant "needs root (slurmd, munged, cgroups)"
for b in slurmctld slurmd munged sbatch scancel squeue sqlite3 openssl; do
  command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || cant "$b is not installed (apt-get install slurm-wlm munge sqlite3)"
done
for b in server/bbo-server worker/bbo-worker client/bbo; do
  [ -x "$build/$b" ] || cant "$build/$b is not built"
done
if [ -z "${SLURM_TEST_INNER:-}" ]; then
  SLURM_TEST_INNER=1 exec timeout --kill-after=10 600 "$0" "$@"
fi

tmp=$(mktemp -d /tmp/bbo-slurm-test.XXXXXX)
chmod 755 "$tmp"
tag="bbo-slurm-test-$$"
pids=()
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cleanup() {
  scancel --quiet --full --signal=KILL --user=root 2>/dev/null
  sleep 1
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  # slurmstepd and the job's processes outlive slurmd: those started from this run's folder.
  for pid in $(pgrep -f "$tmp/"); do kill -KILL "$pid" 2>/dev/null; done
  sleep 0.5
  # Whatever a failed run left of the workers' groups (named after this run only).
  find /sys/fs/cgroup -mindepth 2 -depth -type d -name "$tag*" 2>/dev/null | while read -r d; do
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  if [ "$failures" -ne 0 ] && [ -d "$tmp" ]; then
    for f in "$tmp"/*.log "$tmp"/jobs/*.log; do
      [ -f "$f" ] && { echo "== $f"; tail -n 40 "$f"; }
    done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for SECONDS WHAT COMMAND...: polls every 0.5 s
  local until=$(($(date +%s) + $1)) what=$2
  shift 2
  while ! "$@" 2>/dev/null; do
    [ "$(date +%s)" -lt "$until" ] || { fail "timed out waiting for $what"; return 1; }
    sleep 0.5
  done
}

# --- munge and Slurm -------------------------------------------------------------------------
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/jobs" "$tmp/scratch" "$tmp/secrets"
chmod 700 "$tmp/munge" "$tmp/secrets"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge.log" \
  --seed-file="$tmp/munge/munge.seed" || cant "munged did not start: $(cat "$tmp/munge.log")"
pids+=("$(cat "$tmp/munge/munged.pid")")

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=bbotest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=30
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=2048 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { sinfo -h -N -o '%T' | grep -qE '^idle'; }
wait_for 60 "the Slurm node to come up" node_idle || cant "Slurm did not start: $(tail -5 "$tmp/slurmctld.log" "$tmp/slurmd.log" 2>&1)"

# --- bbo-server with TLS on 127.0.0.1 --------------------------------------------------------
(cd "$tmp/secrets" &&
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
    -subj "/CN=bbo slurm test CA" 2>/dev/null &&
  openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr \
    -subj "/CN=127.0.0.1" 2>/dev/null &&
  printf 'subjectAltName=IP:127.0.0.1\n' >san.ext &&
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
    -days 2 -extfile san.ext 2>/dev/null) || fail "cannot make the test certificates"
db="$tmp/arena.sqlite"
"$build/client/bbo" admin --db "$db" worker add slurm >"$tmp/secrets/worker.token" 2>/dev/null
"$build/client/bbo" admin --db "$db" team add team >"$tmp/team.token" 2>/dev/null
"$build/server/bbo-server" --listen=127.0.0.1:0 --port_file="$tmp/port" --db="$db" \
  --problem_set=test --default_trials=4 --baseline_trials=1 --batch_size=2 --n_batches=8 \
  --lease_ttl_s=6 --tls_cert_file="$tmp/secrets/server.pem" \
  --tls_key_file="$tmp/secrets/server.key" >"$tmp/server.log" 2>&1 &
pids+=($!)
wait_for 30 "bbo-server" test -s "$tmp/port" || exit 1
coordinator="127.0.0.1:$(cat "$tmp/port")"

# A slow optimizer (1 s per suggest, a study takes ~10 s) so that signals find studies running.
mkdir -p "$tmp/slow"
sed 's/    def suggest(self, n_suggestions=1):/&\n        import time; time.sleep(1)/' \
  "$src/examples/random-search-py/optimizer.py" >"$tmp/slow/optimizer.py"
submit() {  # submit NAME: one submission of the slow optimizer (4 jobs)
  "$build/client/bbo" --token_file "$tmp/team.token" submit "$tmp/slow" --name "$1" \
    --trials 4 --server "$coordinator" --ca_file "$tmp/secrets/ca.pem" >>"$tmp/submit.log" 2>&1 ||
    fail "bbo submit $1 failed"
}
sql() { sqlite3 -cmd '.timeout 5000' "$db" "$1"; }

# sbatch as the script's comment says, sized for this node; prints the job id.
sbatch_workers() {  # sbatch_workers ARRAY EXIT_WHEN_IDLE_S
  # --signal: the script's B:TERM@1500 would come at once with a 30-minute limit.
  (cd "$tmp" && sbatch --parsable --array="$1" --cpus-per-task=1 --mem=512M --time=30 \
    --signal=B:TERM@60 \
    --output="$tmp/jobs/%A_%a.log" \
    --export="ALL,BBO_COORDINATOR=$coordinator,BBO_WORKER=$build/worker/bbo-worker,BBO_SECRETS=$tmp/secrets,BBO_EXIT_WHEN_IDLE_S=$2,BBO_DRAIN_TIMEOUT_S=120,BBO_CGROUP_PARENT=$tag,TMPDIR=$tmp/scratch" \
    "$src/deploy/slurm/bbo-workers.sbatch")
}
job_gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
leased() { [ "$(sql "SELECT COUNT(*) FROM jobs WHERE state = 'leased'")" -ge 1 ]; }

# --- 1. studies run, tasks exit when idle ----------------------------------------------------
submit first
job=$(sbatch_workers 1-2 5) || fail "sbatch failed"
wait_for 240 "the first jobs to be done and the tasks to exit when idle" job_gone "$job"
[ "$(sql "SELECT COUNT(*) FROM jobs WHERE state != 'done'")" -eq 0 ] ||
  fail "jobs not done after the first run: $(sql 'SELECT id, state, attempts, last_error FROM jobs')"
for task in 1 2; do
  grep -q "exited with status 0" "$tmp/jobs/${job}_$task.log" || fail "task $task did not exit cleanly"
  grep -q "worker_draining" "$tmp/jobs/${job}_$task.log" && fail "task $task drained instead of an idle exit"
done
echo "1. array $job: $(sql "SELECT COUNT(*) FROM studies") studies, every job done, both tasks exited when idle"

# --- 2. drain: scancel --batch --signal=TERM lets the running study finish ---------------------
submit drained
job=$(sbatch_workers 0 600)
wait_for 60 "a study to start" leased
sleep 2
running=$(sql "SELECT id FROM jobs WHERE state = 'leased' LIMIT 1")
scancel --batch --signal=TERM "$job"
wait_for 60 "the drained task to end" job_gone "$job"
[ "$(sql "SELECT state FROM jobs WHERE id = $running")" = "done" ] ||
  fail "the study running at the drain did not finish: $(sql "SELECT state, attempts, last_error FROM jobs WHERE id = $running")"
grep -q "worker_draining" "$tmp"/jobs/"${job}"_0.log || fail "the worker did not drain"
echo "2. drain of $job: job $running $(sql "SELECT state || ', attempts ' || attempts FROM jobs WHERE id = $running")"

# --- 3. plain scancel: the studies are handed back at once ----------------------------------
job=$(sbatch_workers 0 600)
wait_for 60 "a study to start" leased
sleep 2
running=$(sql "SELECT id FROM jobs WHERE state = 'leased' LIMIT 1")
start=$(date +%s)
scancel "$job"
wait_for 60 "the scancelled task to end" job_gone "$job"
took=$(($(date +%s) - start))
echo "3. plain scancel of $job: the task ended in $took s; job $running: $(sql "SELECT state || ', attempts ' || attempts FROM jobs WHERE id = $running")"
[ "$took" -lt 25 ] || fail "a plain scancel took $took s, as long as KillWait: the worker was SIGKILLed"
state=$(sql "SELECT state || ' ' || attempts FROM jobs WHERE id = $running")
[ "$state" = "queued 0" ] || fail "the study running at a plain scancel was not handed back uncharged: $state"
# No attempt counted so far: every job leased once at most.
[ "$(sql "SELECT COUNT(*) FROM jobs WHERE attempts > 1")" -eq 0 ] ||
  fail "attempts counted by a drain: $(sql 'SELECT id, state, attempts, last_error FROM jobs WHERE attempts > 1')"

# --- 4. a SIGKILLed task ------------------------------------------------------------------------
# `scancel --signal=KILL` is Slurm's terminate (SIGTERM, KillWait, SIGKILL), as a plain scancel:
# the task's batch shell and worker get SIGKILL from here instead (as from the OOM killer, or
# KillWait ending), the worker's pid read from its record.
job=$(sbatch_workers 0 600)
wait_for 60 "a study to start" leased
sleep 2
killed_job=$(sql "SELECT id FROM jobs WHERE state = 'leased' LIMIT 1")
worker_pid=$(awk -F'\t' '$1 == "pid" {print $2}' "$tmp/scratch/bbo-worker-${job}_0/.bbo-worker" 2>/dev/null)
shell_pid=$(ps -o ppid= -p "${worker_pid:-0}" 2>/dev/null | tr -d ' ')
if [ -n "$worker_pid" ] && [ -n "$shell_pid" ]; then
  kill -KILL "$shell_pid" "$worker_pid"
else
  fail "cannot find the task's worker (record: $(cat "$tmp/scratch/bbo-worker-${job}_0/.bbo-worker" 2>&1))"
  scancel "$job"
fi
wait_for 60 "the killed task to end" job_gone "$job"
# What it left (the bug this recipe had): its scratch folder and its study groups.
killed_scratch=$(ls -d "$tmp"/scratch/bbo-worker-"${job}"_* 2>/dev/null)
killed_groups=$(find /sys/fs/cgroup -mindepth 2 -type d -name 'study-*' -path "*$tag*" 2>/dev/null | wc -l)
echo "4. SIGKILLed task $job (study of job $killed_job): left ${killed_scratch:-no scratch folder}, $killed_groups study groups"
[ -n "$killed_scratch" ] || fail "the SIGKILLed task left no scratch folder: was it killed?"

# --- 5. the next tasks finish everything and sweep what the killed one left -------------------
job=$(sbatch_workers 1-2 8)
wait_for 300 "every job to be done and the tasks to exit" job_gone "$job"

# --- afterwards -----------------------------------------------------------------------------
[ "$(sql "SELECT COUNT(*) FROM jobs WHERE state != 'done'")" -eq 0 ] ||
  fail "jobs lost: $(sql "SELECT id, state, attempts, last_error FROM jobs WHERE state != 'done'")"
extra=$(sql "SELECT id FROM jobs WHERE attempts > 1")
echo "5. afterwards: $(sql "SELECT COUNT(*) FROM jobs") jobs done; attempts > 1: ${extra:-none}"
[ "$(sql "SELECT attempts FROM jobs WHERE id = $killed_job")" = 2 ] ||
  fail "the SIGKILLed task's study (job $killed_job) was not counted: was it running?"
[ -z "$extra" ] || [ "$extra" = "$killed_job" ] ||
  fail "attempts counted beyond the SIGKILLed task's study ($killed_job): $(sql 'SELECT id, attempts, last_error FROM jobs WHERE attempts > 1')"
left=$(find /sys/fs/cgroup -mindepth 2 -type d -name "$tag*" 2>/dev/null)
[ -z "$left" ] || fail "control groups left behind: $left"
scratch=$(ls -A "$tmp/scratch")
[ -z "$scratch" ] || fail "scratch folders left behind: $scratch"

if [ "$failures" -eq 0 ]; then echo "slurm_test: ok"; exit 0; fi
echo "slurm_test: $failures failure(s)"
exit 1
