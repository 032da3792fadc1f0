import Foundation
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

/// Microsoft's published beta sign-in records (`Tests/Contracts/beta`, sources in its README):
/// the client reads every one, and the simulator serves each back through the client unchanged,
/// in the stream its own fields name. Both are held to Microsoft's shapes: `geoCoordinates: {}`,
/// nulls, repeated names, seven-digit fractions.
@Suite(.timeLimit(.minutes(20))) struct BetaContractTests {
    static func records(_ file: String) throws -> [JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Contracts/beta").appendingPathComponent(file)
        guard case .array(let items)? = try JSONValue.parse(Data(contentsOf: url))["value"] else { return [] }
        return items
    }

    static let files: [(String, [SignInStream])] = [
        ("signin-list-example-1.json", [.interactive]),
        ("signin-list-example-3-non-interactive.json", [.nonInteractive]),
        ("device-code-redemptions.json", [.nonInteractive, .nonInteractive]),
    ]

    @Test(arguments: files)
    func everyPublishedRecordIsReadAndServedBackInItsStream(_ file: String, _ streams: [SignInStream]) async throws {
        let records = try Self.records(file)
        #expect(records.count == streams.count)
        let events = try records.map(TophhieSignInEvent.init(json:))
        #expect(events.map(\.stream) == streams)
        let userID = try #require(records.first?["userId"]?.stringValue)
        let newest = try #require(events.map(\.createdDateTime).max())
        var scenario = TenantHarness.scenario()
        scenario.user = SimulatedUser(id: userID, userPrincipalName: "admin@contoso.com", kind: .member)
        scenario.signIns = records.map { ScenarioSignIn(event: $0) }
        try await TenantHarness.with(scenario, at: newest.addingTimeInterval(3600)) { base in
            var harness = base
            harness.api = .beta
            try await harness.signIn([TophhieScopes.userRead, TophhieScopes.auditLogRead])
            let fetch = try await harness.auth().fetchSignIns(since: newest.addingTimeInterval(-86_400))
            #expect(fetch.fallback == nil && fetch.api == .beta)
            #expect(fetch.skipped.isEmpty, "\(fetch.skipped)")
            let byID = Dictionary(uniqueKeysWithValues: fetch.events.map { ($0.id, $0) })
            for (record, stream) in zip(records, streams) {
                let id = try #require(record["id"]?.stringValue)
                let read = try #require(byID[id], "\(id) read back")
                #expect(read.json == record, "\(id) unchanged")
                #expect(read.stream == stream)
            }
            #expect(fetch.events.count == records.count)
        }
    }

    /// The example's location has `geoCoordinates: {}` and its status `failureReason: "Other."`
    /// with a success: read as no coordinates and a success, not refused.
    @Test func anEmptyCoordinateObjectAndASuccessWithAReasonAreRead() throws {
        let event = try TophhieSignInEvent(json: try #require(try Self.records("signin-list-example-3-non-interactive.json").first))
        #expect(event.wasSuccessful)
        #expect(event.location?.geoCoordinates?.latitude == nil)
        #expect(event.locationText == "Mombasa, KE")
        #expect(event.isInteractive == false)
    }
}
