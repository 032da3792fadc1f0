import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// First-seen rules on the same fields share an event's value key (`EnginePlan.firstSeenKeySource`):
/// each still tells its own value, whether the rules on the same fields come one after the
/// other or a rule on other fields comes between them.
@Suite struct FirstSeenKeyTests {
    static func rule(_ id: String, _ field: String) -> String {
        """
        title: First \(id)
        id: \(id)
        correlation:
            type: first_seen
            rules: [ok]
            group-by: [userId]
            fields: [\(field)]
            learning: {period: 0s, events: 0}
        """
    }

    static let success = """
        title: Success
        id: ok
        name: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        """

    @Test(arguments: [["a", "c", "b"], ["a", "b", "c"]])
    func eachRuleTellsItsOwnValue(_ order: [String]) throws {
        let fields = ["a": "location.countryOrRegion", "b": "deviceDetail.operatingSystem", "c": "location.countryOrRegion"]
        let text = ([Self.success] + order.map { Self.rule($0, fields[$0]!) }).joined(separator: "\n---\n")
        let rules = loadRules(text)
        #expect(!rules.hasErrors, "\(rules.diagnostics)")
        let engine = Engine(rules: rules)
        #expect(engine.plan.firstSeenKeySource.filter { $0 >= 0 }.count == 3)
        let event = SignIn.at(0, id: "s1", ["location": .object(["countryOrRegion": .string("GB")]),
                                           "deviceDetail": .object(["operatingSystem": .string("Windows 10")])])
        let alerts = engine.evaluate(EngineState(), events: [event], now: time(1)).alerts
        let summaries = Dictionary(uniqueKeysWithValues: alerts.map { ($0.rule.id, $0.summary) })
        #expect(summaries["a"] == "first location.countryOrRegion 'GB'")
        #expect(summaries["b"] == "first deviceDetail.operatingSystem 'Windows 10'")
        #expect(summaries["c"] == "first location.countryOrRegion 'GB'")
        #expect(alerts.count == 3)
    }
}
