#!/usr/bin/env bash
# Breaks the engine's fast paths on purpose, one change at a time, and checks that the
# differential test (the fast engine against the plain evaluator) catches each. Run from a clean
# work tree: every change is put back, also when the script is stopped.
#
#   scripts/differential-mutations.sh            # every mutation (about 30 s each)
#   scripts/differential-mutations.sh 3          # only the third
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

if [ -n "$(git status --porcelain Sources)" ]; then
  echo "differential-mutations: Sources has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
trap 'git checkout -q -- Sources' EXIT

# file | text as it is | text broken | what the break is
mutations=(
  "Sources/TophhieRulesFast/Correlation/WindowEvaluator.swift|while occurrences[start].time.timeIntervalSince(occurrence.time) <= -span {|while occurrences[start].time.timeIntervalSince(occurrence.time) < -span {|a window boundary moved: (t - timespan, t] closed at its start"
  "Sources/TophhieRulesFast/Matching/FieldMatchPlan.swift|case .int(let i): return exactNumbers.contains(Double(i))|case .int(let i): return exactNumbers.contains(Double(i)) \|\| i == 0|the exact-number shortcut: a zero matches any list of numbers"
  "Sources/TophhieRulesFast/Engine/GroupKeyCache.swift|if let only, UTF8Bytes.same(value, only.value) { return only.key }|if let only { return only.key }|a cache that answers stale: the last group key, whatever the value"
  "Sources/TophhieRulesFast/Matching/MatchMemo.swift|if let slotted,|if let slotted, !slotted.eventID.isEmpty \|\||a cache that answers stale: the match memo's last answer for any sign-in read into slots"
  "Sources/TophhieRulesFast/Correlation/FirstSeenEvaluator.swift|&& time.timeIntervalSince(baseline.learningStart) >= settings.learningPeriod|&& time.timeIntervalSince(baseline.learningStart) > settings.learningPeriod|first-seen's learning period ends a moment late"
  "Sources/TophhieRulesFast/Correlation/FirstSeenEvaluator.swift|let teaches = teaching == .yes \|\| (teaching == .knownOnly && !isNew)|let teaches = teaching != .no|first-seen's refresh-only events make a new value known (suppression episodes are the plain meaning's own now: EpisodeDecision)"
  "Sources/TophhieRulesFast/Correlation/TravelEvaluator.swift|return earlier >= spec.familiarAfterDays|return earlier > spec.familiarAfterDays|travel's familiar places off by one day"
  "Sources/TophhieRulesFast/Correlation/WindowEvaluator.swift|if let needed { cutoff = min(cutoff, needed) }|_ = needed|a checkpoint forgets what an open episode still needs"
  "Sources/TophhieRulesFast/Matching/FieldMatchPlan.swift|return sets.numbers.contains(actual) \|\| (!sets.stringTexts.isEmpty|return sets.numbers.contains(actual) \|\| (sets.stringTexts.isEmpty|the exact-value set path: a number never matches a value written as text"
  "Sources/TophhieRulesFast/Correlation/WindowEvaluator.swift|alertsReadyBefore = min(needed ?? watermark, watermark)|alertsReadyBefore = watermark|a replay writes alerts before the episodes left open could end earlier"
  "Sources/TophhieRulesFast/Correlation/TravelEvaluator.swift|\$0.gap < gap && \$0.label == buffer[i].detail.location|\$0.gap <= gap|travel's same-spot shortcut skips a sign-in at the same gap (or under another name)"
)

only="${1:-}"
failed=0
for n in "${!mutations[@]}"; do
  number=$((n + 1))
  [ -n "$only" ] && [ "$only" != "$number" ] && continue
  IFS='|' read -r file before after what <<<"${mutations[$n]//\\|/$'\x1f'}"
  before="${before//$'\x1f'/|}"; after="${after//$'\x1f'/|}"
  python3 - "$file" "$before" "$after" <<'EOF' || { echo "$number: the text to break is not in $file (once)"; failed=1; continue; }
import sys
path, before, after = sys.argv[1:4]
text = open(path).read()
if text.count(before) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(before, after))
EOF
  if ! swift build --build-tests >/tmp/differential-mutation-build.log 2>&1; then
    echo "$number: does not build: $what"; failed=1
  else
    swift test --skip-build --filter ReferenceDifferential >/tmp/differential-mutation-test.log 2>&1
    caught=$(grep -cE '↳ seed [0-9]+' /tmp/differential-mutation-test.log)
    if [ "$caught" -gt 0 ]; then
      echo "$number: caught in $caught case(s): $what"
    else
      echo "$number: NOT caught: $what"; failed=1
    fi
  fi
  git checkout -q -- "$file"
done
swift build --build-tests >/dev/null 2>&1
exit "$failed"
