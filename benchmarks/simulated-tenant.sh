# Sourced by the benchmark scripts that poll: the binary that ships, and a simulated tenant.
#
# shipped_binary: builds the release binary with the Swift runtime linked statically
#   (.build/static, as scripts/package.sh does) and sets BIN to it.
# start_tenant SCENARIO OUT: serves SCENARIO (the basic scenario with `generate` replaced by the
#   JSON list GENERATE, at the real time), waits for it, and exports the TOPHHIE_* settings it
#   prints; SIM is its pid, killed on exit.

shipped_binary() {
    if ! dpkg -s libcurl4-openssl-dev >/dev/null 2>&1; then
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4-openssl-dev >/dev/null
    fi
    flock /tmp/swift-build.lock swift build -c release --static-swift-stdlib --product tophhie-watch --scratch-path "$ROOT/.build/static" >/dev/null
    BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$ROOT/.build/static" --show-bin-path)/tophhie-watch"
}

start_tenant() {
    local generate="$1" dir="$2"
    python3 - "$ROOT/examples/scenarios/basic.json" "$dir/scenario.json" "$generate" <<'PY'
import json, sys
scenario = json.load(open(sys.argv[1]))
scenario["generate"] = json.loads(sys.argv[3])
scenario["defaultLatencySeconds"] = 0
scenario.pop("clock", None)  # the real time, which the agent's window is measured in
json.dump(scenario, open(sys.argv[2], "w"))
PY
    "$BIN" simulate --port 0 --scenario "$dir/scenario.json" > "$dir/sim.out" 2>&1 &
    SIM=$!
    trap 'kill $SIM 2>/dev/null || true' EXIT
    for _ in $(seq 300); do grep -q "Serving until" "$dir/sim.out" && break; sleep 0.1; done
    eval "$(grep '^  export ' "$dir/sim.out" | sed 's/^  //')"
}
