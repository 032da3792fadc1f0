import Foundation

/// Sigma's levels, lowest to highest.
public enum AlertLevel: String, Sendable, Codable, Hashable, CaseIterable, Comparable {
    case informational, low, medium, high, critical

    public static func < (a: AlertLevel, b: AlertLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Whether an alert comes from a rule or from the agent about itself.
package enum AlertKind: String, Sendable, Codable, Hashable {
    /// A rule fired on sign-in events.
    case detection
    /// The agent reports on its own health: sign-in needed, access gate, coverage gap, recovery.
    case notice
}

/// The rule an alert came from, as the notifiers show it.
///
/// `author` is kept because the Detection Rule License asks alerts built from SigmaHQ rules to
/// credit it.
public struct AlertRule: Sendable, Codable, Hashable {
    public var id: String
    public var title: String
    public var level: AlertLevel
    public var tags: [String]
    public var author: String?
    public var description: String?

    public init(id: String, title: String, level: AlertLevel, tags: [String] = [], author: String? = nil, description: String? = nil) {
        self.id = id
        self.title = title
        self.level = level
        self.tags = tags
        self.author = author
        self.description = description
    }
}

/// One grouping field and its value (`ipAddress` = `203.0.113.9`), in the rule's `group-by` order.
public struct AlertGroupValue: Sendable, Codable, Hashable {
    public var field: String
    public var value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }
}

/// A sign-in that contributed to an alert, with the fields a person reads first.
///
/// Text fields are attacker-controlled (device and app names): every output escapes them.
public struct AlertEvent: Sendable, Codable, Hashable {
    public var id: String
    public var time: Date
    public var errorCode: Int64?
    public var app: String?
    public var ipAddress: String?
    public var location: String?
    public var device: String?

    public init(id: String, time: Date, errorCode: Int64? = nil, app: String? = nil, ipAddress: String? = nil, location: String? = nil, device: String? = nil) {
        self.id = id
        self.time = time
        self.errorCode = errorCode
        self.app = app
        self.ipAddress = ipAddress
        self.location = location
        self.device = device
    }
}

/// An alert: what fired, for whom, on which sign-ins, and when it was seen.
///
/// `id` is derived from the rule, the group and the events, so re-running the same poll after a
/// crash yields the same id and the outbox drops the copy.
public struct Alert: Sendable, Codable, Hashable, Identifiable {
    public var id: String
    package var kind: AlertKind
    public var rule: AlertRule
    /// The level after any override in the rule's engine settings.
    public var level: AlertLevel
    /// What the rule saw, in its own terms (field paths, thresholds): "6 events over 4m (gte 5
    /// within 10m)"; JSON's `summary_technical`.
    public var summary: String
    /// The sentence a person reads (`AlertSentence`): "6 failed sign-ins to your account in 4
    /// minutes, …"; JSON's `summary`, and every channel's text. A notice's is its summary.
    public var sentence: String
    public var group: [AlertGroupValue]
    /// The events shown: all of them, or the first and last 25 when there are more than 50.
    public var events: [AlertEvent]
    /// How many events the alert accounts for (its whole episode when it was found).
    public var eventCount: Int
    public var firstEventTime: Date
    public var lastEventTime: Date
    /// The `now` the engine was given when it fired.
    public var detectedAt: Date
    /// True when the deciding event arrived after its window would have closed in real time.
    public var late: Bool
    /// How far `detectedAt` trails the last event's time, in seconds, when `late`.
    public var lateBySeconds: Double?
    /// For a notice that ends a problem ("monitoring resumed"): the id of the notice that told
    /// of it, so receivers with incidents (PagerDuty) can resolve that one.
    public var resolves: String?
    /// True when a place rule alerted while still learning the person's places (one level lower).
    public var learning: Bool?
    /// For a reminder of an episode still going on: the id of the episode's first alert.
    public var episodeID: String?
    /// For a reminder: its number in the episode (1 for the first reminder).
    public var reminder: Int?
    /// For a reminder: the candidates (sign-ins, for single-event, first-seen and travel rules)
    /// that joined the episode since its last alert, this one's included.
    public var usesSinceLastAlert: Int?
    /// Whose alert it is, when the agent watches several people (`attributed(to:distinguishingID:)`);
    /// nil for the one account of a configuration without `accounts:`.
    public var account: AlertAccount?

