#!/usr/bin/env bash
# Checks a participant build (-DBBO_PARTICIPANT_BUILD=ON, deploy/build-participant.sh): its
# `bbo` has `local` and `check` and none of the other commands (neither on the command line nor
# in the binary), `--version` works, and `bbo local` scores the Python random-search example
# on one practice problem.
#
#   tests/participant_build_check.sh [BUILD_DIR]     (default: build-participant)
#
# Exit 0 when every check passes, 1 when one fails (each failure is named), 2 on a usage error.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-$root/build-participant}" 2>/dev/null && pwd) ||
  { echo "participant_build_check: no folder ${1:-$root/build-participant}" >&2; exit 2; }
cd "$root" || exit 2
bbo="$dir/client/bbo"
[ -x "$bbo" ] || { echo "participant_build_check: no $bbo (build it: deploy/build-participant.sh)" >&2; exit 2; }
grep -q '^BBO_PARTICIPANT_BUILD:BOOL=ON$' "$dir/CMakeCache.txt" 2>/dev/null ||
  { echo "participant_build_check: $dir is not a participant build" >&2; exit 2; }
[ -f "$dir/python/bayesmark/__init__.py" ] ||
  { echo "participant_build_check: no $dir/python/bayesmark (target bbo_python_package)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Every command of the full build but local and check.
others=(submit status withdraw choose phases logs leaderboard problems score export report replay
        tasks admin)

# --help: the subcommands are the indented first words under "Subcommands:" (CLI11).
if "$bbo" --help >"$tmp/help" 2>&1; then pass "bbo --help exits 0"; else fail "bbo --help exits $?"; fi
subcommands=$(awk 'tolower($0) ~ /^subcommands:/ {on = 1; next} on && /^[^ ]/ {on = 0}
                   on && /^  [a-z]/ {print $1}' "$tmp/help")
[ -n "$subcommands" ] || { sed 's/^/  | /' "$tmp/help"; fail "no subcommands found in --help"; }
for c in local check; do
  if grep -qx "$c" <<<"$subcommands"; then pass "--help lists $c"; else fail "--help does not list $c"; fi
done
listed=()
for c in "${others[@]}"; do
  if grep -qx "$c" <<<"$subcommands"; then listed+=("$c"); fi
done
if [ ${#listed[@]} -eq 0 ]; then pass "--help lists none of: ${others[*]}"
else fail "--help lists ${listed[*]}"; fi

# The other commands are not in the binary either (compiled out, not hidden). BBO_CLI_CHECK
# only parses the command line (tests/cli_docs_check.py): the full build accepts this one.
if BBO_CLI_CHECK=strict "$bbo" submit examples/random-search-py >"$tmp/submit" 2>&1; then
  fail "bbo submit examples/random-search-py is a valid command line"
else
  code=$?
  if [ $code -eq 2 ]; then pass "bbo submit is refused as a command line that cannot run (exit 2)"
  else fail "bbo submit exits $code, not 2"; fi
fi
if command -v nm >/dev/null; then
  found=$(nm -C "$bbo" | grep -oE 'bbo::client::Run(Submit|Status|Leaderboard|Admin|Score|Report|Export|Replay|Tasks[A-Za-z]*)\(' | sort -u)
  if [ -z "$found" ]; then pass "no Run function of another command is linked"
  else fail "linked: $(tr '\n' ' ' <<<"$found")"; fi
fi

# --version.
if "$bbo" --version >"$tmp/version" 2>&1; then
  pass "bbo --version exits 0 ($(head -1 "$tmp/version"))"
else
  fail "bbo --version exits $?"
fi

# A real local run: one trial of the Python random search on branin (sandboxed, as participants
# run it; --insecure-no-sandbox only where bubblewrap cannot start here).
sandbox=()
if ! bwrap --unshare-all --ro-bind / / true 2>/dev/null; then
  echo "NOTE: bubblewrap cannot start on this host: running with --insecure-no-sandbox"
  sandbox=(--insecure-no-sandbox)
fi
start=$(date +%s.%N)
if "$bbo" local examples/random-search-py --trials 1 --problems branin "${sandbox[@]}" \
    >"$tmp/local" 2>"$tmp/local.err"; then
  pass "bbo local examples/random-search-py --trials 1 --problems branin exits 0 ($(
    awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f s", e - s}'))"
else
  code=$?
  sed 's/^/  | /' "$tmp/local" "$tmp/local.err"
  fail "bbo local exits $code"
fi
score=$(grep -E '^Leaderboard score: -?[0-9]+\.[0-9]+' "$tmp/local")
if [ -n "$score" ]; then pass "it prints a score: $score"
else sed 's/^/  | /' "$tmp/local"; fail "no 'Leaderboard score: <number>' line"; fi

if [ $failures -eq 0 ]; then echo "participant_build_check: all checks passed"; exit 0; fi
echo "participant_build_check: $failures check(s) failed"
exit 1
