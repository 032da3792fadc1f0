#!/usr/bin/env bash
# Detection quality: one person's benign habits over three months and attack variants over a
# normal background, replayed through the default pack. Prints alerts per month per rule and
# whether each attack was detected by the rule meant for it. Measures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${TMPDIR:-/tmp}/tophhie-detection-quality"
mkdir -p "$WORK"
flock /tmp/swift-build.lock swift build -c release --product tophhie-watch >/dev/null
BIN="$(swift build -c release --show-bin-path)/tophhie-watch"
python3 benchmarks/detection-quality.py "$BIN" rules "$WORK"
