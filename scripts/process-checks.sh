#!/usr/bin/env bash
# End-to-end checks of the real binary as an operator runs it: the simulated tenant in one
# process, login, a daemon that reloads on SIGHUP and finishes its cycle on SIGTERM (exit 0),
# a second poll that steps aside while the daemon holds the lock, and the demo.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
LOCK="${SWIFT_BUILD_LOCK-/tmp/swift-build.lock}"
if [ -n "$LOCK" ]; then flock "$LOCK" swift build --product tophhie-watch >/dev/null; else swift build --product tophhie-watch >/dev/null; fi
BIN="$(swift build --show-bin-path)/tophhie-watch"
WORK="$(mktemp -d)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; umount "$WORK/tmpfs" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
passed=0; failed=0
check() { # name, condition…
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "  ok    $name"; else failed=$((failed + 1)); echo "  FAIL  $name"; fi
}

"$BIN" simulate >"$WORK/sim.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q "Serving until" "$WORK/sim.out" && break; sleep 0.1; done
AUTHORITY=$(awk '/authority/ {print $2; exit}' "$WORK/sim.out")
GRAPH=$(awk '/Graph URL/ {print $3; exit}' "$WORK/sim.out")
TENANT=$(awk '/^  tenant / {print $2; exit}' "$WORK/sim.out")
CLIENT=$(awk '/client id/ {print $3; exit}' "$WORK/sim.out")
export TOPHHIE_TENANT="$TENANT" TOPHHIE_CLIENT_ID="$CLIENT" TOPHHIE_AUTHORITY="$AUTHORITY" TOPHHIE_GRAPH_URL="$GRAPH" TOPHHIE_STATE_DIR="$WORK/state"

"$BIN" login >"$WORK/login.out" 2>&1
check "login prints the device-code prompt and signs in" grep -q "enter the code" "$WORK/login.out"
check "the token cache is 0600" test "$(stat -c %a "$WORK/state/tokens.json")" = 600

"$BIN" run >"$WORK/run.out" 2>"$WORK/run.err" &
RUN=$!
PIDS+=($RUN)
for _ in $(seq 100); do grep -q "learned from" "$WORK/run.err" && break; sleep 0.1; done
check "the daemon's first cycle learns from the history and alerts on none of it (the baseline)" bash -c "grep -q 'learned from' '$WORK/run.err' && ! grep -q 'failure-burst' '$WORK/run.out'"
"$BIN" poll >"$WORK/poll.out" 2>"$WORK/poll.err"
check "a second poll exits 0 while the daemon holds the lock" test $? -eq 0
check "and says why" grep -q "already running on this state directory" "$WORK/poll.err"
timeout 30 "$BIN" run >/dev/null 2>"$WORK/run2.err"; run2_rc=$?
check "a second run exits 1 while the daemon holds the lock (a duplicate unit shows as failed)" test "$run2_rc" -eq 1
check "  and says why" grep -q "already running on this state directory" "$WORK/run2.err"
mkdir -p "$WORK/state/outbox" && touch "$WORK/state/.state.json.tmp-4194304" "$WORK/state/outbox/.stdout.jsonl.tmp-4194304"
kill -HUP "$RUN"
for _ in $(seq 50); do grep -q "reloaded configuration" "$WORK/run.err" && break; sleep 0.1; done
check "SIGHUP reloads" grep -q "reloaded configuration and" "$WORK/run.err"
kill -TERM "$RUN"
wait "$RUN"
check "SIGTERM finishes the cycle and exits 0" test $? -eq 0
check "and logs that it stopped" grep -q "stopped after" "$WORK/run.err"
check "no token reached the logs" bash -c "! grep -qiE 'eyJ|refresh_token|access_token' '$WORK/run.err' '$WORK/run.out' '$WORK/login.out'"
"$BIN" poll >/dev/null 2>&1
check "the next agent to take the lock removes what a killed one was writing" sh -c "test ! -e '$WORK/state/.state.json.tmp-4194304' && test ! -e '$WORK/state/outbox/.stdout.jsonl.tmp-4194304'"
# The host clock stepped 6 hours ahead for the agent alone (libfaketime; the simulator keeps the
# real time): one clock-skew notice, and the next poll on time raises nothing more.
command -v faketime >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null; }
FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f '+6h' "$BIN" poll >"$WORK/skew.out" 2>"$WORK/skew.err"
check "a host clock 6 h ahead of Graph's is told in a clock-skew notice" grep -q "\[tophhie.notice.clock-skew\].*The host clock is 6 h 0 min ahead of Microsoft Graph's" "$WORK/skew.out"
"$BIN" poll >"$WORK/skew2.out" 2>&1
check "  once" bash -c "! grep -q 'clock-skew' '$WORK/skew2.out'"

# A command that never goes online leaves the home directory alone: making URLSession's
# configuration has Foundation create cache and cookie directories there, so the transport makes
# its session at the first request only.
mkdir -p "$WORK/home"
env -u XDG_CACHE_HOME -u XDG_DATA_HOME HOME="$WORK/home" "$BIN" --version >/dev/null 2>&1
env -u XDG_CACHE_HOME -u XDG_DATA_HOME HOME="$WORK/home" "$BIN" rules test rules/ >/dev/null 2>&1
check "offline commands leave the home directory as it was" test -z "$(ls -A "$WORK/home")"

"$BIN" demo --fast >"$WORK/demo.out" 2>"$WORK/demo.err"
check "the demo exits 0" test $? -eq 0
# The README holds the program's own words: every line of its demo excerpt (up to its cut, '…')
# is a line the demo prints, its rule count is the demo's, and its command table lists every
# command '--help' does, and no other.
awk '/^## What the demo shows/ {on=1} on && /^```$/ && !inside {inside=1; next} inside && /^```$/ {exit} inside {print}' README.md > "$WORK/excerpt.txt"
check "the README's demo excerpt has its lines" test "$(wc -l < "$WORK/excerpt.txt")" -ge 10
check "  each is a line the demo prints" bash -c "while IFS= read -r line; do key=\"\${line%%…*}\"; key=\"\${key% }\"; grep -qF -- \"\$key\" '$WORK/demo.out' '$WORK/demo.err' || { echo \"not printed: \$key\"; exit 1; }; done < '$WORK/excerpt.txt'"
demo_rules=$(sed -n 's/.*the agent starts: \([0-9]*\) rules.*/\1/p' "$WORK/demo.err")
check "  the rule count it gives ($demo_rules) is the pack's" sh -c "test -n '$demo_rules' && \"$BIN\" rules check rules/ | grep -q \"^$demo_rules rule(s) loaded\""
"$BIN" --help | sed -n 's/^  \([a-z][a-z -]*[a-z]\)   .*/\1/p' | sed 's/ *$//' | sort > "$WORK/commands.txt"
grep '^| `[a-z][a-z ]*` | .*| `tophhie-watch' README.md | sed -n 's/^| `\([a-z][a-z ]*\)` | .*/\1/p' | sort -u > "$WORK/readme-commands.txt"
check "  its command table lists every command --help does ($(wc -l < "$WORK/commands.txt")), and no other" diff "$WORK/commands.txt" "$WORK/readme-commands.txt"
for rule in failure-burst success-after-failures impossible-travel new-country device-code-sign-in token-from-new-place; do
  check "the demo fires $rule" grep -q "\[$rule\]" "$WORK/demo.out"
