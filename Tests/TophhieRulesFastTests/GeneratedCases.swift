import Foundation
import TophhieTestSupport
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// One generated case for the differential test: rules as YAML, engine settings, and the polls
/// a live agent would have made of a tenant's sign-ins (late publications, updates, repeats,
/// sweeps over the whole history, any order within a poll).
struct GeneratedCase {
    var yaml: String
    var settings: EngineSettings
    var polls: [(at: Date, events: [JSONRuleEvent])]
    /// The first poll's learning instant (`alertOnlyAfter`), when the case starts with one.
    var learnUntil: Date?
    /// Every version of every sign-in in the order Graph published them, as an export holds
    /// them: for one replay-like pass.
    var fileEvents: [JSONRuleEvent]

    static let start = Date(timeIntervalSince1970: 1_714_557_600)  // 2024-05-01T10:00:00Z

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var rules = RuleWriter(random: random)
        yaml = rules.write()
        random = rules.random
        settings = EngineSettings(lookback: [2.0, 6, 24].randomElement(using: &random)! * 3600,
                                  idMemory: [1.0, 3, 31].randomElement(using: &random)! * 86_400,
                                  maxStoredEvents: Bool.random(using: &random) ? 200_000 : 40,
                                  maxKnownValues: Bool.random(using: &random) ? 5_000 : 2)
        var history = SignInHistory(random: random)
        history.generate()
        random = history.random
        let versions = history.versions
        let last = versions.map(\.published).max() ?? GeneratedCase.start
        var polls: [(at: Date, events: [JSONRuleEvent])] = []
        var now = GeneratedCase.start.addingTimeInterval(Double(Int.random(in: 10...120, using: &random)) * 60)
        let step = Double(Int.random(in: 20...240, using: &random)) * 60
        while now < last.addingTimeInterval(step) {
            // A sweep re-reads everything published; a poll reads back the lookback.
            let sweep = Int.random(in: 0..<8, using: &random) == 0
            var latest: [String: SignInHistory.Version] = [:]
            for version in versions where version.published <= now && (sweep || version.event.eventTime > now.addingTimeInterval(-settings.lookback)) {
                latest[version.event.eventID] = version
            }
            var events = latest.values.map(\.event)
            if let repeated = events.randomElement(using: &random), Bool.random(using: &random) { events.append(repeated) }
            events.shuffle(using: &random)
            polls.append((now, events))
            now = now.addingTimeInterval(step * Double(Int.random(in: 1...3, using: &random)) / 2)
        }
        self.polls = polls
        learnUntil = Int.random(in: 0..<3, using: &random) == 0 ? polls.first.map { $0.at.addingTimeInterval(-1800) } : nil
        fileEvents = versions.sorted { $0.published < $1.published }.map(\.event)
    }
}

/// Writes a random rule set: detections over every modifier, and correlations of every type
/// (chains among them) over those detections.
struct RuleWriter {
    var random: SeededGenerator
    private var documents: [String] = []
    private var detections: [String] = []
    /// Whether searches may be keyword lists: rules with one read every string of a sign-in,
    /// which the engine then does not read into slots.
    private let keywords: Bool

    init(random: SeededGenerator) {
        self.random = random
        keywords = Int.random(in: 0..<4, using: &self.random) == 0
    }

