import Foundation
import TophhieJSON
import TophhieRules

/// The rule engine: `(state, events, now) -> (state', alerts)`, pure and deterministic.
///
/// No I/O, no clock, no randomness: the same state, events and `now` give the same state and
/// the same alerts, byte for byte. Windows are sliding `(t - timespan, t]` in event time;
/// a repeated event id is ignored unless its content changed, and then evaluated again; late
/// and out-of-order events join the windows they belong to; an episode alerts once per rule and
/// group, and anything within its suppression period on either side joins it (event time).
package struct Engine: Sendable {
    package let rules: RuleSet
    package let settings: EngineSettings
    let plan: EnginePlan

    /// Prepares the rules for evaluation.
    /// The parts of a signIn the rules and the engine read, for parsing events without the rest
    /// (`JSONValue.parse(_:keeping:)`); everything when a keyword search reads every string.
    package var eventProjection: JSONProjection {
        plan.referencedPaths.map { JSONProjection(paths: $0) } ?? .everything
    }

    /// The slots to read sign-ins into (`EventLayout.event`), so no object tree is built; nil
    /// when a keyword search reads every string of an event.
    package var eventLayout: EventLayout? { plan.referencedPaths == nil ? nil : plan.layout }

    package init(rules: RuleSet, settings: EngineSettings = EngineSettings()) {
        self.rules = rules
        self.settings = settings
        self.plan = EnginePlan(rules: rules, settings: settings)
    }

    /// How long windows, ids and episodes are kept: the lookback plus the longest timespan.
    package var horizon: TimeInterval { plan.horizon }

    /// Runs one poll and also says which never-seen sign-ins arrived after their windows closed.
    /// - Returns: the new state, the alerts, and the late arrivals (nil when there were none).
    package func evaluate(_ state: EngineState, events: [any RuleEvent], now: Date, alertOnlyAfter: Date? = nil) -> EngineOutcome {
        var pass = beginPass(state, now: now, alertOnlyAfter: alertOnlyAfter)
        pass.add(events)
        return pass.finish()
    }

    /// Starts one poll whose events are handed over in batches, so a caller reading a large file
    /// need not hold every event at once. The result equals `evaluate` over all the batches.
    package func beginPass(_ state: EngineState, now: Date, alertOnlyAfter: Date? = nil) -> EnginePass {
        var start = FastState(state, names: plan.keptNames)
        if start.idMemoryFrom == nil {
            // A new state has forgotten nothing; an older one may have forgotten every id before
            // its windows' end.
            start.idMemoryFrom = start.lastProcessed == nil ? .distantPast : (start.forgottenBefore ?? .distantPast)
        }
        return EnginePass(engine: self, run: EngineRun(plan: plan, settings: settings, state: start, now: now, alertOnlyAfter: alertOnlyAfter))
    }
}

