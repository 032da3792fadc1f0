import Foundation
import TophhieRules

/// What the report draws, counted once from the sign-ins and alerts of a period: places, days,
/// hours, and the tables of countries, devices, apps and addresses.
public struct SignInDigest: Sendable {
    /// One place sign-ins came from, with its counts by outcome.
    public struct Place: Sendable, Hashable {
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var counts: [SignInOutcome: Int] = [:]
        public var total: Int { counts.values.reduce(0, +) }
        /// Named by a first-seen alert (a new country or place).
        public var isNew = false
        /// The outcome most of its sign-ins had, which colours it.
        public var mostly: SignInOutcome {
            SignInOutcome.allCases.max { (counts[$0] ?? 0, $1.rawValue) < (counts[$1] ?? 0, $0.rawValue) } ?? .success
        }
    }

    /// One day's sign-ins by stream and outcome.
    public struct Day: Sendable, Hashable {
        public var start: Date
        public var interactive: [SignInOutcome: Int] = [:]
        public var nonInteractive: [SignInOutcome: Int] = [:]
        public var alerts = 0
    }

    /// A value seen in the period (a country, device, app or address), when first and last.
    public struct Seen: Sendable, Hashable {
        public var value: String
        public var count: Int
        public var first: Date
        public var last: Date
        public var isNew: Bool
    }

    /// A stretch of the period the timeline shades: beyond the tenant's retention (Graph no longer
    /// has those sign-ins), sign-ins that Graph published late (an alert fired on them late), a
    /// coverage gap the agent told of (sign-ins it could no longer read), or the place rules'
    /// learning.
    public struct Band: Sendable, Hashable {
        public enum Kind: String, Sendable { case retention, late, gap, learning }
        public var kind: Kind
        public var from: Date
        public var to: Date
    }

    /// Two places an impossible-travel alert joined.
    public struct Trip: Sendable, Hashable {
        public var from: (latitude: Double, longitude: Double)
        public var to: (latitude: Double, longitude: Double)
        public var alertID: String
        public static func == (a: Trip, b: Trip) -> Bool { a.alertID == b.alertID }
        public func hash(into hasher: inout Hasher) { hasher.combine(alertID) }
    }

    public var from: Date
    public var to: Date
    public var signIns: Int
    public var outcomes: [SignInOutcome: Int] = [:]
    public var places: [Place] = []
    /// Sign-ins with no coordinates a place can have (told beside the map).
    public var unplaced = 0
    public var days: [Day] = []
    /// Sign-ins by weekday (0 Monday) and hour of day, UTC.
    public var hours: [[Int]] = Array(repeating: Array(repeating: 0, count: 24), count: 7)
    public var countries: [Seen] = []
    public var devices: [Seen] = []
    public var apps: [Seen] = []
    public var addresses: [Seen] = []
    public var trips: [Trip] = []
    /// Detections, newest first (the agent's notices are not shown).
    public var alerts: [Alert] = []
    public var bands: [Band] = []
    /// The account the sign-ins name most often: (display name, user principal name).
    public var account: (name: String, userPrincipalName: String)?

    /// Counts `signIns` between `from` and `to` (each day from `from`'s UTC midnight) with the
    /// alerts about them. Values a first-seen alert names (`first location.countryOrRegion
    /// 'AU'`) are marked new.
    /// - Complexity: O(n log n) in the sign-ins.
    /// - Parameter retentionFloor: the oldest time Graph still keeps sign-ins for (the tenant's
    ///   retention), when the sign-ins came from Graph: older days are shaded as beyond it.
    /// - Parameter time: the zone the weekday-and-hour grid counts in.
    public init(signIns given: [ReportSignIn], alerts: [Alert], from: Date, to: Date, retentionFloor: Date? = nil, time: ReportTime = .utc) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let inPeriod = given.filter { $0.time >= from && $0.time <= to }.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        self.from = from
        self.to = to
        signIns = inPeriod.count
        self.alerts = alerts.filter { $0.kind == .detection }.sorted { ($0.detectedAt, $0.id) > ($1.detectedAt, $1.id) }
        let named = Self.firstSeenValues(self.alerts)

