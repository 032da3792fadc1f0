import Foundation
import TophhieRules

/// The `first_seen` extension: a value (or tuple) never seen before for the group.
///
/// Learning ends when both hold: `learning.period` has passed since the group's first event, and
/// the group has had `learning.events` events. Either alone ends learning too early: a busy user
/// makes ten sign-ins on day one, before their phone or laptop has shown up; a weekly user has
/// not shown their habits after fourteen days. Values unseen for `forget` count as new again.
extension EngineRun {
    /// One event of a rule first-seen correlation `c` references, against its group's baseline.
    /// - Parameter alerting: false for an event of a rule outside `alert-on`: it only teaches.
    ///   An alerting event under `alert-on` is checked but teaches nothing: a stranger's
    ///   password attempts must not make their country known.
    /// - Parameters:
    ///   - shared: the event's group under `EnginePlan.sharedGroupSlots` (`group`).
    ///   - lastKey: the value key this event was given last, by the correlation whose fields
    ///     (`EnginePlan.firstSeenKeySource`) fill `firstSeenParts` now: a second rule on the
    ///     same fields (a country for new-country and first-factor-new-place) takes it.
    /// - Parameter refreshing: the event matched only `refresh-only` rules: it teaches a known value only.
    mutating func observeFirstSeen(_ c: Int, event: any FastEvent, alerting: Bool, refreshing: Bool, shared: inout HashedText??,
                                   lastKey: inout (source: Int, parts: Int, key: HashedText)?) {
        let plan = self.plan  // one reference for the call (`ingest`)
        let rule = plan.correlationRefs[c]
        guard let settings = rule.firstSeen else { return }
        guard let group = group(c, event, shared: &shared) else { return }
        let source = plan.firstSeenKeySource[c]
        var partCount = 0
        // With its hash: every rule on the same fields looks it up in its own baselines.
        let valueKey: HashedText
        if let known = lastKey, known.source == source {
            partCount = known.parts
            valueKey = known.key
        } else {
            lastKey = nil
            // The fields' texts in a list the run reuses, written over in place (emptying a list
            // goes through the general replacement of a range).
            for slot in plan.firstSeenFieldSlots[c] {
                guard let text = event.text(slot: slot), !text.isEmpty else { return }
                if partCount < firstSeenParts.count { firstSeenParts[partCount] = text } else { firstSeenParts.append(text) }
                partCount += 1
            }
            if partCount == 1 && !settings.ignoreVersions {
                // One field as it is: its text is the key when it has no capitals (no string made).
                let text = firstSeenParts[0]
                valueKey = HashedText(EngineRun.foldedShort(text) ?? folded.value(text) { $0.lowercased() })
            } else if let key = FirstSeenValue.asciiKey(firstSeenParts, count: partCount, ignoringVersions: settings.ignoreVersions) {
                valueKey = HashedText(key)
            } else {
                let value = shownValue(partCount, settings)
                valueKey = HashedText(EngineRun.foldedShort(value) ?? folded.value(value) { $0.lowercased() })
            }
            lastKey = (source, partCount, valueKey)
        }
        let teaches = refreshing ? FirstSeenTeaching.knownOnly : (!settings.alertOnSome || !alerting) ? .yes : .no
        // An update of a sign-in already counted is the same sign-in.
        let counts = updated.isEmpty || !updated.contains(event.eventID)
        var alerts = false, learning = false
        // The baseline is changed where it lies, in this run's table of the rule
        // (`RuleTables`): taking it out and putting it back hashed its key twice.
        if let groupIndex = firstSeenTables.tables[c].index(forKey: group.hashed) {
            let keep = EngineRun.learn(&firstSeenTables.tables[c].values[groupIndex], value: valueKey, at: event.eventTime,
                                       settings: settings, teaching: teaches, alerting: alerting, counts: counts, alerts: &alerts, learning: &learning)
            if !keep { firstSeenTables.tables[c].remove(at: groupIndex) }
        } else {
            // A group's first event: its table is made only if there is something to keep.
            var baseline = FastState.Baseline(learningStart: event.eventTime, events: 0, known: [:])
            if EngineRun.learn(&baseline, value: valueKey, at: event.eventTime, settings: settings, teaching: teaches, alerting: alerting, counts: counts, alerts: &alerts, learning: &learning) {
                firstSeenTables.tables[c][group.hashed] = baseline
                firstSeenTables.kept[c] = true
            }
        }
        if alerts {
            guard case .firstSeen(let spec) = rule.kind else { return }
            let shown = zip(rule.groupBy, EventGroup.values(of: event, slots: plan.groupSlots[c])).map { AlertGroupValue(field: $0, value: $1) }
            let alertEvent = FastAlertEvents.alertEvent(event)
            let summary = "first \(spec.fields.joined(separator: " + ")) '\(shownValue(partCount, settings))'"
            emit(metadata: rule.metadata, options: rule.options, defaultSuppress: 0,
                 group: shown, groupKey: group.key + "\u{1F}" + valueKey.text, events: [alertEvent], eventCount: 1,
                 windowClose: event.eventTime, summary: summary, learning: learning)
        }
    }

