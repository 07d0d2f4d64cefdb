#!/bin/bash
# Wrapper HTCondor runs for each bbo-worker job of bbo-workers.sub: puts the scratch folder and
# the transferred secrets into the worker's flags and replaces itself with bbo-worker, so the
# kill_sig HTCondor sends (SIGTERM) reaches the worker directly and starts its drain.
# Usage: bbo-worker.sh SLOTS DRAIN_TIMEOUT_S EXIT_WHEN_IDLE_S; the environment gives
# BBO_COORDINATOR (required), BBO_WORKER (default bbo-worker on PATH) and BBO_CGROUPS.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 SLOTS DRAIN_TIMEOUT_S EXIT_WHEN_IDLE_S" >&2
  exit 2
fi
slots=$1 drain_timeout_s=$2 exit_when_idle_s=$3
: "${BBO_COORDINATOR:?set BBO_COORDINATOR=host:port of bbo-server in the environment of the submit file}"

# HTCondor runs the job in its scratch folder (removed after the job) with the files of
# transfer_input_files beside it.
scratch=${_CONDOR_SCRATCH_DIR:-$PWD}
mkdir -p "$scratch/work"

args=(
  "--coordinator=$BBO_COORDINATOR"
  "--ca_file=$scratch/ca.pem"
  "--token_file=$scratch/worker.token"
  "--slots=$slots"
  "--eval_slots=$slots"
  "--work_dir=$scratch/work"
  "--drain_timeout_s=$drain_timeout_s"
  "--exit_when_idle_s=$exit_when_idle_s"
  "--cgroups=${BBO_CGROUPS:-required}"
  # A node-wide kernel setting that only root may change: leave the machines as they are.
  "--cgroup_favordynmods=false"
)
if [ -e "$scratch/worker.pem" ]; then
  args+=("--cert_file=$scratch/worker.pem" "--key_file=$scratch/worker.key")
fi

echo "bbo-worker.sh: $(hostname), $slots slots, coordinator $BBO_COORDINATOR"
exec "${BBO_WORKER:-bbo-worker}" "${args[@]}"