    package init(id: String, kind: AlertKind = .detection, rule: AlertRule, level: AlertLevel, summary: String, group: [AlertGroupValue], events: [AlertEvent], eventCount: Int? = nil, firstEventTime: Date, lastEventTime: Date, detectedAt: Date, late: Bool, lateBySeconds: Double? = nil, resolves: String? = nil) {
        self.id = id
        self.kind = kind
        self.rule = rule
        self.level = level
        self.summary = summary
        self.sentence = summary
        self.group = group
        self.events = events
        self.eventCount = eventCount ?? events.count
        self.firstEventTime = firstEventTime
        self.lastEventTime = lastEventTime
        self.detectedAt = detectedAt
        self.late = late
        self.lateBySeconds = lateBySeconds
        self.resolves = resolves
    }
}

extension Alert {
    /// Decodes an alert; one written before `eventCount` existed accounts for its events.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        kind = try c.decode(AlertKind.self, forKey: .kind)
        rule = try c.decode(AlertRule.self, forKey: .rule)
        level = try c.decode(AlertLevel.self, forKey: .level)
        summary = try c.decode(String.self, forKey: .summary)
        // An alert queued before sentences existed reads as it was written.
        sentence = try c.decodeIfPresent(String.self, forKey: .sentence) ?? summary
        group = try c.decode([AlertGroupValue].self, forKey: .group)
        events = try c.decode([AlertEvent].self, forKey: .events)
        eventCount = try c.decodeIfPresent(Int.self, forKey: .eventCount) ?? events.count
        firstEventTime = try c.decode(Date.self, forKey: .firstEventTime)
        lastEventTime = try c.decode(Date.self, forKey: .lastEventTime)
        detectedAt = try c.decode(Date.self, forKey: .detectedAt)
        late = try c.decode(Bool.self, forKey: .late)
        lateBySeconds = try c.decodeIfPresent(Double.self, forKey: .lateBySeconds)
        resolves = try c.decodeIfPresent(String.self, forKey: .resolves)
        learning = try c.decodeIfPresent(Bool.self, forKey: .learning)
        episodeID = try c.decodeIfPresent(String.self, forKey: .episodeID)
        reminder = try c.decodeIfPresent(Int.self, forKey: .reminder)
        usesSinceLastAlert = try c.decodeIfPresent(Int.self, forKey: .usesSinceLastAlert)
        // Queued before accounts existed: the one account, unnamed.
        account = try c.decodeIfPresent(AlertAccount.self, forKey: .account)
    }

    /// The alert as `account`'s.
    ///
    /// With `distinguishingID`, the id becomes `<name>-<id>`, and `resolves` and `episodeID`
    /// (which hold other alerts' ids of the same account) follow, so two people's identical
    /// sign-ins never share an id and a recovery or reminder still names its alert. The prefix,
    /// rather than a hash of both: an account name is `[a-z0-9][a-z0-9_-]{0,31}`, and the ids are
    /// hex digits and `-`, so the result holds only `[a-z0-9_-]` and at most 72 characters. That
    /// is a valid `webhook-id` (no `.`, printable ASCII), the same Message-ID part (nothing
    /// replaced), a PagerDuty `dedup_key` (255 at most), an Alertmanager label value, one JSON
    /// line of an outbox or dead-letter file, and a word an operator types (`respond --alert`,
    /// `outbox`) and sees belongs to whom. It stays deterministic, so a replayed poll gives the
    /// same id and the outbox still drops the copy. Ids kept in an account's own state (the
    /// problem notice's, an episode's first alert's) stay the unprefixed ones: attribute once, as
    /// the alert leaves for the outbox. Attributing an alert again to the account it already has
    /// changes nothing.
    public func attributed(to account: AlertAccount, distinguishingID: Bool) -> Alert {
        var alert = self
        if distinguishingID, self.account?.name != account.name {
            alert.id = Self.accountID(id, account: account.name)
            alert.resolves = resolves.map { Self.accountID($0, account: account.name) }
            alert.episodeID = episodeID.map { Self.accountID($0, account: account.name) }
        }
        alert.account = account
        return alert
    }

    /// The order alerts are given in: by last event time, then rule id, then alert id.
    /// Compared field by field, not as tuples: a tuple of the two ids copied both for every
    /// comparison of a sort.
    package static func precedesInOutput(_ a: Alert, _ b: Alert) -> Bool {
        if a.lastEventTime != b.lastEventTime { return a.lastEventTime < b.lastEventTime }
        if a.rule.id != b.rule.id { return a.rule.id < b.rule.id }
        return a.id < b.id
    }

    /// Puts `alerts` in the order they are given in (`precedesInOutput`), as a stable sort
    /// does, moving each alert into its place rather than copying it: an alert is a score of
    /// counted references, and sorted in place each was copied at every step of the merge
    /// (an alert-heavy replay sorts each of its hundred thousand).
    package static func sortInOutputOrder(_ alerts: inout [Alert]) {
        guard alerts.count > 1 else { return }
        let order = alerts.indices.sorted { precedesInOutput(alerts[$0], alerts[$1]) }
        // The place `at` takes the alert at `order[at]`: each cycle of that is walked once.
        var placed = [Bool](repeating: false, count: alerts.count)
        for start in alerts.indices where !placed[start] {
            var at = start
            while true {
                placed[at] = true
                let from = order[at]
                if from == start { break }
                alerts.swapAt(at, from)
                at = from
            }
        }
    }

    /// `<name>-<id>`: see `attributed(to:distinguishingID:)`.
    public static func accountID(_ id: String, account name: String) -> String {
        name + "-" + id
    }
}
