#!/usr/bin/env bash
# CPU while waiting for Graph, against a server that closes its connection after each answer.
# A stand-in sits between the agent and the simulated tenant and answers every Graph request
# after DELAY seconds (default 0.5: the sign-in log is Graph's slowest answer), either as
# HTTP/1.1 keeping the connection open (as Graph does) or as HTTP/1.0 closing it after each
# answer. A poll with nothing new runs POLL_RUNS times (default 5) against each; printed: its CPU
# (user + system, getrusage, median) and wall time. Not a test: it measures and prints.
#
# Environment: POLL_RUNS (default 5), DELAY (default 0.5), BIN (default: the debug build), TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
POLL_RUNS="${POLL_RUNS:-5}"
DELAY="${DELAY:-0.5}"
WORK="${TMPDIR:-/tmp}/tophhie-closing-cpu"
rm -rf "$WORK"; mkdir -p "$WORK"
export PATH="/opt/swift/usr/bin:$PATH"
if [ -z "${BIN:-}" ]; then
    flock /tmp/swift-build.lock swift build --product tophhie-watch >/dev/null
    BIN="$(swift build --show-bin-path)/tophhie-watch"
fi

. benchmarks/simulated-tenant.sh
start_tenant '[{"pattern": "normalHistory", "seed": 20261205, "days": 1, "perDayMin": 200, "perDayMax": 200}]' "$WORK"
SIM_GRAPH="$TOPHHIE_GRAPH_URL"

# stand_in MODE PORTFILE: forwards to the simulator after DELAY; MODE http11 keeps connections
# open, http10 closes each after its answer.
stand_in() {
    python3 - "$1" "$2" "${SIM_GRAPH%/v1.0}" "$DELAY" >/dev/null 2>&1 <<'PY' &
import http.server, socketserver, sys, time, urllib.request, urllib.error
mode, portfile, upstream, delay = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1" if mode == "http11" else "HTTP/1.0"
    def log_message(self, *args): pass
    def do_GET(self):
        request = urllib.request.Request(upstream + self.path, headers={k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")})
        try:
            reply = urllib.request.urlopen(request)
            status, headers, body = reply.status, reply.headers, reply.read()
        except urllib.error.HTTPError as error:
            status, headers, body = error.code, error.headers, error.read()
        time.sleep(delay)
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "keep-alive" if mode == "http11" else "close")
        self.end_headers()
        self.wfile.write(body)
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
server = Server(("127.0.0.1", 0), Handler)
open(portfile, "w").write(str(server.server_address[1]))
server.serve_forever()
PY
    echo $!
}

printf 'stand-in answering after %s s                      CPU (median)   wall (median)\n' "$DELAY"
for mode in http11 http10; do
    dir="$WORK/$mode"; mkdir -p "$dir"
    pid=$(stand_in "$mode" "$dir/port")
    for _ in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
    export TOPHHIE_STATE_DIR="$dir/state" TOPHHIE_GRAPH_URL="http://127.0.0.1:$(cat "$dir/port")/v1.0"
    "$BIN" login > "$dir/login.out" 2>&1
    "$BIN" poll --quiet --rules "$ROOT/rules" > "$dir/first.out" 2>&1 || true
    python3 - "$POLL_RUNS" "$mode" "$BIN" poll --quiet --rules "$ROOT/rules" <<'PY'
import resource, statistics, subprocess, sys, time
runs, mode, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
cpu, wall = [], []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall.append(time.monotonic() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
label = "HTTP/1.1, connection kept (as Graph)" if mode == "http11" else "HTTP/1.0, closed after each answer"
print(f"  {label:<48} {statistics.median(cpu) * 1000:8.0f} ms   {statistics.median(wall):8.2f} s")
PY
    kill "$pid" 2>/dev/null || true
done