    private mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }
    private mutating func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }

    static let texts: [(path: String, values: [String])] = [
        ("status.errorCode", ["0", "50126", "50053", "500121", "'50126'", "50126.0", "'500121'", "'0'"]),
        ("appDisplayName", ["'Outlook'", "'Office 365 Exchange'", "'Microsoft Teams'", "'Azure Portal'", "'ÖBB App'"]),
        ("clientAppUsed", ["'Browser'", "'Mobile Apps and Desktop clients'", "'Exchange ActiveSync'", "'Other clients'"]),
        ("location.countryOrRegion", ["'GB'", "'FR'", "'JP'", "'us'"]),
        ("deviceDetail.browser", ["'Edge 120.0.1'", "'Chrome 125.0.0'", "'Safari'", "'Firefox 115 ESR'"]),
        ("deviceDetail.operatingSystem", ["'Windows 10'", "'Ios 17.4.1'", "'Android 14'", "'MacOs'"]),
        ("riskLevelDuringSignIn", ["'none'", "'low'", "'high'"]),
        ("status.additionalDetails", ["'MFA denied; user declined the authentication'", "'MFA completed in Azure AD'", "'*denied*'"]),
        ("riskEventTypes_v2", ["'unfamiliarFeatures'", "'anonymizedIPAddress'", "'[]'"]),
        ("isInteractive", ["true", "false"]),
        ("ipAddress", ["'203.0.113.9'", "'198.51.100.7'", "'2001:db8::1'"]),
        ("appliedConditionalAccessPolicies", ["'*\"result\":\"failure\"*'", "'*Require MFA*'"]),
        // Fields of an array of objects: any element's value.
        ("appliedConditionalAccessPolicies.result", ["'failure'", "'success'", "'notApplied'"]),
        ("appliedConditionalAccessPolicies.displayName", ["'Require MFA'", "'Block legacy'", "'require*'"]),
    ]
    static let fragments = ["'out'", "'Off'", "'portal'", "'ams'", "'mfa'", "'DENIED'", "'Edge'", "'1'", "'0'", "'os'", "'*'", "'?'", "'O*k'", "'T?ams'", "'\\*'"]

    /// One `field|modifiers: value(s)` line (or lines) of a selection, indented by `pad`.
    private mutating func entry(_ pad: String) -> String {
        let (path, values) = pick(RuleWriter.texts)
        func list(_ items: [String]) -> String { "\n" + items.map { "\(pad)    - \($0)" }.joined(separator: "\n") }
        switch Int.random(in: 0..<13, using: &random) {
        case 0, 1: return "\(pad)\(path): \(pick(values))"
        case 2: return "\(pad)\(path):" + list((0..<Int.random(in: 1...3, using: &random)).map { _ in pick(values) })
        case 3:
            // Long lists of exact values take the set path of the fast matcher.
            let all = RuleWriter.texts.flatMap(\.values).filter { !$0.contains("*") } + ["'50053'", "'500121'", "'0'"]
            return "\(pad)\(path):" + list((0..<Int.random(in: 8...12, using: &random)).map { _ in Bool.random(using: &random) ? pick(values) : pick(all) })
        case 4:
            let modifier = pick(["contains", "startswith", "endswith"]) + (chance(3) ? "|cased" : "")
            if chance(2) { return "\(pad)\(path)|\(modifier)|all:" + list([pick(RuleWriter.fragments), pick(RuleWriter.fragments)]) }
            return "\(pad)\(path)|\(modifier): \(pick(RuleWriter.fragments))"
        case 5: return "\(pad)\(path): \(pick(["'Out*'", "'*ams'", "'Microsoft T?ams'", "'*'", "'o*k'", "'*1*'", "'5012?'"]))"
        case 6: return "\(pad)\(path)|re\(chance(2) ? "|i" : ""): \(pick(["'^Out'", "'teams'", "'[0-9]{5}'", "'denied'", "'^$'"]))"
        case 7: return "\(pad)ipAddress|cidr: \(pick(["'203.0.113.0/24'", "'198.51.0.0/16'", "'2001:db8::/32'"]))"
        case 8: return "\(pad)status.errorCode|\(pick(["gt", "gte", "lt", "lte"])): \(pick(["0", "50053", "50126", "'500000'"]))"
        case 9: return "\(pad)\(path)|exists: \(pick(["true", "false"]))"
        case 10: return "\(pad)\(path): null"
        case 11: return "\(pad)\(path)|neq: \(pick(values))"
        default: return "\(pad)appDisplayName|fieldref\(pick(["", "|contains", "|startswith", "|endswith"])): resourceDisplayName"
        }
    }

    /// A search: a map of entries, a list of maps, or (rarely) keywords.
    private mutating func search() -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            // A list of maps: any of them.
            return "\n" + (0..<2).map { _ in map(Int.random(in: 1...2, using: &random), "          ") }.map { "        - " + $0.dropFirst(10) }.joined(separator: "\n")
        case 1 where keywords:
            return "\n" + [pick(["'Outlook'", "'denied'", "'GB'", "'*Teams*'"]), pick(["'50126'", "'Safari'"])].map { "        - \($0)" }.joined(separator: "\n")
        default:
            return "\n" + map(Int.random(in: 1...3, using: &random), "        ")
        }
    }

    /// Up to `count` entries of one map, each field once.
    private mutating func map(_ count: Int, _ pad: String) -> String {
        var entries: [String] = []
        for _ in 0..<count {
            let made = entry(pad)
            let key = made.prefix { $0 != ":" }
            if !entries.contains(where: { $0.prefix { $0 != ":" } == key }) { entries.append(made) }
        }
        return entries.joined(separator: "\n")
    }

    private mutating func detection(_ n: Int) {
        let name = "d\(n)"
        detections.append(name)
        let condition = pick(["sel1", "sel1 and not filter", "sel1 or sel2", "1 of sel*", "all of sel*", "all of them", "not filter",
                              "(sel1 or sel2) and not filter", "2 of them", "sel1 and sel2"])
        var options = ""
        if chance(3) { options += "\n    suppress: \(pick(["10m", "1h", "6h"]))" }
        if chance(3) { options += "\n    group-by:\n        - \(pick(["userId", "ipAddress", "appDisplayName"]))" }
        if chance(5) { options += "\n    level: critical" }
        documents.append("""
        title: Detection \(n)
        id: \(name)
        name: \(name)
        logsource:
            product: azure
            service: signinlogs
        detection:
            sel1:\(search())
            sel2:\(search())
            filter:\(search())
            condition: \(condition)
        level: \(pick(["low", "medium", "high"]))
        """ + (options.isEmpty ? "" : "\ntophhie:" + options))
    }

    private mutating func correlation(_ n: Int, chained: String?) -> String {
        let name = "c\(n)"
        let first = pick(detections), second = pick(detections)
        let groupBy = pick([["userId"], ["userId", "ipAddress"], ["ipAddress"], ["userPrincipalName"]])
        func groups(_ names: [String]) -> String { names.map { "\n        - \($0)" }.joined() }
        var body: String
        switch chained == nil ? Int.random(in: 0..<6, using: &random) : 3 {
        case 0:
            body = """
                type: event_count
                rules:\(groups(chance(2) ? [first] : [first, second]))
                group-by:\(groups(groupBy))
                timespan: \(pick(["5m", "20m", "1h", "6h"]))
                condition:
                    \(pick(["gte: 2", "gte: 3", "gt: 1", "gte: 2\n        lte: 4", "eq: 2"]))
            """
        case 1:
            body = """
                type: value_count
                rules:\(groups([first]))
                group-by:\(groups(["userId"]))
                timespan: \(pick(["20m", "1h", "6h"]))
                condition:
                    field: \(pick(["ipAddress", "appDisplayName", "location.countryOrRegion"]))
                    gte: 2
            """
        case 2:
            body = """
                type: temporal
                rules:\(groups([first, second == first ? pick(detections) : second]))
                group-by:\(groups(groupBy))
                timespan: \(pick(["10m", "1h", "6h"]))
            """
        case 3:
            body = """
                type: temporal_ordered
                rules:\(groups([chained ?? first, second]))
                group-by:\(groups(groupBy))
                timespan: \(pick(["20m", "1h", "3h"]))
            """
        case 4:
            let fields = pick([["location.countryOrRegion"], ["deviceDetail.operatingSystem", "deviceDetail.browser"], ["appDisplayName"]])
            let referenced = chance(2) ? [first] : [first, second]
            // Learning that alerts on a value never seen, one level lower, a day into the history.
            let whileLearning = chance(2) ? "\n        alert: lower" : ""
            body = """
                type: first_seen
                rules:\(groups(referenced))
                group-by:\(groups([groupBy[0]]))
                fields:\(groups(fields))
                learning:
                    period: \(pick(["0s", "5m", "1h", "1d", "2d"]))
                    events: \(Int.random(in: 0...3, using: &random))\(whileLearning)
                forget: \(pick(["6h", "2d", "30d"]))
            """
            if chance(2) { body += "\n    ignore-versions: true" }
            if chance(3) { body += "\n    alert-on:\(groups([first]))" }
            if chance(3) { body += "\n    refresh-only:\(groups([referenced.last!]))" }
        default:
            let travelRules = chance(2) ? [first] : [first, second]
            body = """
                type: impossible_travel
                rules:\(groups(travelRules))
                group-by:\(groups([groupBy[0]]))
                timespan: \(pick(["6h", "24h"]))
                max-speed-kmh: \(pick(["900", "300"]))
                min-distance-km: \(pick(["100", "500"]))
                familiar-after-days: \(Int.random(in: 0...2, using: &random))
            """
            if travelRules.count > 1 { body += "\n    familiar-from:\(groups([second]))" }
        }
        if chance(4) { body += "\n    generate: true" }
        var document = """
        title: Correlation \(n)
        id: \(name)
        name: \(name)
        correlation:
        \(body)
        level: high
        """
        if chance(2) { document += "\ntophhie:\n    suppress: \(pick(["0s", "30m", "2h"]))" }
        documents.append(document)
        return name
    }

    mutating func write() -> String {
        for n in 1...Int.random(in: 2...5, using: &random) { detection(n) }
        var last: String?
        for n in 1...Int.random(in: 1...4, using: &random) {
            let name = correlation(n, chained: nil)
            // A chain: a later temporal_ordered over an earlier counting correlation.
            if chance(3), documents.last?.contains("event_count") == true { last = name }
        }
        if let last { _ = correlation(9, chained: last) }
        return documents.joined(separator: "\n---\n")
    }
}

