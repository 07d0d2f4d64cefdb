#!/usr/bin/env bash
# Builds bbo-arena and runs the whole test suite through ctest (unit, sandbox, Python
# compatibility and multi-process end-to-end tests). Idempotent; installs missing Debian packages
# when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 300 "$@"
# The participant build (bbo with `bbo local` only; README "For participants") still builds and
# works. BBO_SKIP_PARTICIPANT_BUILD=1 skips it (it takes about 6 minutes on 2 cores).
cd ..
if [ "${BBO_SKIP_PARTICIPANT_BUILD:-0}" != 1 ]; then
  ./deploy/build-participant.sh
  tests/participant_build_check.sh build-participant
fi
