#!/usr/bin/env bash
# Times LinearRegex beside NSRegularExpression (ICU) on hostile values of 1 KB, 100 KB and 1 MB.
# ICU runs are cut off after 20 s. Builds with the shared lock, because the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."  # the repository
export PATH=/opt/swift/usr/bin:$PATH
flock /tmp/swift-build.lock swift build -c release --product RegexBenchmark >/dev/null
binary=.build/release/RegexBenchmark

printf '%-26s %-9s %-28s %-28s\n' pattern size LinearRegex NSRegularExpression
for workload in nested dotstar alternation; do
  case $workload in
    nested) pattern='(a+)+$ (no match)';;
    dotstar) pattern='.*python.*requests.* (no match)';;
    alternation) pattern='^(a|b)*$ (match)';;
  esac
  for size in 1000 100000 1000000; do
    linear=$("$binary" linear "$workload" "$size")
    if icu=$(timeout 20 "$binary" icu "$workload" "$size" 2>&1); then :; else
      status=$?
      if [ "$status" -eq 124 ]; then icu='> 20 s (timed out)'; else icu="failed (exit $status): ${icu:0:60}"; fi
    fi
    printf '%-26s %-9s %-28s %-28s\n' "$workload" "$size" "$linear" "$icu"
  done
done
