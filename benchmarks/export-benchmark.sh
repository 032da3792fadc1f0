#!/usr/bin/env bash
# Exports against the Graph page, in one invocation (issue 46): COUNT sign-ins of USERS people
# (default 100,000 of 500, the golden corpus) as a Graph page and the same sign-ins as
#   - Log Analytics `SigninLogs` JSON rows (an array; again with the dynamic columns as JSON
#     text, as Microsoft documents them), JSON lines and the portal's CSV
#     (benchmarks/graph-to-log-analytics.py),
#   - Azure Monitor's `{"records":[…]}` wrapper and the Log Analytics query API's `{"tables":[…]}`,
# each replayed with the default pack (`replay --rules rules --format json`), median of RUNS
# (default 3) by /usr/bin/time, its alerts held to the page's; jq reading the page (the
# failure-burst grouping, as replay-benchmark.sh runs it) beside them. With LARGE set (e.g.
# 1000000), the page, the JSON rows and the CSV at that size too, once each: peak memory and
# whether time grows linearly. Not a test: it prints the goals beside the figures, asserts nothing.
#
# Then SigmaHQ's 18 Azure sign-in rules (../shared/sigma) on the alert-heavy corpus (the same
# sign-ins from unmanaged devices: an alert for nearly every one), `replay --format json` beside
# pySigma-backend-sqlite 2.1.1 and pySigma-backend-duckdb 0.1.4 with duckdb 2.0.1 (DuckDB reads
# the page with read_json), median of RUNS, each peer's (rule, sign-in) pairs held to the alerts'.
# The two backends need different pySigma majors (2.x and 1.x), so each has its own venv.
#
# Environment: COUNT (default 100000), USERS (default 500), RUNS (default 3), LARGE, TMPDIR,
# BIN (a tophhie-watch to use instead of building the shipped one).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export PATH="/opt/swift/usr/bin:$PATH"
COUNT="${COUNT:-100000}"
USERS="${USERS:-500}"
RUNS="${RUNS:-3}"
LARGE="${LARGE:-}"
WORK="${TMPDIR:-/tmp}/tophhie-bench"
mkdir -p "$WORK"
command -v jq >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null; }
SIGMA="$ROOT/../shared/sigma"
VENV="$ROOT/.peer/venv"
DUCK_VENV="$ROOT/.peer/venv-duckdb"
if ! "$VENV/bin/python" -c "import sigma.backends.sqlite" >/dev/null 2>&1; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check pysigma-backend-sqlite==2.1.1
fi
if ! "$DUCK_VENV/bin/python" -c "import sigma_backend_duckdb, duckdb" >/dev/null 2>&1; then
    python3 -m venv "$DUCK_VENV"
    "$DUCK_VENV/bin/pip" install --quiet --disable-pip-version-check pysigma-backend-duckdb==0.1.4 duckdb==2.0.1
fi
if [ -z "${BIN:-}" ]; then
    . benchmarks/simulated-tenant.sh
    shipped_binary
fi

# corpus N FORMATS…: the page of N sign-ins (golden-alerts.sh's name for it) and its exports
# (json jsonl csv: Log Analytics; wrappers: Azure Monitor's records and the query API's tables),
# made once.
corpus() {
    local n="$1" page="$WORK/signins-$1-7-$USERS.json"
    shift
    [ -f "$page" ] || python3 benchmarks/generate-signins.py "$n" "$page" 7 "$USERS" >/dev/null
    local format
    for format in "$@"; do
        [ "$format" = wrappers ] || [ -f "$WORK/la-$n-$USERS.$format" ] || python3 benchmarks/graph-to-log-analytics.py "$page" "$WORK/la-$n-$USERS.$format" "$format" >/dev/null
    done
    [[ " $* " == *" wrappers "* ]] || return 0
    [ -f "$WORK/monitor-$n-$USERS.json" ] && [ -f "$WORK/tables-$n-$USERS.json" ] || python3 - "$page" "$WORK/monitor-$n-$USERS.json" "$WORK/tables-$n-$USERS.json" <<'PY'
import json, sys
signins = json.load(open(sys.argv[1], encoding="utf-8"))["value"]
# Azure Monitor's storage archive: one diagnostic record per sign-in, Graph's record its properties.
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write('{"records":[\n')
    out.write(",\n".join(json.dumps({"time": s["createdDateTime"], "category": "SignInLogs", "operationName": "Sign-in activity",
                                     "properties": s}, separators=(",", ":")) for s in signins))
    out.write("\n]}\n")
# The query API's answer: the columns once, then a row of values per sign-in.
renamed = {"id": "Id", "ipAddress": "IPAddress", "location": "LocationDetails", "appliedConditionalAccessPolicies": "ConditionalAccessPolicies",
           "resourceId": "ResourceIdentity", "processingTimeInMilliseconds": "ProcessingTimeInMs", "riskEventTypes_v2": "RiskEventTypes_V2"}
members = []
for s in signins:
    for name in s:
        if name not in members: members.append(name)
columns = [{"name": "TimeGenerated", "type": "datetime"}, {"name": "Type", "type": "string"}] + \
          [{"name": renamed.get(m, m[:1].upper() + m[1:]), "type": "dynamic"} for m in members]
with open(sys.argv[3], "w", encoding="utf-8") as out:
    out.write('{"tables":[{"name":"PrimaryResult","columns":' + json.dumps(columns, separators=(",", ":")) + ',"rows":[\n')
    out.write(",\n".join(json.dumps([s["createdDateTime"], "SigninLogs"] + [s.get(m) for m in members], separators=(",", ":")) for s in signins))
    out.write("\n]}]}\n")
PY
}

