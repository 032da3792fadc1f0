import Foundation
import TophhieRules

/// `EngineState` as the fast engine works on it through one pass: ids with their hashes worked
/// out once (`IDTable`), stored events' values kept by place (`StoredValues`). Made from the
/// plain state when a pass begins and turned back into it when the pass ends, so the state the
/// agent stores, and its file, are the plain evaluator's.
struct FastState: Sendable, Equatable {
    var seen: IDTable<Date> = [:]
    var revisions: IDTable<String>?
    var findings: IDTable<[String]>?
    var forgottenBefore: Date?
    var idMemoryFrom: Date?
    /// Events that matched a rule feeding a correlation, sorted by (time, id).
    var recent: [StoredEvent] = []
    var episodes: [String: [Episode]] = [:]
    var baselines: [String: [String: Baseline]] = [:]
    var places: [String: [String: [Place]]] = [:]
    var familiar: [String: [String: [String: FamiliarPlace]]]?
    var lastProcessed: Date?

    typealias Episode = EngineState.Episode
    typealias FamiliarPlace = EngineState.FamiliarPlace
    typealias Place = EngineState.Place

    init() {}

    struct StoredEvent: Sendable, Equatable {
        var id: String
        var time: Date
        /// Keys of the detection rules it matched, sorted.
        var rules: [String]
        var values: StoredValues
        /// Stored by the run in progress: its windows may alert. Cleared when a run ends.
        var isNew = false
    }

    struct Baseline: Sendable, Equatable {
        var learningStart: Date
        var events: Int
        var known: IDTable<Date>
    }

    /// The plain state's content, its stored events' values kept under `names` where they
    /// name the same paths (read by place, as the plan's own are).
    init(_ plain: EngineState, names: KeptNames) {
        seen = IDTable(plain.seen)
        revisions = plain.revisions.map(IDTable.init)
        findings = plain.findings.map(IDTable.init)
        forgottenBefore = plain.forgottenBefore
        idMemoryFrom = plain.idMemoryFrom
        recent = plain.recent.map { stored in
            // Under the plan's names when it keeps every path this event's values name.
            let values = stored.values.keys.allSatisfy { names.places[$0] != nil }
                ? StoredValues(names: names, texts: names.list.map { stored.values[$0] }) : StoredValues(stored.values)
            return StoredEvent(id: stored.id, time: stored.time, rules: stored.rules, values: values)
        }
        episodes = plain.episodes
        baselines = plain.baselines.mapValues { groups in
            groups.mapValues { Baseline(learningStart: $0.learningStart, events: $0.events, known: IDTable($0.known)) }
        }
        places = plain.places
        familiar = plain.familiar
        lastProcessed = plain.lastProcessed
    }

    /// The same content as the plain state.
    var plain: EngineState {
        var state = EngineState()
        state.seen = seen.dictionary
        state.revisions = revisions?.dictionary
        state.findings = findings?.dictionary
        state.forgottenBefore = forgottenBefore
        state.idMemoryFrom = idMemoryFrom
        state.recent = recent.map { EngineState.StoredEvent(id: $0.id, time: $0.time, rules: $0.rules, values: $0.values.table) }
        state.episodes = episodes
        state.baselines = baselines.mapValues { groups in
            groups.mapValues { EngineState.Baseline(learningStart: $0.learningStart, events: $0.events, known: $0.known.dictionary) }
        }
        state.places = places
        state.familiar = familiar
        state.lastProcessed = lastProcessed
        return state
    }
}
