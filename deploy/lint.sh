#!/usr/bin/env bash
# Checks the deployment files: YAML style, the compose file, the Kubernetes manifests (the base
# and its autoscaling components), the Slurm and HTCondor worker files, the shell scripts, the
# image's runtime packages against the built binaries, and tests/deploy. Runs in CI after
# deploy/test.sh (so the binaries exist). Exits non-zero when any check fails; a check whose tool
# is missing is skipped with the reason (kubectl: not a Debian 12 package name).
# BUILD_DIR (default build/) is where the binaries are looked for.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
BUILD_DIR=${BUILD_DIR:-build}

passed=0 failed=0 skipped=0
run() {   # run NAME CMD...: one check
  local name=$1; shift
  echo "== lint: $name"
  if "$@"; then passed=$((passed + 1)); else echo "!! lint: $name FAILED"; failed=$((failed + 1)); fi
}
skip() { echo "== lint: $1 SKIPPED: $2"; skipped=$((skipped + 1)); }

need_tool() {   # need_tool CMD PACKAGE: install the Debian package when missing and root
  command -v "$1" >/dev/null && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "lint: $1 missing; apt-get install -y $2"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >/dev/null \
      || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
             apt-get install -y -q --no-install-recommends "$2" >/dev/null; }
  fi
  command -v "$1" >/dev/null
}

shopt -s nullglob globstar
k8s_files=(deploy/k8s/**/*.yaml)
sh_files=(deploy/*.sh tests/deploy/*.sh)
# Job scripts of the batch systems: bash, whatever their extension.
cluster_sh_files=(deploy/slurm/*.sbatch deploy/slurm/*.sh deploy/htcondor/*.sh)
cluster_tests=(deploy/slurm/*_test.sh deploy/htcondor/*_test.sh)
shopt -u nullglob globstar
# Debian's python3, which sees python3-yaml (a pyenv python3 on PATH may not).
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

if need_tool yamllint yamllint; then
  run "yamllint docker-compose.yml deploy/k8s/**/*.yaml" \
    yamllint --strict -c .yamllint docker-compose.yml "${k8s_files[@]}"
else
  run "yamllint (not installable)" false
fi

if need_tool docker-compose docker-compose; then
  # The secrets' files need not exist for `config`; no Docker engine is needed either.
  run "docker-compose -f docker-compose.yml config -q" docker-compose -f docker-compose.yml config -q
else
  run "docker-compose (not installable)" false
fi

# kustomize_component NAME KIND: builds deploy/k8s with its component autoscaling/NAME enabled
# as deploy/README.md tells (uncommented in a copy of the kustomization); the output must hold a
# KIND.
kustomize_component() {
  local tmp rc=0
  tmp=$(mktemp -d) || return 1
  cp -r deploy/k8s "$tmp/k8s"
  sed -i -e 's|^# components:|components:|' -e "s|^#   - autoscaling/$1 |  - autoscaling/$1 |" \
    "$tmp/k8s/kustomization.yaml"
  kubectl kustomize "$tmp/k8s" >"$tmp/out" || rc=1
  if [ "$rc" -eq 0 ] && ! grep -q "^kind: $2\$" "$tmp/out"; then
    echo "no $2 in the output: was the component enabled?"
    rc=1
  fi
  rm -rf "$tmp"
  return "$rc"
}

if command -v kubectl >/dev/null; then
  run "kubectl kustomize deploy/k8s" sh -c 'kubectl kustomize deploy/k8s >/dev/null'
  # Components need kustomize 3.7, in kubectl 1.21 and later (Debian 12's is 1.20).
  kminor=$(kubectl version --client -o json 2>/dev/null | "$PYTHON" -c \
    'import json, sys; print(json.load(sys.stdin)["clientVersion"]["minor"].rstrip("+"))' 2>/dev/null)
  if [ "${kminor:-0}" -ge 21 ] 2>/dev/null; then
    run "kubectl kustomize deploy/k8s + autoscaling/keda" kustomize_component keda ScaledObject
    run "kubectl kustomize deploy/k8s + autoscaling/hpa" kustomize_component hpa HorizontalPodAutoscaler
  else
    skip "kubectl kustomize with the autoscaling components" "kubectl 1.${kminor:-?} has no
  kustomize components (1.21 or later has)"
  fi
else
  skip "kubectl kustomize deploy/k8s" "no kubectl here (Debian 12 has no package named kubectl;
  its kubernetes-client package, 1.20, ships one: apt-get install kubernetes-client)"
fi
# A schema check needs kubeconform or kubeval: neither is packaged in Debian 12 nor on npm.
# `kubectl apply --dry-run=client --validate=false -f` and `kubectl create --dry-run=client -o
# yaml -f` both ask an API server for its resource list first ("unable to recognize ...: Get
# http://localhost:8080/api"), so neither works without a cluster; check-manifests.py below
# checks the keys and cross-references instead.
if command -v kubeconform >/dev/null; then
  run "kubeconform deploy/k8s" sh -c 'kubectl kustomize deploy/k8s | kubeconform -strict -summary -'
else
  skip "Kubernetes schema check" "kubeconform/kubeval are not installable from Debian 12 or npm"
fi
run "deploy/check-manifests.py k8s (keys, flags, metrics, drain, sizing)" \
  "$PYTHON" deploy/check-manifests.py k8s
run "deploy/check-manifests.py slurm" "$PYTHON" deploy/check-manifests.py slurm
# condor_submit -dry-run needs HTCondor, which Debian 12 does not package.
run "deploy/check-manifests.py htcondor (submit file syntax, flags, drain)" \
  "$PYTHON" deploy/check-manifests.py htcondor

if need_tool shellcheck shellcheck; then
  run "shellcheck ${sh_files[*]}" shellcheck "${sh_files[@]}"
  run "shellcheck -s bash ${cluster_sh_files[*]}" shellcheck -s bash "${cluster_sh_files[@]}"
else
  run "shellcheck (not installable)" false
fi

# The job scripts run outside Slurm and HTCondor with a fake bbo-worker: flags, SIGTERM
# forwarding, exit status.
for t in "${cluster_tests[@]}"; do
  run "$t" bash "$t"
done

bins=("$BUILD_DIR/server/bbo-server" "$BUILD_DIR/worker/bbo-worker" "$BUILD_DIR/client/bbo")
if [ -x "${bins[0]}" ] && [ -x "${bins[1]}" ] && [ -x "${bins[2]}" ]; then
  run "deploy/check-runtime-deps.sh (runtime stage of deploy/Dockerfile vs ldd)" \
    deploy/check-runtime-deps.sh "${bins[@]}"
else
  skip "deploy/check-runtime-deps.sh" "binaries not built in $BUILD_DIR/ (deploy/build.sh)"
fi

for t in tests/deploy/test_*.py tests/deploy/test_*.sh; do
  [ -e "$t" ] || continue
  case "$t" in
    *.py) run "$t" env BUILD_DIR="$BUILD_DIR" python3 "$t" ;;
    *.sh) run "$t" env BUILD_DIR="$BUILD_DIR" bash "$t" ;;
  esac
done

echo "lint: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
