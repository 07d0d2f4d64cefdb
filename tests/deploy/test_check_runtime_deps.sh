#!/usr/bin/env bash
# deploy/check-runtime-deps.sh passes on the built binaries and deploy/Dockerfile, and fails,
# naming the package, when any one package it requires is taken out of the runtime stage's
# apt-get install. Run by deploy/lint.sh; BUILD_DIR (default build/) holds the binaries.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD_DIR:-build}
bins=("$B/server/bbo-server" "$B/worker/bbo-worker" "$B/client/bbo")
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "test_check_runtime_deps: $b not built; nothing to check"; exit 0; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A snapshot of the binaries: every run below sees the same files, even while a build relinks.
mkdir "$tmp/bin"
cp "${bins[@]}" "$tmp/bin/"
bins=("$tmp/bin/bbo-server" "$tmp/bin/bbo-worker" "$tmp/bin/bbo")

deploy/check-runtime-deps.sh "${bins[@]}" >"$tmp/packages" 2>"$tmp/err" \
  || { cat "$tmp/err"; echo "FAIL: check-runtime-deps.sh fails on deploy/Dockerfile"; exit 1; }
mapfile -t packages < <(cut -d' ' -f1 "$tmp/packages")
[ ${#packages[@]} -gt 0 ] || { echo "FAIL: no package printed"; exit 1; }

without() {   # without PKG: deploy/Dockerfile less the word PKG
  local re=${1//./\\.}; re=${re//+/\\+}
  sed -E "s/(^|[[:space:]])${re}([[:space:]]|\$)/\\1\\2/" deploy/Dockerfile
}

fails=0
for pkg in "${packages[@]}"; do
  without "$pkg" >"$tmp/Dockerfile"
  if cmp -s deploy/Dockerfile "$tmp/Dockerfile"; then
    echo "FAIL: $pkg is printed but not in deploy/Dockerfile"; fails=$((fails + 1)); continue
  fi
  if deploy/check-runtime-deps.sh --dockerfile "$tmp/Dockerfile" "${bins[@]}" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: passes with $pkg taken out of the Dockerfile"; fails=$((fails + 1))
  elif ! grep -q "does not install: .*$pkg" "$tmp/err"; then
    echo "FAIL: without $pkg it fails but does not name it: $(cat "$tmp/err")"; fails=$((fails + 1))
  fi
done
# A package only in the build stage does not count.
without libxgboost0 \
  | sed 's/^RUN deploy\/install-deps.sh.*/& \&\& apt-get install -y libxgboost0/' >"$tmp/Dockerfile"
grep -q 'install-deps.sh.*libxgboost0' "$tmp/Dockerfile" || { echo "FAIL: test set-up"; exit 1; }
if deploy/check-runtime-deps.sh --dockerfile "$tmp/Dockerfile" "${bins[@]}" >/dev/null 2>&1; then
  echo "FAIL: a package installed in the build stage only is taken for a runtime one"; fails=$((fails + 1))
fi
echo "test_check_runtime_deps: ${#packages[@]} packages, each one's removal detected; $fails failures"
[ "$fails" -eq 0 ]
