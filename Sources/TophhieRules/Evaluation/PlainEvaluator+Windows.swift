import Foundation

/// The windowed correlations, written plainly: `event_count`, `value_count`, `temporal` and
/// `temporal_ordered`, inner correlations before the chains built on them.
extension PlainRun {
    /// One match a correlation counts: a stored event, or a qualifying window of an inner
    /// correlation placed at the window's end.
    struct Occurrence {
        var time: Date
        /// Breaks ties of time: the event's id, or the inner window's group.
        var order: String
        /// Places in `state.recent`.
        var events: [Int]
        /// Which of the correlation's referenced rules it comes from.
        var rule: Int
        /// Its values under the correlation's `group-by`, as written.
        var values: [String]
        /// `value_count`'s field, lower-cased.
        var value: String?
        var isNew: Bool
        /// An inner `event_count` window's condition: a chain keeps the part of the window
        /// inside its own timespan only while that part still satisfies it.
        var innerCondition: CorrelationCondition?
    }

    /// A window `(end - timespan, end]` of one group whose metric satisfies the condition.
    struct Window {
        var groupKey: String
        var groupValues: [String: String]
        var display: [AlertGroupValue]
        var start: Date
        var end: Date
        var events: [Int]
        var metric: Int
        /// Whether it holds an event stored by this poll: only such windows alert.
        var isNew: Bool
    }

    /// Evaluates every windowed correlation over the stored events, and alerts for the ones
    /// that stand alone: a group's new qualifying windows that overlap, or lie within the quiet
    /// period of each other, are one episode and one alert.
    mutating func evaluateWindows() {
        guard !rules.windowed.isEmpty, state.recent.contains(where: \.isNew) else { return }
        var qualifying: [Int: [Window]] = [:]
        for c in rules.windowed {
            let windows = windows(c, inner: qualifying)
            qualifying[c] = windows
            guard rules.standaloneCorrelations.contains(c) else { continue }
            let rule = rules.correlations[c]
            let span = rule.timespan.interval
            for cluster in PlainRun.episodes(of: windows.filter(\.isNew), quiet: rule.options.suppress?.interval ?? span) {
                let recent = state.recent
                let events = Set(cluster.flatMap(\.events)).sorted { (recent[$0].time, recent[$0].id) < (recent[$1].time, recent[$1].id) }
                    .map { AlertFactory.alertEvent(recent[$0]) }
                emit(rule.metadata, rule.options, defaultSuppress: span, group: cluster[0].display, groupKey: cluster[0].groupKey,
                     events: events, eventCount: events.count, windowClose: cluster.map { $0.start.addingTimeInterval(span) }.min()!,
                     summary: PlainRun.summary(rule, cluster, eventCount: events.count))
            }
        }
    }

    /// Every qualifying window of correlation `c`, in (end, group) order.
    /// - Parameter inner: the qualifying windows of the correlations evaluated before it.
    func windows(_ c: Int, inner: [Int: [Window]]) -> [Window] {
        let rule = rules.correlations[c]
        let refs = rules.references[c]
        var countsEvents = false, valuePath: String?
        switch rule.kind {
        case .eventCount: countsEvents = true
        case .valueCount(let field): countsEvents = true; valuePath = SignInFieldCatalog.resolve(field).path
        default: break
        }
        var groups: [String: [Occurrence]] = [:]
        // A counting correlation counts an event once, under the first of its rules that matched it.
        var counted = Set<Int>()
        for (position, ref) in refs.enumerated() {
            let name = rule.rules.indices.contains(position) ? rule.rules[position] : ""
            switch ref {
            case .detection(let d):
                let id = rules.detections[d].metadata.id
                let paths = rule.groupBy.map { rule.groupPath($0, forRule: name) }
                for (index, stored) in state.recent.enumerated() where stored.rules.contains(id) {
                    if countsEvents && refs.count > 1 && counted.contains(index) { continue }
                    let values = paths.compactMap { stored.values[$0] }
                    guard values.count == paths.count else { continue }
                    counted.insert(index)
                    let occurrence = Occurrence(time: stored.time, order: stored.id, events: [index], rule: position, values: values,
                                                value: valuePath.flatMap { stored.values[$0]?.lowercased() }, isNew: stored.isNew)
                    groups[plainGroupKey(values), default: []].append(occurrence)
                }
            case .correlation(let innerIndex):
                let innerRule = rules.correlations[innerIndex]
                for window in inner[innerIndex] ?? [] {
                    // This rule's group-by names, through its aliases, as the inner rule named them.
                    let values = rule.groupBy.compactMap { groupName -> String? in
                        let innerName = rule.aliases[groupName]?[name] ?? groupName
                        let samePath = innerRule.groupBy.first { SignInFieldCatalog.resolve($0).path == SignInFieldCatalog.resolve(innerName).path }
                        return window.groupValues[innerName] ?? window.groupValues[samePath ?? ""]
                    }
                    guard values.count == rule.groupBy.count else { continue }
                    let occurrence = Occurrence(time: window.end, order: window.groupKey, events: window.events, rule: position, values: values,
                                                value: nil, isNew: window.isNew, innerCondition: innerRule.kind == .eventCount ? innerRule.condition : nil)
                    groups[plainGroupKey(values), default: []].append(occurrence)
                }
            }
        }
        var result: [Window] = []
        for (key, occurrences) in groups {
            result += sweep(rule, occurrences.sorted { ($0.time, $0.order) < ($1.time, $1.order) }, ruleCount: refs.count, key: key)
        }
        return result.sorted { ($0.end, $0.groupKey) < ($1.end, $1.groupKey) }
    }

