import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// The agent's own token is watched on its own: by country (`agent-token-elsewhere`, the pack's
/// tests) and by network (`agent-token-elsewhere/network`, here).
@Suite(.timeLimit(.minutes(20))) struct AgentTokenTests {
    static func use(_ minutes: Double, _ id: String, asn: Int64, ip: String, country: String = "DE") -> JSONRuleEvent {
        SignIn.at(minutes, id: id, [
            "appId": .string("00000000-0000-4000-8000-0000000c11d0"), "isInteractive": .bool(false), "status": .object(["errorCode": .int(0)]),
            "ipAddress": .string(ip), "autonomousSystemNumber": .int(asn), "location": .object(["countryOrRegion": .string(country)]),
        ])
    }

    @Test func anotherNetworkInTheSameCountryIsSomeoneElseANewAddressInTheHostsIsNot() throws {
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules]), placeholders: .testing)
        let engine = PlainEvaluator(rules: rules)
        let events = [
            Self.use(0, "host", asn: 64500, ip: "203.0.113.9"),
            Self.use(60, "new-address", asn: 64500, ip: "203.0.113.77"),
            Self.use(90, "thief", asn: 24940, ip: "198.51.100.4"),
            Self.use(120, "host-again", asn: 64500, ip: "203.0.113.77"),
        ]
        let (_, alerts) = engine.process(EngineState(), events: events, now: time(180))
        let network = alerts.filter { $0.rule.id == "agent-token-elsewhere/network" }
        #expect(network.map { $0.events.map(\.id) } == [["thief"]])
        #expect(network.first?.level == .high)
        #expect(alerts.filter { $0.rule.id == "agent-token-elsewhere" }.isEmpty, "one country: \(alerts.map(\.summary))")
        // No place rule counts the agent's sign-ins as the person's.
        #expect(alerts.allSatisfy { $0.rule.id.hasPrefix("agent-token-elsewhere") }, "\(alerts.map(\.rule.id))")
    }
}