done
check "the late burst is marked late" grep -q "late-by=" "$WORK/demo.out"
check "the demo's device-code alert is the phishing one, not the agent's own login" test "$(grep -c '\[device-code-sign-in\]' "$WORK/demo.out")" = 1
check "the stolen token's refreshes from Moscow are caught" grep -q "\[token-from-new-place\] Your account was used from Moscow, Russia " "$WORK/demo.out"

# A device-code redemption in Graph beta's shape (Tests/Contracts/beta) alerts through replay;
# the agent's own (its client id configured) does not.
env -u TOPHHIE_CLIENT_ID -u TOPHHIE_CONFIG "$BIN" replay Tests/Contracts/beta/device-code-redemptions.json >"$WORK/redeem-all.out" 2>/dev/null
check "replay: both redemptions alert when no client id is known" test "$(grep -c '\[device-code-sign-in\]' "$WORK/redeem-all.out")" = 2
TOPHHIE_CLIENT_ID=5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c "$BIN" replay Tests/Contracts/beta/device-code-redemptions.json >"$WORK/redeem.out" 2>/dev/null
for export in log-analytics-signinlogs.json log-analytics-signinlogs.csv graph-powershell.json; do
  env -u TOPHHIE_CLIENT_ID "$BIN" replay "Tests/Contracts/exports/$export" >"$WORK/export.out" 2>"$WORK/export.err"; export_rc=$?
  check "replay reads the export $export: the burst and the device code alert" sh -c "test $export_rc -eq 0 && grep -q '\[failure-burst\]' '$WORK/export.out' && grep -q '\[device-code-sign-in\]' '$WORK/export.out'"
  check "  and names the record the agent would skip, and the swapped coordinates" sh -c "grep -q \"7 sign-in(s), 1 skipped; 1 with coordinates out of range\" '$WORK/export.err' && grep -q \"skipped, as the agent skips it: 'status.errorCode' is missing\" '$WORK/export.err'"
done
env -u TOPHHIE_CLIENT_ID "$BIN" replay Tests/Contracts/exports/InteractiveSignIns_2024-05-01_2024-05-02.csv >"$WORK/admin-csv.out" 2>"$WORK/admin-csv.err"; admin_rc=$?
check "replay reads the admin center's CSV download of interactive sign-ins: the burst alerts" sh -c "test $admin_rc -eq 0 && grep -q '\[failure-burst\]' '$WORK/admin-csv.out'"
check "  and names the record the agent would skip" grep -q "as admin-center-csv: 6 sign-in(s), 1 skipped" "$WORK/admin-csv.err"
env -u TOPHHIE_CLIENT_ID "$BIN" replay Tests/Contracts/exports/NonInteractiveSignIns_2024-05-01_2024-05-02.csv >"$WORK/admin-csv.out" 2>/dev/null
check "replay reads its download of non-interactive sign-ins: the device code alerts" grep -q '\[device-code-sign-in\]' "$WORK/admin-csv.out"
"$BIN" replay Tests/Contracts/exports/admin-center-download.json >/dev/null 2>"$WORK/admin.err"
check "replay reads the admin center's JSON download (Graph's shape)" grep -q "replay: 1 event(s) in 1 poll(s)" "$WORK/admin.err"
"$BIN" replay Tests/Contracts/exports/azure-monitor-records.json >"$WORK/monitor.out" 2>"$WORK/monitor.err"
check "replay reads Azure Monitor's documented record" grep -q "as azure-monitor: 1 sign-in(s)" "$WORK/monitor.err"
"$BIN" replay --strict Tests/Contracts/exports/log-analytics-signinlogs.json >/dev/null 2>"$WORK/strict.err"; strict_rc=$?
check "replay --strict stops at the record the agent would skip (exit 2)" test "$strict_rc" -eq 2
check "  naming it" grep -q "log-analytics-signinlogs.json item 8: 'status.errorCode' is missing or not a whole number" "$WORK/strict.err"
check "replay: with this agent's client id only the Azure CLI redemption from Lagos alerts" sh -c "test \$(grep -c '\[device-code-sign-in\]' '$WORK/redeem.out') = 1 && grep -q 'appId=04b07795-8ddb-461a-bbee-02f9e1bf7b46' '$WORK/redeem.out'"
# A person's timeline at its edges (Tests/Contracts/edges-timeline.json, a poll timeline): a new
# account's two days in London, then Entra's unknown location (0, 0) half an hour after London,
# then a token used from Lagos every hour for 72 hours.
env -u TOPHHIE_CLIENT_ID "$BIN" replay Tests/Contracts/edges-timeline.json >"$WORK/edges.out" 2>"$WORK/edges.err"; edges_rc=$?
check "replay of a timeline's edges: Entra's unknown location makes no impossible travel" sh -c "test $edges_rc -eq 0 && ! grep -q '\[impossible-travel\]' '$WORK/edges.out'"
check "  the stolen token is told while the place rules still learn, one level lower" sh -c "grep '\[token-from-new-place\]' '$WORK/edges.out' | head -1 | grep -q '^[^ ]* MEDIUM .*(told one level lower while your usual places are still being learned)'"
check "  and reminded of once a day it goes on: 3 alerts in 72 hours, reminders 1 and 2" sh -c "test \$(grep -c '\[token-from-new-place\]' '$WORK/edges.out') = 3 && grep -q 'Still going on (reminder 1, 24 more since the last alert)' '$WORK/edges.out' && grep -q 'Still going on (reminder 2, 24 more since the last alert)' '$WORK/edges.out'"
check "  and its summary counts the one sign-in at Entra's unknown location" grep -q "; 1 with an unknown location (no place to the rules)$" "$WORK/edges.err"
# The report: from Graph's sign-ins (the simulated tenant, signed in above) and from an export.
"$BIN" report --since 30d --out "$WORK/report.html" >"$WORK/report.out" 2>"$WORK/report.err"; report_rc=$?
check "report writes a page of the tenant's month (exit 0, 0600)" sh -c "test $report_rc -eq 0 && test \"\$(stat -c %a '$WORK/report.html')\" = 600 && grep -q '^wrote $WORK/report.html: ' '$WORK/report.out'"
check "  with a circle per place it names" sh -c "test \$(grep -o '<circle class=\"place' '$WORK/report.html' | wc -l) -gt 0"
"$BIN" report --from Tests/Contracts/exports/log-analytics-signinlogs.json --out "$WORK/export-report.html" >/dev/null 2>&1
check "report --from an export shows its burst and its device-code sign-in" sh -c "grep -q 'Rule <code>failure-burst</code>' '$WORK/export-report.html' && grep -q 'Rule <code>device-code-sign-in</code>' '$WORK/export-report.html'"

