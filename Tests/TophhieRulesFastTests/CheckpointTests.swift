import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// A pass taking its events in event-time order with a checkpoint after every batch (what a
/// replay does, so its memory follows the windows) must give the alerts one evaluation of every
/// event gives, whatever the batches: bursts that straddle a checkpoint, episodes that grow past
/// one, chains, distinct values, an upper-bound condition, no suppression at all.
@Suite struct CheckpointTests {
    static let extraRules = """
    title: any failure
    id: x-fail
    name: x-fail
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType|gt: 0}, condition: selection}
    ---
    title: a success
    id: x-ok
    name: x-ok
    logsource: {product: azure, service: signinlogs}
    detection: {selection: {ResultType: 0}, condition: selection}
    ---
    title: many addresses failing
    id: x-spray
    correlation:
        type: value_count
        rules: [x-fail]
        group-by: [userId]
        timespan: 45m
        condition: {field: IPAddress, gte: 3}
    ---
    title: a failure and a success
    id: x-both
    correlation: {type: temporal, rules: [x-fail, x-ok], group-by: [userId], timespan: 7m}
    tophhie: {suppress: 0s}
    ---
    title: a success after many addresses
    id: x-chain
    correlation: {type: temporal_ordered, rules: [x-spray, x-ok], group-by: [userId], timespan: 2h}
    ---
    title: a lone failure
    id: x-lone
    correlation:
        type: event_count
        rules: [x-fail]
        group-by: [userId, IPAddress]
        timespan: 30m
        condition: {lt: 2}
    tophhie: {suppress: 0s}
    """

    /// Two people's sign-ins over a few days: quiet stretches, bursts of failures from a handful
    /// of addresses, successes between them. Deterministic for a seed.
    static func history(seed: UInt64, count: Int) -> [JSONRuleEvent] {
        var random = SeededGenerator(seed: seed)
        var minutes = 0.0
        var events: [JSONRuleEvent] = []
        // A burst: one person, one address, failed passwords a minute or so apart, sometimes
        // ended by a success; between bursts, ordinary sign-ins hours apart.
        var burstLeft = 0
        var user = "u1", address = "198.51.100.1"
        for n in 0..<count {
            if burstLeft == 0, Double.random(in: 0..<1, using: &random) < 0.15 {
                burstLeft = Int.random(in: 2...9, using: &random)
                user = Bool.random(using: &random) ? "u1" : "u2"
                address = "198.51.100.\(Int.random(in: 1...4, using: &random))"
            }
            let code: Int64
            if burstLeft > 0 {
                burstLeft -= 1
                minutes += Double(Int.random(in: 0...2, using: &random))
                code = burstLeft == 0 && Bool.random(using: &random) ? 0 : [50126, 50126, 50053, 500121, 53003][Int.random(in: 0..<5, using: &random)]
                if Double.random(in: 0..<1, using: &random) < 0.2 { address = "198.51.100.\(Int.random(in: 1...4, using: &random))" }
            } else {
                minutes += Double.random(in: 5...300, using: &random).rounded()
                user = Bool.random(using: &random) ? "u1" : "u2"
                address = "203.0.113.\(Int.random(in: 1...3, using: &random))"
                code = Double.random(in: 0..<1, using: &random) < 0.15 ? 50074 : 0
            }
            events.append(SignIn.at(minutes, id: String(format: "e%05d", n), [
                "userId": .string(user), "ipAddress": .string(address),
                "status": .object(["errorCode": .int(code)]),
                "appDisplayName": .string("Office"),
                "location": .object(["city": .string("Lisbon"), "countryOrRegion": .string(["PT", "GB", "NG"][Int.random(in: 0..<3, using: &random)]),
                                     "geoCoordinates": .object(["latitude": .double(38.7), "longitude": .double(-9.1)])]),
                "deviceDetail": .object(["operatingSystem": .string("Windows 10"), "browser": .string("Edge 120.0")]),
            ]))
        }
        return events
    }

