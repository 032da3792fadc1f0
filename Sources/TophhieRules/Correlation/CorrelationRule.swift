/// A Sigma correlation rule, or one of this project's two extensions.
public struct CorrelationRule: Sendable, Hashable {
    public var metadata: RuleMetadata
    package var kind: CorrelationKind
    /// The ids or names of the rules whose matches feed it, in order (order matters for
    /// `temporal_ordered`).
    public var rules: [String]
    /// The grouping fields by their names in the rule (aliases or field names).
    public var groupBy: [String]
    /// `aliases`: per alias, the field each referenced rule supplies it from.
    public var aliases: [String: [String: String]]
    package var timespan: RuleDuration
    package var condition: CorrelationCondition
    /// Whether the referenced rules also alert on their own.
    public var generate: Bool
    package var options: RuleEngineOptions

    package init(metadata: RuleMetadata, kind: CorrelationKind, rules: [String], groupBy: [String], aliases: [String: [String: String]] = [:], timespan: RuleDuration, condition: CorrelationCondition, generate: Bool = false, options: RuleEngineOptions = RuleEngineOptions()) {
        self.metadata = metadata
        self.kind = kind
        self.rules = rules
        self.groupBy = groupBy
        self.aliases = aliases
        self.timespan = timespan
        self.condition = condition
        self.generate = generate
        self.options = options
    }

    /// The Graph path a grouping name reads for events of `rule` (an alias, else the name).
    package func groupPath(_ name: String, forRule rule: String) -> String {
        let field = aliases[name]?[rule] ?? name
        return SignInFieldCatalog.resolve(field).path
    }
}

/// The correlation types.
package enum CorrelationKind: Sendable, Hashable {
    /// How many matching events fall in the window.
    case eventCount
    /// How many distinct values of `field` the window's events carry.
    case valueCount(field: String)
    /// Every referenced rule matched within the window, in any order.
    case temporal
    /// Every referenced rule matched within the window, in the listed order.
    case temporalOrdered
    /// Extension: a value (or tuple) never seen before for the group, after a learning period.
    case firstSeen(FirstSeenSpec)
    /// Extension: two sign-ins further apart than a plane could fly in the time between them.
    case impossibleTravel(TravelSpec)

    public var name: String {
        switch self {
        case .eventCount: return "event_count"
        case .valueCount: return "value_count"
        case .temporal: return "temporal"
        case .temporalOrdered: return "temporal_ordered"
        case .firstSeen: return "first_seen"
        case .impossibleTravel: return "impossible_travel"
        }
    }
}

/// Settings of a `first_seen` correlation.
package struct FirstSeenSpec: Sendable, Hashable {
    /// The fields whose combined value must be new (`location.countryOrRegion`, or OS + browser).
    public var fields: [String]
    /// Learning ends when both hold: this long after the group's first event…
    public var learningPeriod: RuleDuration
    /// …and this many events for the group.
    public var learningEvents: Int
    /// A value not seen for this long counts as new again.
    public var forgetAfter: RuleDuration
    /// Drop version numbers (`Edge 120.0.1` → `Edge`, `Android 14` → `Android`) so browser updates are not new devices.
    public var ignoreVersions: Bool
    /// The referenced rules whose events may alert; the others only teach the baseline. Nil:
    /// every referenced rule's events may alert. (A first-factor success stopped by MFA is
    /// checked against the places of the user's full sign-ins, and teaches nothing itself.)
    public var alertOn: [String]?
    /// The referenced rules whose events only keep a value already known (refresh its last
    /// sighting and count towards learning), and never make a new one known: weak evidence of
    /// the person (a single-factor success) keeps a familiar place familiar, but cannot make an
    /// attacker's place familiar. This holds for a rule in `alert-on` too. An event that also
    /// matches another referenced rule teaches as that rule does. Nil: none.
    public var refreshOnly: [String]?
    /// `learning.alert: lower`: while learning, a value the group has never shown (once it has
    /// shown one, a day into its history) still alerts, marked `learning` and one level lower. False (`quiet`): nothing
    /// alerts while learning.
    public var alertWhileLearning: Bool

    /// Learning alerts start a day into the group's history: the places of its first day
    /// (home, a work VPN's exit, a phone's carrier) are the person's own, as travel's
    /// `familiar-after-days: 1` takes them.
    public static let learningAlertsAfter: Double = 86_400

    public init(fields: [String], learningPeriod: RuleDuration, learningEvents: Int, forgetAfter: RuleDuration, ignoreVersions: Bool = false,
                alertOn: [String]? = nil, refreshOnly: [String]? = nil, alertWhileLearning: Bool = false) {
        self.alertWhileLearning = alertWhileLearning
        self.alertOn = alertOn
        self.refreshOnly = refreshOnly
        self.fields = fields
        self.learningPeriod = learningPeriod
        self.learningEvents = learningEvents
        self.forgetAfter = forgetAfter
        self.ignoreVersions = ignoreVersions
    }
}

