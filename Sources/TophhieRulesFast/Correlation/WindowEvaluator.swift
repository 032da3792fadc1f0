import Foundation
import TophhieRules

/// Sliding-window evaluation of `event_count`, `value_count`, `temporal` and `temporal_ordered`.
extension EngineRun {
    /// One match feeding a correlation: a stored event, or a qualifying window of an inner
    /// correlation (a chain), placed at the window's end.
    struct Occurrence {
        var time: Date
        var order: String
        var events: [Int]
        var ruleIndex: Int
        var value: String?
        var isNew: Bool
        /// For an inner `event_count` window: its condition, so a chain can re-check the part of
        /// the window that falls inside its own timespan.
        var innerCondition: CorrelationCondition? = nil
        /// For an inner window: its values under this correlation's `group-by` (a stored
        /// event's are read when a window starting with it qualifies).
        var groupValues: [String]? = nil
    }

    /// One member of a group before its occurrence is made.
    enum Member {
        /// A stored event (its place) matched by the correlation's rule `ruleIndex`.
        case stored(Int, ruleIndex: Int)
        /// One of the inner correlations' windows: its place among the inner occurrences.
        case window(Int)
    }

    /// A window `(t - timespan, t]` whose metric satisfied the condition.
    struct Window {
        var groupKey: String
        var groupValues: [String: String]
        var display: [AlertGroupValue]
        var start: Date
        var end: Date
        var events: [Int]
        var metric: Int
        var isNew: Bool
    }

    /// Evaluates windowed correlations inner first, and emits alerts for the outermost ones.
    ///
    /// New qualifying windows of one group that overlap, or lie within the quiet period of each
    /// other, are one episode: one alert that accounts for all their events.
    /// - Parameter watermark: at a checkpoint of a pass taking events in event-time order (every
    ///   event up to it is in), only the episodes no later event can join or change are emitted,
    ///   once; nil at the end of a pass emits the rest.
    /// - Returns: the earliest event time the episodes left open may still need.
    @discardableResult
    mutating func evaluateWindows(closingBy watermark: Date? = nil) -> Date? {
        // Without a stored event of this run no window is new (new ones are last, mostly).
        guard !plan.windowedOrder.isEmpty, state.recent.reversed().contains(where: \.isNew) else { return nil }
        var needed: Date?
        var qualifying: [Int: [Window]] = [:]
        var stored = StoredReading(recent: state.recent, names: plan.keptNames)
        for c in plan.windowedOrder {
            var windows = windowsFor(c, inner: qualifying, stored: &stored)
            let chainSpan = plan.chainSpans[c] ?? 0
            // A window that could have held an event a checkpoint has forgotten is not complete:
            // whatever it belonged to was decided while it was.
            if let prunedBefore { windows.removeAll { $0.end.addingTimeInterval(-chainSpan) < prunedBefore } }
            qualifying[c] = windows
            guard plan.standaloneCorrelations.contains(c) else { continue }
            let rule = plan.correlations[c]
            let quiet = rule.options.suppress?.interval ?? rule.timespan.interval
            for cluster in EngineRun.episodes(of: windows.filter(\.isNew), quiet: quiet) {
                let head = cluster[0]
                let last = cluster.map(\.end).max() ?? head.end
                if let decided = decidedThrough[c]?[head.groupKey], last <= decided { continue }
                // Open while a later window could still join it: one starting within the quiet
                // period after its last, which an event a timespan later can start.
                if let watermark, last.addingTimeInterval(quiet + rule.timespan.interval) > watermark {
                    let earliest = cluster.map { $0.end.addingTimeInterval(-chainSpan) }.min() ?? head.end
                    needed = min(needed ?? earliest, earliest)
                    continue
                }
                var indices = Set<Int>()
                for window in cluster { indices.formUnion(window.events) }
                let ordered = indices.sorted { (state.recent[$0].time, state.recent[$0].id) < (state.recent[$1].time, state.recent[$1].id) }
                let events = ordered.map { FastAlertEvents.alertEvent(state.recent[$0]) }
                emit(metadata: rule.metadata, options: rule.options, defaultSuppress: rule.timespan.interval,
                     group: head.display, groupKey: head.groupKey, events: events, eventCount: events.count,
                     windowClose: cluster.map { $0.start.addingTimeInterval(rule.timespan.interval) }.min() ?? head.end,
                     summary: summary(rule, cluster, eventCount: events.count))
                if watermark != nil { decidedThrough[c, default: [:]][head.groupKey] = max(decidedThrough[c]?[head.groupKey] ?? last, last) }
            }
        }
        return needed
    }