/// One poll in progress: batches of events go in, in event-time order across batches, and
/// `finish` evaluates the windows and gives the outcome.
package struct EnginePass {
    private let engine: Engine
    var run: EngineRun
    private var last: (Date, String)?

    init(engine: Engine, run: EngineRun) {
        self.engine = engine
        self.run = run
    }

    /// Matches a batch. Within a batch any order; every event of a batch must come at or after
    /// (time, id) every event of the batches before it, as first-seen and travel are decided in
    /// event order.
    /// - Complexity: O(b log b + b·r) for b events and r rules.
    package mutating func add(_ events: [any RuleEvent]) {
        add(prepared: engine.prepare(events))
    }

    /// Takes a batch worked out by `Engine.prepare`, as `add` would take its events.
    package mutating func add(prepared events: [PreparedEvent]) {
        // The ids only when the times tie: building the (time, id) pairs read both ids (a
        // retain and a release each) for every neighbouring pair of every batch.
        func before(_ a: PreparedEvent, _ b: PreparedEvent) -> Bool {
            let first = a.eventTime, second = b.eventTime
            return first != second ? first < second : a.event.eventID < b.event.eventID
        }
        // A replay hands batches over already in order: checked, not sorted again.
        let ordered = zip(events, events.dropFirst()).allSatisfy { !before($1, $0) } ? events : events.sorted(by: before)
        guard let first = ordered.first?.event, let final = ordered.last?.event else { return }
        if let last { precondition(last <= (first.eventTime, first.eventID), "EnginePass batches out of event-time order") }
        last = (final.eventTime, final.eventID)
        run.ingest(ordered: ordered)
    }

    /// Emits the window alerts no later batch can change and forgets what no later batch can
    /// need (`EngineRun.checkpoint`): memory then follows the windows, not the pass. For a pass
    /// whose batches come in event-time order, as a replay's do.
    /// - Parameter watermark: every event at or before it has been added.
    package mutating func checkpoint(_ watermark: Date) {
        run.checkpoint(watermark)
    }

    /// The alerts no later batch can come before, in their final order (last event time, rule,
    /// id), handed over once: a replay writes them as it goes, and holds none of them.
    ///
    /// An alert is ready once its last event is before both the last checkpoint's watermark
    /// (later batches' sign-ins come after it) and the earliest sign-in an episode left open
    /// there may still need (its alert, when it comes, ends no earlier).
    package mutating func takeAlerts() -> [Alert] {
        guard let bound = run.alertsReadyBefore else { return [] }
        var ready = run.alerts
        // As many as this batch made, reserved for the next: grown from empty, the alerts of an
        // alert-heavy batch were copied a dozen times over.
        run.alerts = []
        run.alerts.reserveCapacity(ready.count)
        // Usually every alert is ready: they are then handed over, not copied one by one (an
        // alert is a score of counted references).
        if ready.contains(where: { $0.lastEventTime >= bound }) {
            run.alerts = ready.filter { $0.lastEventTime >= bound }
            ready.removeAll { $0.lastEventTime >= bound }
        }
        Alert.sortInOutputOrder(&ready)
        return ready
    }

    /// Evaluates the windows over everything added and prunes the state.
    /// - Returns: the new state, the alerts not taken (`takeAlerts`) sorted by last event time,
    ///   rule and id, and the late arrivals.
    /// - Parameter keepingState: false when the caller has no use for the state (a replay that
    ///   ends with the file): the outcome's state is then empty, and the pass's is not turned
    ///   back into the plain one (a dictionary of every id of the file).
    package consuming func finish(keepingState: Bool = true) -> EngineOutcome {
        run.evaluateWindows()
        run.settle()
        run.prune()
        run.state.lastProcessed = run.now
        var alerts = run.alerts
        Alert.sortInOutputOrder(&alerts)
        let all = run.lateEvaluated + run.lateUnreachable
        let late = all.isEmpty ? nil : LateArrivals(evaluated: run.lateEvaluated.count, unreachable: run.lateUnreachable.count,
                                                      earliest: all.min()!, latest: all.max()!)
        return EngineOutcome(state: keepingState ? run.state.plain : EngineState(), alerts: alerts, lateArrivals: late)
    }
}

