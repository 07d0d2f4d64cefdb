#!/usr/bin/env bash
# Throughput against hosts (issue item 4b): one bbo-server and N = 1, 2, 4 worker hosts, each
# host a network namespace (a veth on a private bridge, 10.201.0.0/24, the coordinator at
# 10.201.0.1 speaking plaintext gRPC with --insecure on that private link) and a cgroup with a
# CPU quota of 0.4 core, running one bbo-worker (--slots=1 --eval_slots=1 --cgroups=off, so the
# sandboxed optimizer and the objective it evaluates stay inside the host's quota). The problems
# are OpenCV ml problems that cost real CPU per evaluation (~5-35 ms); random-search-cpp runs 24
# studies of 16 x 8 per host (24N in all), each N on a fresh coordinator and SQLite file, all in
# one run (~5 minutes). Prints, per N: studies, wall seconds (first study start to last study
# end), studies per hour per host-core, the ratio to N=1, and the coordinator's CPU share (its
# CPU seconds / the hosts' CPU seconds, from their cgroups); then "N=4 / N=1 = X (goal >= 0.8)".
# Also per N: how much of the hosts' quota was used and how many cores other processes on this
# machine took meanwhile (read it before trusting a ratio: the hosts get a large CPU weight and
# the coordinator nice -10, but a busy machine still shows).
# Exits 1 when a study fails or does not complete, or the goal is missed; 77 when it cannot run
# (not root, no `ip netns`, no cgroup cpu controller). Everything it creates (namespaces
# bbo-bench-h*, bridge bbo-bench-br, veths, cgroups bbo-bench-h*, processes) is removed at the
# end, on failure, Ctrl-C or its 15-minute limit; a run that was SIGKILLed is cleaned up by the
# next one. One run at a time (a lock).
#
#   sudo bench/hosts_scaling_bench.sh [build-dir=build] [--smoke]
# CI's smoke mode (N = 1, 2; 4 studies of 8 x 8 per host; ~20 s; the goal is not checked):
#   bench/hosts_scaling_bench.sh build --smoke
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
mode=full
for arg in "$@"; do
  if [ "$arg" = "--smoke" ]; then mode=smoke; else build="$arg"; fi
done
for bin in "$build/server/bbo-server" "$build/worker/bbo-worker" "$build/client/bbo" \
  "$build/examples/random-search-cpp/optimizer"; do
  [ -x "$bin" ] || { echo "hosts_scaling_bench: build first (missing $bin)" >&2; exit 2; }
done
build="$(cd "$build" && pwd)"
if [ "$(id -u)" != 0 ]; then
  echo "hosts_scaling_bench: SKIPPED: needs root (network namespaces and cgroups)" >&2
  exit 77
fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
  echo "hosts_scaling_bench: SKIPPED: needs iproute2 with 'ip netns'" >&2
  exit 77
fi
exec 9>/tmp/bbo-hosts-scaling-bench.lock
flock -n 9 || { echo "hosts_scaling_bench: another run holds /tmp/bbo-hosts-scaling-bench.lock" >&2
  exit 1; }

driver=bench/hosts_scaling_bench.py
driver_pid=
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$driver_pid" ]; then
    # The driver cleans up after itself on SIGTERM; give it the time to.
    kill -TERM "$driver_pid" 2>/dev/null || true
    wait "$driver_pid" 2>/dev/null || true
  fi
  /usr/bin/python3 "$driver" --cleanup || true  # a backstop; idempotent
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
# In the background, so that this shell can forward Ctrl-C to it as SIGTERM.
/usr/bin/python3 "$driver" "$build" "$mode" &
driver_pid=$!
rc=0
wait "$driver_pid" || rc=$?
driver_pid=
exit "$rc"
