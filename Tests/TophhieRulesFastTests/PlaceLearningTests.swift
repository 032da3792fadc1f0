import Foundation
import Testing
import TophhieJSON
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

/// The default pack's place rules are never silent while they learn, in both evaluators: a
/// new account's first days (issue 43's "fourteen silent days").
@Suite struct PlaceLearningTests {
    static func pack() throws -> RuleSet {
        RuleLoader.load(try RuleSource.read(paths: [RepoPaths.root.appendingPathComponent("rules").path]), placeholders: .testing)
    }

    /// Daily London sign-ins that passed MFA for `days` days, then, an hour apart, the right
    /// password stopped by MFA, a token used and a password-only success, all from Lagos.
    static func timeline(days: Int) throws -> [any RuleEvent] {
        var events: [any RuleEvent] = (0...days).map { day in
            SignIn.at(Double(day) * 1440, id: "home\(day)", [
                "isInteractive": .bool(true), "status": .object(["errorCode": .int(0)]),
                "authenticationRequirement": .string("multiFactorAuthentication"),
                "location": .object(["city": .string("London"), "countryOrRegion": .string("GB")]),
            ])
        }
        let lagos: JSONValue = .object(["city": .string("Lagos"), "countryOrRegion": .string("NG")])
        let at = Double(days) * 1440 + 60
        events.append(SignIn.at(at, id: "password", ["isInteractive": .bool(true), "status": .object(["errorCode": .int(50074)]), "location": lagos]))
        events.append(SignIn.at(at + 60, id: "token", ["isInteractive": .bool(false), "status": .object(["errorCode": .int(0)]), "location": lagos]))
        events.append(SignIn.at(at + 120, id: "single", [
            "isInteractive": .bool(true), "status": .object(["errorCode": .int(0)]),
            "authenticationRequirement": .string("singleFactorAuthentication"), "location": lagos,
        ]))
        return events
    }

    @Test(arguments: [1, 2, 7, 13], EngineChoice.allCases)
    func nigeriaIsToldOnEveryDayOfLearningMarkedAndOneLevelLower(days: Int, choice: EngineChoice) throws {
        let evaluator = choice.evaluator(rules: try Self.pack())
        let outcome = evaluator.evaluate(EngineState(), events: try Self.timeline(days: days), now: time(Double(days + 1) * 1440), alertOnlyAfter: nil)
        let byRule = Dictionary(grouping: outcome.alerts) { (alert: Alert) in alert.rule.id }
        // Learning ends at the later of 5 days and 10 of the person's own successes.
        let learning = days < 9
        let expected: [(rule: String, event: String, level: AlertLevel)] = [
            ("first-factor-new-place", "password", .high), ("token-from-new-place", "token", .high),
            ("single-factor-from-new-place", "single", .high), ("new-country", "single", .medium),
        ]
        for (rule, event, level) in expected {
            let alert = try #require(byRule[rule]?.first, "\(rule) after \(days) days, \(choice)")
            #expect(alert.events.map { $0.id } == [event])
            #expect(alert.learning == (learning ? true : nil), "\(rule) after \(days) days")
            #expect(alert.level == (learning ? AlertLevel.allCases[AlertLevel.allCases.firstIndex(of: level)! - 1] : level), "\(rule) after \(days) days")
            #expect(AlertJSON.line(alert).contains("\"learning\":true") == learning)
        }
    }
}
