#!/usr/bin/env bash
# The report page in a real browser: Debian's Chromium, headless, with no network (its own
# network namespace when it can have one, else a proxy that goes nowhere). Renders the demo's
# report to a PNG and reads its DOM back (the first alert before the map, the account named); renders a report of a hostile corpus and finds nothing
# of the data as markup. Prints one line per check and exits non-zero when one fails.
#
# Usage: report_in_chromium.sh BINARY WORK
set -uo pipefail
BIN="$1"; WORK="$2"
mkdir -p "$WORK"
failed=0
say() { if [ "$1" = ok ]; then echo "  ok    $2"; else echo "  FAIL  $2"; failed=$((failed + 1)); fi; }
expect() { local name="$1"; shift; if "$@"; then say ok "$name"; else say no "$name"; fi; }

BROWSER="$(command -v chromium || command -v chromium-browser)"
OFFLINE=()
if unshare --net true 2>/dev/null; then OFFLINE=(unshare --net); fi
browse() { # browse OUTPUT-FLAG FILE: headless, offline, no sandbox (root in CI)
    "${OFFLINE[@]}" "$BROWSER" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --proxy-server=http://127.0.0.1:9 --proxy-bypass-list='<-loopback>' --window-size=1280,1400 "$@" 2>/dev/null
}

# The demo's report.
"$BIN" demo --fast --report "$WORK/demo.html" > "$WORK/demo.out" 2> "$WORK/demo.err"
expect "the demo writes its report and names it" grep -q "the report of Jane's month: $WORK/demo.html" "$WORK/demo.err"
expect "the page names no URL, loads no script, image or style sheet" bash -c "! grep -qE 'https?://|<script|<link|<img|src=|href=' '$WORK/demo.html'"
browse --screenshot="$WORK/demo.png" "file://$WORK/demo.html" >/dev/null
size=$(stat -c %s "$WORK/demo.png" 2>/dev/null || echo 0)
expect "Chromium renders it to a PNG that is not blank ($size bytes)" test "$size" -gt 40000
browse --dump-dom "file://$WORK/demo.html" > "$WORK/demo.dom"
python3 "$(dirname "$0")/report_dom.py" "$WORK/demo.dom" > "$WORK/demo.counts"
count() { sed -n "s/^$1 //p" "$2"; }
circles=$(count circles "$WORK/demo.counts"); rows=$(count places "$WORK/demo.counts")
expect "the DOM has a circle for each place ($circles circles, $rows places)" test "$circles" -gt 0 -a "$circles" -eq "$rows"
expect "  and nothing the report does not write" bash -c "! grep -q '^strange' '$WORK/demo.counts'"
alerts=$(count alerts "$WORK/demo.counts")
told=$(grep '\[' "$WORK/demo.out" | grep -vc '\[tophhie.notice.')
expect "  an article for every detection the demo printed ($alerts, $told)" test "$alerts" -eq "$told" -a "$alerts" -gt 0
expect "  the first alert comes before the map (the answer first)" grep -qx 'first-alert-before-map yes' "$WORK/demo.counts"
account=$(count account "$WORK/demo.counts")
expect "  it names the account ($account)" bash -c "grep -q '^account Account: .*jane@contoso.com' '$WORK/demo.counts'"
trips=$(count trips "$WORK/demo.counts")
travel=$(grep -c '\[impossible-travel\]' "$WORK/demo.out")
expect "  a travel line for every impossible-travel alert ($trips, $travel)" test "$trips" -eq "$travel" -a "$trips" -gt 0

# A hostile corpus: names that are markup, script, links, direction overrides, 100 KB.
python3 - "$WORK/hostile.jsonl" <<'PY'
import json, sys
names = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)', "' onmouseover='alert(1)",
         '<a href="https://evil.example/">click</a>', 'gnp\u202eexe.txt', '<svg onload=alert(1)>', 'A' * 100_000]
with open(sys.argv[1], "w") as out:
    for i, name in enumerate(names):
        for j in range(6):
            out.write(json.dumps({"id": f"h{i}-{j}", "createdDateTime": f"2024-05-01T{10 + i:02d}:{j:02d}:00Z", "userId": "u1",
                "status": {"errorCode": 50126}, "appDisplayName": name, "ipAddress": name, "userAgent": name,
                "location": {"city": name, "countryOrRegion": name, "geoCoordinates": {"latitude": 6.5, "longitude": 3.4}},
                "deviceDetail": {"displayName": name, "operatingSystem": name, "browser": name}}) + "\n")
PY
"$BIN" report --from "$WORK/hostile.jsonl" --out "$WORK/hostile.html" > "$WORK/hostile.out" 2>&1
expect "report --from a hostile corpus writes its page" test -s "$WORK/hostile.html"
browse --dump-dom "file://$WORK/hostile.html" > "$WORK/hostile.dom"
python3 "$(dirname "$0")/report_dom.py" "$WORK/hostile.dom" > "$WORK/hostile.counts"
expect "  its DOM holds no element, attribute or URL from the data" bash -c "! grep '^strange' '$WORK/hostile.counts'"
expect "  and the names are there as text" grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$WORK/hostile.dom"
browse --screenshot="$WORK/hostile.png" "file://$WORK/hostile.html" >/dev/null
expect "  it renders" test -s "$WORK/hostile.png"
exit "$failed"
