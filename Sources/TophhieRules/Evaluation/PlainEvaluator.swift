import Foundation
import TophhieJSON

/// What every rule means, written plainly: the executable specification the fast `Engine` is
/// checked against (`ReferenceDifferentialTests`), and what `TOPHHIE_ENGINE=reference` runs.
///
/// One poll's events in, the next state and the alerts out, as `Engine.evaluate` gives them:
/// - an event id seen before is skipped unless its content (`revision`) changed; then it
///   replaces its earlier version everywhere and is evaluated again, and what it already
///   alerted on does not alert again;
/// - a never-seen event at or before the windows' end (`forgottenBefore`) is late: the rules
///   that need no window see it, windowed correlations cannot; older than the id memory, nothing
///   sees it;
/// - single-event rules, first-seen and travel are decided in event order; windowed
///   correlations (`event_count`, `value_count`, `temporal`, `temporal_ordered`) over every
///   stored event once the poll's events are in, and alert on windows holding a new event;
/// - a rule and group alerting again within its quiet period, on either side, joins the
///   episode it alerted.
///
/// No caches, no threads, no unsafe code, no process-wide tables; it keeps every event of a
/// poll in memory, and reads each field by walking its path.
public struct PlainEvaluator: Sendable {
    public let rules: RuleSet
    public let settings: EngineSettings
    /// The rules' references, order and read paths, worked out once for every poll.
    package let graph: RuleGraph

    public init(rules: RuleSet, settings: EngineSettings = EngineSettings()) {
        self.rules = rules
        self.settings = settings
        graph = RuleGraph(rules, settings: settings)
    }

    /// Runs one poll's events (any order) through every rule.
    /// - Parameters:
    ///   - state: what the previous call returned (`EngineState()` the first time); the same
    ///     state `Engine` reads and writes, so either may follow the other.
    ///   - now: the poll's wall-clock time (`detectedAt`, lateness, pruning).
    ///   - alertOnlyAfter: alerts whose last event is at or before this are withheld (learning).
    /// - Returns: the state, the alerts sorted by last event time, rule and id, and the late arrivals.
    public func evaluate(_ state: EngineState, events: [any RuleEvent], now: Date, alertOnlyAfter: Date? = nil) -> EngineOutcome {
        var run = PlainRun(rules: graph, settings: settings, state: state, now: now, alertOnlyAfter: alertOnlyAfter)
        run.ingest(events)
        run.evaluateWindows()
        run.prune()
        return run.outcome()
    }
}

/// The text of the value at a dotted Graph path, or nil (absent, null, an array or an object).
func plainText(_ event: any RuleEvent, _ path: String) -> String? {
    event.field(at: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))?.scalarText
}

/// A group's key: its values lower-cased, joined by the unit separator.
func plainGroupKey(_ values: [String]) -> String {
    values.map { $0.lowercased() }.joined(separator: "\u{1F}")
}

/// One reference poll in progress.
struct PlainRun {
    let rules: RuleGraph
    let settings: EngineSettings
    var state: EngineState
    let now: Date
    let alertOnlyAfter: Date?
    var alerts: [Alert] = []
    /// Ids evaluated again in this poll because their content changed.
    var updated: Set<String> = []
    var lateEvaluated: [Date] = []
    var lateUnreachable: [Date] = []

    init(rules: RuleGraph, settings: EngineSettings, state: EngineState, now: Date, alertOnlyAfter: Date?) {
        self.rules = rules
        self.settings = settings
        self.state = state
        self.now = now
        self.alertOnlyAfter = alertOnlyAfter
        if self.state.idMemoryFrom == nil {
            // A new state has forgotten no id; an older one may have forgotten every id before its windows' end.
            self.state.idMemoryFrom = state.lastProcessed == nil ? .distantPast : (state.forgottenBefore ?? .distantPast)
        }
        if self.state.revisions == nil { self.state.revisions = [:] }
    }

