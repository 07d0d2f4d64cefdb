#!/usr/bin/env bash
# Builds bbo-arena and runs the whole test suite through ctest (unit, sandbox, Python
# compatibility and multi-process end-to-end tests). Idempotent; installs missing Debian packages
# when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 300 "$@"
