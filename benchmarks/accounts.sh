#!/usr/bin/env bash
# Several accounts in one daemon (issue 49): ACCOUNTS accounts of one tenant (default 30) at
# 5-minute polls, `AgentLoop` over `WatchedAccounts` built from config text with `accounts:`,
# against the simulated tenant serving as many people with Graph's limit enforced (5 sign-in log
# requests per 10 s, then 429). Both run in one process on one clock: real time with every wait
# skipped (Sources/AccountsBenchmark). Each account first signs in with a device code, approved
# as the next person. Printed: the budget arithmetic, then per cycle (the learning cycle, then
# STEADY_CYCLES steady ones, default 3) the requests the tenant received, the 429s it answered,
# the cycle's span, CPU per account (getrusage of the whole process, the tenant's work included),
# and the process's peak memory (VmHWM). It measures and prints; it asserts nothing.
# The agent's log goes to $TMPDIR/tophhie-accounts.log. Builds with the shared lock.
set -euo pipefail
cd "$(dirname "$0")/.."  # the repository
export PATH=/opt/swift/usr/bin:$PATH
LOG="${TMPDIR:-/tmp}/tophhie-accounts.log"
flock /tmp/swift-build.lock swift build -c release --product AccountsBenchmark >"$LOG" 2>&1 || { cat "$LOG"; exit 1; }
echo "$(date -u '+%F %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
.build/release/AccountsBenchmark "$PWD/rules" "${ACCOUNTS:-30}" "${STEADY_CYCLES:-3}" 2>"$LOG"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); the agent's log: $LOG ($(wc -l <"$LOG") lines)"