    /// Deduplicates, orders and matches the events, and decides the rules that need no window.
    mutating func ingest(_ events: [any RuleEvent]) {
        let ordered = events.sorted { ($0.eventTime, $0.eventID) < ($1.eventTime, $1.eventID) }
        var added: [EngineState.StoredEvent] = []
        var keptValues: Set<[String: String]> = [], fedRules: Set<[String]> = []
        for event in ordered {
            let id = event.eventID
            let revision = event.revision
            if state.seen[id] != nil {
                guard let revision, let previous = state.revisions?[id], previous != revision else {
                    // Unchanged, or a state from before updates were followed: this is the known content.
                    if let revision, state.revisions?[id] == nil { state.revisions![id] = revision }
                    continue
                }
                updated.insert(event.eventID)
                added.removeAll { $0.id == event.eventID }
            }
            let windowsClosed = state.forgottenBefore.map { event.eventTime <= $0 } ?? false
            if windowsClosed && state.seen[id] == nil {
                if let from = state.idMemoryFrom, event.eventTime <= from { continue }
                if event.eventTime <= now.addingTimeInterval(-settings.idMemory) {
                    lateUnreachable.append(event.eventTime)
                    continue
                }
                lateEvaluated.append(event.eventTime)
            }
            state.seen[id] = event.eventTime
            if let revision { state.revisions![id] = revision }

            let matched = rules.detections.indices.filter { PlainMatching.matches(rules.detections[$0].detection, event) }
            guard !matched.isEmpty else { continue }
            for d in matched where rules.standaloneDetections.contains(d) { emitSingle(d, event) }
            for c in rules.firstSeen where rules.references(c, anyOf: matched) { observeFirstSeen(c, event, matched: matched) }
            for c in rules.travel where rules.references(c, anyOf: matched) { observeTravel(c, event, matched: matched) }
            let fed = matched.filter(rules.fedDetections.contains)
            if !windowsClosed && !fed.isEmpty {
                var kept: [String: String] = [:]
                for path in rules.keptPaths { kept[path] = plainText(event, path) }
                // One copy of each set of values and of rules: a person's token refreshes repeat
                // the same app, device and place, and a first poll stores tens of thousands.
                let values = keptValues.insert(kept).memberAfterInsert
                let ruleIDs = fedRules.insert(fed.map { rules.detections[$0].metadata.id }.sorted()).memberAfterInsert
                added.append(EngineState.StoredEvent(id: event.eventID, time: event.eventTime, rules: ruleIDs, values: values, isNew: true))
            }
        }
        // An updated event's earlier version leaves the windows; the stored events stay in (time, id) order.
        state.recent.removeAll { updated.contains($0.id) }
        state.recent = (state.recent + added).enumerated().sorted { a, b in
            (a.element.time, a.element.id, a.offset) < (b.element.time, b.element.id, b.offset)
        }.map(\.element)
    }

    /// A single-event rule's match: once per event and rule, quiet for the rule's suppression
    /// period per group (by default the user and the address).
    mutating func emitSingle(_ d: Int, _ event: any RuleEvent) {
        let rule = rules.detections[d]
        let id = event.eventID
        if state.findings?[id]?.contains(rule.metadata.id) == true { return }
        if state.findings == nil { state.findings = [:] }
        state.findings![id, default: []].append(rule.metadata.id)
        var group: [AlertGroupValue] = [], keyParts: [String] = []
        for name in rule.options.groupBy ?? RuleEngineOptions.defaultSingleEventGroup {
            let text = plainText(event, SignInFieldCatalog.resolve(name).path) ?? ""
            keyParts.append(text.lowercased())
            if !text.isEmpty { group.append(AlertGroupValue(field: name, value: text)) }
        }
        let shown = AlertFactory.alertEvent(event)
        emit(rule.metadata, rule.options, defaultSuppress: 0, group: group, groupKey: keyParts.joined(separator: "\u{1F}"),
             events: [shown], eventCount: 1, windowClose: event.eventTime, summary: AlertFactory.singleSummary(shown))
    }

