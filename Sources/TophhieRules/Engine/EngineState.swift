import Foundation

/// Everything the engine remembers between polls, as a value the agent stores.
///
/// Bounded: event ids, window events and suppression episodes older than the engine's horizon
/// (lookback plus the longest timespan) are dropped, and forgotten first-seen values too.
public struct EngineState: Codable, Sendable, Equatable {
    public var version: Int = 1
    /// Event ids already processed, with their event times (for pruning).
    var seen: [String: Date] = [:]
    /// Events at or before this time are ignored: their windows and ids are gone.
    public internal(set) var forgottenBefore: Date?
    /// Events that matched a rule feeding a correlation, sorted by (time, id).
    var recent: [StoredEvent] = []
    /// Alerted episodes per rule and group, for suppression.
    var episodes: [String: [Episode]] = [:]
    /// Per first-seen rule, per group: the learning counters and known values.
    var baselines: [String: [String: Baseline]] = [:]
    /// Per travel rule, per group: recent located sign-ins.
    var places: [String: [String: [Place]]] = [:]
    /// The `now` of the last call.
    public internal(set) var lastProcessed: Date?

    public init() {}

    /// How many ids, events, episodes and values the state holds: what bounds its size.
    public var size: Int {
        seen.count + recent.count + episodes.values.reduce(0) { $0 + $1.count }
            + baselines.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.known.count } }
            + places.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
    }

    struct StoredEvent: Codable, Sendable, Equatable {
        var id: String
        var time: Date
        /// Keys of the detection rules it matched, sorted.
        var rules: [String]
        /// The field values correlations and alerts need, by Graph path.
        var values: [String: String]
    }

    struct Episode: Codable, Sendable, Equatable {
        var start: Date
        var end: Date
    }

    struct Baseline: Codable, Sendable, Equatable {
        var learningStart: Date
        var events: Int
        /// Value → last time seen.
        var known: [String: Date]
    }

    struct Place: Codable, Sendable, Equatable {
        var id: String
        var time: Date
        var latitude: Double
        var longitude: Double
        var label: String
        /// The readable fields, so the pair's alert can show both sign-ins.
        var detail: AlertEvent
    }
}
