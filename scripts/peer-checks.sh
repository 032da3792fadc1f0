#!/usr/bin/env bash
# Checks the notifiers against real, independent peers (the second documented test command):
#   - Chromium (Debian package) renders the report page headless and offline, and its DOM is read back
#   - rsyslog (Debian package) receives the syslog notifier's RFC 5424 messages over UDP and TCP
#     (octet-counted) and its RFC 3164 messages on a unix socket, and writes what it parsed;
#   - the Python `standardwebhooks` library (PyPI, in a venv) verifies the webhook signatures,
#     and signs then verifies with a secret `notify secret` made.
#   - `jsonschema` (PyPI, same venv) validates the Teams card against Microsoft's Adaptive Card
#     1.5.0 schema.
#   - scripts/peers/preset_limits.py, each service's documented limits as tables (Slack, Discord,
#     PagerDuty, Alertmanager, the Standard Webhooks envelope, Teams' size), checks every
#     preset's body for hostile and huge alerts;
#   - pySigma-backend-sqlite (PyPI, same venv) runs SigmaHQ's Azure sign-in rules over a corpus
#     (scripts/peers/sigma_agreement.py); each rule must select the same sign-ins as
#     `tophhie-watch rules match`;
#   - msmtp (Debian package), pointed at by the email notifier's `sendmail` with its own
#     configuration, submits to a local aiosmtpd server (Debian's python3-aiosmtpd,
#     scripts/peers/smtp_receiver.py), which parses each message back with Python's `email`;
#   - scripts/peers/rfc5424_grammar.py, a strict checker of RFC 5424's ABNF written apart from
#     the Swift formatter (and self-tested on the RFC's examples and invalid samples), checks
#     every RFC 5424 message the notifier builds for hostile and huge alerts.
# It installs what is missing, starts both peers on 127.0.0.1 / a temp dir (never the system
# rsyslog or /dev/log), runs `swift test --filter PeerChecks` with their addresses in the
# environment, stops everything it started, and ends with one "N passed, N failed" line.
#
# Environment:
#   SWIFT_BUILD_LOCK  lock file serialising swift builds (default /tmp/swift-build.lock; set it
#                     empty when the caller already holds the lock, to avoid waiting on itself)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$ROOT/scripts/peers"
VENV="$ROOT/.peer/venv"
LOCK="${SWIFT_BUILD_LOCK-/tmp/swift-build.lock}"
WORK="$(mktemp -d /tmp/tophhie-peers.XXXXXX)"
PASSED=0
FAILED=0
STARTED_PIDS=()

