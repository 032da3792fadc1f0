#!/usr/bin/env bash
# Fuzzes the export readers with libFuzzer and ASan (Fuzz/ExportReadersFuzz.swift), seeded with
# the contract fixtures (Tests/Contracts/exports). Not run by CI: a bounded run by hand, its
# figures in benchmarks/README.md.
#
# usage: scripts/fuzz-exports.sh [SECONDS] [-- libFuzzer options]
#   SECONDS  how long to fuzz (default 600); 0 only builds.
# Environment: SWIFT_BUILD_LOCK (default /tmp/swift-build.lock) is held while compiling only;
# FUZZ_DIR (default .build/fuzz) keeps the build, the corpus and any crash-* inputs found.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export PATH="/opt/swift/usr/bin:$PATH"
LOCK="${SWIFT_BUILD_LOCK-/tmp/swift-build.lock}"
SECONDS_TO_RUN="${1:-600}"
shift || true
[ "${1:-}" = "--" ] && shift
OUT="${FUZZ_DIR:-$ROOT/.build/fuzz}"
mkdir -p "$OUT/corpus" "$OUT/crashes"

# The package's modules with ASan and libFuzzer's coverage (release, testable: the harness
# reaches the readers' windows), then the harness linked against their objects.
flock "$LOCK" swift build -c release --target TophhieReplay --scratch-path "$OUT/package" \
  -Xswiftc -sanitize=fuzzer,address \
  -Xswiftc -enable-testing >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 2; }
BUILT="$OUT/package/release"
# The library modules' objects only (no test target's, no executable's main).
mapfile -t OBJECTS < <(find -L "$BUILT/" -path '*.build/*.o' ! -path '*Tests.build/*' ! -path '*TestSupport.build/*' \
  ! -path '*Benchmark.build/*' ! -path '*tophhie_watch.build/*' | sort)
flock "$LOCK" swiftc -O -sanitize=fuzzer,address -parse-as-library -enable-testing \
  -I "$BUILT/Modules" -I "$BUILT" "$ROOT/Fuzz/ExportReadersFuzz.swift" "${OBJECTS[@]}" \
  -o "$OUT/export-readers" >>"$OUT/build.log" 2>&1 || { grep -E 'error' "$OUT/build.log" | head -20; exit 2; }
[ "$SECONDS_TO_RUN" = 0 ] && { echo "built $OUT/export-readers"; exit 0; }

# Seeds: every contract fixture (the exports and the Graph pages the contract tests hold).
find "$ROOT/Tests/Contracts" -type f \( -name '*.json' -o -name '*.csv' \) -size -1024k -exec cp {} "$OUT/corpus/" \;
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" "$OUT/export-readers" "$OUT/corpus" \
  -max_total_time="$SECONDS_TO_RUN" -max_len=16384 -timeout=30 -rss_limit_mb=2048 \
  -artifact_prefix="$OUT/crashes/" -print_final_stats=1 "$@" 2>&1 | tee "$OUT/run.log" | grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|stat::|ERROR|SUMMARY|Test unit written' || true
echo "crashes found: $(find "$OUT/crashes" -type f | wc -l) (in $OUT/crashes)"