    /// A checkpoint of a pass taking events in event-time order, all of them up to `watermark`
    /// in: the window alerts no later event can change are emitted, and what no later event can
    /// need is forgotten (stored events, ids, episodes, places), so memory follows the windows
    /// and not the length of the pass. The alerts are those the end of the pass would give.
    ///
    /// Ids are remembered for the horizon only, not `idMemory`: an id repeated further apart in
    /// event time than that is taken as a new sign-in (Graph repeats an id with its time).
    mutating func checkpoint(_ watermark: Date) {
        let needed = evaluateWindows(closingBy: watermark)
        alertsReadyBefore = min(needed ?? watermark, watermark)
        var cutoff = watermark.addingTimeInterval(-plan.longestChain)
        if let needed { cutoff = min(cutoff, needed) }
        if let prunedBefore { cutoff = max(cutoff, prunedBefore) }
        let firstKept = state.recent.firstIndex { $0.time >= cutoff } ?? state.recent.endIndex
        if firstKept > 0 {
            state.recent.removeFirst(firstKept)
            prunedBefore = cutoff
        }
        for c in decidedThrough.keys {
            decidedThrough[c] = decidedThrough[c]!.filter { $0.value >= cutoff }
        }
        // Removed in place, not filtered into new tables: those would grow again, rehashing,
        // through every batch.
        let forget = min(cutoff, watermark.addingTimeInterval(-plan.horizon))
        // Listed first, then removed: the table is not changed while it is read.
        var forgotten: [HashedText] = []
        state.seen.forEach { key, time in if time <= forget { forgotten.append(key) } }
        for key in forgotten {
            state.seen.removeValue(forKey: key)
            state.revisions?.removeValue(forKey: key)
            // Most states hold no findings: not looked into for every id forgotten.
            if state.findings?.isEmpty == false { state.findings!.removeValue(forKey: key) }
        }
        for key in Array(state.episodes.keys) {
            let kept = state.episodes[key]!.filter { $0.end > forget }
            state.episodes[key] = kept.isEmpty ? nil : kept
        }
        for c in plan.travel where travelTables.places.kept[c] {
            let rule = plan.correlations[c]
            let travelCutoff = watermark.addingTimeInterval(-(rule.timespan.interval + settings.lookback))
            // In place, and only the front: places are in time order, and removing by a test
            // copied every place (its strings and readable fields) to ask it.
            // Walked by index, not `indices`: a dictionary's `indices` holds the dictionary, so
            // the first change copied the table and then every group's places (each place's
            // strings retained), at every checkpoint.
            var table: [HashedText: [FastState.Place]] = [:]
            swap(&table, &travelTables.places.tables[c])
            var emptied: [HashedText] = []
            var index = table.startIndex
            while index != table.endIndex {
                let first = EngineRun.firstPlace(in: table.values[index], after: travelCutoff)
                table.values[index].removeFirst(first ?? table.values[index].count)
                if first == nil { emptied.append(table.keys[index]) }
                table.formIndex(after: &index)
            }
            for key in emptied { table.removeValue(forKey: key) }
            if table.isEmpty { travelTables.places.kept[c] = false }
            swap(&table, &travelTables.places.tables[c])
        }
    }