# measure LABEL RUNS COMMAND…: prints "wall cpu peakKB" of the run with the median wall time.
measure() {
    local label="$1" runs="$2"; shift 2
    local i
    : > "$WORK/$label.runs"
    for i in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S %M" -o "$WORK/$label.time" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err" \
            || { echo "$label failed:"; cat "$WORK/$label.err"; exit 1; }
        awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$WORK/$label.time" >> "$WORK/$label.runs"
    done
    sort -n "$WORK/$label.runs" | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}

# replays N RUNS INPUT…: one line per input, "label wall cpu peakKB alerts sha".
replays() {
    local n="$1" runs="$2"; shift 2
    local name file
    for name in "$@"; do
        case "$name" in
            page) file="$WORK/signins-$n-7-$USERS.json" ;;
            rows) file="$WORK/la-$n-$USERS.json" ;;
            textrows) file="$WORK/la-$n-$USERS.textjson" ;;
            lines) file="$WORK/la-$n-$USERS.jsonl" ;;
            csv) file="$WORK/la-$n-$USERS.csv" ;;
            records) file="$WORK/monitor-$n-$USERS.json" ;;
            tables) file="$WORK/tables-$n-$USERS.json" ;;
        esac
        read -r wall cpu kb < <(measure "export-$name-$n" "$runs" "$BIN" replay "$file" --rules rules --format json)
        echo "$name $n $wall $cpu $kb $(wc -l < "$WORK/export-$name-$n.out") $(sha256sum < "$WORK/export-$name-$n.out" | cut -c1-8) $(stat -c %s "$file")"
    done
}

corpus "$COUNT" json textjson jsonl csv wrappers
JQ_FILTER='[.value[] | select(.status.errorCode as $c | [50126,50053,50055,50056,50144] | index($c))
            | {u: .userId, b: .createdDateTime[0:15]}] | group_by([.u, .b]) | map(select(length >= 5)) | length'
{
    replays "$COUNT" "$RUNS" page rows textrows lines csv records tables
    read -r wall cpu kb < <(measure "export-jq-$COUNT" "$RUNS" jq "$JQ_FILTER" "$WORK/signins-$COUNT-7-$USERS.json")
    echo "jq $COUNT $wall $cpu $kb $(cat "$WORK/export-jq-$COUNT.out") - $(stat -c %s "$WORK/signins-$COUNT-7-$USERS.json")"
    if [ -n "$LARGE" ]; then
        corpus "$LARGE" json csv
        replays "$LARGE" 1 page rows csv
    fi
} > "$WORK/export-figures.txt"

# The alert-heavy corpus, SigmaHQ's rules: "label wall cpu peakKB pairs agreeing" per line.
HEAVY="$WORK/signins-$COUNT-7-$USERS-unmanaged.json"
[ -f "$HEAVY" ] || python3 benchmarks/generate-signins.py "$COUNT" "$HEAVY" 7 "$USERS" unmanaged >/dev/null
pairs() {  # the (rule, sign-in) pairs of replay's alert lines or of a peer's matches, sorted
    python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    for e in (o["events"] if "events" in o else [o["event"]]): print(o["rule"]["id"] if "events" in o else o["rule"], e)
' "$1" | sort
}
{
    read -r wall cpu kb < <(measure heavy-replay "$RUNS" "$BIN" replay "$HEAVY" --rules "$SIGMA" --format json)
    pairs "$WORK/heavy-replay.out" > "$WORK/heavy-replay.pairs"
    echo "replay $wall $cpu $kb $(wc -l < "$WORK/heavy-replay.pairs") -"
    read -r wall cpu kb < <(measure heavy-sqlite "$RUNS" "$VENV/bin/python" scripts/peers/pysigma_sqlite.py "$HEAVY" "$SIGMA" --matches "$WORK/heavy-sqlite.matches")
    pairs "$WORK/heavy-sqlite.matches" > "$WORK/heavy-sqlite.pairs"
    echo "sqlite $wall $cpu $kb $(wc -l < "$WORK/heavy-sqlite.pairs") $(cmp -s "$WORK/heavy-sqlite.pairs" "$WORK/heavy-replay.pairs" && echo same || echo DIFFER)"
    read -r wall cpu kb < <(measure heavy-duckdb "$RUNS" "$DUCK_VENV/bin/python" scripts/peers/pysigma_duckdb.py "$HEAVY" "$SIGMA" --matches "$WORK/heavy-duckdb.matches")
    pairs "$WORK/heavy-duckdb.matches" > "$WORK/heavy-duckdb.pairs"
    echo "duckdb $wall $cpu $kb $(wc -l < "$WORK/heavy-duckdb.pairs") $(cmp -s "$WORK/heavy-duckdb.pairs" "$WORK/heavy-replay.pairs" && echo same || echo DIFFER)"
} > "$WORK/sigma-figures.txt"

