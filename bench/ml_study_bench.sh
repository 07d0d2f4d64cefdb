#!/usr/bin/env bash
# One random-search study of 16 x 8 on a scikit-learn problem (Bayesmark's SVM_digits_nll by
# default) through a real bbo-server and a real sandboxed bbo-worker, measured twice in one run:
#   A. the worker evaluates the objective (the default): the study's wall time against evaluating
#      the same 128 points serially in one process (what Bayesmark's run_study does), and the
#      coordinator's own CPU per study as a fraction of the study's evaluation CPU;
#   B. the coordinator evaluates it (--evaluate_on_coordinator, the platform before worker-side
#      evaluation): the coordinator's CPU per study, evaluation included, as the same fraction.
# Goals (issue 21): A's wall ratio <= 0.6 (0.5 is the limit on 2 cores); A's coordinator share
# <= 1 %. Exits 1 when a study does not complete or a goal is missed; never prints a number for
# a case that failed.
#
#   bench/ml_study_bench.sh [build-dir=build] [problem=SVM_digits_nll] [n_batches=16]
# CI's smoke mode (the goals are checked with 16 batches only): bench/ml_study_bench.sh build DT_wine_nll 2
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
problem="${2:-SVM_digits_nll}"
n_batches="${3:-16}"
for bin in "$build/server/bbo-server" "$build/worker/bbo-worker" "$build/client/bbo"; do
  [ -x "$bin" ] || { echo "ml_study_bench: build first (missing $bin)" >&2; exit 2; }
done
exec /usr/bin/python3 bench/ml_study_bench.py "$build" "$problem" "$n_batches"
