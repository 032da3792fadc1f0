import Foundation

/// Everything the engine remembers between polls, as a value the agent stores.
///
/// Bounded: event ids, window events and suppression episodes older than the engine's horizon
/// (lookback plus the longest timespan) are dropped, and forgotten first-seen values too.
public struct EngineState: Codable, Sendable, Equatable {
    public var version: Int = 1
    /// Event ids already processed, with their event times (for pruning).
    package var seen: [String: Date] = [:]
    /// Per processed id, a hash of its content: Graph re-publishes a sign-in under the same id
    /// when MFA results aggregate, a location is filled in or a risk is raised offline, and a
    /// changed hash makes the engine evaluate it again. Nil in states written before updates
    /// were followed; such ids take their hash from the next poll that re-reads them.
    package var revisions: [String: String]?
    /// Per processed id, the rules that already told of it: single-event rules that alerted (or
    /// were suppressed) on it, so an update never alerts twice for the same finding, and travel
    /// rules whose alerted pair it was the far-away sign-in of.
    package var findings: [String: [String]]?
    /// Windows end here: a never-seen event at or before this time is a late arrival, evaluated
    /// by the rules that need no window and reported.
    public package(set) var forgottenBefore: Date?
    /// A never-seen id with an event time after this was truly never processed; before it, ids
    /// may have been forgotten (states written before ids were kept for `idMemory`).
    public package(set) var idMemoryFrom: Date?
    /// Events that matched a rule feeding a correlation, sorted by (time, id).
    package var recent: [StoredEvent] = []
    /// Alerted episodes per rule and group, for suppression.
    package var episodes: [String: [Episode]] = [:]
    /// Per first-seen rule, per group: the learning counters and known values.
    package var baselines: [String: [String: Baseline]] = [:]
    /// Per travel rule, per group: recent located sign-ins.
    package var places: [String: [String: [Place]]] = [:]
    /// Per travel rule, per group, per place (its label, else its coordinates to 0.1°): the
    /// UTC days it was seen on, for familiarity. Nil in states from before familiar places.
    package var familiar: [String: [String: [String: FamiliarPlace]]]?
    /// The `now` of the last call.
    public package(set) var lastProcessed: Date?

    public init() {}

    /// How many ids, events, episodes and values the state holds: what bounds its size.
    /// (`revisions` and `findings` hold at most one entry per remembered id.)
    public var size: Int {
        seen.count + recent.count + episodes.values.reduce(0) { $0 + $1.count }
            + baselines.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.known.count } }
            + places.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
    }

    package struct StoredEvent: Codable, Sendable, Equatable {
        package var id: String
        package var time: Date
        /// Keys of the detection rules it matched, sorted.
        package var rules: [String]
        /// The field values correlations and alerts need, by Graph path.
        package var values: [String: String]
        /// Stored by the run in progress (first processed, or processed again after an update):
        /// its windows may alert. Not written, and cleared when a run ends: a state given out
        /// holds no run's marks.
        package var isNew = false

        private enum CodingKeys: String, CodingKey { case id, time, rules, values }

        package init(id: String, time: Date, rules: [String], values: [String: String], isNew: Bool = false) {
            self.id = id
            self.time = time
            self.rules = rules
            self.values = values
            self.isNew = isNew
        }
    }

    /// One alerted episode: from its first event to its last plus the quiet period. A candidate
    /// that starts before `end` and ends after `start` minus the quiet period joins it, so the
    /// earlier half of a burst that arrives hours late joins the alert its later half raised.
    package struct Episode: Codable, Sendable, Equatable {
        package var start: Date
        package var end: Date
        /// The id of the episode's first alert, which its reminders name. Nil in states from
        /// before reminders (such an episode sends none).
        package var alertID: String?
        /// The last event time of its last alert (first or reminder).
        package var lastAlert: Date?
        /// Reminders sent so far.
        package var reminders: Int?
        /// Candidates that joined since the last alert.
        package var usesSinceAlert: Int?

        package init(start: Date, end: Date, alertID: String? = nil, lastAlert: Date? = nil, reminders: Int? = nil, usesSinceAlert: Int? = nil) {
            self.start = start
            self.end = end
            self.alertID = alertID
            self.lastAlert = lastAlert
            self.reminders = reminders
            self.usesSinceAlert = usesSinceAlert
        }
    }

    package struct Baseline: Codable, Sendable, Equatable {
        package var learningStart: Date
        package var events: Int
        /// Value → last time seen (written as the object a `[String: Date]` is).
        package var known: [String: Date]

        package init(learningStart: Date, events: Int, known: [String: Date]) {
            self.learningStart = learningStart
            self.events = events
            self.known = known
        }
    }

    package struct FamiliarPlace: Codable, Sendable, Equatable {
        /// Distinct days (days since 1970, UTC) it was seen on, ascending, the last 16 kept.
        package var days: [Int]
        package var lastSeen: Date

        package init(days: [Int], lastSeen: Date) {
            self.days = days
            self.lastSeen = lastSeen
        }
    }

    package struct Place: Codable, Sendable, Equatable {
        package var id: String
        package var time: Date
        package var latitude: Double
        package var longitude: Double
        package var label: String
        /// The readable fields, so the pair's alert can show both sign-ins.
        package var detail: AlertEvent

        package init(id: String, time: Date, latitude: Double, longitude: Double, label: String, detail: AlertEvent) {
            self.id = id
            self.time = time
            self.latitude = latitude
            self.longitude = longitude
            self.label = label
            self.detail = detail
        }
    }
}
