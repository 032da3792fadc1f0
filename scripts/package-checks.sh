#!/usr/bin/env bash
# Checks the release archive as a new user meets it: scripts/package.sh builds it, it is unpacked
# into an empty folder and run with an empty environment, outside the toolchain; install.sh stages
# a system-wide and a per-user install under temporary roots; the man page and the completions
# are read by groff and bash. Prints the archive's size and the start time and peak RSS of
# '--version' and of a no-op poll.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="/opt/swift/usr/bin:$PATH"
LOCK="${SWIFT_BUILD_LOCK-/tmp/swift-build.lock}"
WORK="$(mktemp -d /tmp/tophhie-package-checks.XXXXXX)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; rm -rf "$WORK"; }
trap cleanup EXIT
passed=0; failed=0
check() { # name, condition…
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "  ok    $name"; else failed=$((failed + 1)); echo "  FAIL  $name"; fi
}

export DIST="$WORK/dist"
if [ -n "$LOCK" ] && command -v flock >/dev/null 2>&1; then flock "$LOCK" scripts/package.sh > "$WORK/package.log" 2>&1; else scripts/package.sh > "$WORK/package.log" 2>&1; fi
check "scripts/package.sh builds the archive" test $? -eq 0
ARCHIVE="$(ls "$DIST"/tophhie-watch-*-linux-*.tar.gz 2>/dev/null | head -1)"
[ -n "$ARCHIVE" ] || { tail -20 "$WORK/package.log"; echo "package checks: $passed passed, $((failed + 1)) failed"; exit 1; }
VERSION="$(sed -n 's/.*static let number = "\(.*\)".*/\1/p' Sources/TophhieSystem/Process/ProductVersion.swift)"

mkdir -p "$WORK/clean"
tar -C "$WORK/clean" -xzf "$ARCHIVE"
PKG="$(ls -d "$WORK/clean"/tophhie-watch-*)"
B="$PKG/bin/tophhie-watch"
check "the archive holds binary, rules, man page, completions, units, config and install.sh" bash -c "
  for f in bin/tophhie-watch share/tophhie-watch/rules/failure-burst.yml share/man/man1/tophhie-watch.1 \
           share/bash-completion/completions/tophhie-watch share/zsh/site-functions/_tophhie-watch \
           share/fish/vendor_completions.d/tophhie-watch.fish lib/systemd/system/tophhie-watch.service \
           lib/systemd/system/tophhie-watch-poll.timer lib/systemd/user/tophhie-watch.service etc/config.yml.example install.sh; do
    test -e '$PKG/'\$f || { echo missing \$f; exit 1; }
  done"
# Every relative link of the unpacked README leads to a file of the archive.
check "every relative link of the unpacked README resolves in the archive" python3 - "$PKG" <<'PY'
import os, re, sys
root = sys.argv[1]
text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
links = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"<img [^>]*src=\"([^\"]+)\"", text)
missing = sorted({link.split("#")[0] for link in links
                  if not re.match(r"^[a-z]+:", link) and not link.startswith("#")
                  and not os.path.exists(os.path.join(root, link.split("#")[0]))})
for link in missing:
    print("missing", link)