/// One call's working set: the state being updated and the alerts found so far.
struct EngineRun {
    let plan: EnginePlan
    let settings: EngineSettings
    var state: FastState
    let now: Date
    let alertOnlyAfter: Date?
    var alerts: [Alert] = []
    /// Ids processed again in this call because their content changed.
    var updated: Set<String> = []
    /// Event times of never-seen events older than the windows: evaluated by the rules that
    /// need no window (single-event, first-seen, travel), not by windowed correlations.
    var lateEvaluated: [Date] = []
    /// Event times of never-seen events older than the id memory: not evaluated at all.
    var lateUnreachable: [Date] = []
    /// Stored events before this were forgotten at a checkpoint of this pass.
    var prunedBefore: Date?
    /// No alert still to come can end before this (`EnginePass.takeAlerts`); nil before the
    /// pass's first checkpoint.
    var alertsReadyBefore: Date?
    /// Per windowed correlation and group, the last window end of the episodes a checkpoint
    /// emitted: those are not emitted again.
    var decidedThrough: [Int: [String: Date]] = [:]
    /// The group key of the last first-seen or travel evaluation, for the next.
    var groupKeys = GroupKeyCache()
    /// The last matched detections that fed windows, and the stored event's rule ids they give:
    /// most sign-ins match the same rules as the one before, and filtering, naming and sorting
    /// them made three arrays for every stored event.
    var lastFed: (matched: [Int], rules: [String]) = ([], [])
    /// First-seen values with their versions stripped, and folded, lately.
    var versionless = TextMemo()
    var folded = TextMemo()
    /// The texts of a first-seen rule's fields for the event at hand (`observeFirstSeen`).
    var firstSeenParts: [String] = []
    /// Travel's readable lines ("City, Country", "Browser on OS") by their parts, lately.
    var placeLines: JoinedTextMemo? = JoinedTextMemo()
    var deviceLines: JoinedTextMemo? = JoinedTextMemo()
    var firstSeenTables: RuleTables<FastState.Baseline>
    var travelTables: TravelTables

    init(plan: EnginePlan, settings: EngineSettings, state: FastState, now: Date, alertOnlyAfter: Date?) {
        self.plan = plan
        self.settings = settings
        self.state = state
        // A decoded state's events each have their own list of names; the plan's, when equal.
        firstSeenTables = RuleTables(count: plan.correlationRefs.count, rules: plan.firstSeen,
                                     ids: { plan.correlationRefs[$0].metadata.id }, taking: &self.state.baselines)
        travelTables = TravelTables(plan: plan, taking: &self.state)
        self.now = now
        self.alertOnlyAfter = alertOnlyAfter
    }

    /// Ends the run's hold on the state: the first-seen and travel tables go back into it, and
    /// the stored events lose their marks of this run.
    mutating func settle() {
        let plan = self.plan
        firstSeenTables.settle(plan.firstSeen, ids: { plan.correlationRefs[$0].metadata.id }, into: &state.baselines)
        travelTables.settle(into: &state, plan: plan)
        for index in state.recent.indices where state.recent[index].isNew { state.recent[index].isNew = false }
    }