python3 - "$WORK/export-figures.txt" "$RUNS" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
names = {"page": "Graph page", "rows": "Log Analytics JSON rows", "textrows": "Log Analytics rows, dynamic as text", "lines": "Log Analytics JSON lines", "csv": "portal CSV",
         "records": "Azure Monitor {\"records\"}", "tables": "query API {\"tables\"}", "jq": "jq, failure-burst grouping (page)"}
page = {r[1]: r for r in rows if r[0] == "page"}
print(f"replay --rules rules --format json; median of {sys.argv[2]} runs at the first size, one run at a larger one")
print(f"{'input':<36} {'sign-ins':>9} {'MB':>6} {'wall':>8} {'cpu':>8} {'peak':>9} {'vs page':>8}  alerts")
for name, n, wall, cpu, kb, alerts, sha, size in rows:
    ratio = float(wall) / float(page[n][2])
    same = "" if name in ("page", "jq") else (" = page's" if (alerts, sha) == (page[n][5], page[n][6]) else " DIFFER from the page's")
    what = f"{alerts} buckets >= 5" if name == "jq" else f"{alerts} ({sha}…){same}"
    vs = f"{ratio:6.2f}x"
    print(f"{names[name]:<36} {int(n):>9} {int(size) / 1048576:6.0f} {float(wall):7.2f}s {float(cpu):7.2f}s {int(kb) / 1024:7.1f}MB {vs:>8}  {what}")
print()
for n in page:
    for name in ("rows", "textrows", "csv"):
        r = next((r for r in rows if r[0] == name and r[1] == n), None)
        if r: print(f"{names[name]} at {int(n):,}: {float(r[2]) / float(page[n][2]):.2f}x the page's time (goal <= 1.5x), peak {int(r[4]) / 1024:.0f} MB (goal <= 100 MB)")
sizes = sorted(page, key=int)
if len(sizes) > 1:
    small, large = sizes[0], sizes[-1]
    for name in ("page", "rows", "csv"):
        a = next(r for r in rows if r[0] == name and r[1] == small); b = next(r for r in rows if r[0] == name and r[1] == large)
        per = [float(r[k]) / int(r[1]) * 1e6 for r in (a, b) for k in (2, 3)]
        print(f"{names[name]}: {per[0]:.1f} µs wall ({per[1]:.1f} cpu) a sign-in at {int(small):,}, {per[2]:.1f} µs ({per[3]:.1f} cpu) at {int(large):,}: "
              f"{per[2] / per[0]:.2f}x wall, {per[3] / per[1]:.2f}x cpu (linear is 1.00x)")
print("(vs page: the input's wall time over the page's, the page replayed by tophhie-watch; jq's is jq's time over it)")
PY

python3 - "$WORK/sigma-figures.txt" "$RUNS" "$COUNT" <<'PY'
import sys
rows = {r[0]: r for r in (line.split() for line in open(sys.argv[1]))}
names = {"replay": "tophhie-watch replay --format json", "sqlite": "pySigma-sqlite 2.1.1", "duckdb": "pySigma-duckdb 0.1.4, duckdb 2.0.1"}
print()
print(f"alert-heavy corpus ({int(sys.argv[3]):,} sign-ins from unmanaged devices), SigmaHQ's 18 Azure rules; median of {sys.argv[2]} runs")
for key in ("replay", "sqlite", "duckdb"):
    _, wall, cpu, kb, pairs, agree = rows[key]
    said = "" if key == "replay" else ("  the same pairs as replay's alerts" if agree == "same" else "  DIFFER from replay's alerts")
    print(f"  {names[key]:<38} {float(wall):6.2f} s {float(cpu):6.2f} s cpu  peak {int(kb) / 1024:6.1f} MB  {pairs} (rule, sign-in){said}")
replay = float(rows["replay"][1])
print(f"  replay vs pySigma-sqlite: {float(rows['sqlite'][1]) / replay:5.2f}x as fast   (goal >= 5x)")
print(f"  replay vs DuckDB:         {float(rows['duckdb'][1]) / replay:5.2f}x as fast   (goal >= 2.5x); peak goal <= 100 MB")
PY
