#!/usr/bin/env bash
# The engine's speed beside its peers, in one invocation, on one generated file: COUNT sign-ins
# (default 100,000) of USERS people (default 500, the issue's shape: a tenant's export, about three
# sign-ins a day each):
#   - tophhie-watch replay with the default pack, and with SigmaHQ's Azure sign-in rules;
#   - the default pack again over one person's history of COUNT sign-ins (USERS=1: one every minute,
#     the worst case for the travel rule, which compares a sign-in with each of that person's
#     others within its timespan, and for first-seen, whose baselines are then one person's);
#   - tophhie-watch rules match with SigmaHQ's rules (detection only, as pySigma's queries are);
#   - jq doing the failure-burst grouping;
#   - pySigma-backend-sqlite running SigmaHQ's rules (Python: load into SQLite, convert, query);
#   - a poll with nothing new against the simulated tenant with 2,500 sign-ins in the 24 h window,
#     and the same poll with Graph taking half a second to answer each page (URLSession on Linux
#     spends a new connection's first wait busy; the poll opens the connection with a quick
#     request first, and this line shows whether the slow pages still cost CPU);
#   - with LARGE set (e.g. 1000000), one replay of a file that size, for its peak memory, and one
#     of the same sign-ins as JSON lines in random order (a file in no time order: its index is
#     sorted in stretches on disk).
# Everything runs the binary that ships: release, Swift runtime linked statically (.build/static,
# as scripts/package.sh builds it). Each replay figure is the median of RUNS runs (default 3) of
# /usr/bin/time; each poll figure the median of POLL_RUNS (default 9), CPU from getrusage to the
# millisecond. Not a test: it measures and prints the goals beside the figures; it asserts nothing.
#
# Environment: COUNT (default 100000), USERS (default 500), RUNS (default 3), POLL_RUNS (default 9),
# LARGE, TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
COUNT="${COUNT:-100000}"
USERS="${USERS:-500}"
RUNS="${RUNS:-3}"
POLL_RUNS="${POLL_RUNS:-9}"
LARGE="${LARGE:-}"
WORK="${TMPDIR:-/tmp}/tophhie-bench"
mkdir -p "$WORK"
DATA="$WORK/signins-$COUNT-users-$USERS.json"
ONE="$WORK/signins-$COUNT.json"
SIGMA="$ROOT/../shared/sigma"
VENV="$ROOT/.peer/venv"

[ -f "$DATA" ] || python3 benchmarks/generate-signins.py "$COUNT" "$DATA" 7 "$USERS"
[ -f "$ONE" ] || python3 benchmarks/generate-signins.py "$COUNT" "$ONE" 7 1
BYTES=$(stat -c %s "$DATA")
command -v jq >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null; }
if ! "$VENV/bin/python" -c "import sigma.backends.sqlite" >/dev/null 2>&1; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check pysigma-backend-sqlite==2.1.1
fi

. benchmarks/simulated-tenant.sh
shipped_binary

# measure LABEL COMMAND…: RUNS runs; prints "wall cpu peakKB" of the run with the median wall time.
measure() {
    local label="$1"; shift
    local i
    : > "$WORK/$label.runs"
    for i in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %U %S %M" -o "$WORK/$label.time" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err" \
            || { echo "$label failed:"; cat "$WORK/$label.err"; exit 1; }
        awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$WORK/$label.time" >> "$WORK/$label.runs"
    done
    sort -n "$WORK/$label.runs" | awk -v n="$RUNS" 'NR == int((n + 1) / 2)'
}