    /// The value of the first `count` fields in `firstSeenParts` as an alert shows it: their
    /// texts (versions dropped when the rule ignores them) joined by " / ".
    private mutating func shownValue(_ count: Int, _ settings: FirstSeenSettings) -> String {
        var value = ""
        for n in 0..<count {
            let text = firstSeenParts[n]
            let part = settings.ignoreVersions ? versionless.value(text, EngineRun.withoutVersions) : text
            if n == 0 { value = part } else { value.append(" / "); value.append(part) }
        }
        return value
    }

    /// One event against a group's baseline: whether it alerts (`alerts`), while learning
    /// (`learning`), and what it teaches.
    /// - Returns: whether the baseline is kept: an event that only checks (outside `alert-on`'s
    ///   teaching) keeps a baseline only if it holds something.
    static func learn(_ baseline: inout FastState.Baseline, value valueKey: HashedText, at time: Date, settings: FirstSeenSettings,
                      teaching: FirstSeenTeaching, alerting: Bool, counts: Bool, alerts: inout Bool, learning: inout Bool) -> Bool {
        // One look-up of the value, changed where it lies when known.
        let place = baseline.known.index(forKey: valueKey)
        let lastSeen = place.map { baseline.known[at: $0] }
        let isNew = lastSeen.map { time.timeIntervalSince($0) > settings.forgetAfter } ?? true
        let teaches = teaching == .yes || (teaching == .knownOnly && !isNew)
        if teaches && time < baseline.learningStart { baseline.learningStart = time }
        let learned = baseline.events >= settings.learningEvents
            && time.timeIntervalSince(baseline.learningStart) >= settings.learningPeriod
        // While learning, a value never seen still alerts under `learning.alert: lower`, once
        // the group has shown one and a day of its history has passed: the first day's places
        // are the person's own.
        let learningAlert = !learned && settings.alertWhileLearning && lastSeen == nil && !baseline.known.isEmpty
            && time.timeIntervalSince(baseline.learningStart) >= FirstSeenSpec.learningAlertsAfter
        alerts = (learned || learningAlert) && isNew && alerting
        learning = !learned
        guard teaches else { return lastSeen != nil || baseline.events > 0 }
        if let place {
            if time > baseline.known[at: place] { baseline.known[at: place] = time }
        } else {
            baseline.known[valueKey] = time
        }
        if counts { baseline.events += 1 }
        return true
    }

    /// `Edge 120.0.2210` → `Edge`, `iOS 17.2` → `iOS`, `Android 14` → `Android`,
    /// `Windows 10` → `Windows`: a word that starts with a digit is a version (Graph writes
    /// `Android 14`, `Ios 17.4.1`, `Chrome 125.0.0`), and updates should not look like new devices.
    static func withoutVersions(_ text: String) -> String {
        // Most values have no version word and no doubled space: returned as they are, without
        // splitting and joining.
        var previous: UInt8 = 0x20, plain = true
        for byte in text.utf8 {
            if (previous == 0x20 && ((byte >= 0x30 && byte <= 0x39) || byte == 0x20)) { plain = false; break }
            previous = byte
        }
        if plain && previous != 0x20 { return text }
        // ASCII text (almost every browser and OS name): the words kept are copied byte by byte
        // into one buffer; splitting and joining Strings was a third of first-seen's work.
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            var kept: [UInt8] = []
            kept.reserveCapacity(utf8.count)
            var index = utf8.startIndex
            while index != utf8.endIndex {
                guard utf8[index] != 0x20 else { index = utf8.index(after: index); continue }
                var end = index
                while end != utf8.endIndex, utf8[end] != 0x20 { end = utf8.index(after: end) }
                let first = utf8[index]
                if !(first >= 0x30 && first <= 0x39) {
                    if !kept.isEmpty { kept.append(0x20) }
                    kept.append(contentsOf: utf8[index..<end])
                }
                index = end
            }
            return String(decoding: kept, as: UTF8.self)
        }
        return text.split(separator: " ").filter { word in
            !(word.first.map { $0.isASCII && $0.isNumber } ?? false)
        }.joined(separator: " ")
    }
}

/// What a first-seen event teaches its group's baseline.
enum FirstSeenTeaching {
    /// Its value, new or known (a strong success; every event of a rule without `alert-on`).
    case yes
    /// Its value only when already known (`refresh-only`: a single-factor success keeps a familiar place familiar).
    case knownOnly
    /// Nothing (`alert-on`: an attempt is checked, never learned).
    case no
}
