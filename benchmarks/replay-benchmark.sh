#!/usr/bin/env bash
# Replay benchmark: 100,000 generated sign-ins through the default pack, against jq doing a
# comparable failure grouping. Not a test: it measures, it does not assert.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${COUNT:-100000}"
WORK="${TMPDIR:-/tmp}/tophhie-bench"
mkdir -p "$WORK"
DATA="$WORK/signins-$COUNT.json"

[ -f "$DATA" ] || python3 benchmarks/generate-signins.py "$COUNT" "$DATA"
ls -l "$DATA" | awk '{printf "input: %s (%.1f MB)\n", $9, $5/1048576}'

flock /tmp/swift-build.lock swift build -c release --product tophhie-watch >/dev/null
BIN="$(swift build -c release --show-bin-path)/tophhie-watch"

measure() {  # label, command… → prints seconds and peak RSS
    local label="$1"; shift
    /usr/bin/time -v "$@" >"$WORK/$label.out" 2>"$WORK/$label.time" || { cat "$WORK/$label.time"; exit 1; }
    local wall rss
    wall=$(grep "Elapsed (wall clock)" "$WORK/$label.time" | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    rss=$(grep "Maximum resident set size" "$WORK/$label.time" | awk '{print $NF}')
    echo "$wall $rss"
}

read -r T_REPLAY RSS_REPLAY < <(measure replay "$BIN" replay "$DATA" --rules rules --format json)
ALERTS=$(wc -l <"$WORK/replay.out")
# jq: failed passwords grouped by user and 10-minute bucket, buckets with >= 5 (failure-burst's rule).
JQ_FILTER='[.value[] | select(.status.errorCode as $c | [50126,50053,50055,50056,50144] | index($c))
            | {u: .userId, b: .createdDateTime[0:15]}] | group_by([.u, .b]) | map(select(length >= 5)) | length'
read -r T_JQ RSS_JQ < <(measure jq jq "$JQ_FILTER" "$DATA")
BUCKETS=$(cat "$WORK/jq.out")

python3 - "$COUNT" "$T_REPLAY" "$RSS_REPLAY" "$ALERTS" "$T_JQ" "$RSS_JQ" "$BUCKETS" <<'PY'
import sys
n, tr, rr, alerts, tj, rj, buckets = sys.argv[1:]
n, tr, rr, tj, rj = int(n), float(tr), int(rr), float(tj), int(rj)
print(f"tophhie-watch replay (13 rules): {tr:6.2f} s  {n / tr:9.0f} events/s  peak {rr / 1024:6.1f} MB  {alerts} alerts")
print(f"jq failure grouping (1 rule):    {tj:6.2f} s  {n / tj:9.0f} events/s  peak {rj / 1024:6.1f} MB  {buckets} buckets >= 5")
print(f"ratio replay/jq: time {tr / tj:.2f}x, memory {rr / rj:.2f}x")
PY