sys.exit(1 if missing else 0)
PY
check "the binary links no Swift runtime library" bash -c "! ldd '$B' | grep -qiE 'swift|/opt/'"
check "the binary is stripped" bash -c "file '$B' | grep -q 'stripped' && ! file '$B' | grep -q 'not stripped'"
cd "$WORK/clean"
check "--version runs with an empty environment, outside the toolchain" test "$(env -i "$B" --version)" = "tophhie-watch $VERSION"
check "it finds its own rules: rules test passes from another folder" bash -c "env -i '$B' rules test > '$WORK/rules-test.out' 2>&1"
check "the man page is read by groff without a warning" bash -c "groff -man -ww -z '$PKG/share/man/man1/tophhie-watch.1' 2>&1 | (! grep -q .)"
check "the man page is the binary's own help" bash -c "env -i '$B' manpage | cmp -s - '$PKG/share/man/man1/tophhie-watch.1'"
check "the bash completion parses and completes 'pol' to poll" bash -c "
  source '$PKG/share/bash-completion/completions/tophhie-watch'
  COMP_WORDS=(tophhie-watch pol); COMP_CWORD=1; _tophhie_watch
  [ \"\${COMPREPLY[*]}\" = poll ]
  COMP_WORDS=(tophhie-watch poll --qu); COMP_CWORD=2; _tophhie_watch
  [ \"\${COMPREPLY[*]}\" = --quiet ]"
cd "$ROOT"

# A no-op poll with the packaged binary: the simulated tenant, a login, a first poll, then the
# measured one (nothing new).
"$B" simulate --port 0 > "$WORK/sim.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q "Serving until" "$WORK/sim.out" && break; sleep 0.1; done
eval "$(grep '^  export ' "$WORK/sim.out" | sed 's/^  //')"
export TOPHHIE_STATE_DIR="$WORK/state"
"$B" login > "$WORK/login.out" 2>&1
check "the packaged binary signs in to the simulated tenant" grep -q "Signed in as" "$WORK/login.out"
# The first poll learns the tenant's history as its baseline and alerts on none of it; a lockout
# added to the tenant after it is what the next poll alerts on.
(cd "$WORK" && "$B" poll > "$WORK/first-poll.out" 2> "$WORK/first-poll.err")
check "its first poll finds the installed rules and learns (no alert on the history)" bash -c "grep -q 'learned from' '$WORK/first-poll.err' && ! grep -q '\[failure-burst\]' '$WORK/first-poll.out'"
SIM_ROOT="${TOPHHIE_GRAPH_URL%/v1.0}"
# lockout ID: a lockout the tenant publishes now, for the poll after the baseline (each from an
# address of its own: one learned in a baseline would hold the next in its hour of quiet).
lockout() {
    python3 - "$(curl -s "$SIM_ROOT/_sim/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["userId"])')" "$1" > "$WORK/lockout-$1.json" <<'PY'
import datetime, json, sys
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(seconds=30)
print(json.dumps([{"id": f"lockout-{sys.argv[2]}-4000-8000-000000000001", "createdDateTime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "userId": sys.argv[1], "userPrincipalName": "jane@contoso.com", "appDisplayName": "Office 365",
                   "ipAddress": f"198.51.100.{60 + int(sys.argv[2])}", "isInteractive": True, "status": {"errorCode": 50053},
                   "location": {"city": "Lagos", "countryOrRegion": "NG"}}]))
PY
    curl -s -X POST -H 'Content-Type: application/json' --data @"$WORK/lockout-$1.json" "$SIM_ROOT/_sim/signins" > /dev/null
}
lockout 0001
(cd "$WORK" && "$B" poll --quiet > "$WORK/second-poll.out" 2>&1)
check "  and its next poll alerts on a lockout published after it" grep -q "account-lockout" "$WORK/second-poll.out"
(cd "$WORK" && /usr/bin/time -f "%e %M" -o "$WORK/noop.time" "$B" poll --quiet > "$WORK/noop.out" 2>&1)
check "a no-op quiet poll prints nothing and exits 0" bash -c "test $? -eq 0 && ! test -s '$WORK/noop.out'"
/usr/bin/time -f "%e %M" -o "$WORK/version.time" env -i "$B" --version > /dev/null

# install.sh: a staged system-wide install, and a per-user one, under temporary roots.
STAGE="$WORK/stage"
DESTDIR="$STAGE" "$PKG/install.sh" > "$WORK/install.out" 2>&1
check "install.sh stages a system install under DESTDIR" test $? -eq 0
check "binary 0755, rules, man page and units in place" bash -c "
  test \"\$(stat -c %a '$STAGE/usr/local/bin/tophhie-watch')\" = 755 &&
  test -f '$STAGE/usr/local/share/tophhie-watch/rules/failure-burst.yml' &&
  test -f '$STAGE/usr/local/share/man/man1/tophhie-watch.1' &&
  test -f '$STAGE/etc/systemd/system/tophhie-watch.service' && test -f '$STAGE/etc/systemd/system/tophhie-watch-poll.timer'"
check "the state directory exists before the unit starts, 0700" test "$(stat -c %a "$STAGE/var/lib/tophhie-watch" 2>/dev/null)" = 700
check "the config names the installed rules and state directory" bash -c "
  grep -q '^state_dir: /var/lib/tophhie-watch' '$STAGE/etc/tophhie-watch/config.yml' &&
  grep -q '^  - /usr/local/share/tophhie-watch/rules' '$STAGE/etc/tophhie-watch/config.yml'"
check "it prints the next two commands" bash -c "grep -A2 '^next:' '$WORK/install.out' | grep -q 'login --config /etc/tophhie-watch/config.yml' && grep -q 'systemctl enable --now tophhie-watch' '$WORK/install.out'"
echo "# changed" >> "$STAGE/etc/tophhie-watch/config.yml"
DESTDIR="$STAGE" "$PKG/install.sh" > /dev/null 2>&1
check "a second install keeps an existing config" grep -q '^# changed' "$STAGE/etc/tophhie-watch/config.yml"
check "the staged binary runs" test "$(env -i "$STAGE/usr/local/bin/tophhie-watch" --version)" = "tophhie-watch $VERSION"
USERHOME="$WORK/home"
mkdir -p "$USERHOME"
env -i HOME="$USERHOME" PATH=/usr/bin:/bin "$PKG/install.sh" --user > "$WORK/install-user.out" 2>&1
check "install.sh --user installs without root under HOME" bash -c "
  test -x '$USERHOME/.local/bin/tophhie-watch' && test -f '$USERHOME/.config/systemd/user/tophhie-watch.service' &&
  test -f '$USERHOME/.config/tophhie-watch/config.yml' && test \"\$(stat -c %a '$USERHOME/.local/state/tophhie-watch')\" = 700"
check "the user unit and config point at the user's paths" bash -c "
  grep -q 'ExecStart=$USERHOME/.local/bin/tophhie-watch run --config $USERHOME/.config/tophhie-watch/config.yml' '$USERHOME/.config/systemd/user/tophhie-watch.service' &&
  grep -q '^  - $USERHOME/.local/share/tophhie-watch/rules' '$USERHOME/.config/tophhie-watch/config.yml' &&
  grep -q 'systemctl --user enable --now tophhie-watch' '$WORK/install-user.out'"
check "install.sh --user ends by saying what is missing: the tenant" grep -q "no tenant: set 'tenant' in this file" "$WORK/install-user.out"

# The first hour: in the installed config set only tenant and client id, then sign in and poll
# with no --config and no TOPHHIE_CONFIG, from another folder; the simulated tenant's burst alerts
# on standard output. (The authority and Graph URL point at the simulator, from the environment.)
sed -i -e "s|^tenant:.*|tenant: $TOPHHIE_TENANT|" -e "s|^client_id:.*|client_id: $TOPHHIE_CLIENT_ID|" "$USERHOME/.config/tophhie-watch/config.yml"
as_user() { (cd "$WORK" && env -i HOME="$USERHOME" PATH=/usr/bin:/bin TOPHHIE_AUTHORITY="$TOPHHIE_AUTHORITY" TOPHHIE_GRAPH_URL="$TOPHHIE_GRAPH_URL" "$USERHOME/.local/bin/tophhie-watch" "$@"); }
as_user login > "$WORK/user-login.out" 2>&1
check "the installed binary signs in with the config it finds itself" grep -q "Signed in as" "$WORK/user-login.out"
as_user poll > "$WORK/user-first.out" 2> "$WORK/user-first.err"; user_first_rc=$?
check "  and its first poll, with no --config, learns the history (exit 0)" sh -c "test $user_first_rc -eq 0 && grep -q 'learned from' '$WORK/user-first.err'"
lockout 0002
as_user poll > "$WORK/user-poll.out" 2> "$WORK/user-poll.err"; user_poll_rc=$?
check "  and its next poll alerts on standard output (exit 0)" sh -c "test $user_poll_rc -eq 0 && grep -q '\[account-lockout\]' '$WORK/user-poll.out'"
as_user status > "$WORK/user-status.out" 2>&1
check "  status names the config it read and why" grep -q "^Config:        $USERHOME/.config/tophhie-watch/config.yml (~/.config)" "$WORK/user-status.out"

read -r VERSION_S VERSION_KB < "$WORK/version.time"
read -r NOOP_S NOOP_KB < "$WORK/noop.time"
echo "archive $(basename "$ARCHIVE"): $(( $(stat -c %s "$ARCHIVE") / 1024 )) KiB; binary $(( $(stat -c %s "$B") / 1024 )) KiB"
echo "--version: ${VERSION_S} s, peak RSS $(( VERSION_KB / 1024 )) MiB; no-op poll: ${NOOP_S} s, peak RSS $(( NOOP_KB / 1024 )) MiB"
echo "package checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