        let firstDay = calendar.startOfDay(for: from)
        let dayCount = max(1, (calendar.dateComponents([.day], from: firstDay, to: calendar.startOfDay(for: to)).day ?? 0) + 1)
        days = (0..<dayCount).map { Day(start: firstDay.addingTimeInterval(Double($0) * 86_400)) }
        var placeIndex: [String: Int] = [:]
        var accounts: [String: (name: String, userPrincipalName: String, count: Int)] = [:]
        var seen: [[String: Seen]] = Array(repeating: [:], count: 4)
        for signIn in inPeriod {
            let outcome = SignInOutcome(errorCode: signIn.errorCode)
            outcomes[outcome, default: 0] += 1
            let day = min(dayCount - 1, max(0, Int(signIn.time.timeIntervalSince(firstDay) / 86_400)))
            if signIn.interactive { days[day].interactive[outcome, default: 0] += 1 } else { days[day].nonInteractive[outcome, default: 0] += 1 }
            // UTC by arithmetic: a calendar's components for each of 75,000 sign-ins took a third
            // of a second. 1970-01-01 was a Thursday (3, counting Monday as 0).
            let seconds = Int(signIn.time.timeIntervalSince1970.rounded(.down)) + time.offset(at: signIn.time)
            if !signIn.userPrincipalName.isEmpty || !signIn.userDisplayName.isEmpty {
                accounts[signIn.userPrincipalName + "\u{0}" + signIn.userDisplayName, default: (signIn.userDisplayName, signIn.userPrincipalName, 0)].count += 1
            }
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            hours[((days % 7) + 7 + 3) % 7][(seconds - days * 86_400) / 3600] += 1
            if let latitude = signIn.latitude, let longitude = signIn.longitude {
                // Places a few kilometres apart are one circle on a world map.
                let key = "\(signIn.placeName)|\((latitude * 10).rounded())|\((longitude * 10).rounded())"
                if placeIndex[key] == nil {
                    placeIndex[key] = places.count
                    places.append(Place(name: signIn.placeName, latitude: latitude, longitude: longitude,
                                        isNew: named.contains(signIn.country) || named.contains(signIn.city)))
                }
                places[placeIndex[key]!].counts[outcome, default: 0] += 1
            } else {
                unplaced += 1
            }
            for (table, value) in [signIn.country, signIn.device, signIn.app, signIn.ipAddress].enumerated() where !value.isEmpty {
                if var known = seen[table][value] {
                    known.count += 1
                    known.last = signIn.time
                    seen[table][value] = known
                } else {
                    seen[table][value] = Seen(value: value, count: 1, first: signIn.time, last: signIn.time, isNew: named.contains(value))
                }
            }
        }
        func ordered(_ table: [String: Seen]) -> [Seen] { table.values.sorted { ($0.count, $1.value) > ($1.count, $0.value) } }
        countries = ordered(seen[0])
        devices = ordered(seen[1])
        apps = ordered(seen[2])
        addresses = ordered(seen[3])
        places.sort { ($0.total, $1.name) > ($1.total, $0.name) }
        account = accounts.values.max { ($0.count, $1.userPrincipalName) < ($1.count, $0.userPrincipalName) }.map { ($0.name, $0.userPrincipalName) }
        for alert in self.alerts {
            let day = Int(alert.detectedAt.timeIntervalSince(firstDay) / 86_400)
            if days.indices.contains(day) { days[day].alerts += 1 }
        }
        if let floor = retentionFloor, floor > from { bands.append(Band(kind: .retention, from: from, to: min(floor, to))) }
        for alert in self.alerts where alert.late {
            bands.append(Band(kind: .late, from: max(from, alert.firstEventTime), to: min(to, alert.lastEventTime)))
        }
        let byID = Dictionary(inPeriod.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        trips = self.alerts.filter { $0.rule.id.contains("travel") }.compactMap { alert in
            let ends = alert.events.compactMap { byID[$0.id] }.filter { $0.latitude != nil }
            guard let first = ends.first, let last = ends.last, first.id != last.id else { return nil }
            return Trip(from: (first.latitude!, first.longitude!), to: (last.latitude!, last.longitude!), alertID: alert.id)
        }
    }

    /// Shades `from` to `to` on the timeline as `kind`, cut to the period; nothing when they miss it.
    public mutating func shade(_ kind: Band.Kind, from start: Date, to end: Date) {
        let a = max(start, from), b = min(end, to)
        if a <= b { bands.append(Band(kind: kind, from: a, to: b)) }
    }

    /// The values first-seen alerts name: `first location.countryOrRegion 'AU'` names `AU`.
    static func firstSeenValues(_ alerts: [Alert]) -> Set<String> {
        var values = Set<String>()
        for alert in alerts {
            var rest = Substring(alert.summary)
            while let start = rest.range(of: "first ") {
                rest = rest[start.upperBound...]
                guard let open = rest.firstIndex(of: "'") else { break }
                let afterOpen = rest.index(after: open)
                guard let close = rest[afterOpen...].firstIndex(of: "'") else { break }
                values.insert(String(rest[afterOpen..<close]))
                rest = rest[rest.index(after: close)...]
            }
        }
        return values
    }
}
