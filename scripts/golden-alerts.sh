#!/usr/bin/env bash
# The alerts of the benchmark corpora, held to benchmarks/alert-hashes.txt: the release binary
# with the fast engine and with the plain evaluator (TOPHHIE_ENGINE=plain) must both give
# exactly the lines recorded there. A change that means to change alerts changes that file in
# the same commit (`scripts/golden-alerts.sh --write` writes it from the fast engine).
#
# Environment: ENGINES (default "fast plain"), CORPORA (where the generated files are kept,
# default $TMPDIR/tophhie-bench), BIN (a tophhie-watch to use instead of building one).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export PATH="/opt/swift/usr/bin:$PATH"
ENGINES="${ENGINES:-fast plain}"
CORPORA="${CORPORA:-${TMPDIR:-/tmp}/tophhie-bench}"
GOLDEN="$ROOT/benchmarks/alert-hashes.txt"
SIGMA="$ROOT/../shared/sigma"
mkdir -p "$CORPORA"

if [ -z "${BIN:-}" ]; then
  if ! dpkg -s libcurl4-openssl-dev >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcurl4-openssl-dev >/dev/null
  fi
  flock /tmp/swift-build.lock swift build -c release --static-swift-stdlib --product tophhie-watch --scratch-path "$ROOT/.build/static" >/dev/null || exit 2
  BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$ROOT/.build/static" --show-bin-path)/tophhie-watch"
fi

# corpus NAME: the generated file for "COUNT SEED USERS [unmanaged]", made once.
corpus() {
  local file="$CORPORA/signins-${1// /-}.json"
  # shellcheck disable=SC2086
  [ -f "$file" ] || python3 "$ROOT/benchmarks/generate-signins.py" $(echo "$1" | awk '{print $1}') "$file" $(echo "$1" | cut -d' ' -f2-) >/dev/null
  echo "$file"
}

write=0
[ "${1:-}" = "--write" ] && write=1
passed=0; failed=0
out="$(mktemp)"
trap 'rm -f "$out" "$out.new"' EXIT
grep -v '^#' "$GOLDEN" | while IFS='|' read -r name rules command count hash; do
  name="$(echo "$name" | xargs)"; rules="$(echo "$rules" | xargs)"; command="$(echo "$command" | xargs)"
  count="$(echo "$count" | xargs)"; hash="$(echo "$hash" | xargs)"
  [ -z "$name" ] && continue
  file="$(corpus "$name")"
  case "$rules" in sigma) path="$SIGMA" ;; *) path="$ROOT/$rules" ;; esac
  if [ "$write" = 1 ]; then
    # shellcheck disable=SC2086
    TOPHHIE_ENGINE=fast "$BIN" $command "$file" --rules "$path" --format json 2>/dev/null >"$out"
    printf '%s | %s | %s | %s | %s\n' "$name" "$rules" "$command" "$(wc -l <"$out" | xargs)" "$(sha256sum "$out" | cut -c1-64)" >>"$out.new"
    continue
  fi
  for engine in $ENGINES; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    TOPHHIE_ENGINE="$engine" "$BIN" $command "$file" --rules "$path" --format json 2>/dev/null >"$out"
    lines=$(wc -l <"$out" | xargs); got=$(sha256sum "$out" | cut -c1-64)
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    if [ "$lines" = "$count" ] && [ "$got" = "$hash" ]; then
      printf '  ok    %-9s %-26s %-6s %-22s %7s lines  %6.2f s\n' "$engine" "$name" "$rules" "$command" "$lines" "$seconds"
    else
      printf '  FAIL  %-9s %-26s %-6s %-22s %7s lines (recorded %s), sha256 %s (recorded %s)\n' "$engine" "$name" "$rules" "$command" "$lines" "$count" "${got:0:12}" "${hash:0:12}"
      echo failed >>"$out.failed"
    fi
  done
done
if [ "$write" = 1 ]; then
  { grep '^#' "$GOLDEN"; cat "$out.new"; } >"$GOLDEN.tmp" && mv "$GOLDEN.tmp" "$GOLDEN"
  echo "wrote $GOLDEN"
  exit 0
fi
if [ -f "$out.failed" ]; then rm -f "$out.failed"; echo "golden alerts: some outputs differ from benchmarks/alert-hashes.txt"; exit 1; fi