cleanup() {
    for pid in "${STARTED_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${STARTED_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "${PEER_CHECKS_KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

check() { # check NAME COMMAND...: one script-level check, counted in the final line
    local name="$1"; shift
    if "$@"; then
        echo "peer check passed: $name"; PASSED=$((PASSED + 1))
    else
        echo "peer check FAILED: $name"; FAILED=$((FAILED + 1))
    fi
}

finish() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
    exit $?
}

# --- what the checks need -------------------------------------------------------------------
APT_UPDATED=0
apt_install() {
    if [ "$APT_UPDATED" -eq 0 ]; then apt-get update -qq >/dev/null && APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! command -v rsyslogd >/dev/null 2>&1 && [ ! -x /usr/sbin/rsyslogd ]; then
    echo "installing rsyslog (apt-get)"
    apt_install rsyslog || { echo "could not install rsyslog"; FAILED=$((FAILED + 1)); finish; }
fi
RSYSLOGD="$(command -v rsyslogd || echo /usr/sbin/rsyslogd)"

if ! command -v msmtp >/dev/null 2>&1; then
    echo "installing msmtp (apt-get)"
    apt_install msmtp || { echo "could not install msmtp"; FAILED=$((FAILED + 1)); finish; }
fi
# Debian's package, so the system Python (a venv does not see it).
SYSTEM_PYTHON=/usr/bin/python3
if ! "$SYSTEM_PYTHON" -c "import aiosmtpd" >/dev/null 2>&1; then
    echo "installing python3-aiosmtpd (apt-get)"
    apt_install python3-aiosmtpd || { echo "could not install python3-aiosmtpd"; FAILED=$((FAILED + 1)); finish; }
fi

if ! "$VENV/bin/python" -c "import standardwebhooks" >/dev/null 2>&1; then
    echo "creating $VENV with standardwebhooks==1.1.0 (pip)"
    if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
        apt_install python3-venv python3-pip && python3 -m venv "$VENV" \
            || { echo "could not create a Python venv"; FAILED=$((FAILED + 1)); finish; }
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check standardwebhooks==1.1.0 \
        || { echo "could not install standardwebhooks"; FAILED=$((FAILED + 1)); finish; }
fi
if ! "$VENV/bin/python" -c "import jsonschema" >/dev/null 2>&1; then
    echo "installing jsonschema==4.23.0 into $VENV (pip), for the Adaptive Card schema"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check jsonschema==4.23.0 \
        || { echo "could not install jsonschema"; FAILED=$((FAILED + 1)); finish; }
fi
if ! "$VENV/bin/python" -c "import sigma.backends.sqlite" >/dev/null 2>&1; then
    echo "installing pysigma-backend-sqlite==2.1.1 into $VENV (pip), for the Sigma agreement check"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check pysigma-backend-sqlite==2.1.1 \
        || { echo "could not install pysigma-backend-sqlite"; FAILED=$((FAILED + 1)); finish; }
fi
PYTHON="$VENV/bin/python"

free_port() {
    "$PYTHON" -c 'import socket
for _ in range(50):
    t = socket.socket(); t.bind(("127.0.0.1", 0)); port = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        u.close(); t.close()'
}

wait_for_tcp() { # wait_for_tcp PORT: up to 10 s
    "$PYTHON" -c 'import socket, sys, time
deadline = time.time() + 10
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5).close(); sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$1"
}

# --- rsyslog --------------------------------------------------------------------------------
SYSLOG_PORT="$(free_port)"
mkdir -p "$WORK/rsyslog-work"
sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$SYSLOG_PORT|g" "$PEERS/rsyslog.conf.template" > "$WORK/rsyslog.conf"
check "rsyslog accepts the peer configuration" "$RSYSLOGD" -N1 -f "$WORK/rsyslog.conf"
"$RSYSLOGD" -n -f "$WORK/rsyslog.conf" -i "$WORK/rsyslogd.pid" > "$WORK/rsyslogd.log" 2>&1 &
STARTED_PIDS+=($!)
check "rsyslog listens on 127.0.0.1:$SYSLOG_PORT" wait_for_tcp "$SYSLOG_PORT"
for _ in $(seq 50); do [ -S "$WORK/log.sock" ] && break; sleep 0.1; done

# --- webhook receiver -----------------------------------------------------------------------
SECRET="$("$PYTHON" -c 'import base64, os; print("whsec_" + base64.b64encode(os.urandom(32)).decode())')"
export TOPHHIE_PEER_WEBHOOK_SECRET="$SECRET"
"$PYTHON" "$PEERS/webhook_receiver.py" --port-file "$WORK/receiver.port" --records "$WORK/webhooks.jsonl" \
    > "$WORK/receiver.log" 2>&1 &
STARTED_PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/receiver.port" ] && break; sleep 0.1; done
WEBHOOK_PORT="$(cat "$WORK/receiver.port" 2>/dev/null || echo 0)"
check "webhook receiver listens on 127.0.0.1:$WEBHOOK_PORT" wait_for_tcp "$WEBHOOK_PORT"
check "standardwebhooks reproduces the specification's test vector" "$PYTHON" "$PEERS/sign_vector.py" --official
check "the preset limit tables reject bodies that break them" "$PYTHON" "$PEERS/preset_limits.py" --self-test
check "the strict RFC 5424 checker accepts the RFC's examples and rejects its invalid samples" "$PYTHON" "$PEERS/rfc5424_grammar.py" --self-test

# --- mail: aiosmtpd on loopback, msmtp as sendmail with its own configuration ----------------
SMTP_PORT="$(free_port)"
"$SYSTEM_PYTHON" "$PEERS/smtp_receiver.py" --port "$SMTP_PORT" --records "$WORK/smtp.jsonl" > "$WORK/smtp.log" 2>&1 &
STARTED_PIDS+=($!)
check "the SMTP server (aiosmtpd) listens on 127.0.0.1:$SMTP_PORT" wait_for_tcp "$SMTP_PORT"
printf 'defaults\nauth off\ntls off\nlogfile %s\naccount default\nhost 127.0.0.1\nport %s\nfrom tophhie-watch@peerhost\n' \
    "$WORK/msmtp.log" "$SMTP_PORT" > "$WORK/msmtprc"
chmod 600 "$WORK/msmtprc"
printf '#!/bin/sh\nexec %s -C %s "$@"\n' "$(command -v msmtp)" "$WORK/msmtprc" > "$WORK/sendmail"
chmod 755 "$WORK/sendmail"
export TOPHHIE_PEER_SENDMAIL="$WORK/sendmail"
export TOPHHIE_PEER_SMTP_RECORDS="$WORK/smtp.jsonl"

# --- the Swift side -------------------------------------------------------------------------
export TOPHHIE_PEER_SYSLOG_HOST=127.0.0.1
export TOPHHIE_PEER_SYSLOG_PORT="$SYSLOG_PORT"
export TOPHHIE_PEER_SYSLOG_SOCKET="$WORK/log.sock"
export TOPHHIE_PEER_SYSLOG_PARSED="$WORK/parsed.jsonl"
export TOPHHIE_PEER_WEBHOOK_URL="http://127.0.0.1:$WEBHOOK_PORT/hook"
export TOPHHIE_PEER_WEBHOOK_RECORDS="$WORK/webhooks.jsonl"
export TOPHHIE_PEER_PYTHON="$PYTHON"
export TOPHHIE_PEER_CARD_SCRIPT="$ROOT/scripts/peers/validate_card.py"
export TOPHHIE_PEER_CARD_SCHEMA="$ROOT/../shared/reference/schemas/adaptive-card-1.5.0.json"
export TOPHHIE_PEER_SIGN_SCRIPT="$PEERS/sign_vector.py"
export TOPHHIE_PEER_SYSLOG_GRAMMAR="$PEERS/rfc5424_grammar.py"
export TOPHHIE_PEER_PRESET_LIMITS="$PEERS/preset_limits.py"

cd "$ROOT"
run_swift_tests() {
    if [ -n "$LOCK" ] && command -v flock >/dev/null 2>&1; then
        flock "$LOCK" swift test --filter PeerChecks
    else
        swift test --filter PeerChecks
    fi
}
run_swift_tests > "$WORK/swift-test.log" 2>&1
SWIFT_STATUS=$?
grep -E '^(✔|✘|􀟈|􀢄) Test [^r]|^(✔|✘) Suite|Test run with|error:' "$WORK/swift-test.log" | sed 's/^/  /'
# One result per test function (a parameterised test counts once).
SWIFT_PASSED=$(grep -cE '^✔ Test [a-zA-Z0-9_]+\(.*\) (with [0-9]+ test cases? )?passed' "$WORK/swift-test.log")
SWIFT_FAILED=$(grep -cE '^✘ Test [a-zA-Z0-9_]+\(.*\) (with [0-9]+ test cases? )?failed' "$WORK/swift-test.log")
PASSED=$((PASSED + SWIFT_PASSED))
FAILED=$((FAILED + SWIFT_FAILED))
if [ "$SWIFT_STATUS" -ne 0 ] && [ "$SWIFT_FAILED" -eq 0 ]; then
    echo "swift test exited $SWIFT_STATUS without a failing test (build error?):"
    tail -30 "$WORK/swift-test.log"
    FAILED=$((FAILED + 1))
fi
if [ "$SWIFT_PASSED" -eq 0 ] && [ "$SWIFT_FAILED" -eq 0 ]; then
    echo "no PeerChecks test ran"
    FAILED=$((FAILED + 1))
fi
# --- pySigma -------------------------------------------------------------------------------
# The agent's detection matching against pySigma-backend-sqlite's queries, rule by rule, over a
# corpus that gives every value SigmaHQ's Azure sign-in rules test.
build_binary() {
    if [ -n "$LOCK" ] && command -v flock >/dev/null 2>&1; then
        flock "$LOCK" swift build --product tophhie-watch
    else
        swift build --product tophhie-watch
    fi
}
if build_binary > "$WORK/build.log" 2>&1; then
    BINARY="$(swift build --show-bin-path)/tophhie-watch"
    check "pySigma-sqlite selects the same sign-ins as 'rules match' for each of SigmaHQ's Azure sign-in rules" \
        "$PYTHON" "$PEERS/sigma_agreement.py" "$BINARY" "$ROOT/../shared/sigma" "$WORK/sigma"
    # --- notify secret -------------------------------------------------------------------------
    # A secret the agent makes, read back by the reference library: it signs with it, then verifies.
    "$BINARY" notify secret --file "$WORK/made.secret" > "$WORK/made.out" 2>&1
    check "'notify secret --file' writes a 0600 file" test "$(stat -c %a "$WORK/made.secret" 2>/dev/null)" = 600
    check "  standardwebhooks signs with its secret, then verifies (scripts/peers/sign_vector.py --round-trip)" \
        "$PYTHON" "$PEERS/sign_vector.py" --round-trip "$WORK/made.secret"
    # --- Chromium ------------------------------------------------------------------------------
    # The report page in a real browser, headless and offline: the demo's report rendered and its
    # DOM read back, a hostile corpus's report holding nothing of the data as markup.
    if ! command -v chromium >/dev/null 2>&1; then
        echo "installing chromium (apt-get)"
        apt_install chromium || echo "could not install chromium"
    fi
    check "the report renders in headless Chromium, offline, as written (scripts/peers/report_in_chromium.sh)" \
        bash "$PEERS/report_in_chromium.sh" "$BINARY" "$WORK/report"
else
    tail -20 "$WORK/build.log"
    check "the binary builds for the Sigma agreement check" false
fi

if [ "$FAILED" -ne 0 ]; then
    echo "--- rsyslog log"; tail -20 "$WORK/rsyslogd.log"
    echo "--- receiver log"; tail -20 "$WORK/receiver.log"
    echo "--- smtp log"; tail -20 "$WORK/smtp.log"; tail -5 "$WORK/msmtp.log" 2>/dev/null
fi
finish
