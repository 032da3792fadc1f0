#!/usr/bin/env bash
# A poll's Graph budget with a busy non-interactive stream: the simulated tenant holds, in the
# 24 h lookback, 2,500 interactive sign-ins and 25,000 non-interactive ones (a token refresh
# every 3.5 s), and a poll with nothing new runs POLL_RUNS times (default 9). Printed: its CPU
# (getrusage, median), its wall time (the lookback walk's pages are paced to Graph's 5 requests
# per 10 s), and the sign-in log requests it made (the simulator's count), with graph.api beta (both streams) and v1.0 (interactive only), beside the goal and
# beside what re-reading the whole lookback every poll would ask (a request per 1,000 sign-ins).
# Then, with beta, the peak and CPU of the first poll (the whole lookback learned) and of a poll
# with one new sign-in after it (the engine's state read and written).
# The binary is the one that ships (release, static Swift runtime, .build/static). Not a test:
# it measures and prints; it asserts nothing.
#
# Environment: POLL_RUNS (default 9), TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
POLL_RUNS="${POLL_RUNS:-9}"
WORK="${TMPDIR:-/tmp}/tophhie-poll-budget"
rm -rf "$WORK"; mkdir -p "$WORK"

. benchmarks/simulated-tenant.sh
shipped_binary
start_tenant '[{"pattern": "normalHistory", "seed": 20261205, "days": 1, "perDayMin": 2500, "perDayMax": 2500},
               {"pattern": "tokenRefreshes", "seed": 20261206, "days": 1, "perDayMin": 25000, "perDayMax": 25000}]' "$WORK"
CONTROL="${TOPHHIE_GRAPH_URL%/v1.0}/_sim/status"

# budget API: a state of its own, a login, a learning poll, one to settle, then POLL_RUNS polls;
# prints "cpu_ms wall_ms requests_per_poll window" (medians; requests from the simulator's count).
budget() {
    local api="$1" dir="$WORK/$1"
    mkdir -p "$dir"
    printf 'graph:\n  api: %s\n' "$api" > "$dir/config.yml"
    export TOPHHIE_STATE_DIR="$dir/state" TOPHHIE_CONFIG="$dir/config.yml"
    "$BIN" login > "$dir/login.out" 2>&1
    /usr/bin/time -f "%M" -o "$dir/first.kb" "$BIN" poll --quiet --rules "$ROOT/rules" > "$dir/first.out" 2>&1 || true
    "$BIN" poll --rules "$ROOT/rules" > "$dir/second.out" 2>&1 || true
    python3 - "$POLL_RUNS" "$CONTROL" "$BIN" poll --quiet --rules "$ROOT/rules" <<'PY'
import json, resource, statistics, subprocess, sys, time, urllib.request
runs, control, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
def asked():
    return json.load(urllib.request.urlopen(control))["signInRequests"]
cpu, wall, requests = [], [], []
for _ in range(runs):
    before, count = resource.getrusage(resource.RUSAGE_CHILDREN), asked()
    started = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall.append(time.monotonic() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    requests.append(asked() - count)
print(f"{statistics.median(cpu) * 1000:.1f} {statistics.median(wall) * 1000:.1f} {statistics.median(requests):.0f} {max(requests)}")
PY
    echo "$(( $(tail -n 1 "$dir/first.kb") / 1024 ))" > "$dir/first.mb"
    # Then one new sign-in: the poll that reads the engine's state of the whole lookback.
    local user
    user=$(python3 -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["userId"])' "$CONTROL")
    python3 - "$user" "$api" > "$dir/new.json" <<'PY'
import datetime, json, sys
at = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(seconds=30)
print(json.dumps([{"id": f"budget-{sys.argv[2]}-0000-4000-8000-000000000001", "createdDateTime": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "userId": sys.argv[1], "appDisplayName": "Azure CLI", "ipAddress": "203.0.113.50", "isInteractive": True,
                   "status": {"errorCode": 0}, "location": {"city": "London", "countryOrRegion": "GB"}}]))
PY
    curl -s -X POST -H 'Content-Type: application/json' --data @"$dir/new.json" "${CONTROL%/status}/signins" > /dev/null
    /usr/bin/time -f "%M %U %S" -o "$dir/next.time" "$BIN" poll --quiet --rules "$ROOT/rules" > "$dir/next.out" 2>&1 || true
    read -r kb user_s sys_s < <(tail -n 1 "$dir/next.time")
    python3 -c 'import sys; print(f"{int(sys.argv[1]) // 1024} {(float(sys.argv[2]) + float(sys.argv[3])) * 1000:.0f}")' "$kb" "$user_s" "$sys_s" > "$dir/next.figures"
}
# Not `< <(budget …)`: read would return at the first line, and the tenant be stopped while the
# function's new-sign-in poll still ran.
budget beta > "$WORK/beta.figures"
budget v1.0 > "$WORK/v1.figures"
read -r C_BETA T_BETA R_BETA X_BETA < "$WORK/beta.figures"
read -r C_V1 T_V1 R_V1 X_V1 < "$WORK/v1.figures"
kill $SIM 2>/dev/null || true
WHOLE=$(( (2500 + 999) / 1000 + (25000 + 999) / 1000 ))
printf 'no-op poll, 2,500 interactive + 25,000 non-interactive sign-ins in the 24 h lookback (median of %d):\n' "$POLL_RUNS"
printf '  graph.api beta (both streams): %6.0f ms cpu, %6.0f ms wall, %s sign-in requests a poll (most %s)   (goal <= 60 ms cpu; walk pages paced to 5 requests per 10 s)\n' "$C_BETA" "$T_BETA" "$R_BETA" "$X_BETA"
printf '  graph.api v1.0 (interactive):  %6.0f ms cpu, %6.0f ms wall, %s sign-in requests a poll (most %s)\n' "$C_V1" "$T_V1" "$R_V1" "$X_V1"
printf '  re-reading the whole lookback every poll would ask %d requests a poll\n' "$WHOLE"
printf 'first poll (the whole lookback learned, both streams): peak %s MB   (goal <= 100 MB)\n' "$(cat "$WORK/beta/first.mb")"
read -r NEXT_MB NEXT_MS < "$WORK/beta/next.figures"
printf 'then a poll with one new sign-in (the engine state of the lookback read and written): peak %s MB, %s ms cpu\n' "$NEXT_MB" "$NEXT_MS"
