#!/usr/bin/env bash
# The report's size and speed on a busy month: COUNT sign-ins (default 75,000: 2,500 a day for 30
# days, the figure issue 35 names) of one person, written as a page by 'report --from', then
# rendered by headless Chromium from Debian's packages. Prints the page's size, the time to write
# it (the whole command: reading, the rules' replay, the page) and the time Chromium takes to
# render it beyond rendering an empty page, beside the goals (< 2 MB, < 1 s, < 1 s). The binary is
# the one that ships (.build/static). Not a test. Environment: COUNT, RUNS (default 5), TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"   # benchmarks/simulated-tenant.sh builds under it
COUNT="${COUNT:-75000}"; RUNS="${RUNS:-5}"
WORK="${TMPDIR:-/tmp}/tophhie-report-bench"
mkdir -p "$WORK"
. benchmarks/simulated-tenant.sh
shipped_binary
command -v chromium >/dev/null || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
DATA="$WORK/month-$COUNT.json"
[ -f "$DATA" ] || python3 - "$COUNT" "$DATA" <<'PY'
# A sign-in every 30 days / COUNT, the generator's person and places, a minute apart rescaled.
import json, subprocess, sys
count, out = int(sys.argv[1]), sys.argv[2]
subprocess.run([sys.executable, "benchmarks/generate-signins.py", str(count), out + ".raw", "7", "1"], check=True, stdout=subprocess.DEVNULL)
from datetime import datetime, timedelta, timezone
page = json.load(open(out + ".raw"))
events = sorted(page["value"], key=lambda e: e["createdDateTime"])
start = datetime(2026, 11, 1, tzinfo=timezone.utc)
step = 30 * 86400 / len(events)
for i, event in enumerate(events):
    event["createdDateTime"] = (start + timedelta(seconds=i * step)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
json.dump({"value": events}, open(out, "w"))
PY
BROWSER=(chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1400)
printf '<!DOCTYPE html><title>empty</title>' > "$WORK/empty.html"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for i in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$WORK/write.time" "$BIN" report --from "$DATA" --since 30d --out "$WORK/month.html" --rules rules > /dev/null 2>&1
    cut -d' ' -f1 "$WORK/write.time" >> "$WORK/write.times"
    cut -d' ' -f2 "$WORK/write.time" >> "$WORK/write.kb"
    s=$(date +%s.%N); "${BROWSER[@]}" --screenshot="$WORK/empty.png" "file://$WORK/empty.html" >/dev/null 2>&1; e=$(date +%s.%N)
    s2=$(date +%s.%N); "${BROWSER[@]}" --screenshot="$WORK/month.png" "file://$WORK/month.html" >/dev/null 2>&1; e2=$(date +%s.%N)
    echo "($e2 - $s2) - ($e - $s)" | bc -l >> "$WORK/render.times"
done
SIZE=$(stat -c %s "$WORK/month.html")
printf 'report of %s sign-ins over 30 days (median of %s):\n' "$COUNT" "$RUNS"
printf '  page size      %8.2f MB    (goal < 2 MB)\n' "$(echo "$SIZE / 1048576" | bc -l)"
printf '  written in     %8.2f s     (goal < 1 s; reading, replaying the rules and writing), peak %s MB\n' "$(median < "$WORK/write.times")" "$(( $(median < "$WORK/write.kb") / 1024 ))"
printf '  rendered in    %8.2f s     (goal < 1 s; Chromium headless, beyond an empty page)\n' "$(median < "$WORK/render.times")"
rm -f "$WORK/write.times" "$WORK/write.kb" "$WORK/render.times"