    /// Decides whether a candidate alert is new, joins an episode already alerted (suppression
    /// on both sides of it, in event time) or reminds of one gone on for a day since its last
    /// alert (`EpisodeDecision`), records its episode, and withholds it while learning.
    /// - Parameters:
    ///   - episodeFrom: where the candidate's episode starts for the test; its first event by default.
    ///   - learning: a first-seen rule alerting while it learns (`AlertFactory.make`).
    mutating func emit(_ metadata: RuleMetadata, _ options: RuleEngineOptions, defaultSuppress: TimeInterval, group: [AlertGroupValue], groupKey: String,
                       events: [AlertEvent], eventCount: Int, windowClose: Date, summary: String, episodeFrom: Date? = nil, learning: Bool = false) {
        guard let first = events.first?.time, let last = events.last?.time else { return }
        let suppress = options.suppress?.interval ?? defaultSuppress
        var decision = EpisodeDecision.alert
        if suppress > 0 {
            let key = metadata.id + "\u{1F}" + groupKey
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

    /// Forgets what can no longer matter: ids past the id memory, stored events, episodes and
    /// places past the horizon, first-seen values past their rule's forget age.
    mutating func prune() {
        let cutoff = now.addingTimeInterval(-rules.horizon)
        let idCutoff = now.addingTimeInterval(-max(rules.horizon, settings.idMemory))
        state.seen = state.seen.filter { $1 > idCutoff }
        state.revisions = state.revisions?.filter { id, _ in state.seen[id] != nil }
        state.findings = state.findings?.filter { id, _ in state.seen[id] != nil }
        if state.forgottenBefore.map({ $0 < cutoff }) ?? true { state.forgottenBefore = cutoff }
        state.recent.removeAll { $0.time <= cutoff }
        if state.recent.count > settings.maxStoredEvents { state.recent.removeFirst(state.recent.count - settings.maxStoredEvents) }
        for key in state.episodes.keys {
            let kept = state.episodes[key]!.filter { $0.end > cutoff }
            state.episodes[key] = kept.isEmpty ? nil : kept
        }
        for c in rules.firstSeen {
            guard case .firstSeen(let spec) = rules.correlations[c].kind, var groups = state.baselines[rules.correlations[c].metadata.id] else { continue }
            let forget = now.addingTimeInterval(-spec.forgetAfter.interval)
            for group in groups.keys {
                var baseline = groups[group]!
                baseline.known = baseline.known.filter { $1 > forget }
                if baseline.known.count > settings.maxKnownValues {
                    // The most recently seen kept; a tie goes to the greater value.
                    let kept = baseline.known.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.prefix(settings.maxKnownValues)
                    baseline.known = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
                }
                groups[group] = baseline
            }
            state.baselines[rules.correlations[c].metadata.id] = groups
        }
        for c in rules.travel {
            let rule = rules.correlations[c]
            if var groups = state.places[rule.metadata.id] {
                let travelCutoff = now.addingTimeInterval(-(rule.timespan.interval + settings.lookback))
                for group in groups.keys {
                    let kept = groups[group]!.filter { $0.time > travelCutoff }
                    groups[group] = kept.isEmpty ? nil : kept
                }
                state.places[rule.metadata.id] = groups.isEmpty ? nil : groups
            }
            if var known = state.familiar?[rule.metadata.id] {
                let familiarCutoff = now.addingTimeInterval(-TravelSpec.familiarMemory)
                for group in known.keys {
                    let kept = known[group]!.filter { $0.value.lastSeen > familiarCutoff }
                    known[group] = kept.isEmpty ? nil : kept
                }
                state.familiar![rule.metadata.id] = known.isEmpty ? nil : known
            }
        }
    }

    /// The poll's outcome: no stored event marked new, the alerts in their order.
    consuming func outcome() -> EngineOutcome {
        for index in state.recent.indices { state.recent[index].isNew = false }
        state.lastProcessed = now
        let late = lateEvaluated + lateUnreachable
        return EngineOutcome(
            state: state,
            alerts: alerts.sorted(by: Alert.precedesInOutput),
            lateArrivals: late.isEmpty ? nil : LateArrivals(evaluated: lateEvaluated.count, unreachable: lateUnreachable.count,
                                                            earliest: late.min()!, latest: late.max()!))
    }
}