/// Random sign-ins of two people over a few days: bursts of failures, successes, travel,
/// devices, each published a little (or, now and then, a long while) after it happened, some
/// published again with other content.
struct SignInHistory {
    struct Version {
        var event: JSONRuleEvent
        var published: Date
    }

    var random: SeededGenerator
    var versions: [Version] = []

    init(random: SeededGenerator) { self.random = random }

    private mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &random)! }

    static let places: [(city: String?, country: String?, latitude: Double?, longitude: Double?)] = [
        ("London", "GB", 51.5074, -0.1278), ("Paris", "FR", 48.8566, 2.3522), ("Tokyo", "JP", 35.6762, 139.6503),
        ("New York", "US", 40.7128, -74.006), ("Sydney", "AU", -33.8688, 151.2093),
        // The same spot under another name, a spot without a name, a name without a spot.
        ("Slough", "GB", 51.5074, -0.1278), (nil, nil, 52.52, 13.405), ("Reading", "GB", nil, nil),
        ("Lyon", "fr", 45.764, 4.8357), ("Bad", "XX", 125.16, 10),
        // Entra's unknown location: latitude 0, longitude 0, no country.
        ("", "", 0, 0),
    ]

    private mutating func errorCode() -> JSONValue {
        switch Int.random(in: 0..<12, using: &random) {
        case 0...4: return .int(0)
        case 5, 6: return .int(50126)
        case 7: return .int(50053)
        case 8: return .int(500121)
        case 9: return .string("50126")
        case 10: return .double(50126)
        default: return .null
        }
    }

    /// One sign-in's JSON at `time`.
    private mutating func signIn(_ id: String, at time: Date, user: String, ip: String, place: Int, code: JSONValue) -> JSONValue {
        let where_ = SignInHistory.places[place]
        var location: [String: JSONValue] = [:]
        if let city = where_.city { location["city"] = .string(city) }
        if let country = where_.country { location["countryOrRegion"] = .string(country) }
        if let latitude = where_.latitude, let longitude = where_.longitude {
            location["geoCoordinates"] = .object(["latitude": .double(latitude), "longitude": .double(longitude)])
        } else if Bool.random(using: &random) {
            location["geoCoordinates"] = .object([:])
        }
        let app = pick(["Outlook", "Office 365 Exchange", "Microsoft Teams", "Azure Portal", "ÖBB App"])
        var object: [String: JSONValue] = [
            "id": .string(id), "createdDateTime": .string(GraphTimestamp.graphText(time)),
            "userId": .string(user), "userPrincipalName": .string(user == "u1" ? "Alice@contoso.com" : (Bool.random(using: &random) ? "bob@contoso.com" : "BOB@contoso.com")),
            "ipAddress": .string(ip), "appDisplayName": .string(app),
            "resourceDisplayName": .string(pick([app, "Microsoft Graph", String(app.prefix(3))])),
            "clientAppUsed": .string(pick(["Browser", "Mobile Apps and Desktop clients", "Exchange ActiveSync"])),
            "isInteractive": .bool(Bool.random(using: &random)),
            "status": .object(["errorCode": code, "additionalDetails": .string(pick(["MFA denied; user declined the authentication", "MFA completed in Azure AD", ""]))]),
            "location": .object(location),
            "deviceDetail": .object([
                "browser": .string(pick(["Edge 120.0.1", "Edge 121.0.2", "Chrome 125.0.0", "Safari", "Firefox 115 ESR"])),
                "operatingSystem": .string(pick(["Windows 10", "Windows 11", "Ios 17.4.1", "Android 14", "MacOs"])),
            ]),
            "riskEventTypes_v2": .array(Bool.random(using: &random) ? [] : [.string(pick(["unfamiliarFeatures", "anonymizedIPAddress"]))]),
            "appliedConditionalAccessPolicies": .array((0..<Int.random(in: 0...3, using: &random)).map { _ in
                .object(["displayName": .string(pick(["Require MFA", "Block legacy"])), "result": .string(pick(["success", "failure", "notApplied"]))])
            }),
        ]
        if Int.random(in: 0..<6, using: &random) == 0 { object["riskLevelDuringSignIn"] = .string(pick(["none", "low", "high"])) }
        if Int.random(in: 0..<10, using: &random) == 0 { object["appDisplayName"] = .null }
        return .object(object)
    }

    mutating func generate() {
        var clock = GeneratedCase.start
        var n = 0
        let ips = ["203.0.113.9", "198.51.100.7", "2001:db8::1", "10.1.2.3"]
        for _ in 0..<Int.random(in: 15...45, using: &random) {
            clock = clock.addingTimeInterval(Double(Int.random(in: 0...60, using: &random)) * 300)
            let user = pick(["u1", "u1", "u2"]), ip = pick(ips), place = Int.random(in: 0..<SignInHistory.places.count, using: &random)
            // A burst: failures (and maybe a success) from one address within minutes.
            let size = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 2...7, using: &random) : 1
            var time = clock
            for k in 0..<size {
                n += 1
                let id = "e\(String(format: "%03d", n))"
                let code: JSONValue = size > 1 && k < size - 1 ? .int(pick([50126, 50126, 50053])) : errorCode()
                let json = signIn(id, at: time, user: user, ip: ip, place: size > 1 ? place : Int.random(in: 0..<SignInHistory.places.count, using: &random), code: code)
                // Mostly within minutes; now and then a day or two later (past a short lookback).
                let delay = Int.random(in: 0..<10, using: &random) == 0 ? Double(Int.random(in: 3...60, using: &random)) * 3600 : Double(Int.random(in: 0...15, using: &random)) * 60
                add(json, id: id, time: time, published: time.addingTimeInterval(delay))
                // Graph publishes some sign-ins again: MFA aggregated, a location filled in, a risk raised.
                if Int.random(in: 0..<8, using: &random) == 0, case .object(var changed) = json {
                    changed["status"] = .object(["errorCode": errorCode(), "additionalDetails": .string("MFA completed in Azure AD")])
                    if Bool.random(using: &random) { changed["riskLevelDuringSignIn"] = .string("high") }
                    add(.object(changed), id: id, time: time, published: time.addingTimeInterval(delay + Double(Int.random(in: 1...600, using: &random)) * 60))
                }
                // Now and then two sign-ins in the same second, or exactly a timespan apart (a
                // window's edges are where an off-by-one shows).
                time = time.addingTimeInterval(Bool.random(using: &random) ? pick([0, 60, 300, 600, 1200, 3600, 10800]) : Double(Int.random(in: 1...240, using: &random)))
            }
        }
    }

    private mutating func add(_ json: JSONValue, id: String, time: Date, published: Date) {
        versions.append(Version(event: JSONRuleEvent(eventID: id, eventTime: time, json: json), published: published))
    }
}