# Acting on an alert: a sign-in with the 'respond' scopes (its own state directory), a
# revocation with --yes, the notice, then a poll that says sign-in needed (exit 3) until a new
# login, after which it polls cleanly. Without --yes and no terminal nothing is revoked (exit 2).
RESPOND_ENV=(env TOPHHIE_STATE_DIR="$WORK/respond")
"${RESPOND_ENV[@]}" "$BIN" login --scopes profile,history,respond >"$WORK/respond-login.out" 2>&1
"${RESPOND_ENV[@]}" "$BIN" poll >/dev/null 2>&1
"${RESPOND_ENV[@]}" "$BIN" respond --revoke-sessions </dev/null >/dev/null 2>"$WORK/respond-unasked.err"; unasked_rc=$?
check "respond --revoke-sessions without --yes and no terminal revokes nothing (exit 2)" sh -c "test $unasked_rc -eq 2 && test ! -e '$WORK/respond/sessions-revoked.json'"
"${RESPOND_ENV[@]}" "$BIN" respond --revoke-sessions --yes >"$WORK/respond.out" 2>&1; respond_rc=$?
check "respond --revoke-sessions --yes revokes every session and tells the notifiers" sh -c "test $respond_rc -eq 0 && grep -q '^Revoked every session of ' '$WORK/respond.out' && grep -q 'tophhie.notice.sessions-revoked' '$WORK/respond.out'"
"${RESPOND_ENV[@]}" "$BIN" poll >"$WORK/respond-poll.out" 2>&1; revoked_rc=$?
check "  then poll says sign-in needed at once (exit 3)" test "$revoked_rc" -eq 3
"${RESPOND_ENV[@]}" "$BIN" login --scopes profile,history,respond >/dev/null 2>&1
"${RESPOND_ENV[@]}" "$BIN" poll >/dev/null 2>&1; clean_rc=$?
check "  and after a new login polls cleanly" test "$clean_rc" -eq 0

# The binary alone, from a folder with no rules in it and none installed beside it: the pack
# built into it runs the demo, and 'rules export' writes it out.
mkdir -p "$WORK/elsewhere"
(cd "$WORK/elsewhere" && env -u TOPHHIE_RULES -u TOPHHIE_CONFIG "$BIN" demo --fast >"$WORK/elsewhere.out" 2>"$WORK/elsewhere.err"); elsewhere_rc=$?
check "demo runs from a folder without rules, on the pack built into the binary" sh -c "test $elsewhere_rc -eq 0 && grep -q '\[failure-burst\]' '$WORK/elsewhere.out'"
(cd "$WORK/elsewhere" && "$BIN" rules export tuned >/dev/null 2>&1 && "$BIN" rules test tuned >"$WORK/export-test.out" 2>&1); export_test_rc=$?
check "  rules export writes it out, and its tests pass there" test "$export_test_rc" -eq 0
TOPHHIE_ENGINE=fast "$BIN" demo --fast >"$WORK/demo-fast.out" 2>/dev/null
check "the demo run by the fast engine prints the same alerts, byte for byte" cmp -s "$WORK/demo.out" "$WORK/demo-fast.out"
TOPHHIE_ENGINE=quick "$BIN" replay README.md >/dev/null 2>"$WORK/engine.err"
check "an unknown TOPHHIE_ENGINE is a usage error (exit 2)" test $? -eq 2
check "that names the values it takes" grep -q "TOPHHIE_ENGINE must be 'plain' or 'fast' (or unset), not 'quick'" "$WORK/engine.err"

