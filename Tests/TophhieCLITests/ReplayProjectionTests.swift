import Foundation
import Testing
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieCLI

/// Replay builds only the parts of each sign-in the rules read; the default pack must fire
/// exactly the same alerts as over the fully parsed events.
@Suite(.timeLimit(.minutes(2))) struct ReplayProjectionTests {
    @Test func thePackFiresTheSameAlertsOverProjectedAndFullEvents() throws {
        var factory = SignInFactory(seed: 11, account: .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane"))
        let start = Date(timeIntervalSince1970: 1_788_000_000)
        var events: [JSONValue] = []
        for hour in 0..<(24 * 20) where hour % 5 == 0 {
            events.append(factory.signIn(at: start.addingTimeInterval(Double(hour) * 3600), place: .london, device: hour % 3 == 0 ? .phone : .laptop))
        }
        let burstStart = start.addingTimeInterval(20 * 86_400)
        for i in 0..<8 { events.append(factory.signIn(at: burstStart.addingTimeInterval(Double(i) * 30), place: .lagos, device: .unknownLinux, errorCode: 50126)) }
        events.append(factory.signIn(at: burstStart.addingTimeInterval(300), place: .lagos, device: .unknownLinux))
        events.append(factory.signIn(at: burstStart.addingTimeInterval(1800), place: .sydney, app: .legacyIMAP))
        let page = JSONValue.object(["value": .array(events)]).canonicalData()

        let rules = RuleLoader.load(try RuleSource.read(paths: [ConventionTests.repoRules]))
        let engine = Engine(rules: rules)
        #expect(!engine.eventProjection.whole, "the default pack reads named fields only")
        func alerts(_ input: ReplayInput) -> [String] {
            var state = EngineState()
            var ids: [String] = []
            for poll in input.polls {
                let outcome = engine.evaluate(state, events: poll.events, now: poll.at)
                state = outcome.state
                ids += outcome.alerts.map { "\($0.rule.id) \($0.id) \($0.summary)" }
            }
            return ids
        }
        let full = alerts(try ReplayInput(data: page))
        let projected = alerts(try ReplayInput(data: page, keeping: engine.eventProjection))
        #expect(full.count >= 3, "\(full)")
        #expect(projected == full)
    }
}
