#!/usr/bin/env bash
# The participant build: installs the Debian packages it needs (as root, apt-get; only the
# missing ones: deploy/install-deps.sh --participant), then builds `bbo` with `bbo local` and
# `bbo check` only (-DBBO_PARTICIPANT_BUILD=ON), and the bundled bayesmark package that Python
# optimizers import, into build-participant/. No servers, tests or benchmarks. Idempotent: a
# second run only rebuilds what changed.
#
#   deploy/build-participant.sh
#
# BUILD_TYPE (default RelWithDebInfo) is CMake's build type. `bbo local --suite ml` needs the
# ML problems, left out here: apt-get install libopencv-ml-dev libxgboost-dev, then
# `cmake -DBBO_WITH_ML_PROBLEMS=ON build-participant` and run this again.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh --participant
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
dir=build-participant
# Configure when the folder is new, or was configured without the option.
if [ ! -f "$dir/build.ninja" ] ||
  ! grep -q '^BBO_PARTICIPANT_BUILD:BOOL=ON$' "$dir/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DBBO_PARTICIPANT_BUILD=ON
fi
cmake --build "$dir" -j "$(nproc)" --target bbo bbo_python_package
echo "build-participant: the binary is $PWD/$dir/client/bbo (bayesmark in $dir/python)"
echo "build-participant: try $dir/client/bbo check examples/random-search-py"