    /// Windows grouped into episodes: per group, in time order, a window joins the one before
    /// when it starts no later than the quiet period after that one's last event.
    static func episodes(of windows: [Window], quiet: TimeInterval) -> [[Window]] {
        var byGroup: [String: [Window]] = [:]
        for window in windows { byGroup[window.groupKey, default: []].append(window) }
        var result: [[Window]] = []
        for key in byGroup.keys.sorted() {
            let sorted = byGroup[key]!.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
            var current: [Window] = []
            var last = Date.distantPast
            for window in sorted {
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

    func summary(_ rule: CorrelationRule, _ cluster: [Window], eventCount: Int) -> String {
        // The title and the group travel beside the summary in every output; not repeated here.
        let metric = cluster.map(\.metric).max() ?? 0
        switch rule.kind {
        case .eventCount:
            if cluster.count == 1 { return "\(metric) events within \(rule.timespan)" }
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

    /// What the windowed correlations of one evaluation read of the stored events, worked out
    /// once for all of them: whether each is new, and each group's key and values by the group's
    /// fields (most correlations group by the same ones).
    struct StoredReading {
        let isNew: [Bool]
        private let recent: [FastState.StoredEvent]
        private var byRule: [String: [Int]]?
        /// Per set of group paths: its number in `tables`.
        private var tableNumbers: [[String]: Int] = [:]
        /// Per table, its paths' places in `names`; nil for a path no stored event keeps.
        private var tablePlaces: [[Int?]] = []
        private let names: KeptNames
        /// Per set of group paths, per stored event: its group, once asked for. Only the events
        /// of the rules a correlation references are asked: working out every stored event's
        /// group for every correlation was 6% of the engine's instructions on many people's
        /// sign-ins.
        private var tables: [[GroupSlot]] = []
        private var keys = GroupKeyCache()

        private enum GroupSlot {
            case unread
            case absent
            case present(key: String)
        }

        init(recent: [FastState.StoredEvent], names: KeptNames) {
            self.recent = recent
            self.names = names
            isNew = recent.map(\.isNew)
        }

        /// The places of the stored events that matched detection rule `key`, ascending: found
        /// in one walk for every rule, rather than one walk of every stored event per rule a
        /// correlation references.
        mutating func holding(_ key: String) -> [Int] {
            if byRule == nil {
                // Each rule's list found once for a run of events with the same rules: stored
                // events share their rules' list (`fedRules`), and hashing every event's rule
                // ids again was most of the walk.
                var lists: [[Int]] = [], numbers: [String: Int] = [:]
                var lastRules: [String]?, lastNumbers: [Int] = []
                recent.withUnsafeBufferPointer { recent in
                    for index in recent.indices {
                        if lastRules != recent[index].rules {
                            lastRules = recent[index].rules
                            lastNumbers = recent[index].rules.map { rule in
                                if let known = numbers[rule] { return known }
                                numbers[rule] = lists.count
                                lists.append([])
                                return lists.count - 1
                            }
                        }
                        for number in lastNumbers { lists[number].append(index) }
                    }
                }
                byRule = numbers.mapValues { lists[$0] }
            }
            return byRule![key] ?? []
        }

        /// The number of the table of groups under `paths`, for `group(_:at:)`.
        mutating func table(_ paths: [String]) -> Int {
            if let known = tableNumbers[paths] { return known }
            tableNumbers[paths] = tables.count
            tablePlaces.append(paths.map { names.places[$0] })
            tables.append([GroupSlot](repeating: .unread, count: recent.count))
            return tables.count - 1
        }

        /// Stored event `index`'s group key in table `table`: its values folded and joined; nil
        /// for an event without them all. The values themselves are read only for a group's
        /// first event (`values(_:at:)`): most stored events of a chain's common rule make no
        /// group, and gathering their values in a list of their own was most of grouping's
        /// allocations.
        mutating func group(_ table: Int, at index: Int) -> String? {
            switch tables[table][index] {
            case .present(let key): return key
            case .absent: return nil
            case .unread: break
            }
            let places = tablePlaces[table]
            let key: String?
            if places.count == 1 {
                key = places[0].flatMap { recent[index].values.text(at: $0, of: names) }.map { keys.key(only: $0) }
            } else {
                // Written over in place: emptying a list goes through the general replacement of a range.
                var count = 0
                for place in places {
                    guard let place, let value = recent[index].values.text(at: place, of: names) else { break }
                    if count < scratch.count { scratch[count] = value } else { scratch.append(value) }
                    count += 1
                }
                if count < scratch.count { scratch.removeLast(scratch.count - count) }
                key = count == places.count ? keys.key(scratch) : nil
            }
            tables[table][index] = key.map { .present(key: $0) } ?? .absent
            return key
        }

        /// How many values make a group of table `table`.
        func valueCount(_ table: Int) -> Int { tablePlaces[table].count }

        /// Stored event `index`'s first value in table `table`, folded: the first part of its
        /// group key (`EngineRun.groupKey`); nil when it has none.
        func firstValue(_ table: Int, at index: Int) -> String? {
            guard let first = tablePlaces[table].first, let place = first,
                  let text = recent[index].values.text(at: place, of: names) else { return nil }
            return EngineRun.folded(text)
        }

        /// Stored event `index`'s values in table `table`, in the order of its paths, for an
        /// event `group(_:at:)` found a key for.
        func values(_ table: Int, at index: Int) -> [String] {
            tablePlaces[table].map { place in place.flatMap { recent[index].values.text(at: $0, of: names) } ?? "" }
        }

        /// The values of the group being worked out, in a list reused from event to event.
        private var scratch: [String] = []
    }

    /// Every qualifying window of correlation `c`, in (end, group) order.
    func windowsFor(_ c: Int, inner: [Int: [Window]], stored: inout StoredReading) -> [Window] {
        let rule = plan.correlations[c]
        let refs = plan.references[c]
        // A group's members as places until the group proves big enough to sweep: building an
        // occurrence (its id retained, its one-event list allocated) for every stored event
        // of every group was most of grouping, and most of many people's groups are swept never.
        var groups: [String: [Member]] = [:]
        var innerOccurrences: [Occurrence] = []
        let countsEvents: Bool = {
            switch rule.kind {
            case .eventCount, .valueCount: return true
            default: return false
            }
        }()
        let valuePlace: Int? = { if case .valueCount(let field) = rule.kind { return plan.keptNames.places[SignInFieldCatalog.resolve(field).path] }; return nil }()

        // A member joins its group when the group is made; the caller makes a new one. The values
        // are named only for a window that qualifies (`sweep`), from its first occurrence: most
        // groups hold an occurrence or two and qualify nowhere, and naming every group's values
        // at every evaluation was 5% of the engine's instructions on many people's sign-ins.
        func join(_ member: Member, key: String) -> Bool {
            guard let group = groups.index(forKey: key) else { return false }
            groups.values[group].append(member)
            return true
        }

        /// The group values a window of inner correlation `innerIndex` gives this rule's
        /// `group-by` (named `refName` in it); nil when it lacks one.
        func innerValues(_ window: Window, _ innerIndex: Int, _ refName: String) -> [String]? {
            let innerRule = plan.correlations[innerIndex]
            let values = rule.groupBy.compactMap { name -> String? in
                let innerName = rule.aliases[name]?[refName] ?? name
                return window.groupValues[innerName] ?? window.groupValues[innerRule.groupBy.first { SignInFieldCatalog.resolve($0).path == SignInFieldCatalog.resolve(innerName).path } ?? ""]
            }
            return values.count == rule.groupBy.count ? values : nil
        }
        func name(_ ruleIndex: Int) -> String { rule.rules.indices.contains(ruleIndex) ? rule.rules[ruleIndex] : "" }
        func table(_ ruleIndex: Int) -> Int { stored.table(rule.groupBy.map { rule.groupPath($0, forRule: name(ruleIndex)) }) }

        // A window of a chain that needs every referenced rule (`temporal_ordered`, or
        // `temporal` whose condition counts them all) lies in a group each rule reaches: only
        // the groups of the rule with the fewest occurrences can hold one, and no other group is
        // made. (Successes feed such a chain: most of them share a group with no failures.)
        let requiresEach: Bool
        switch rule.kind {
        case .temporalOrdered: requiresEach = refs.count > 1
        case .temporal: requiresEach = refs.count > 1 && rule.condition.leastHolding >= refs.count
        default: requiresEach = false
        }
        var rarest = -1
        var allowed = Set<String>()
        // The allowed groups' first values, folded: a stored event whose first value is not
        // among them is passed over without making its key (two values joined into a new
        // string, for every success of a chain grouped by user and address).
        var allowedFirst = Set<String>()
        if requiresEach {
            func size(_ ref: EnginePlan.Reference) -> Int {
                switch ref {
                case .detection(let d): return stored.holding(plan.detections[d].metadata.id).count
                case .correlation(let innerIndex): return inner[innerIndex]?.count ?? 0
                }
            }
            rarest = refs.indices.min { size(refs[$0]) < size(refs[$1]) } ?? -1
            switch refs[rarest] {
            case .detection(let d):
                let table = table(rarest)
                for index in stored.holding(plan.detections[d].metadata.id) {
                    guard let key = stored.group(table, at: index) else { continue }
                    allowed.insert(key)
                    if let first = stored.firstValue(table, at: index) { allowedFirst.insert(first) }
                }
            case .correlation(let innerIndex):
                for window in inner[innerIndex] ?? [] {
                    guard let values = innerValues(window, innerIndex, name(rarest)) else { continue }
                    allowed.insert(EngineRun.groupKey(values))
                    if let first = values.first { allowedFirst.insert(EngineRun.folded(first)) }
                }
            }
        }

        // Only a correlation counting the events of several referenced rules can meet one event
        // twice: a flag per stored event then, rather than a set every event is hashed into.
        var counted = countsEvents && refs.count > 1 ? [Bool](repeating: false, count: state.recent.count) : []
        for (ruleIndex, ref) in refs.enumerated() {
            let filtered = requiresEach && ruleIndex != rarest
            switch ref {
            case .detection(let d):
                let key = plan.detections[d].metadata.id
                let table = table(ruleIndex)
                let holding = stored.holding(key)
                // Sized for a group each at most: growing from empty rehashed every key met so far.
                if !filtered { groups.reserveCapacity(groups.count + holding.count) }
                // By place: walking the stored events by value copied each one per correlation.
                let prefilter = filtered && stored.valueCount(table) > 1
                for index in holding {
                    if !counted.isEmpty && counted[index] { continue }
                    if prefilter, let first = stored.firstValue(table, at: index), !allowedFirst.contains(first) { continue }
                    guard let key = stored.group(table, at: index) else { continue }
                    if filtered && !allowed.contains(key) { continue }
                    if !counted.isEmpty { counted[index] = true }
                    let member = Member.stored(index, ruleIndex: ruleIndex)
                    if !join(member, key: key) { groups[key] = [member] }
                }
            case .correlation(let innerIndex):
                let innerRule = plan.correlations[innerIndex]
                for window in inner[innerIndex] ?? [] {
                    guard let values = innerValues(window, innerIndex, name(ruleIndex)) else { continue }
                    let key = EngineRun.groupKey(values)
                    if filtered && !allowed.contains(key) { continue }
                    let condition: CorrelationCondition? = innerRule.kind == .eventCount ? innerRule.condition : nil
                    innerOccurrences.append(Occurrence(time: window.end, order: window.groupKey, events: window.events, ruleIndex: ruleIndex,
                                                       value: nil, isNew: window.isNew, innerCondition: condition, groupValues: values))
                    let member = Member.window(innerOccurrences.count - 1)
                    if !join(member, key: key) { groups[key] = [member] }
                }
            }
        }

        // In any order of the groups: a group's windows end at distinct times, so the sort below
        // leaves no tie for the groups' order to decide (sorting the keys first was 3% of a
        // replay of 500 people's sign-ins).
        // A window's metric (its occurrences, their distinct values or rules, a chain's length)
        // is never more than its group's occurrences: a group with fewer than the condition's
        // least is not swept (most of many people's groups hold one or two sign-ins).
        let least = rule.condition.leastHolding
        var result: [Window] = []
        for (key, members) in groups where members.count >= least {
            let made = members.map { member -> Occurrence in
                switch member {
                case .window(let place):
                    return innerOccurrences[place]
                case .stored(let index, let ruleIndex):
                    return Occurrence(time: state.recent[index].time, order: state.recent[index].id, events: [index], ruleIndex: ruleIndex,
                                      value: valuePlace.flatMap { state.recent[index].values.text(at: $0, of: plan.keptNames)?.lowercased() },
                                      isNew: stored.isNew[index])
                }
            }
            let occurrences = made.count < 2 ? made : made.sorted { ($0.time, $0.order) < ($1.time, $1.order) }
            result += sweep(rule, occurrences, ruleCount: refs.count, key: key) { first in
                first.groupValues ?? stored.values(table(first.ruleIndex), at: first.events[0])
            }
        }
        return result.sorted { ($0.end, $0.groupKey) < ($1.end, $1.groupKey) }
    }

    /// Slides `(t - timespan, t]` over one group's occurrences, ending at each distinct time.
    /// - Parameter values: an occurrence's values in the order of the rule's `group-by`: a
    ///   window shows its first occurrence's (the group's members may write them in other cases).
    func sweep(_ rule: CorrelationRule, _ occurrences: [Occurrence], ruleCount: Int, key: String, values: (Occurrence) -> [String]) -> [Window] {
        let span = rule.timespan.interval
        var newPrefix = [0]
        for occurrence in occurrences { newPrefix.append(newPrefix.last! + (occurrence.isNew ? 1 : 0)) }
        var windows: [Window] = []
        // The last window's first occurrence and its values, named for the windows after it that start there.
        var named: (first: Int, values: [String: String], display: [AlertGroupValue])?
        var start = 0
        var valueCounts: [String: Int] = [:]
        for end in occurrences.indices {
            let occurrence = occurrences[end]
            if let value = occurrence.value { valueCounts[value, default: 0] += 1 }
            while occurrences[start].time.timeIntervalSince(occurrence.time) <= -span {
                let leaving = occurrences[start]
                if let value = leaving.value {
                    valueCounts[value]! -= 1
                    if valueCounts[value] == 0 { valueCounts[value] = nil }
                }
                start += 1
            }
            // Windows end at the last of several occurrences sharing one time.
            if end + 1 < occurrences.count && occurrences[end + 1].time == occurrence.time { continue }
            let isNew = newPrefix[end + 1] - newPrefix[start] > 0
            let metric: Int
            var holds: Bool
            var inside: [Occurrence]?
            switch rule.kind {
            case .eventCount:
                metric = end - start + 1
                holds = rule.condition.holds(metric)
            case .valueCount:
                metric = valueCounts.count
                holds = rule.condition.holds(metric)
            case .temporal, .temporalOrdered:
                // The timespan bounds the whole chain: an inner window placed at its last event
                // keeps only its events inside this window, and must still satisfy its own condition.
                let cutoff = occurrence.time.addingTimeInterval(-span)
                let kept = occurrences[start...end].compactMap { within($0, after: cutoff) }
                inside = kept
                if rule.kind == .temporal {
                    metric = Set(kept.map(\.ruleIndex)).count
                    holds = rule.condition.holds(metric)
                } else {
                    metric = orderedChainLength(kept[...], ruleCount: ruleCount)
                    holds = metric == ruleCount && rule.condition.holds(metric)
                }
            default:
                metric = 0
                holds = false
            }
            guard holds else { continue }
            var eventIndices: [Int] = []
            var seenIndices = Set<Int>()
            for occurrence in inside ?? Array(occurrences[start...end]) {
                for index in occurrence.events where seenIndices.insert(index).inserted { eventIndices.append(index) }
            }
            eventIndices.sort { (state.recent[$0].time, state.recent[$0].id) < (state.recent[$1].time, state.recent[$1].id) }
            guard let firstIndex = eventIndices.first else { continue }
            if named?.first != start {
                let values = values(occurrences[start])
                named = (start, Dictionary(zip(rule.groupBy, values), uniquingKeysWith: { a, _ in a }),
                         zip(rule.groupBy, values).map { AlertGroupValue(field: $0, value: $1) })
            }
            windows.append(Window(groupKey: key, groupValues: named!.values, display: named!.display,
                                  start: state.recent[firstIndex].time, end: occurrence.time,
                                  events: eventIndices, metric: metric, isNew: isNew))
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

    /// How many of the referenced rules match in order (rule 0, then 1, …) within the slice,
    /// each strictly after the previous.
    func orderedChainLength(_ slice: ArraySlice<Occurrence>, ruleCount: Int) -> Int {
        var next = 0
        var lastTime: Date?
        for occurrence in slice where next < ruleCount {
            if occurrence.ruleIndex == next, lastTime.map({ occurrence.time > $0 }) ?? true {
                lastTime = occurrence.time
                next += 1
            }
        }
        return next
    }
}
