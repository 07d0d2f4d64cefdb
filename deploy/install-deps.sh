#!/usr/bin/env bash
# Installs the Debian 12 packages bbo-arena builds and runs with. Idempotent: installs only what
# is missing; does nothing (but check) when everything is present. Needs root to install.
# --no-lint leaves out the tools deploy/lint.sh uses (the image's build stage passes it).
# --participant installs only what the participant build (deploy/build-participant.sh: `bbo
# local` and `bbo check`) compiles and runs with, and nothing else.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libabsl-dev libsqlite3-dev sqlite3 libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libeigen3-dev libboost-math-dev libarchive-dev libgtest-dev libgmock-dev googletest libbenchmark-dev
  bubblewrap libseccomp-dev libsodium-dev libcpp-httplib-dev libopencv-ml-dev libxgboost-dev zlib1g-dev openssl
  python3 python3-numpy python3-scipy python3-sklearn python3-pandas python3-optuna python3-torch
  # server/notify: team notifications by e-mail (SMTP) and webhook, with libcurl.
  libcurl4-openssl-dev
  # ThreadSafetyTest (tests/thread_safety_check.py): clang's -Wthread-safety, which gcc lacks.
  clang
)
# deploy/lint.sh: YAML, shell and compose checks. kubectl is not packaged under that name in
# Debian 12 (kubernetes-client 1.20 is), so it is not installed here; lint.sh skips the
# Kubernetes checks, saying so, when kubectl is absent.
LINT_PACKAGES=(yamllint shellcheck docker-compose)

# The participant build: the libraries `bbo` links (the embedded coordinator with its gRPC
# services, the sandboxed worker, the problems without ML), bubblewrap for the sandbox, and the
# Python of the competition's sandbox (docs/participants.md: numpy and scipy, which the bundled
# bayesmark package needs, scikit-learn, pandas, optuna). No GoogleTest, Google Benchmark,
# OpenCV, XGBoost, torch, ccache, chromium or lint tools. libcpp-httplib-dev is only for
# configuring: server/CMakeLists.txt looks it up for the ops endpoint, which is not built.
PARTICIPANT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libabsl-dev libsqlite3-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libeigen3-dev libboost-math-dev libarchive-dev libseccomp-dev libsodium-dev libcpp-httplib-dev
  bubblewrap python3 python3-numpy python3-scipy python3-sklearn python3-pandas python3-optuna
)
if [ "${1:-}" = "--participant" ]; then
  PACKAGES=("${PARTICIPANT_PACKAGES[@]}")
elif [ "${1:-}" != "--no-lint" ]; then
  PACKAGES+=("${LINT_PACKAGES[@]}")
  # tests/web (WebBrowserTest): Debian's chromium, driven headless by playwright-core, which
  # npm installs below (Debian's npm, unless an npm is on PATH already).
  PACKAGES+=(chromium)
  # tests/deploy/slurm_test.sh (SlurmTest, `ctest -L slurm`): a one-node Slurm it starts itself
  # (the packages' own services stay unconfigured and unused).
  PACKAGES+=(slurm-wlm munge)
  if ! command -v npm >/dev/null; then PACKAGES+=(npm); fi
  WEB_MODULES=1
fi

# tests/web's node_modules: playwright-core from tests/web/package-lock.json (npm ci; it never
# downloads a browser, it drives the chromium above), on every run that installs the web
# packages, CI or not; again only when the lock file changed (a copy of it is kept in
# node_modules). Without npm, or when npm ci fails (no registry), WebBrowserTest cannot run:
# a warning by hand, an error under CI=true.
web_modules_missing() {
  if [ "${CI:-}" = "true" ]; then
    echo "install-deps: $1: cannot install tests/web/node_modules (CI=true: WebBrowserTest must run)" >&2
    exit 1
  fi
  echo "install-deps: WARNING: $1: no tests/web/node_modules/playwright-core; WebBrowserTest will" \
    "be skipped (cd tests/web && npm ci)" >&2
}
install_web_modules() {
  [ "${WEB_MODULES:-0}" = 1 ] || return 0
  local web
  web="$(cd "$(dirname "$0")/.." && pwd)/tests/web"
  local stamp="$web/node_modules/.bbo-package-lock.json"
  if [ -d "$web/node_modules/playwright-core" ] && cmp -s "$web/package-lock.json" "$stamp"; then
    echo "install-deps: tests/web/node_modules matches tests/web/package-lock.json"
    return 0
  fi
  if ! command -v npm >/dev/null; then
    web_modules_missing "npm is not installed"
    return 0
  fi
  echo "install-deps: npm ci in tests/web (playwright-core, no browser download)"
  if PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$web" --no-audit --no-fund; then
    cp "$web/package-lock.json" "$stamp"
  else
    web_modules_missing "npm ci failed"
  fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} Debian packages present"
  install_web_modules
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: not root; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
install_web_modules