    /// Dedupes, orders and matches the new events; single-event rules, first-seen and travel
    /// rules are decided here in event order.
    ///
    /// An id seen before is skipped unless its content changed (Graph re-publishes a sign-in
    /// when MFA results aggregate, a location is filled in, or a risk is raised offline): then
    /// it replaces its earlier version in every window and place and is matched again. What it
    /// already alerted on stays alerted once (`findings`, episodes); what it now satisfies fires.
    mutating func ingest(ordered: [PreparedEvent]) {
        // Read through one reference for the batch: through `self`, which the loop changes, each
        // of the plan's tables was retained and released at every read.
        let plan = self.plan
        // This batch's stored events go straight onto the end of the stored events: gathered in
        // a list of their own and appended, each was copied (its four references retained, and
        // released with the list). Where the batch's events begin:
        let firstAdded = state.recent.count
        // Updated in this batch: their earlier versions leave the stored events before this
        // batch's versions join them.
        var updatedHere = Set<String>()
        if state.revisions == nil { state.revisions = [:] }
        // For the events the reading thread had no time to match (`Engine.prepareLater`).
        var matching = DetectionMatching(plan)
        for prepared in ordered {
            let event = prepared.event
            // The id's hash worked out once for its look-ups and its entries in two tables (or
            // by the reading thread ahead).
            let key = prepared.takeIDKey() ?? HashedText(event.eventID)
            let id = key.text
            let revision = prepared.revision
            if state.seen[key] != nil {
                let previous = state.revisions?[key]
                guard let revision, previous != revision else { continue }
                if previous == nil {
                    // A state from before updates were followed: take this as the known content.
                    state.revisions![key] = revision
                    continue
                }
                updated.insert(id)
                updatedHere.insert(id)
                var index = firstAdded
                while index < state.recent.count {
                    if state.recent[index].id == id { state.recent.remove(at: index) } else { index += 1 }
                }
            }
            // Older than the windows: an update of it, or a sign-in published after the lookback
            // had passed it. The rules that need no window still see it; a new one is told.
            let windowsClosed = state.forgottenBefore.map { event.eventTime <= $0 } ?? false
            if windowsClosed && state.seen[key] == nil {
                if let from = state.idMemoryFrom, event.eventTime <= from { continue }
                if event.eventTime <= now.addingTimeInterval(-settings.idMemory) {
                    lateUnreachable.append(event.eventTime)
                    continue
                }
                lateEvaluated.append(event.eventTime)
            }
            state.seen[key] = event.eventTime
            if let revision { state.revisions![key] = revision }

            // A handful of indices, ascending: looked through, not made into a set for each event.
            let matched = prepared.matches(&matching)
            guard !matched.isEmpty else { continue }
            for index in matched where plan.isStandaloneDetection[index] {
                emitSingle(index, event: event, key: key)
            }
            // The sign-in's group under the shared `group-by`, once for the correlations that
            // group alike (or as the reading thread worked it out ahead).
            var shared = prepared.sharedGroup
            var lastKey: (source: Int, parts: Int, key: HashedText)?
            for c in plan.firstSeen where references(c, include: matched) {
                observeFirstSeen(c, event: event, alerting: plan.firstSeenAlerting[c].map { alerting in matched.contains { alerting[$0] } } ?? true,
                                 refreshing: plan.firstSeenRefreshing[c].map { refreshing in
                                     matched.allSatisfy { d in refreshing[d] || !references(c, include: [d]) }
                                 } ?? false,
                                 shared: &shared, lastKey: &lastKey)
            }
            for c in plan.travel where references(c, include: matched) {
                observeTravel(c, event: event, teachesPlace: plan.travelFamiliarFrom[c].map { teaching in matched.contains { teaching[$0] } } ?? true,
                              shared: &shared)
            }
            if !windowsClosed && matched.contains(where: { plan.isFedDetection[$0] }) {
                state.recent.append(FastState.StoredEvent(
                    id: id, time: event.eventTime,
                    rules: fedRules(matched),
                    values: StoredValues(names: plan.keptNames, of: event), isNew: true))
            }
        }
        // A later batch of a pass comes after everything before it, and nothing in it was an
        // update: its events stay where they were appended (merging copied every stored event
        // once a batch). Otherwise they are taken off again, the updated events' earlier
        // versions removed, and the batch's merged in (it follows `ordered`, so it is sorted).
        let outOfOrder = firstAdded > 0 && firstAdded < state.recent.count
            && (state.recent[firstAdded - 1].time, state.recent[firstAdded - 1].id) > (state.recent[firstAdded].time, state.recent[firstAdded].id)
        if !updatedHere.isEmpty || outOfOrder {
            let added = Array(state.recent[firstAdded...])
            state.recent.removeSubrange(firstAdded...)
            if !updatedHere.isEmpty {
                state.recent.removeAll { updatedHere.contains($0.id) }
            }
            if let first = added.first, let last = state.recent.last, (last.time, last.id) > (first.time, first.id) {
                state.recent = EngineRun.merge(state.recent, added)
            } else {
                state.recent.append(contentsOf: added)
            }
        }
    }

    /// The ids of the matched detections that feed windows, sorted: a stored event's `rules`.
    mutating func fedRules(_ matched: [Int]) -> [String] {
        if matched == lastFed.matched { return lastFed.rules }
        let rules = matched.filter { plan.isFedDetection[$0] }.map { plan.detectionRefs[$0].metadata.id }.sorted()
        lastFed = (matched, rules)
        return rules
    }