    @Test(arguments: [1, 2, 5, 17, 64])
    func checkpointsAfterEveryBatchGiveTheAlertsOfOneEvaluation(_ batch: Int) throws {
        let pack = try RuleSource.read(paths: [RepoPaths.rules])
        let rules = RuleLoader.load(pack + [RuleSource(path: "extra.yml", text: Self.extraRules)])
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let engine = Engine(rules: rules)
        var compared = 0
        for seed in 1...6 {
            let events = Self.history(seed: UInt64(seed), count: 400).sorted { ($0.eventTime, $0.eventID) < ($1.eventTime, $1.eventID) }
            let now = events.last!.eventTime
            let whole = engine.evaluate(EngineState(), events: events, now: now)
            var pass = engine.beginPass(EngineState(), now: now)
            var start = 0
            while start < events.count {
                let slice = Array(events[start..<min(start + batch, events.count)])
                pass.add(slice)
                pass.checkpoint(slice.last!.eventTime)
                start += batch
            }
            let streamed = pass.finish()
            #expect(streamed.alerts.map(AlertJSON.line) == whole.alerts.map(AlertJSON.line), "seed \(seed)")
            compared += whole.alerts.count
            // What a checkpoint keeps: no stored event older than the windows can reach.
            #expect(streamed.state.recent.count < whole.state.recent.count || whole.state.recent.count < 20, "seed \(seed)")
        }
        let kinds = Set(try Self.allRuleIDs(engine: engine))
        #expect(compared > 40, "the histories must raise alerts for the comparison to mean anything")
        for id in ["x-both", "x-chain", "x-lone", "failure-burst", "success-after-failures", "mfa-fatigue"] {
            #expect(kinds.contains(id), "no '\(id)' alert in the histories: the comparison would not cover it")
        }
    }

    /// The rules the histories alert on, over every seed.
    static func allRuleIDs(engine: Engine) throws -> [String] {
        (1...6).flatMap { seed -> [String] in
            let events = history(seed: UInt64(seed), count: 400)
            return engine.evaluate(EngineState(), events: events, now: events.map(\.eventTime).max()!).alerts.map(\.rule.id)
        }
    }

    /// A pass takes its travel rules' places and familiar places out of the state while it
    /// runs: they come back; places a checkpoint empties leave no table, as before; another
    /// rule's tables stay as they were.
    @Test func travelTablesComeBackAndOthersStayAsTheyWere() throws {
        let engine = Engine(rules: loadRules(SampleRules.travel(timespan: "1h")))
        func at(_ minutes: Double, _ id: String) -> JSONRuleEvent { SignIn.located(minutes, id, city: "Lisbon", 38.7, -9.1) }
        var start = EngineState()
        let detail = AlertEvent(id: "g1", time: time(0), errorCode: nil, app: nil, ipAddress: nil, location: "Oslo", device: nil)
        start.places["gone"] = ["u9": [EngineState.Place(id: "g1", time: time(0), latitude: 59.9, longitude: 10.7, label: "Oslo", detail: detail)]]
        start.familiar = ["gone": ["u9": ["oslo": EngineState.FamiliarPlace(days: [1], lastSeen: time(0))]]]
        let (after, _) = engine.process(start, events: [at(10, "l1"), at(20, "l2")], now: time(25))
        #expect(after.places["gone"] == start.places["gone"] && after.familiar?["gone"] == start.familiar?["gone"])
        #expect(after.places["travel"]?["u1"]?.map(\.id) == ["l1", "l2"])
        #expect(after.familiar?["travel"]?["u1"]?.count == 1)
        // A pass whose checkpoint forgets every place of the rule (a day and the timespan on):
        // no table is left for it.
        var pass = engine.beginPass(after, now: time(30 * 60))
        pass.add([SignIn.at(30 * 60, id: "n1", [:])])
        pass.checkpoint(time(30 * 60))
        let later = pass.finish().state
        #expect(later.places["travel"] == nil)
        #expect(later.places["gone"] == start.places["gone"] && later.familiar?["gone"] == start.familiar?["gone"])
        // A state without familiar places gets them with its first located sign-in, as before.
        let (fresh, _) = engine.process(EngineState(), events: [at(0, "f1")], now: time(5))
        #expect(fresh.familiar?["travel"]?["u1"] != nil)
    }

}