echo "input: $DATA ($(awk -v b="$BYTES" 'BEGIN { printf "%.1f MB", b / 1048576 }'), $COUNT sign-ins of $USERS people); median of $RUNS runs"
read -r T_PACK C_PACK M_PACK < <(measure replay-pack "$BIN" replay "$DATA" --rules rules --format json)
PACK_ALERTS=$(wc -l < "$WORK/replay-pack.out")
read -r T_ONE C_ONE M_ONE < <(measure replay-one "$BIN" replay "$ONE" --rules rules --format json)
ONE_ALERTS=$(wc -l < "$WORK/replay-one.out")
read -r T_SIGMA C_SIGMA M_SIGMA < <(measure replay-sigma "$BIN" replay "$DATA" --rules "$SIGMA" --format json)
SIGMA_ALERTS=$(wc -l < "$WORK/replay-sigma.out")
read -r T_MATCH C_MATCH M_MATCH < <(measure match-sigma "$BIN" rules match "$DATA" --rules "$SIGMA" --format json)
MATCHES=$(wc -l < "$WORK/match-sigma.out")
# jq: failed passwords grouped by user and 10-minute bucket, buckets with >= 5 (failure-burst's rule).
JQ_FILTER='[.value[] | select(.status.errorCode as $c | [50126,50053,50055,50056,50144] | index($c))
            | {u: .userId, b: .createdDateTime[0:15]}] | group_by([.u, .b]) | map(select(length >= 5)) | length'
read -r T_JQ C_JQ M_JQ < <(measure jq jq "$JQ_FILTER" "$DATA")
BUCKETS=$(cat "$WORK/jq.out")
read -r T_PY C_PY M_PY < <(measure pysigma "$VENV/bin/python" scripts/peers/pysigma_sqlite.py "$DATA" "$SIGMA" --matches "$WORK/pysigma.matches")
PY_MATCHES=$(wc -l < "$WORK/pysigma.matches")

# --- the alert-heavy corpus: the same sign-ins from unmanaged devices --------------------------
# SigmaHQ's non-compliant-devices rule matches nearly every one: an alert per sign-in, which a
# replay writes as it goes rather than gathering.
HEAVY="$WORK/signins-$COUNT-users-$USERS-unmanaged.json"
[ -f "$HEAVY" ] || python3 benchmarks/generate-signins.py "$COUNT" "$HEAVY" 7 "$USERS" unmanaged >/dev/null
read -r T_HEAVY C_HEAVY M_HEAVY < <(measure heavy-replay "$BIN" replay "$HEAVY" --rules "$SIGMA" --format json)
HEAVY_ALERTS=$(wc -l < "$WORK/heavy-replay.out")
read -r T_HEAVY_MATCH C_HEAVY_MATCH M_HEAVY_MATCH < <(measure heavy-match "$BIN" rules match "$HEAVY" --rules "$SIGMA" --format json)
HEAVY_MATCHES=$(wc -l < "$WORK/heavy-match.out")
read -r T_HEAVY_PY C_HEAVY_PY M_HEAVY_PY < <(measure heavy-pysigma "$VENV/bin/python" scripts/peers/pysigma_sqlite.py "$HEAVY" "$SIGMA" --matches "$WORK/heavy-pysigma.matches")
HEAVY_PY_MATCHES=$(wc -l < "$WORK/heavy-pysigma.matches")