    /// The qualifying windows of one group: one ending at each distinct occurrence time `t`,
    /// holding the occurrences in `(t - timespan, t]`, showing the group's values as its first
    /// occurrence writes them.
    func sweep(_ rule: CorrelationRule, _ occurrences: [Occurrence], ruleCount: Int, key: String) -> [Window] {
        let span = rule.timespan.interval
        let recent = state.recent
        var windows: [Window] = []
        for end in occurrences.indices {
            let last = occurrences[end].time
            if end + 1 < occurrences.count && occurrences[end + 1].time == last { continue }
            // The first occurrence inside, found by halving (the occurrences are in time order).
            var start = 0, high = end
            while start < high {
                let middle = (start + high) / 2
                if occurrences[middle].time.timeIntervalSince(last) > -span { high = middle } else { start = middle + 1 }
            }
            let window = Array(occurrences[start...end])
            var inside: [Occurrence]?
            let metric: Int
            let holds: Bool
            switch rule.kind {
            case .eventCount:
                metric = window.count
                holds = rule.condition.holds(metric)
            case .valueCount:
                metric = Set(window.compactMap(\.value)).count
                holds = rule.condition.holds(metric)
            case .temporal, .temporalOrdered:
                // The timespan bounds the whole chain: an inner window keeps only its events
                // inside this one, and must still satisfy its own condition with them.
                let cutoff = last.addingTimeInterval(-span)
                let kept = window.compactMap { within($0, after: cutoff) }
                inside = kept
                if rule.kind == .temporal {
                    metric = Set(kept.map(\.rule)).count
                    holds = rule.condition.holds(metric)
                } else {
                    metric = PlainRun.orderedChainLength(kept, ruleCount: ruleCount)
                    holds = metric == ruleCount && rule.condition.holds(metric)
                }
            case .firstSeen, .impossibleTravel:
                continue
            }
            guard holds else { continue }
            var events = Array(Set((inside ?? window).flatMap(\.events)))
            events.sort { (recent[$0].time, recent[$0].id) < (recent[$1].time, recent[$1].id) }
            guard let first = events.first else { continue }
            let values = window.first!.values
            windows.append(Window(groupKey: key, groupValues: Dictionary(zip(rule.groupBy, values), uniquingKeysWith: { a, _ in a }),
                                  display: zip(rule.groupBy, values).map { AlertGroupValue(field: $0, value: $1) },
                                  start: recent[first].time, end: last, events: events, metric: metric,
                                  isNew: window.contains(where: \.isNew)))
        }
        return windows
    }

    /// The part of an occurrence later than `cutoff`, or nil when what is left no longer qualifies.
    func within(_ occurrence: Occurrence, after cutoff: Date) -> Occurrence? {
        let kept = occurrence.events.filter { state.recent[$0].time > cutoff }
        if kept.count == occurrence.events.count { return occurrence }
        guard let condition = occurrence.innerCondition, !kept.isEmpty, condition.holds(kept.count) else { return nil }
        var trimmed = occurrence
        trimmed.events = kept
        return trimmed
    }

    /// How many of the referenced rules match in their order (rule 0, then 1, …), each
    /// strictly later than the one before.
    static func orderedChainLength(_ occurrences: [Occurrence], ruleCount: Int) -> Int {
        var next = 0
        var lastTime: Date?
        for occurrence in occurrences where next < ruleCount && occurrence.rule == next && lastTime.map({ occurrence.time > $0 }) ?? true {
            lastTime = occurrence.time
            next += 1
        }
        return next
    }

    /// Windows grouped into episodes: per group, in time order, a window joins the one before
    /// when it starts no later than the quiet period after the episode's last window ends.
    static func episodes(of windows: [Window], quiet: TimeInterval) -> [[Window]] {
        var result: [[Window]] = []
        for key in Set(windows.map(\.groupKey)) {
            var current: [Window] = []
            var last = Date.distantPast
            for window in windows.filter({ $0.groupKey == key }).sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
                if !current.isEmpty && window.start > last.addingTimeInterval(quiet) {
                    result.append(current)
                    current = []
                }
                current.append(window)
                last = current.count == 1 ? window.end : max(last, window.end)
            }
            if !current.isEmpty { result.append(current) }
        }
        return result.sorted { ($0[0].end, $0[0].groupKey) < ($1[0].end, $1[0].groupKey) }
    }

    /// An episode's summary: the title and group travel beside it in every output.
    static func summary(_ rule: CorrelationRule, _ cluster: [Window], eventCount: Int) -> String {
        let metric = cluster.map(\.metric).max() ?? 0
        switch rule.kind {
        case .eventCount where cluster.count > 1:
            let first = cluster.map(\.start).min()!, last = cluster.map(\.end).max()!
            return "\(eventCount) events over \(AlertFactory.duration(last.timeIntervalSince(first))) (\(rule.condition) within \(rule.timespan))"
        case .valueCount(let field):
            return "\(metric) distinct \(field) values within \(rule.timespan)"
        case .temporal, .temporalOrdered:
            return "\(rule.rules.joined(separator: rule.kind == .temporal ? " + " : " → ")) within \(rule.timespan)"
        default:
            return "\(metric) events within \(rule.timespan)"
        }
    }
}
