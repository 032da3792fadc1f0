import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

/// Sigma's `|expand`: a placeholder takes its values when the rule is read, and one with no
/// value stays its own text, so it matches nothing a sign-in carries.
@Suite struct PlaceholderTests {
    static let rule = """
    title: Device code, not ours
    id: dc
    logsource: {product: azure, service: signinlogs}
    detection:
        code:
            originalTransferMethod: deviceCodeFlow
        ours:
            appId|expand: '%tophhie_client_id%'
        condition: code and not ours
    level: high
    """

    static func fired(_ set: RuleSet, appID: String) throws -> Bool {
        let event = try SignInEvents.event(.object([
            "id": .string("e-\(appID)"), "createdDateTime": .string("2024-05-01T10:00:00Z"),
            "originalTransferMethod": .string("deviceCodeFlow"), "appId": .string(appID),
        ]))
        return !PlainMatching.matches(set, [event]).isEmpty
    }

    @Test func theAgentsClientIDIsFilledInAtLoad() throws {
        let ours = "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c"
        let set = RuleLoader.load([RuleSource(path: "dc.yml", text: Self.rule)], placeholders: .agent(clientID: ours))
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        #expect(try Self.fired(set, appID: ours) == false, "the agent's own login")
        #expect(try Self.fired(set, appID: "04b07795-8ddb-461a-bbee-02f9e1bf7b46"))
    }

    @Test func withoutAValueThePlaceholderMatchesNothing() throws {
        let set = RuleLoader.load([RuleSource(path: "dc.yml", text: Self.rule)])
        #expect(set.diagnostics.isEmpty, "a known placeholder with no value here is not a fault: \(set.diagnostics)")
        #expect(try Self.fired(set, appID: "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c"))
    }

    @Test func aPlaceholderOfSeveralValuesAndAnUnknownOneIsNamed() throws {
        let text = Self.rule.replacingOccurrences(of: "%tophhie_client_id%", with: "%our_apps%")
        let unknown = RuleLoader.load([RuleSource(path: "dc.yml", text: text)])
        #expect(unknown.diagnostics.map(\.description) == ["dc.yml:8:23: warning: placeholder '%our_apps%' has no value (known: %tophhie_client_id%); it matches only its own text"])
        let several = RuleLoader.load([RuleSource(path: "dc.yml", text: text)], placeholders: RulePlaceholders(["our_apps": ["a1", "a2"]]))
        #expect(try Self.fired(several, appID: "a2") == false)
        #expect(try Self.fired(several, appID: "a3"))
    }
}
