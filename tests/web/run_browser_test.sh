#!/usr/bin/env bash
# The web leaderboard in a real browser (ctest WebBrowserTest, label "web"; tests/web/README.md).
#   run_browser_test.sh --build-dir BUILD --source-dir SRC --artifacts DIR
# Starts a real bbo-server (three-phase competition on a calendar file, the web leaderboard on
# 127.0.0.1), a sandboxed bbo-worker and the bbo CLI on a temporary SQLite file; plays practice,
# feedback and the migration into the final; then runs browser_test.mjs (playwright-core driving
# Debian's /usr/bin/chromium headless), which writes its screenshots to DIR. Exits 77 (skipped)
# when chromium, node or tests/web/node_modules is missing, saying which; under CI=true a missing
# prerequisite fails the test instead (exit 1). Every wait has a deadline.
set -euo pipefail

build="" source="" artifacts=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --source-dir) source="$2"; shift 2 ;;
    --artifacts) artifacts="$2"; shift 2 ;;
    *) echo "run_browser_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$build" ] || [ -z "$source" ] || [ -z "$artifacts" ]; then
  echo "usage: run_browser_test.sh --build-dir BUILD --source-dir SRC --artifacts DIR" >&2
  exit 2
fi

build="$(cd "$build" && pwd)"
source="$(cd "$source" && pwd)"
mkdir -p "$artifacts"
artifacts="$(cd "$artifacts" && pwd)"

# A missing prerequisite: skipped by hand, a failure under CI=true (CI installs all three).
missing() {
  if [ "${CI:-}" = "true" ] || [ "${CI:-}" = "1" ]; then
    echo "FAILED: $* (CI=true: the browser test must run)" >&2
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}
chromium="${BBO_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  missing "no chromium at $chromium (apt-get install chromium; deploy/install-deps.sh does)"
fi
if ! command -v node >/dev/null; then
  missing "no node (apt-get install npm; deploy/install-deps.sh does)"
fi
if [ ! -d "$source/tests/web/node_modules/playwright-core" ]; then
  missing "no tests/web/node_modules/playwright-core (cd tests/web && npm ci;" \
    "deploy/install-deps.sh does it whenever npm is present)"
fi