# --- a poll with nothing new -----------------------------------------------------------------
# The basic scenario with 2,500 sign-ins a day for two days, so the 24 h re-read window holds
# about 2,500; a login, a first poll (learning), a second one to settle, then the measured polls.
POLL="$WORK/poll"
rm -rf "$POLL"; mkdir -p "$POLL"
start_tenant '[{"pattern": "normalHistory", "seed": 20261203, "days": 2, "perDayMin": 2500, "perDayMax": 2500}]' "$POLL"
export TOPHHIE_STATE_DIR="$POLL/state"
"$BIN" login > "$POLL/login.out" 2>&1
(cd "$POLL" && "$BIN" poll --quiet --rules "$ROOT/rules" > "$POLL/first.out" 2>&1 || true)
(cd "$POLL" && "$BIN" poll --rules "$ROOT/rules" > "$POLL/second.out" 2>&1 || true)
WINDOW=$(grep -o 'read [0-9]* sign-ins' "$POLL/second.out" | tail -1 | awk '{print $2}' || true)
# pollcpu: POLL_RUNS polls; prints "cpu_ms wall_ms peak_kb" (medians), CPU from getrusage.
pollcpu() {
    (cd "$POLL" && python3 - "$POLL_RUNS" "$BIN" poll --quiet --rules "$ROOT/rules" <<'PY'
import resource, statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
cpu, wall, peak = [], [], 0
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall.append(time.monotonic() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    peak = max(peak, after.ru_maxrss)
print(f"{statistics.median(cpu) * 1000:.1f} {statistics.median(wall) * 1000:.1f} {peak}")
PY
    )
}
read -r C_POLL T_POLL M_POLL < <(pollcpu)
# The same poll while Graph takes half a second over each page (a delay fault per poll's pages).
SIM_URL="${TOPHHIE_GRAPH_URL%/v1.0}"
# A poll asks four pages with graph.api beta (each stream's recent reads and one re-read page).
PAGES=4
slowpoll() {
    local i
    : > "$WORK/slow.runs"
    for i in $(seq "$POLL_RUNS"); do
        curl -s -X POST "$SIM_URL/_sim/faults" -d "{\"pathPrefix\": \"/beta/auditLogs/signIns\", \"kind\": \"delay\", \"seconds\": 0.5, \"count\": $PAGES}" >/dev/null
        (POLL_RUNS=1 pollcpu) >> "$WORK/slow.runs"
    done
    sort -n "$WORK/slow.runs" | awk -v n="$POLL_RUNS" 'NR == int((n + 1) / 2)'
}
read -r C_SLOW T_SLOW M_SLOW < <(slowpoll | awk '{print $1, $2, $3}')
kill $SIM 2>/dev/null || true

L_LINE=""
if [ -n "$LARGE" ]; then
    BIG="$WORK/signins-$LARGE-users-$USERS.json"
    [ -f "$BIG" ] || python3 benchmarks/generate-signins.py "$LARGE" "$BIG" 7 "$USERS" >/dev/null
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/large.time" "$BIN" replay "$BIG" --rules rules --format json >/dev/null 2>&1
    L_LINE=$(awk -v n="$LARGE" -v b="$(stat -c %s "$BIG")" '{ printf "replay of %d sign-ins (%.0f MB), default pack: %.1f s wall, peak %.1f MB", n, b / 1048576, $1, $4 / 1024 }' "$WORK/large.time")
    SHUFFLED="$WORK/shuffled-$LARGE-users-$USERS.jsonl"
    [ -f "$SHUFFLED" ] || python3 - "$BIG" "$SHUFFLED" <<'PY'
import json, random, sys
signins = json.load(open(sys.argv[1]))["value"]
random.Random(7).shuffle(signins)
with open(sys.argv[2], "w") as out:
    for signin in signins:
        out.write(json.dumps(signin, separators=(",", ":")) + "\n")
PY
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/shuffled.time" "$BIN" replay "$SHUFFLED" --rules rules --format json >/dev/null 2>&1
    L_LINE="$L_LINE
$(awk -v n="$LARGE" -v b="$(stat -c %s "$SHUFFLED")" '{ printf "the same in no order (JSON lines, %.0f MB): %.1f s wall, peak %.1f MB", b / 1048576, $1, $4 / 1024 }' "$WORK/shuffled.time")"
fi

python3 - "$COUNT" "$BYTES" "$T_PACK" "$C_PACK" "$M_PACK" "$PACK_ALERTS" "$T_SIGMA" "$C_SIGMA" "$M_SIGMA" "$SIGMA_ALERTS" \
    "$T_MATCH" "$C_MATCH" "$M_MATCH" "$MATCHES" "$T_JQ" "$C_JQ" "$M_JQ" "$BUCKETS" "$T_PY" "$C_PY" "$M_PY" "$PY_MATCHES" \
    "$T_POLL" "$C_POLL" "$M_POLL" "${WINDOW:-?}" "$C_SLOW" "$T_SLOW" "$M_SLOW" "$L_LINE" "$USERS" "$T_ONE" "$C_ONE" "$M_ONE" "$ONE_ALERTS" <<'PY'
import sys
a = sys.argv[1:]
n, size = int(a[0]), int(a[1])
def row(label, wall, cpu, kb, what):
    wall, cpu, kb = float(wall), float(cpu), int(kb)
    print(f"{label:<38} {wall:7.2f} s {cpu:7.2f} s cpu {n / wall:9.0f} ev/s {size / wall / 1e6:6.1f} MB/s  peak {kb / 1024:6.1f} MB  {what}")
    return wall, kb
print(f"{'':<38} {'wall':>9} {'':>11} {'':>14} {'':>11}  {'':>14}")
pack, pack_kb = row("tophhie-watch replay, default pack", a[2], a[3], a[4], f"{a[5]} alerts")
one, one_kb = row("  the same, one person's history", a[31], a[32], a[33], f"{a[34]} alerts")
sigma, sigma_kb = row("tophhie-watch replay, SigmaHQ (18)", a[6], a[7], a[8], f"{a[9]} alerts")
match, match_kb = row("tophhie-watch rules match, SigmaHQ", a[10], a[11], a[12], f"{a[13]} matches")
jq, jq_kb = row("jq, failure-burst grouping", a[14], a[15], a[16], f"{a[17]} buckets >= 5")
py, py_kb = row("pySigma-sqlite 2.1.1, SigmaHQ (18)", a[18], a[19], a[20], f"{a[21]} matches")
print()
print(f"replay (pack) vs jq:            {jq / pack:5.2f}x as fast   (goal >= 10x; {a[30]} people)")
print(f"  one person's history vs jq:   {jq / one:5.2f}x as fast   (jq's figure from the {a[30]} people's file)")
print(f"rules match vs pySigma-sqlite:  {py / match:5.2f}x as fast   (goal >= 5x)")
print(f"replay (SigmaHQ) vs pySigma:    {py / sigma:5.2f}x as fast")
print(f"peak RSS, replay (pack):        {pack_kb / 1024:5.1f} MB        (goal <= 100 MB for any input size)")
print(f"no-op poll, {a[25]} sign-ins in the window: {float(a[23]):.0f} ms cpu, {float(a[22]):.0f} ms wall, peak {int(a[24]) / 1024:.1f} MB   (goal <= 50 ms cpu)")
print(f"the same, Graph answering each page after 0.5 s: {float(a[26]):.0f} ms cpu, {float(a[27]):.0f} ms wall (goal: about the no-op poll)")
if a[29]: print(a[29])
PY
python3 - "$T_HEAVY" "$C_HEAVY" "$M_HEAVY" "$HEAVY_ALERTS" "$T_HEAVY_MATCH" "$C_HEAVY_MATCH" "$M_HEAVY_MATCH" "$HEAVY_MATCHES" \
    "$T_HEAVY_PY" "$C_HEAVY_PY" "$M_HEAVY_PY" "$HEAVY_PY_MATCHES" <<'PY'
import sys
a = sys.argv[1:]
print()
print("alert-heavy corpus (the same sign-ins from unmanaged devices), SigmaHQ (18):")
for label, (wall, cpu, kb, what) in [("tophhie-watch replay --format json", a[0:4]), ("tophhie-watch rules match", a[4:8]), ("pySigma-sqlite 2.1.1", a[8:12])]:
    print(f"  {label:<36} {float(wall):7.2f} s {float(cpu):7.2f} s cpu  peak {int(kb) / 1024:6.1f} MB  {what}")
print(f"  replay vs pySigma:      {float(a[8]) / float(a[0]):5.2f}x as fast   (goal >= 5x; peak goal <= 100 MB)")
print(f"  rules match vs pySigma: {float(a[8]) / float(a[4]):5.2f}x as fast   (goal >= 5x)")
PY