# A broken stdout must not crash the agent or lose the alert: it stays queued and the poll says so.
# Each state's first poll is its baseline and alerts on none of its history, so a lockout is
# added to the tenant after it: the alert the next poll queues.
SIM_ROOT="${GRAPH%/v1.0}"
USER_ID=$(curl -s "$SIM_ROOT/_sim/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["userId"])')
for case in full pipe; do
  mkdir -p "$WORK/$case" && chmod 700 "$WORK/$case" && cp -p "$WORK/state/tokens.json" "$WORK/$case/"
  TOPHHIE_STATE_DIR="$WORK/$case" "$BIN" poll >/dev/null 2>&1
done
python3 - "$USER_ID" > "$WORK/lockout.json" <<'PY'
import datetime, json, sys
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(seconds=30)
print(json.dumps([{"id": "lockout-0000-4000-8000-000000000001", "createdDateTime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "userId": sys.argv[1], "userPrincipalName": "jane@contoso.com", "appDisplayName": "Office 365",
                   "ipAddress": "198.51.100.61", "isInteractive": True, "status": {"errorCode": 50053},
                   "location": {"city": "Lagos", "countryOrRegion": "NG"}}]))
PY
curl -s -X POST -H 'Content-Type: application/json' --data @"$WORK/lockout.json" "$SIM_ROOT/_sim/signins" >/dev/null
TOPHHIE_STATE_DIR="$WORK/full" "$BIN" poll >/dev/full 2>"$WORK/full.err"
check "poll >/dev/full exits 1 (alert kept), not a crash" test $? -eq 1
check "and names the full disk" grep -q "stdout: cannot write to standard output: No space left on device" "$WORK/full.err"
check "the alert is still queued for stdout" test -s "$WORK/full/outbox/stdout.jsonl"
# The reader closes its end at once, so every write meets a closed pipe (SIGPIPE is ignored).
TOPHHIE_STATE_DIR="$WORK/pipe" "$BIN" poll 2>"$WORK/pipe.err" | { exec 0<&-; sleep 1; }
code=${PIPESTATUS[0]}
check "poll | (closed reader) exits 1, not SIGPIPE" test "$code" -eq 1
check "and names the broken pipe" grep -q "stdout: cannot write to standard output: Broken pipe" "$WORK/pipe.err"

# A backlog of 12,000 alerts (the one the full disk kept, copied with new ids) drains in one
# poll: every alert once, in the order queued, and the alerts are not all held in memory at
# once (they were: 457 MB for 50,000).
mkdir -p "$WORK/backlog/outbox" && chmod 700 "$WORK/backlog" && cp -p "$WORK/state/tokens.json" "$WORK/backlog/"
python3 - "$WORK/full/outbox/stdout.jsonl" "$WORK/backlog/outbox/stdout.jsonl" <<'PY'
import json, sys
first = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for i in range(12000):
        first["alert"]["id"] = f"backlog{i:05d}"
        out.write(json.dumps(first, separators=(",", ":"), sort_keys=True) + "\n")
PY
chmod 600 "$WORK/backlog/outbox/stdout.jsonl"
backlog_mb=$(( $(stat -c %s "$WORK/backlog/outbox/stdout.jsonl") / 1048576 ))
test -x /usr/bin/time || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
TOPHHIE_STATE_DIR="$WORK/backlog" /usr/bin/time -f "%M" -o "$WORK/backlog.kb" "$BIN" poll >"$WORK/backlog.out" 2>"$WORK/backlog.err"; backlog_rc=$?
check "a backlog of 12,000 alerts drains in one poll (exit 0)" test "$backlog_rc" -eq 0
check "  every alert once, in the order queued" bash -c "diff <(grep -o 'id=backlog[0-9]*' '$WORK/backlog.out') <(for i in \$(seq 0 11999); do printf 'id=backlog%05d\\n' \$i; done)"
check "  with a peak under 100 MB (was $(( $(cat "$WORK/backlog.kb") / 1024 )) MB for a ${backlog_mb} MB queue)" test "$(cat "$WORK/backlog.kb")" -lt 102400

# A healthy drain is progress, not failure: with a 5 s delivery budget a 40,000-alert backlog
# takes several polls, and each that delivered within its budget exits 0, naming the backlog.
mkdir -p "$WORK/drain/outbox" && chmod 700 "$WORK/drain" && cp -p "$WORK/state/tokens.json" "$WORK/drain/"
python3 - "$WORK/full/outbox/stdout.jsonl" "$WORK/drain/outbox/stdout.jsonl" <<'PY'
import json, sys
first = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for i in range(40000):
        first["alert"]["id"] = f"drain{i:05d}"
        out.write(json.dumps(first, separators=(",", ":"), sort_keys=True) + "\n")
PY
chmod 600 "$WORK/drain/outbox/stdout.jsonl"
printf 'delivery:\n  budget: 5s\n' > "$WORK/drain.yml"
TOPHHIE_STATE_DIR="$WORK/drain" "$BIN" poll --config "$WORK/drain.yml" >"$WORK/drain.out" 2>"$WORK/drain.err"; drain_rc=$?
check "a backlog larger than one delivery budget: the poll that drained part of it exits 0" test "$drain_rc" -eq 0
check "  and its log line names the backlog" grep -q "stdout: [0-9]* delivered, backlog of [0-9]* pending" "$WORK/drain.err"

# A damaged state fails the poll with exit 2 and says so once through the notifiers, not per poll.
mkdir -p "$WORK/damaged" && chmod 700 "$WORK/damaged" && cp -p "$WORK/state/tokens.json" "$WORK/damaged/"
printf '{"version": 1, "engine": [' > "$WORK/damaged/state.json"
TOPHHIE_STATE_DIR="$WORK/damaged" "$BIN" poll >"$WORK/damaged1.out" 2>"$WORK/damaged1.err"
check "a poll on a damaged state.json exits 2" test $? -eq 2
check "and tells the notifiers the agent state is unusable" grep -q "Agent state unusable: monitoring has stopped" "$WORK/damaged1.out"
TOPHHIE_STATE_DIR="$WORK/damaged" "$BIN" poll >"$WORK/damaged2.out" 2>"$WORK/damaged2.err"
check "the next poll fails the same way without a second notice" bash -c "test $? -eq 2 && ! test -s '$WORK/damaged2.out'"

# One meaning: a Sigma keyword rule alerts alike in poll, run, replay and rules test (the live
# sign-in once gave keyword searches nothing to read, so it alerted in replay only).
KW="$WORK/keyword"
mkdir -p "$KW/rules"
cat > "$KW/rules/keyword.yml" <<'RULE'
title: A scripted client named anywhere in the sign-in
id: keyword-python
status: experimental
level: medium
logsource: {product: azure, service: signinlogs}
detection:
    keywords:
        - 'python-requests'
    condition: keywords
RULE
cat > "$KW/rules/keyword.tests.yml" <<'RULE'
rule: keyword-python
defaults: {userId: u1, status: {errorCode: 0}}
cases:
    - name: the text anywhere fires
      events: [{id: k1, createdDateTime: "2024-05-01T10:00:00Z", userAgent: "python-requests/2.31"}]
      expect: [[k1]]
    - name: other text does not
      events: [{id: k2, createdDateTime: "2024-05-01T10:00:00Z", userAgent: "Mozilla/5.0"}]
      expect: []
RULE
SIM_ROOT="${GRAPH%/v1.0}"
USER_ID=$(curl -s "$SIM_ROOT/_sim/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["userId"])')
for case in kwpoll kwrun; do
  mkdir -p "$WORK/$case" && chmod 700 "$WORK/$case" && cp -p "$WORK/state/tokens.json" "$WORK/$case/"
  # The first poll is the baseline: the keyword sign-in comes after it.
  TOPHHIE_STATE_DIR="$WORK/$case" "$BIN" poll --rules "$KW/rules" >/dev/null 2>&1
done
python3 - "$USER_ID" > "$KW/signin.json" <<'PY'
import datetime, json, sys
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(seconds=30)
print(json.dumps([{"id": "kw-00000000-0000-4000-8000-000000000001", "createdDateTime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "userId": sys.argv[1], "userPrincipalName": "jane@contoso.com", "appDisplayName": "Azure CLI",
                   "ipAddress": "203.0.113.50", "userAgent": "python-requests/2.31.0", "isInteractive": True,
                   "status": {"errorCode": 0}, "location": {"city": "London", "countryOrRegion": "GB"}}]))
PY
curl -s -X POST -H 'Content-Type: application/json' --data @"$KW/signin.json" "$SIM_ROOT/_sim/signins" >/dev/null
TOPHHIE_STATE_DIR="$WORK/kwpoll" "$BIN" poll --rules "$KW/rules" >"$WORK/kwpoll.out" 2>"$WORK/kwpoll.err"
check "a keyword rule alerts in poll" grep -q "\[keyword-python\]" "$WORK/kwpoll.out"
TOPHHIE_STATE_DIR="$WORK/kwrun" "$BIN" run --rules "$KW/rules" >"$WORK/kwrun.out" 2>"$WORK/kwrun.err" &
KWRUN=$!
PIDS+=($KWRUN)
for _ in $(seq 100); do grep -q "keyword-python" "$WORK/kwrun.out" && break; sleep 0.1; done
kill -TERM "$KWRUN" 2>/dev/null; wait "$KWRUN" 2>/dev/null
check "  in run" grep -q "\[keyword-python\]" "$WORK/kwrun.out"
python3 -c 'import json, sys; [print(json.dumps(r)) for r in json.load(open(sys.argv[1]))]' "$KW/signin.json" > "$KW/signins.jsonl"
"$BIN" replay --rules "$KW/rules" "$KW/signins.jsonl" >"$WORK/kwreplay.out" 2>&1
check "  in replay" grep -q "\[keyword-python\]" "$WORK/kwreplay.out"
"$BIN" rules test "$KW/rules" >"$WORK/kwtest.out" 2>&1
check "  and in rules test" sh -c "test $? -eq 0 && grep -q '2 passed' '$WORK/kwtest.out'"

# |re cannot be turned against the agent: a nested quantifier on a 1,000,000-character user
# agent is matched in linear time (no alert; the timeout is a hang guard, the timing lives in
# benchmarks/regex-benchmark.sh), a 1 MB value that matches alerts (ICU gave up and said no),
# and a backreference is refused at load with its position.
mkdir -p "$WORK/regex"
cat > "$WORK/regex/nested.yml" <<'RULE'
title: Nested quantifier
id: nested
level: low
logsource: {product: azure, service: signinlogs}
detection: {selection: {userAgent|re: '(a+)+$'}, condition: selection}
RULE
cat > "$WORK/regex/alternation.yml" <<'RULE'
title: Alternation over the whole value
id: alternation
level: low
logsource: {product: azure, service: signinlogs}
detection: {selection: {userAgent|re: '^(a|b)*$'}, condition: selection}
RULE
python3 - "$WORK/regex" <<'PY'
import json, sys
folder = sys.argv[1]
def record(agent):
    return json.dumps({"id": "r1", "createdDateTime": "2024-05-01T10:00:00Z", "userId": "u1", "status": {"errorCode": 0}, "userAgent": agent})
open(f"{folder}/short.jsonl", "w").write(record("a" * 1000 + "!") + "\n")
open(f"{folder}/long.jsonl", "w").write(record("a" * 1_000_000 + "!") + "\n")
open(f"{folder}/abab.jsonl", "w").write(record("ab" * 500_000) + "\n")
PY
for size in short long; do
  timeout 60 "$BIN" replay --rules "$WORK/regex/nested.yml" "$WORK/regex/$size.jsonl" >"$WORK/regex-$size.out" 2>&1; rc=$?
  check "(a+)+\$ on a ${size} run of a's then '!' finishes with no alert" sh -c "test $rc -eq 0 && ! grep -q '\[nested\]' '$WORK/regex-$size.out'"
done
timeout 60 "$BIN" replay --rules "$WORK/regex/alternation.yml" "$WORK/regex/abab.jsonl" >"$WORK/regex-abab.out" 2>&1
check "^(a|b)*\$ on 1 MB of abab… alerts" grep -q "\[alternation\]" "$WORK/regex-abab.out"
printf 'title: Backreference\nid: backref\nlevel: low\nlogsource: {product: azure, service: signinlogs}\ndetection:\n    selection:\n        userAgent|re: '"'"'(ab)\\1'"'"'\n    condition: selection\n' > "$WORK/regex/backref.yml"
"$BIN" rules check "$WORK/regex/backref.yml" >"$WORK/regex-backref.out" 2>&1
check "a backreference is refused at load, with its position and what to write instead" sh -c "test $? -ne 0 && grep -q 'backref.yml:7:[0-9]*: error: .*backreference' '$WORK/regex-backref.out'"

# Degrade, never hold: Graph throttles the non-interactive stream alone with Retry-After: 120.
# The interactive stream's alert goes out in the same poll, which neither waits it out nor fails,
# and the time Graph gave is kept for the next poll.
mkdir -p "$WORK/throttled" && chmod 700 "$WORK/throttled" && cp -p "$WORK/state/tokens.json" "$WORK/throttled/"
TOPHHIE_STATE_DIR="$WORK/throttled" "$BIN" poll --rules "$KW/rules" >/dev/null 2>&1
curl -s -X POST -H 'Content-Type: application/json' --data '{"pathPrefix":"/beta/auditLogs/signIns","queryContains":"nonInteractiveUser","kind":"throttle","count":1,"retryAfter":"120"}' "$SIM_ROOT/_sim/faults" >/dev/null
sed 's/kw-00000000-0000-4000-8000-000000000001/kw-00000000-0000-4000-8000-000000000002/' "$KW/signin.json" > "$KW/signin2.json"
curl -s -X POST -H 'Content-Type: application/json' --data @"$KW/signin2.json" "$SIM_ROOT/_sim/signins" >/dev/null
throttled_start=$(date +%s)
TOPHHIE_STATE_DIR="$WORK/throttled" "$BIN" poll --rules "$KW/rules" >"$WORK/throttled.out" 2>"$WORK/throttled.err"; throttled_rc=$?
throttled_took=$(( $(date +%s) - throttled_start ))
check "a Retry-After of 120 s on the non-interactive stream alone: the poll exits 0" test "$throttled_rc" -eq 0
check "  with the interactive stream's alert" grep -q "\[keyword-python\]" "$WORK/throttled.out"
check "  without waiting it out (${throttled_took} s)" test "$throttled_took" -lt 30
check "  and Graph's time is kept for the next poll" python3 -c "import json, sys; assert json.load(open(sys.argv[1]))['streamHealth']['nonInteractive']['retryAfter']" "$WORK/throttled/state.json"

# Entra's unknown location, live: after the baseline, Jane in London, then a sign-in Entra could
# not place (latitude 0, longitude 0, no country) half an hour later. The poll counts it and makes
# no impossible travel of it (it once made "5727 km ... to 0.00,0.00", HIGH). Only a travel alert
# with the unknown sign-in among its events counts: the simulated tenant's own sign-ins (Lagos, an
# hour before London at some times of day) may make London's arrival an impossible travel of its own.
mkdir -p "$WORK/unknownplace" && chmod 700 "$WORK/unknownplace" && cp -p "$WORK/state/tokens.json" "$WORK/unknownplace/"
TOPHHIE_STATE_DIR="$WORK/unknownplace" "$BIN" poll >/dev/null 2>&1
python3 - "$USER_ID" "$WORK/unknownplace.time" > "$WORK/unknownplace.json" <<'PY'
import datetime, json, sys
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
# The unknown sign-in's time as an alert names its events (first=, last=).
open(sys.argv[2], "w").write((now - datetime.timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%S.000Z"))
def sign_in(n, minutes_ago, location):
    return {"id": "up-00000000-0000-4000-8000-00000000000%d" % n,
            "createdDateTime": (now - datetime.timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "userId": sys.argv[1], "userPrincipalName": "jane@contoso.com", "appDisplayName": "Office 365",
            "ipAddress": "81.2.69.%d" % (10 + n), "isInteractive": True, "status": {"errorCode": 0},
            "authenticationRequirement": "multiFactorAuthentication", "location": location}
print(json.dumps([
    sign_in(1, 40, {"city": "London", "countryOrRegion": "GB", "geoCoordinates": {"latitude": 51.507, "longitude": -0.128}}),
    sign_in(2, 10, {"city": "", "countryOrRegion": "", "geoCoordinates": {"latitude": 0, "longitude": 0}}),
]))
PY
curl -s -X POST -H 'Content-Type: application/json' --data @"$WORK/unknownplace.json" "$SIM_ROOT/_sim/signins" >/dev/null
TOPHHIE_STATE_DIR="$WORK/unknownplace" "$BIN" poll >"$WORK/unknownplace.out" 2>"$WORK/unknownplace.err"; unknownplace_rc=$?
check "Entra's unknown location, live: the poll counts it (1 with an unknown location)" sh -c "test $unknownplace_rc -eq 0 && cat '$WORK/unknownplace.out' '$WORK/unknownplace.err' | grep -q '1 with an unknown location (no place to the rules)'"
unknown_time=$(cat "$WORK/unknownplace.time")
check "  and makes no impossible travel of it" sh -c "test -n '$unknown_time' && ! grep '\\[impossible-travel\\]' '$WORK/unknownplace.out' | grep -qF '=$unknown_time'"

# Storage faults are told where they can be heard: the state directory on a small tmpfs (where
# the machine allows mounting), filled up, then remounted read-only. Each poll exits 2 and tells
# stdout straight (not through the outbox it cannot write); what was read is alerted once the
# directory can be written again.
mkdir -p "$WORK/tmpfs"
if mount -t tmpfs -o size=32m,mode=0700 tmpfs "$WORK/tmpfs" 2>/dev/null; then
  cp -p "$WORK/state/tokens.json" "$WORK/tmpfs/"
  TOPHHIE_STATE_DIR="$WORK/tmpfs" "$BIN" poll --rules "$KW/rules" >/dev/null 2>&1
  sed 's/kw-00000000-0000-4000-8000-000000000001/kw-00000000-0000-4000-8000-000000000003/' "$KW/signin.json" > "$KW/signin3.json"
  curl -s -X POST -H 'Content-Type: application/json' --data @"$KW/signin3.json" "$SIM_ROOT/_sim/signins" >/dev/null
  dd if=/dev/zero of="$WORK/tmpfs/filler" bs=1M count=64 2>/dev/null
  TOPHHIE_STATE_DIR="$WORK/tmpfs" "$BIN" poll --rules "$KW/rules" >"$WORK/enospc.out" 2>"$WORK/enospc.err"; enospc_rc=$?
  check "a full disk under the state directory: poll exits 2" test "$enospc_rc" -eq 2
  check "  and tells stdout straight, naming the fault" grep -q "\[tophhie.notice.state-unwritable\].*No space left on device" "$WORK/enospc.out"
  rm -f "$WORK/tmpfs/filler"
  mount -o remount,ro "$WORK/tmpfs"
  TOPHHIE_STATE_DIR="$WORK/tmpfs" "$BIN" poll --rules "$KW/rules" >"$WORK/erofs.out" 2>"$WORK/erofs.err"; erofs_rc=$?
  check "a read-only state directory: poll exits 2 (the README's table)" test "$erofs_rc" -eq 2
  check "  and tells stdout straight, naming the fault" grep -q "\[tophhie.notice.state-unwritable\].*Read-only file system" "$WORK/erofs.out"
  mount -o remount,rw "$WORK/tmpfs"
  TOPHHIE_STATE_DIR="$WORK/tmpfs" "$BIN" poll --rules "$KW/rules" >"$WORK/writable.out" 2>"$WORK/writable.err"; writable_rc=$?
  check "  writable again: the poll exits 0 and alerts on what it could not commit before" sh -c "test $writable_rc -eq 0 && grep -q '\[keyword-python\]' '$WORK/writable.out'"
  umount "$WORK/tmpfs"
else
  echo "  skip  storage faults on a tmpfs (this machine does not allow mounting; the tests inject them in the durable-file layer)"
fi

# The README's "Trying every command without a tenant" lines, taken from the README itself and
# run as written (the port swapped for a free one, the binary the one just built), so the
# walkthrough stays true.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
awk '/^### Trying every command without a tenant/ {on=1; next} on && /^```sh/ {inside=1; next} inside && /^```/ {exit} inside {print}' README.md \
  | sed -e "s/8765/$PORT/g" -e 's/[[:space:]]\{2,\}#.*$//' > "$WORK/walkthrough.sh"
check "the README walkthrough has its lines" test "$(grep -c 'tophhie-watch' "$WORK/walkthrough.sh")" -ge 4
(
  tophhie-watch() { "$BIN" "$@"; }
  unset TOPHHIE_TENANT TOPHHIE_CLIENT_ID TOPHHIE_AUTHORITY TOPHHIE_GRAPH_URL TOPHHIE_STATE_DIR
  step=0
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    step=$((step + 1))
    case "$line" in
      *" simulate "*) eval "$line" >"$WORK/walk-sim.out" 2>&1 &
        echo $! > "$WORK/walk-sim.pid"
        for _ in $(seq 50); do grep -q "Serving until" "$WORK/walk-sim.out" && break; sleep 0.1; done ;;
      *) eval "$line" >"$WORK/walk-$step.out" 2>&1 || { echo "README line failed (exit $?): $line"; tail -5 "$WORK/walk-$step.out"; exit 1; } ;;
    esac
  done < "$WORK/walkthrough.sh"
  # The background job is a subshell running the binary: stop the binary, then the subshell.
  pkill -P "$(cat "$WORK/walk-sim.pid")" 2>/dev/null
  kill "$(cat "$WORK/walk-sim.pid")" 2>/dev/null
  rm -rf "/tmp/tophhie-sim-$PORT"
)
check "every line of the README walkthrough works as written" test $? -eq 0
check "  and the sign-in it adds to the simulator alerts in the next poll (new-country)" bash -c "grep -l 'new-country' '$WORK'/walk-*.out | grep -q ."
check "and its first poll is the baseline (no alert), its replay alerts on the export's burst" bash -c "first=\$(grep -l 'learned from' '$WORK'/walk-*.out) && ! grep -q 'failure-burst' \$first && grep -ql 'failure-burst' '$WORK'/walk-*.out"

# On the phone and in the mailbox: against the simulated tenant, one HIGH alert (a risky sign-in
# whose fields carry CR/LF header text and a URL) reaches ntfy, Gotify and Telegram stand-ins on
# loopback (scripts/peers/phone_stand_in.py) and a sendmail that keeps what it is given.
PH="$WORK/phone"
mkdir -p "$PH/state" && chmod 700 "$PH/state" && cp -p "$WORK/state/tokens.json" "$PH/state/"
python3 scripts/peers/phone_stand_in.py --port-file "$PH/port" --records "$PH/requests.jsonl" >"$PH/stand-in.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$PH/port" ] && break; sleep 0.1; done
PHONE_PORT=$(cat "$PH/port")
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "%s/mail.args"\ncat >> "%s/mail.txt"\n' "$PH" "$PH" > "$PH/sendmail" && chmod 755 "$PH/sendmail"
cat > "$PH/config.yml" <<CONFIG
notifiers:
  - name: console
    type: stdout
  - name: phone
    type: webhook
    preset: ntfy
    url: http://127.0.0.1:$PHONE_PORT/my-long-random-topic
    token_env: NTFY_TOKEN
    min_level: high
  - name: gotify
    type: webhook
    preset: gotify
    url: http://127.0.0.1:$PHONE_PORT/message
    token_env: GOTIFY_TOKEN
    min_level: high
  - name: telegram
    type: webhook
    preset: telegram
    url: http://127.0.0.1:$PHONE_PORT
    token_env: TELEGRAM_BOT_TOKEN
    chat_id: "123456789"
    min_level: high
  - name: mail
    type: email
    to: jane@example.com
    sendmail: $PH/sendmail
    min_level: high
CONFIG
PHONE_ENV=(env TOPHHIE_STATE_DIR="$PH/state" NTFY_TOKEN=tk_ntfy_process GOTIFY_TOKEN=gt_process TELEGRAM_BOT_TOKEN=123456:tg-process-secret)
"${PHONE_ENV[@]}" "$BIN" poll --config "$PH/config.yml" >"$PH/learn.out" 2>"$PH/learn.err"
: > "$PH/requests.jsonl"; rm -f "$PH/mail.txt" "$PH/mail.args"   # only what the next poll sends
python3 - "$USER_ID" > "$PH/risky.json" <<'PY'
import datetime, json, sys
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(seconds=30)
print(json.dumps([{"id": "risky-00000000-0000-4000-8000-000000000001", "createdDateTime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "userId": sys.argv[1], "userPrincipalName": "jane@contoso.com",
                   "appDisplayName": "Office\r\nBcc: all@evil.example https://evil.example/x",
                   "ipAddress": "203.0.113.50", "isInteractive": True, "riskLevelDuringSignIn": "high", "riskState": "atRisk",
                   "status": {"errorCode": 0}, "location": {"city": "Lagos", "countryOrRegion": "NG"}}]))
PY
curl -s -X POST -H 'Content-Type: application/json' --data @"$PH/risky.json" "$SIM_ROOT/_sim/signins" >/dev/null
"${PHONE_ENV[@]}" "$BIN" poll --config "$PH/config.yml" >"$PH/poll.out" 2>"$PH/poll.err"; phone_rc=$?
check "a HIGH risky sign-in is delivered through ntfy, Gotify, Telegram and email (exit 0)" sh -c "test $phone_rc -eq 0 && grep -q 'phone: 1 delivered; gotify: 1 delivered; telegram: 1 delivered; mail: 1 delivered' '$PH/poll.err'"
check "  ntfy: JSON at the server root with the topic, priority 5, the token as Bearer" python3 -c "
import json, sys
r = [json.loads(l) for l in open('$PH/requests.jsonl')]
n = [x for x in r if x['path'] == '/']
assert len(n) == 1 and n[0]['body']['topic'] == 'my-long-random-topic' and n[0]['body']['priority'] == 5, n
assert n[0]['headers'].get('authorization') == 'Bearer tk_ntfy_process' and 'webhook-signature' not in n[0]['headers']
assert n[0]['body']['title'] == 'HIGH: Risky sign-in'"
check "  Gotify: /message with X-Gotify-Key, priority 8" python3 -c "
import json
r = [json.loads(l) for l in open('$PH/requests.jsonl')]
g = [x for x in r if x['path'] == '/message']
assert len(g) == 1 and g[0]['body']['priority'] == 8 and g[0]['headers'].get('x-gotify-key') == 'gt_process', g"
check "  Telegram: plain text (no parse_mode) with sound, CR/LF shown as escapes, the URL defanged" python3 -c "
import json
r = [json.loads(l) for l in open('$PH/requests.jsonl')]
t = [x for x in r if x['path'].endswith('/sendMessage')]
assert len(t) == 1 and 'parse_mode' not in t[0]['body'] and t[0]['body']['disable_notification'] is False, t
text = t[0]['body']['text']
assert text.startswith('HIGH: Risky sign-in\n') and '\r' not in text and r'Office\r\nBcc: all@evil[.]example hxxps://evil[.]example/x' in text, text
assert 'https://evil' not in text and 'What to do now:' in text"
check "  email: sendmail -i -f FROM -- TO, and the sign-in's Bcc adds no header" sh -c "test \"\$(tr '\n' ' ' < '$PH/mail.args')\" = '-i -f tophhie-watch@$(hostname) -- jane@example.com ' && ! sed '/^\$/q' '$PH/mail.txt' | grep -qi '^bcc:' && grep -q '^Subject: \[HIGH\] Risky sign-in' '$PH/mail.txt'"
check "  no token in the agent's output" sh -c "! grep -qE 'tg-process-secret|tk_ntfy_process|gt_process' '$PH/poll.out' '$PH/poll.err' '$PH/learn.out' '$PH/learn.err'"

# Several people, one agent (issue 49): `accounts:` names alice, bob and carol; their three
# logins sign in person1, person2 and person3 of `simulate --people 3`, in turn; one poll reads
# all three. An attack on person2 raises alerts naming bob alone; revoking person2's sessions
# makes the next poll name bob as needing sign-in (exit 3) while alice and carol are read; with
# the simulator enforcing Graph's limit (5 requests per 10 s), the shared budget keeps every
# request within it: no 429.
"$BIN" simulate --people 3 --graph-limit >"$WORK/people-sim.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q "Serving until" "$WORK/people-sim.out" && break; sleep 0.1; done
PEOPLE_CONTROL=$(awk '/^  control / {print $2; exit}' "$WORK/people-sim.out")
check "simulate --people 3 names them and the Graph limit" sh -c "grep -q '^  people      3: person1@contoso.com to person3@contoso.com' '$WORK/people-sim.out' && grep -q '^  Graph limit 5 sign-in log requests per 10 s' '$WORK/people-sim.out'"
mkdir -p "$WORK/people"
cat >"$WORK/people/config.yml" <<YAML
tenant: $(awk '/^  tenant / {print $2; exit}' "$WORK/people-sim.out")
client_id: $(awk '/client id/ {print $3; exit}' "$WORK/people-sim.out")
authority: $(awk '/authority/ {print $2; exit}' "$WORK/people-sim.out")
graph_url: $(awk '/Graph URL/ {print $3; exit}' "$WORK/people-sim.out")
state_dir: $WORK/people/state
accounts:
  - name: alice
  - name: bob
  - name: carol
YAML
# The file alone says where the tenant is: the first simulator's variables are set for the checks above.
people() { env -u TOPHHIE_TENANT -u TOPHHIE_CLIENT_ID -u TOPHHIE_AUTHORITY -u TOPHHIE_GRAPH_URL -u TOPHHIE_STATE_DIR "$BIN" "$@" --config "$WORK/people/config.yml"; }
# Polls are minutes apart, and each process paces its own requests: the simulator's clock moves
# past Graph's 10 s window before each, as the time between two polls would.
people_poll() { curl -s -X POST "$PEOPLE_CONTROL/clock" -d '{"advanceSeconds":11}' >/dev/null; people poll "$@"; }
people_rcs=""
for name in alice bob carol; do people login --account "$name" >"$WORK/people/login-$name.out" 2>&1; people_rcs="$people_rcs$?"; done
check "  three 'login --account' sign in the three people in turn" sh -c "test '$people_rcs' = 000 && grep -q 'Signed in as person1@contoso.com' '$WORK/people/login-alice.out' && grep -q 'Signed in as person2@contoso.com' '$WORK/people/login-bob.out' && grep -q 'Signed in as person3@contoso.com' '$WORK/people/login-carol.out' && test \"\$(stat -c %a '$WORK/people/state/accounts/bob/tokens.json')\" = 600"
people_poll >"$WORK/people/learn.out" 2>"$WORK/people/learn.err"; people_rc=$?
check "  one poll reads all three (exit 0)" sh -c "test $people_rc = 0 && grep -q 'alice: learned from' '$WORK/people/learn.err' && grep -q 'bob: learned from' '$WORK/people/learn.err' && grep -q 'carol: learned from' '$WORK/people/learn.err'"
BOB_ID=$(curl -s "$PEOPLE_CONTROL/people" | python3 -c 'import json, sys; print(json.load(sys.stdin)["value"][1]["id"])')
NOW=$(curl -s "$PEOPLE_CONTROL/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["now"])')
curl -s -X POST "$PEOPLE_CONTROL/signins" -d "[{\"id\":\"bob-attack-1\",\"createdDateTime\":\"$NOW\",\"userId\":\"$BOB_ID\",\"userPrincipalName\":\"person2@contoso.com\",\"appDisplayName\":\"Outlook Mobile\",\"ipAddress\":\"95.165.28.126\",\"isInteractive\":true,\"status\":{\"errorCode\":0},\"location\":{\"city\":\"Moscow\",\"countryOrRegion\":\"RU\",\"geoCoordinates\":{\"latitude\":55.75,\"longitude\":37.62}}}]" >/dev/null
people_poll >"$WORK/people/attack.out" 2>"$WORK/people/attack.err"; people_rc=$?
check "  an attack on person2 raises alerts naming bob alone" sh -c "test $people_rc = 0 && grep -v 'tophhie.notice' '$WORK/people/attack.out' | grep -q 'MEDIUM \[new-country\] .* account=bob ' && ! grep -v 'tophhie.notice' '$WORK/people/attack.out' | grep -qE 'account=(alice|carol)'"
people_poll --quiet >/dev/null 2>&1
people status --json >"$WORK/people/status.json" 2>&1
check "  status --json lists the three accounts, each signed in as its person" python3 -c "import json; s = json.load(open('$WORK/people/status.json')); assert [(a['name'], a['session']['userPrincipalName']) for a in s['accounts']] == [('alice', 'person1@contoso.com'), ('bob', 'person2@contoso.com'), ('carol', 'person3@contoso.com')], s['accounts']"
curl -s -X POST "$PEOPLE_CONTROL/tokens/revoke" -d '{"person":"person2@contoso.com"}' >"$WORK/people/revoke.out"
# Access tokens live until they expire, as in Entra: an hour on, every poll must refresh.
curl -s -X POST "$PEOPLE_CONTROL/clock" -d '{"advanceSeconds":3700}' >/dev/null
people_poll >"$WORK/people/revoked.out" 2>"$WORK/people/revoked.err"; people_rc=$?
check "  revoking person2 makes the next poll name bob as needing sign-in (exit 3), alice and carol read" sh -c "test $people_rc = 3 && grep -q \"bob: poll failed (signInNeeded):.*'tophhie-watch login --account bob\" '$WORK/people/revoked.err' && grep -q 'alice: read ' '$WORK/people/revoked.err' && grep -q 'carol: read ' '$WORK/people/revoked.err' && grep -q 'account=bob' '$WORK/people/revoked.out'"
check "  each poll paced its three accounts within Graph's limit: no 429" sh -c "curl -s '$PEOPLE_CONTROL/status' | python3 -c 'import json, sys; g = json.load(sys.stdin)[\"graphLimit\"]; assert g[\"enforced\"] is True and g[\"refused\"] == 0, g'"

# The two units share one sandbox: every hardening line of the daemon is in the poll service.
check "the poll service is as hardened as the daemon" bash -c "diff <(grep -E '^(No|Protect|Private|Restrict|Lock|Memory|SystemCall|Capability)' examples/systemd/tophhie-watch.service | sort) <(grep -E '^(No|Protect|Private|Restrict|Lock|Memory|SystemCall|Capability)' examples/systemd/tophhie-watch-poll.service | sort)"

echo "process checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
