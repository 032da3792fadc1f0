import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieSimulator
@testable import TophhieAgent

/// Entra's unknown location (latitude 0, longitude 0, no country) is counted on the poll's line
/// and is no place to the rules: a London sign-in and an AD FS record half an hour later make no
/// travel.
@Suite(.timeLimit(.minutes(20))) struct UnknownLocationPollTests {
    static let travelRules = """
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
        timespan: 24h
        max-speed-kmh: 900
        min-distance-km: 500
    """

    @Test func theUnknownLocationIsCountedOnThePollLineAndMakesNoTravel() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle(rules: Self.travelRules)
            // A first poll learns the (empty) history.
            _ = try await cycle.run(now: harness.clock.now())
            let now = harness.clock.now()
            let london = harness.factory.signIn(at: now.addingTimeInterval(-3600), place: .london)
            guard case .object(var adfs) = harness.factory.signIn(at: now.addingTimeInterval(-1800), place: .london) else { Issue.record("not a record"); return }
            adfs["location"] = .object(["city": .string(""), "state": .string(""), "countryOrRegion": .string(""),
                                        "geoCoordinates": .object(["latitude": .int(0), "longitude": .int(0)])])
            await harness.tenant.addSignIns([london, .object(adfs)], latencySeconds: 0)
            let report = try await cycle.run(now: now.addingTimeInterval(300))
            #expect(report.outcome == .succeeded)
            #expect(report.unknownLocations == 1)
            #expect(report.summary.contains("1 with an unknown location (no place to the rules)"), "\(report.summary)")
            #expect(report.alerts.filter { $0.rule.id == "travel" }.isEmpty, "\(report.alerts.map(\.summary))")
        }
    }
}