bbo="$build/client/bbo"
server_bin="$build/server/bbo-server"
worker_bin="$build/worker/bbo-worker"
root="$(mktemp -d /tmp/bbo_web_browser.XXXXXX)"
# The sandbox's unprivileged uid must traverse the worker's folders under it.
chmod 755 "$root"
rm -f "$artifacts"/*.png "$artifacts"/*.log
server_pid="" worker_pid=""
cleanup() {
  local code=$?
  # Only the processes this script started, by their ids.
  [ -n "$worker_pid" ] && kill "$worker_pid" 2>/dev/null && wait "$worker_pid" 2>/dev/null
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  cp "$root"/browser-*.log "$artifacts"/ 2>/dev/null || true
  if [ "$code" -ne 0 ]; then
    cp "$root"/*.log "$artifacts"/ 2>/dev/null || true
    echo "run_browser_test: failed ($code); logs copied to $artifacts" >&2
  fi
  rm -rf "$root"
  exit "$code"
}
trap cleanup EXIT

db="$root/arena.sqlite"
cat >"$root/competition.json" <<'EOF'
{
  "name": "web-2026",
  "title": "Web 2026",
  "description": "A test competition of the web page.",
  "terms": "Be fair. <i>Not italic.</i>",
  "registration": "invite_code",
  "seed": 11,
  "phases": [
    {"name": "practice", "title": "Practice", "rules": "Try things out. <b>Not bold.</b>",
     "start": "2026-01-01T00:00:00Z", "end": "2026-02-01T00:00:00Z",
     "problem_set": "test", "batch_size": 4, "n_batches": 3, "default_trials": 1,
     "baseline_trials": 1},
    {"name": "feedback", "title": "Feedback", "rules": "Hidden problems: overall scores only.",
     "start": "2026-02-01T00:00:00Z", "end": "2026-03-01T00:00:00Z", "problem_set": "test",
     "batch_size": 4, "n_batches": 3, "default_trials": 1, "baseline_trials": 1,
     "hidden": true},
    {"name": "final", "title": "Final", "rules": "Each team's chosen submission runs once.",
     "migrate_from": "feedback", "start": "2026-03-01T00:00:00Z", "end": "2026-03-15T00:00:00Z",
     "board": "hidden_until_published", "problem_set": "test", "batch_size": 4,
     "n_batches": 3, "default_trials": 2, "baseline_trials": 1, "hidden": true}
  ]
}
EOF
for team in red blue; do
  "$bbo" admin --db "$db" team add "$team" >"$root/$team.token" 2>/dev/null
done
"$bbo" admin --db "$db" organizer add ops >"$root/organizer.token" 2>/dev/null
"$bbo" admin --db "$db" worker add host >"$root/worker.token" 2>/dev/null
set_date() { echo "$1" >"$root/date.tmp" && mv "$root/date.tmp" "$root/date"; }
sql() { sqlite3 -cmd ".timeout 5000" "$db" "$1"; }
wait_for() {  # seconds, command...
  local limit=$(($1 * 10)); shift
  for _ in $(seq "$limit"); do "$@" && return 0; sleep 0.1; done
  echo "run_browser_test: timed out waiting for: $*" >&2
  return 1
}
port_ready() { [ -s "$1" ] && grep -q '^[0-9]*$' "$1"; }
idle() { [ "$(sql "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'leased')")" = 0 ]; }
submit() {  # team name [folder]
  "$bbo" --token_file "$root/$1.token" submit "${3:-$root/sub}" --name "$2" \
    --server "127.0.0.1:$grpc_port" >>"$root/cli.log" 2>&1
  sql "SELECT id FROM submissions WHERE name = '$2'"
}

mkdir -p "$root/sub"
cp "$source/tests/optimizers/steady/optimizer.py" "$root/sub/"
set_date 2026-01-10T00:00:00Z
"$server_bin" --listen=127.0.0.1:0 --port_file="$root/port" --db="$db" \
  --competition_file="$root/competition.json" --testing_calendar_file="$root/date" \
  --web_listen=127.0.0.1:0 --web_port_file="$root/web_port" >"$root/server.log" 2>&1 &
server_pid=$!
wait_for 10 port_ready "$root/port"
wait_for 10 port_ready "$root/web_port"
grpc_port="$(cat "$root/port")"
"$worker_bin" --coordinator="127.0.0.1:$grpc_port" --work_dir="$root/work" \
  --token_file="$root/worker.token" --python_dir="$source/python" --cgroups=auto \
  >"$root/worker.log" 2>&1 &
worker_pid=$!

# Practice: a name holding markup (written behind the server's back: no validation lets one
# through) and an error message holding markup, as an optimizer's stderr could.
html_name='<img src=x onerror="window.injected=1">'
red_practice="$(submit red red-practice)"
submit blue blue-practice >/dev/null
sql "UPDATE submissions SET name = '${html_name//\'/\'\'}' WHERE id = $red_practice"
wait_for 40 idle
sql "INSERT INTO study_errors (study_id, batch, kind, message) SELECT id, 0, 'suggest',
     '<script>window.injected=2</script>' FROM studies WHERE submission_id = $red_practice LIMIT 1"

# Feedback: both teams submit (red chooses its entry into the final in the browser, below).
set_date 2026-02-10T00:00:00Z
red_feedback="$(submit red red-feedback)"
submit red red-feedback-2 >/dev/null
submit blue blue-feedback >/dev/null
# Blue's latest feedback submission has a syntax error and blue chooses nothing: its working one
# must go on to the final, never the crashed one (the crashed-finalist case).
mkdir -p "$root/crash"
printf 'def suggest(self:\n    return []\n' >"$root/crash/optimizer.py"
submit blue blue-crash "$root/crash" >/dev/null
wait_for 40 idle

# In the browser during feedback: an organizer makes an invite code, a new team registers with
# it and uploads archives (a good one, one without an optimizer, one with a syntax error), reads
# its submissions' pages, and red chooses its entry into the final with the Choose button.
mkdir -p "$root/empty"
echo "no optimizer here" >"$root/empty/README"
tar -C "$root/sub" -cf "$root/good.tar" .
tar -C "$root/empty" -cf "$root/empty.tar" .
tar -C "$root/crash" -cf "$root/crash.tar" .
# What `bbo submit` says of the archive without an optimizer: the page must say the same.
cli_broken="$("$bbo" --token_file "$root/blue.token" submit "$root/empty.tar" --name blue-empty \
  --server "127.0.0.1:$grpc_port" 2>&1 || true)"
run_browser() {  # stage
  STAGE="$1" \
  WEB_URL="http://127.0.0.1:$(cat "$root/web_port")/" \
  RED_TOKEN="$(cat "$root/red.token")" \
  ORGANIZER_TOKEN="$(cat "$root/organizer.token")" \
  HTML_NAME="$html_name" \
  GOOD_ARCHIVE="$root/good.tar" EMPTY_ARCHIVE="$root/empty.tar" CRASH_ARCHIVE="$root/crash.tar" \
  CLI_BROKEN_OUTPUT="$cli_broken" \
  CHROMIUM="$chromium" \
  ARTIFACTS="$artifacts" \
    node "$source/tests/web/browser_test.mjs" 2>&1 | tee "$root/browser-$1.log"
}
run_browser feedback
wait_for 60 idle
red_chosen="$(sql "SELECT COUNT(*) FROM phase_events WHERE kind = 'chosen' AND submission_id = $red_feedback")"
if [ "$red_chosen" != 1 ]; then
  echo "run_browser_test: red's choice in the browser was not recorded" >&2
  exit 1
fi

# The final: the entries migrate and run; the board stays hidden until published.
set_date 2026-03-02T00:00:00Z
migrated() { [ "$(sql "SELECT COUNT(*) FROM submissions WHERE phase = 'final' AND is_baseline = 0")" = 3 ]; }
wait_for 20 migrated
wait_for 40 idle

# A job lost to the platform (as a dead worker host leaves one), for the organizer to requeue.
sql "INSERT INTO jobs (submission_id, problem, trial, seed, state, attempts, last_error, builtin,
     board, max_batches) SELECT submission_id, problem, trial + 100, seed + 100, 'failed', 3,
     'lost: worker host went away', builtin, board, max_batches FROM jobs WHERE id =
     (SELECT MIN(jobs.id) FROM jobs JOIN submissions ON submissions.id = jobs.submission_id
      WHERE submissions.name = 'blue-practice')"
run_browser final