/// Settings of an `impossible_travel` correlation.
package struct TravelSpec: Sendable, Hashable {
    /// Faster than this between two sign-ins fires (km/h).
    public var maxSpeedKmh: Double
    /// Closer than this never fires: IP geolocation is coarse (km).
    public var minDistanceKm: Double
    /// A place is familiar once the group signed in from it on this many earlier days (UTC),
    /// within the last 90; travel between two familiar places (a VPN exit, a carrier's egress
    /// cities) does not fire. 0 turns familiarity off.
    public var familiarAfterDays: Int
    /// The referenced rules whose sign-ins make a place familiar (the person's own strong
    /// evidence); the others are compared but teach no place. Nil: every referenced rule's.
    public var familiarFrom: [String]?

    /// One earlier day: a regular VPN exit alerts on its first day only.
    public static let defaultFamiliarDays = 1
    /// How long a familiar place is remembered without being seen.
    public static let familiarMemory: Double = 90 * 86_400

    /// Whether coordinates are a place a sign-in can travel from: in range and not (0, 0), which
    /// is what Entra writes when it does not know where a sign-in came from (AD FS records, some
    /// non-interactive ones). Missing coordinates never reach this.
    public static func isTravelEndpoint(latitude: Double, longitude: Double) -> Bool {
        (-90...90).contains(latitude) && (-180...180).contains(longitude) && !(latitude == 0 && longitude == 0)
    }

    public init(maxSpeedKmh: Double, minDistanceKm: Double, familiarAfterDays: Int = TravelSpec.defaultFamiliarDays, familiarFrom: [String]? = nil) {
        self.familiarFrom = familiarFrom
        self.maxSpeedKmh = maxSpeedKmh
        self.minDistanceKm = minDistanceKm
        self.familiarAfterDays = familiarAfterDays
    }
}

/// A correlation's `condition`: one or two comparisons (a range), and for `value_count` the field.
package struct CorrelationCondition: Sendable, Hashable, CustomStringConvertible {
    package enum Operator: String, Sendable, Hashable, CaseIterable { case gt, gte, lt, lte, eq, neq }
    public var comparisons: [(Operator, Int)] {
        get { storage.map { ($0.op, $0.value) } }
        set { storage = newValue.map { Comparison(op: $0.0, value: $0.1) } }
    }
    struct Comparison: Sendable, Hashable { var op: Operator; var value: Int }
    var storage: [Comparison]
    public var field: String?

    public init(_ comparisons: [(Operator, Int)], field: String? = nil) {
        self.storage = comparisons.map { Comparison(op: $0.0, value: $0.1) }
        self.field = field
    }

    public func holds(_ count: Int) -> Bool {
        storage.allSatisfy { c in
            switch c.op {
            case .gt: return count > c.value
            case .gte: return count >= c.value
            case .lt: return count < c.value
            case .lte: return count <= c.value
            case .eq: return count == c.value
            case .neq: return count != c.value
            }
        }
    }

    /// The smallest count that can satisfy every comparison's lower bound (`gt`, `gte`, `eq`);
    /// 0 when none sets one. A group with fewer matches than this has no window that holds.
    public var leastHolding: Int {
        storage.reduce(0) { least, c in
            switch c.op {
            case .gt: return max(least, c.value + 1)
            case .gte, .eq: return max(least, c.value)
            case .lt, .lte, .neq: return least
            }
        }
    }

    public var description: String { storage.map { "\($0.op.rawValue) \($0.value)" }.joined(separator: " and ") }
}
