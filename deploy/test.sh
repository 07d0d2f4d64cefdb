#!/usr/bin/env bash
# Builds bbo-arena and runs the whole test suite through ctest (unit, sandbox, Python
# compatibility, browser and multi-process end-to-end tests). Idempotent; installs missing Debian
# packages when run as root, and tests/web's playwright-core (npm ci) whenever npm is present
# (deploy/install-deps.sh, through deploy/build.sh), so that every test runs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/build.sh
# What would make a test skip instead of run is said here, before the run, not only in ctest's
# list of skipped tests at its end (under CI=true those tests fail instead).
if [ ! -x "${BBO_CHROMIUM:-/usr/bin/chromium}" ] || ! command -v node >/dev/null ||
  [ ! -d tests/web/node_modules/playwright-core ]; then
  echo "test.sh: WARNING: WebBrowserTest will be skipped: it needs chromium, node and" \
    "tests/web/node_modules/playwright-core (deploy/install-deps.sh as root installs them)" >&2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "test.sh: WARNING: not root: the tests that need root (control groups, the hostile suite) will be skipped" >&2
fi
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 300 "$@"
# The participant build (bbo with `bbo local` only; README "For participants") still builds and
# works. BBO_SKIP_PARTICIPANT_BUILD=1 skips it (it takes about 6 minutes on 2 cores).
cd ..
if [ "${BBO_SKIP_PARTICIPANT_BUILD:-0}" != 1 ]; then
  ./deploy/build-participant.sh
  tests/participant_build_check.sh build-participant
fi