    /// A group's key: its values lower-cased, joined by the unit separator (which Graph's
    /// values do not hold). One value, the usual case, is not joined.
    static func groupKey(_ values: [String]) -> String {
        if values.count == 1 { return folded(values[0]) }
        if let key = plainKey(values) { return key }
        // Appended in place: `joined(separator:)` cost more than the folding.
        var key = ""
        key.reserveCapacity(values.reduce(0) { $0 + $1.utf8.count + 1 })
        for (n, value) in values.enumerated() {
            if n > 0 { key.append("\u{1F}") }
            key.append(folded(value))
        }
        return key
    }

    /// `text.lowercased()`, without making a new string when that would hold the same bytes
    /// (ASCII without capitals: the ids and addresses groups are made of).
    static func folded(_ text: String) -> String {
        isPlain(text) ? text : text.lowercased()
    }

    /// `text.lowercased()` for short ASCII (a country, a system and browser): its bytes folded
    /// into a string that fits in place, which costs less than looking the text up among the last
    /// few folded (`TextMemo`, whose misses scan every entry); nil for anything else.
    static func foldedShort(_ text: String) -> String? {
        guard text.utf8.count <= 15 else { return nil }
        if isPlain(text) { return text }
        var text = text
        return text.withUTF8 { bytes -> String? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (at, byte) in bytes.enumerated() { buffer[at] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
                return bytes.count
            }
        }
    }

    /// Whether `text` is ASCII without capitals, so folding leaves it as it is.
    /// (Eight bytes at a time: a user's id is folded for every stored event at every
    /// checkpoint, and testing it byte by byte was 1.4% of the engine's instructions.)
    static func isPlain(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            let raw = UnsafeRawBufferPointer(bytes), count = raw.count
            guard count >= 8 else {
                var word: UInt64 = 0
                for index in 0..<count { word |= UInt64(raw[index]) << UInt64(8 * index) }
                return isPlain(word: word)
            }
            var index = 0
            while index + 8 <= count {
                if !isPlain(word: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return false }
                index += 8
            }
            // The last eight bytes, overlapping some already seen (seen again, they pass again).
            return index == count || isPlain(word: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        } == true
    }

    /// Whether no byte of `word` is 0x80 or above or a capital (0x41...0x5A).
    @inline(__always) private static func isPlain(word: UInt64) -> Bool {
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard word & highs == 0 else { return false }
        // Bytes below 0x80 carry into no other: adding 0x3F reaches the high bit from 0x41 on,
        // adding 0x25 from 0x5B on.
        let fromA = (word &+ 0x3F3F_3F3F_3F3F_3F3F) & highs
        let pastZ = (word &+ 0x2525_2525_2525_2525) & highs
        return fromA & ~pastZ == 0
    }

    /// The key of several values that all fold to themselves, their bytes copied into the
    /// key's own buffer (reserving and appending cost about 2,000 instructions a key, for every
    /// stored event of a correlation grouped by user and address); nil for any other values.
    private static func plainKey(_ values: [String]) -> String? {
        guard !values.isEmpty else { return nil }
        var length = values.count - 1
        for value in values {
            guard isPlain(value) else { return nil }
            length += value.utf8.count
        }
        return String(unsafeUninitializedCapacity: length) { buffer in
            var at = 0
            for (n, value) in values.enumerated() {
                if n > 0 { buffer[at] = 0x1F; at += 1 }
                // Contiguous: `isPlain` has read it through the same storage.
                _ = value.utf8.withContiguousStorageIfAvailable { bytes in
                    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
                    (buffer.baseAddress! + at).initialize(from: source, count: bytes.count)
                    at += bytes.count
                }
            }
            return at
        }
    }

