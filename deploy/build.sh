#!/usr/bin/env bash
# Installs missing Debian packages (as root) and builds bbo-arena into build/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE"
fi
cmake --build build -j "$(nproc)"
