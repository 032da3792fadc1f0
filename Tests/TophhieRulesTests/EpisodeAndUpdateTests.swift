import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// Re-published sign-ins, bursts that arrive out of order, and suppression per group.
@Suite(.timeLimit(.minutes(20))) struct EpisodeAndUpdateTests {
    static let packRules = """
    title: Risky
    id: risky
    logsource: {product: azure, service: signinlogs}
    detection:
        selection: {riskLevelAggregated: [medium, high]}
        condition: selection
    tophhie: {suppress: 1h}
    ---
    title: Failed
    id: failed
    name: failed
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType: 50126}, condition: selection}
    ---
    title: Burst
    id: burst
    correlation:
        type: event_count
        rules: [failed]
        group-by: [userId]
        timespan: 10m
        condition: {gte: 5}
    tophhie: {suppress: 30m}
    ---
    title: Located success
    id: located
    name: located
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType: 0}, condition: selection}
    ---
    title: Travel
    id: travel
    correlation:
        type: impossible_travel
        rules: [located]
        group-by: [userId]
        timespan: 12h
        max-speed-kmh: 900
        min-distance-km: 500
    """

    var engine: PlainEvaluator {
        let rules = loadRules(EpisodeAndUpdateTests.packRules)
        return PlainEvaluator(rules: rules)
    }

    static func risky(_ minutes: Double, id: String, risk: String, ip: String = "203.0.113.9", extra: [String: JSONValue] = [:]) -> JSONRuleEvent {
        var fields: [String: JSONValue] = ["riskLevelAggregated": .string(risk), "ipAddress": .string(ip)]
        for (k, v) in extra { fields[k] = v }
        return SignIn.at(minutes, id: id, fields)
    }

    @Test func theRulesLoad() {
        #expect(!loadRules(EpisodeAndUpdateTests.packRules).hasErrors, "\(loadRules(EpisodeAndUpdateTests.packRules).diagnostics)")
    }

    @Test func aRiskRaisedLaterByAnOfflineDetectionAlertsOnceWhenItArrives() {
        var state = EngineState()
        var fired: [[String]] = []
        // Poll 1: the sign-in as first published, no risk. Poll 2: Graph re-publishes it with
        // the risk raised. Poll 3: the same update again. Poll 4: a further change (city filled in).
        let versions = [
            EpisodeAndUpdateTests.risky(0, id: "s1", risk: "none"),
            EpisodeAndUpdateTests.risky(0, id: "s1", risk: "high"),
            EpisodeAndUpdateTests.risky(0, id: "s1", risk: "high"),
            EpisodeAndUpdateTests.risky(0, id: "s1", risk: "high", extra: ["location": .object(["city": .string("Porto")])]),
        ]
        for (poll, version) in versions.enumerated() {
            let (next, alerts) = engine.process(state, events: [version], now: time(Double(poll) * 120 + 5))
            state = next
            fired += alerts.filter { $0.rule.id == "risky" }.map { $0.events.map(\.id) }
        }
        #expect(fired == [["s1"]])
    }

    @Test func anUpdateThatStillMatchesDoesNotAlertTwiceEvenWithoutSuppression() {
        let rules = loadRules("""
        title: Risky
        id: risky
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {riskLevelAggregated: high}, condition: selection}
        """)
        let engine = PlainEvaluator(rules: rules)
        let (state, first) = engine.process(EngineState(), events: [EpisodeAndUpdateTests.risky(0, id: "s1", risk: "high")], now: time(5))
        let changed = EpisodeAndUpdateTests.risky(0, id: "s1", risk: "high", extra: ["mfaDetail": .object(["authMethod": .string("PhoneAppNotification")])])
        let (_, second) = engine.process(state, events: [changed], now: time(125))
        #expect(first.count == 1 && second.isEmpty)
    }

    @Test func aLocationFilledInLaterFeedsImpossibleTravel() {
        func located(_ minutes: Double, _ id: String, _ lat: Double?, _ lon: Double?) -> JSONRuleEvent {
            var location: [String: JSONValue] = [:]
            if let lat, let lon { location["geoCoordinates"] = .object(["latitude": .double(lat), "longitude": .double(lon)]) }
            return SignIn.at(minutes, id: id, ["location": .object(location)])
        }
        var (state, alerts) = engine.process(EngineState(), events: [located(0, "lon", 51.5, -0.13), located(40, "syd", nil, nil)], now: time(45))
        #expect(alerts.isEmpty)
        (state, alerts) = engine.process(state, events: [located(0, "lon", 51.5, -0.13), located(40, "syd", -33.87, 151.21)], now: time(165))
        #expect(alerts.map(\.rule.id) == ["travel"])
        #expect(alerts.first?.events.map(\.id) == ["lon", "syd"])
    }

    @Test func theLaterHalfOfABurstArrivingFirstAndTheEarlierHalfHoursLaterAlertOnce() {
        let later = (20..<25).map { SignIn.failure(Double($0), id: "f\($0)") }
        let earlier = (10..<15).map { SignIn.failure(Double($0), id: "f\($0)") }
        let (state, first) = engine.process(EngineState(), events: later, now: time(26))
        let (_, second) = engine.process(state, events: earlier + later, now: time(200))
        #expect(first.map(\.rule.id) == ["burst"])
        #expect(second.filter { $0.rule.id == "burst" }.isEmpty)
    }

    @Test func aHundredFailuresInFiveMinutesAreOneAlertThatCountsEveryOne() throws {
        let failures = (0..<100).map { SignIn.failure(Double($0) * 0.05, id: String(format: "f%03d", $0)) }
        let (_, alerts) = engine.process(EngineState(), events: failures, now: time(6))
        let alert = try #require(alerts.first { $0.rule.id == "burst" })
        #expect(alerts.filter { $0.rule.id == "burst" }.count == 1)
        #expect(alert.eventCount == 100)
        #expect(alert.events.count == AlertFactory.maxShownEvents)
        #expect(alert.events.first?.id == "f000" && alert.events.last?.id == "f099")
        #expect(alert.firstEventTime == time(0) && alert.lastEventTime == time(99 * 0.05))
        #expect(alert.summary == "100 events over 4m (gte 5 within 10m)")
        #expect(AlertJSON.line(alert).contains("\"eventCount\":100"))
    }

    @Test func twoRiskySignInsFromDifferentAddressesFortyMinutesApartAreTwoAlerts() {
        let events = [
            EpisodeAndUpdateTests.risky(0, id: "r1", risk: "high", ip: "203.0.113.9"),
            EpisodeAndUpdateTests.risky(40, id: "r2", risk: "high", ip: "198.51.100.20"),
            EpisodeAndUpdateTests.risky(50, id: "r3", risk: "high", ip: "198.51.100.20"),
        ]
        let (_, alerts) = engine.process(EngineState(), events: events, now: time(60))
        // r3 shares r2's user and address inside the hour: the same story.
        #expect(alerts.filter { $0.rule.id == "risky" }.map { $0.events.map(\.id) } == [["r1"], ["r2"]])
        #expect(alerts.first?.group == [AlertGroupValue(field: "userId", value: "u1"), AlertGroupValue(field: "ipAddress", value: "203.0.113.9")])
    }

    @Test func aSingleEventRuleCanNameItsOwnSuppressionGroup() {
        let rules = loadRules("""
        title: Risky
        id: risky
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {riskLevelAggregated: high}, condition: selection}
        tophhie: {suppress: 1h, group-by: [userId]}
        """)
        #expect(!rules.hasErrors)
        let events = [
            EpisodeAndUpdateTests.risky(0, id: "r1", risk: "high", ip: "203.0.113.9"),
            EpisodeAndUpdateTests.risky(40, id: "r2", risk: "high", ip: "198.51.100.20"),
        ]
        let (_, alerts) = PlainEvaluator(rules: rules).process(EngineState(), events: events, now: time(60))
        #expect(alerts.map { $0.events.map(\.id) } == [["r1"]])
        #expect(alerts.first?.group == [AlertGroupValue(field: "userId", value: "u1")])
    }

    @Test func anEmptyGroupByIsRefusedWithItsLine() {
        let rules = loadRules("""
        title: Risky
        id: risky
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {riskLevelAggregated: high}, condition: selection}
        tophhie: {group-by: []}
        """)
        #expect(rules.diagnostics.map(\.message) == ["'tophhie.group-by' must name at least one field"])
    }

    @Test func aSingleEventArrivingBeforeAnAlertedOneInsideTheQuietPeriodJoinsIt() {
        let (state, first) = engine.process(EngineState(), events: [EpisodeAndUpdateTests.risky(60, id: "r2", risk: "high")], now: time(65))
        let (_, second) = engine.process(state, events: [EpisodeAndUpdateTests.risky(20, id: "r1", risk: "high")], now: time(185))
        #expect(first.count == 1 && second.isEmpty)
    }

    @Test func alertOnMustNameOneOfTheCorrelationsRules() {
        let rules = loadRules("""
        title: ok
        id: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        ---
        title: New
        id: new
        correlation:
            type: first_seen
            rules: [ok]
            alert-on: [mfa]
            group-by: [userId]
            fields: [location.countryOrRegion]
        """)
        #expect(rules.diagnostics.map(\.message) == ["'alert-on' names 'mfa', which is not in the correlation's 'rules'"])
    }

    @Test func theRevisionIgnoresKeyOrderAndSeesEveryChange() throws {
        let a = try SignIn.json(#"{"id":"x","status":{"errorCode":0,"failureReason":"Other."},"riskLevelAggregated":"none"}"#)
        let reordered = try SignIn.json(#"{"riskLevelAggregated":"none","status":{"failureReason":"Other.","errorCode":0},"id":"x"}"#)
        let changes = [
            #"{"id":"x","status":{"errorCode":0,"failureReason":"Other."},"riskLevelAggregated":"high"}"#,
            #"{"id":"x","status":{"errorCode":1,"failureReason":"Other."},"riskLevelAggregated":"none"}"#,
            #"{"id":"x","status":{"errorCode":0,"failureReason":"Other."},"riskLevelAggregated":"none","location":{}}"#,
            #"{"id":"x","status":{"errorCode":0},"failureReason":"Other.","riskLevelAggregated":"none"}"#,
            #"{"id":"x","status":{"errorCode":"0","failureReason":"Other."},"riskLevelAggregated":"none"}"#,
        ]
        #expect(JSONRuleEvent.revision(of: a) == JSONRuleEvent.revision(of: reordered))
        for text in changes {
            #expect(JSONRuleEvent.revision(of: try SignIn.json(text)) != JSONRuleEvent.revision(of: a), "\(text)")
        }
    }
}