    /// `event`'s group under correlation `c`'s `group-by`; through `shared` when it groups by
    /// `EnginePlan.sharedGroupSlots` (worked out there by the first such correlation to ask).
    @inline(__always) mutating func group(_ c: Int, _ event: borrowing any FastEvent, shared: inout HashedText??) -> EventGroup? {
        let plan = self.plan
        guard plan.sharesGroup[c] else { return EventGroup(event, slots: plan.groupSlots[c], keys: &groupKeys) }
        if shared == nil { shared = .some(EventGroup(event, slots: plan.groupSlots[c], keys: &groupKeys)?.hashed) }
        return shared!.map(EventGroup.init(hashed:))
    }

    func references(_ correlation: Int, include matched: [Int]) -> Bool {
        plan.references[correlation].contains { if case .detection(let d) = $0 { return matched.contains(d) }; return false }
    }

    static func merge(_ a: [FastState.StoredEvent], _ b: [FastState.StoredEvent]) -> [FastState.StoredEvent] {
        var result: [FastState.StoredEvent] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && (a[i].time, a[i].id) <= (b[j].time, b[j].id)) {
                result.append(a[i]); i += 1
            } else {
                result.append(b[j]); j += 1
            }
        }
        return result
    }

    /// A single-event rule's match: alerts once per event and rule, quiet for the rule's
    /// suppression period per group (by default the user and the address).
    /// - Parameter key: the event's id, hashed (as `ingest` looked it up).
    mutating func emitSingle(_ index: Int, event: any FastEvent, key: HashedText) {
        let rule = plan.detectionRefs[index]
        let ruleID = rule.metadata.id
        if state.findings?[key]?.contains(ruleID) == true { return }
        state.findings = state.findings ?? [:]
        state.findings![key, default: []].append(ruleID)
        let slots = plan.singleGroups[index]
        var group: [AlertGroupValue] = []
        group.reserveCapacity(slots.count)
        for (name, slot) in slots {
            if let text = event.text(slot: slot), !text.isEmpty { group.append(AlertGroupValue(field: name, value: text)) }
        }
        // Its place and device lines from those met lately, as travel's are: one person's
        // sign-ins repeat a handful, and each joined anew was an allocation an alert.
        let alertEvent = FastAlertEvents.alertEvent(event, places: &placeLines, devices: &deviceLines)
        // The key names the rule's episodes, so it is made only for a rule that suppresses.
        emit(metadata: rule.metadata, options: rule.options, defaultSuppress: 0, group: group,
             groupKey: slots.map { (event.text(slot: $0.slot) ?? "").lowercased() }.joined(separator: "\u{1F}"),
             events: [alertEvent], eventCount: 1,
             windowClose: event.eventTime, summary: AlertFactory.singleSummary(alertEvent))
    }

    /// Decides whether a candidate alert is new, joins an episode already alerted, reminds of
    /// one (`EpisodeDecision`), or is withheld for learning, and records its episode.
    /// - Parameters:
    ///   - events: the candidate's events in time order; the alert shows at most
    ///     `AlertFactory.maxShownEvents` of them.
    ///   - eventCount: how many events the candidate accounts for.
    ///   - episodeFrom: where the candidate's episode starts for the suppression test; by
    ///     default its first event. A travel pair passes its later sign-in: a new hop that shares
    ///     a sign-in with an alerted pair is still news once the quiet period is over.
    ///   - learning: a first-seen rule alerting while it learns (`AlertFactory.make`).
    mutating func emit(metadata: RuleMetadata, options: RuleEngineOptions, defaultSuppress: TimeInterval, group: [AlertGroupValue], groupKey: @autoclosure () -> String, events: [AlertEvent], eventCount: Int, windowClose: Date, summary: String, episodeFrom: Date? = nil, learning: Bool = false) {
        guard let first = events.first?.time, let last = events.last?.time else { return }
        let suppress = options.suppress?.interval ?? defaultSuppress
        var decision = EpisodeDecision.alert
        if suppress > 0 {
            let key = metadata.id + "\u{1F}" + groupKey()
            var episodes = state.episodes[key] ?? []
            decision = EpisodeDecision.decide(&episodes, first: first, last: last, from: episodeFrom ?? first, suppress: suppress,
                                              alertID: { AlertFactory.alertID(ruleID: metadata.id, group: group, events: events) })
            state.episodes[key] = episodes
            if decision == .joined { return }
        }
        if let alertOnlyAfter, last <= alertOnlyAfter { return }
        let alert = AlertFactory.make(metadata: metadata, options: options, group: group, events: events, eventCount: eventCount,
                                      windowClose: windowClose, now: now, lateGrace: settings.lateGrace, summary: summary, learning: learning)
        if case .reminder(let episodeID, let number, let uses) = decision {
            alerts.append(AlertFactory.reminding(alert, episodeID: episodeID, number: number, uses: uses))
        } else {
            alerts.append(alert)
        }
    }

    /// Drops what can no longer matter: ids, window events, episodes and places older than the
    /// horizon, and first-seen values older than their rule's forget age.
    mutating func prune() {
        let cutoff = now.addingTimeInterval(-plan.horizon)
        let idCutoff = now.addingTimeInterval(-max(plan.horizon, settings.idMemory))
        state.seen = state.seen.filter { $1 > idCutoff }
        if let revisions = state.revisions { state.revisions = revisions.filter { key, _ in state.seen[key] != nil } }
        if let findings = state.findings { state.findings = findings.filter { key, _ in state.seen[key] != nil } }
        if state.forgottenBefore.map({ $0 < cutoff }) ?? true { state.forgottenBefore = cutoff }
        if let firstKept = state.recent.firstIndex(where: { $0.time > cutoff }) {
            state.recent.removeFirst(firstKept)
        } else {
            state.recent.removeAll()
        }
        if state.recent.count > settings.maxStoredEvents {
            state.recent.removeFirst(state.recent.count - settings.maxStoredEvents)
        }
        for key in state.episodes.keys.sorted() {
            let kept = state.episodes[key]!.filter { $0.end > cutoff }
            state.episodes[key] = kept.isEmpty ? nil : kept
        }
        for c in plan.firstSeen {
            guard case .firstSeen(let spec) = plan.correlations[c].kind else { continue }
            let ruleKey = plan.correlations[c].metadata.id
            guard var groups = state.baselines[ruleKey] else { continue }
            let forget = now.addingTimeInterval(-spec.forgetAfter.interval)
            for group in groups.keys.sorted() {
                var baseline = groups[group]!
                baseline.known = baseline.known.filter { $1 > forget }
                if baseline.known.count > settings.maxKnownValues {
                    let keep = baseline.known.all.sorted { ($0.value, $0.key.text) > ($1.value, $1.key.text) }.prefix(settings.maxKnownValues)
                    baseline.known = IDTable(uniqueKeysWithValues: Array(keep))
                }
                groups[group] = baseline
            }
            state.baselines[ruleKey] = groups
        }
        for c in plan.travel {
            let rule = plan.correlations[c]
            guard var groups = state.places[rule.metadata.id] else { continue }
            let travelCutoff = now.addingTimeInterval(-(rule.timespan.interval + settings.lookback))
            for group in groups.keys.sorted() {
                let kept = groups[group]!.filter { $0.time > travelCutoff }
                groups[group] = kept.isEmpty ? nil : kept
            }
            state.places[rule.metadata.id] = groups.isEmpty ? nil : groups
            guard var known = state.familiar?[rule.metadata.id] else { continue }
            let familiarCutoff = now.addingTimeInterval(-TravelSpec.familiarMemory)
            for group in known.keys.sorted() {
                let kept = known[group]!.filter { $0.value.lastSeen > familiarCutoff }
                known[group] = kept.isEmpty ? nil : kept
            }
            state.familiar![rule.metadata.id] = known.isEmpty ? nil : known
        }
    }
}
