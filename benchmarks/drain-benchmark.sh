#!/usr/bin/env bash
# How fast a backlog drains: an outbox of 5,000 and of 50,000 pending alerts (a receiver that
# was down for a long time) delivered by one poll to a notifier that takes them at once (stdout
# to /dev/null: the outbox's own cost, not a receiver's). Printed for each size: the drain's
# wall time, deliveries a second and the poll's peak memory, beside the goal (>= 1,000/s at both
# sizes, <= 100 MB). The backlog is made by a poll whose webhook cannot connect, its one queued
# line copied with new ids. The binary is the one that ships (.build/static). Not a test.
#
# Environment: TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="${TMPDIR:-/tmp}/tophhie-drain"
rm -rf "$WORK"; mkdir -p "$WORK"
. benchmarks/simulated-tenant.sh
shipped_binary
start_tenant '[{"pattern": "failureBurst", "seed": 1, "secondsAgo": 1800, "count": 6, "place": "lagos"}]' "$WORK"

# drain N: prints "seconds rate peak_mb" for a poll that drains N pending alerts.
drain() {
    local n="$1" dir="$WORK/$1"
    mkdir -p "$dir"
    export TOPHHIE_STATE_DIR="$dir/state" TOPHHIE_CONFIG="$dir/config.yml"
    printf 'notifiers:\n  - name: sink\n    type: webhook\n    url: http://127.0.0.1:9/\n    secret_env: DRAIN_SECRET\n' > "$dir/config.yml"
    export DRAIN_SECRET="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    "$BIN" login > "$dir/login.out" 2>&1
    "$BIN" poll --rules "$ROOT/rules" > "$dir/first.out" 2>&1 || true
    python3 - "$dir/state/outbox/sink.jsonl" "$n" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
first = json.loads(open(path).readline())
with open(path, "w") as out:
    for i in range(n):
        first["alert"]["id"] = f"{i:032x}"
        out.write(json.dumps(first, separators=(",", ":"), sort_keys=True) + "\n")
PY
    printf 'notifiers:\n  - name: sink\n    type: stdout\n    format: json\n' > "$dir/config.yml"
    /usr/bin/time -f "%e %M" -o "$dir/time" "$BIN" poll --quiet --rules "$ROOT/rules" > /dev/null 2> "$dir/poll.err" || true
    local left
    left=$(wc -l < "$dir/state/outbox/sink.jsonl" 2>/dev/null || echo "?")
    awk -v n="$n" -v left="$left" '{ printf "%.2f %.0f %.1f %s\n", $1, n / $1, $2 / 1024, left }' "$dir/time"
}
read -r T5 R5 M5 L5 < <(drain 5000)
read -r T50 R50 M50 L50 < <(drain 50000)
kill $SIM 2>/dev/null || true
printf 'draining a backlog in one poll (stdout to /dev/null), goal >= 1,000/s and <= 100 MB at both sizes:\n'
printf '   5,000 pending: %6.2f s, %6s deliveries/s, peak %6.1f MB (queue lines left: %s)\n' "$T5" "$R5" "$M5" "$L5"
printf '  50,000 pending: %6.2f s, %6s deliveries/s, peak %6.1f MB (queue lines left: %s)\n' "$T50" "$R50" "$M50" "$L50"
