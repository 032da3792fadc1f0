import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

@Suite("SimulatorScenario loading", .timeLimit(.minutes(20)))
struct ScenarioTests {
    static let repoRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()

    @Test func basicScenarioLoadsAndServesAWeek() async throws {
        let scenario = try SimulatorScenario.load(from: Self.repoRoot.appendingPathComponent("examples/scenarios/basic.json"))
        #expect(scenario.premium)
        #expect(scenario.retentionDays == 30)
        #expect(scenario.user.kind == .member)
        #expect(scenario.clock?.start == GraphTimestamp.parse("2026-03-10T12:00:00Z"))
        #expect(scenario.signIns.count == 1)
        #expect(scenario.signIns[0].latencySeconds == 300)
        #expect(scenario.signIns[0].event["latencySeconds"] == nil)

        let clock = SimulatorClock.manual(at: try #require(scenario.clock?.start))
        let tenant = SimulatedTenant(scenario: scenario, clock: clock)
        let harness = await Harness.embedded(tenant, clock: clock)
        let endpoints = harness.endpoints
        #expect(endpoints.authority.absoluteString == "http://127.0.0.1:\(endpoints.port)/\(scenario.tenantID)")
        #expect(endpoints.graphBaseURL.absoluteString == "http://127.0.0.1:\(endpoints.port)/v1.0")

        // The script says pending once, then approval comes 10 s after issue.
        let code = try #require(try await harness.deviceCode(scope: "User.Read AuditLog.Read.All offline_access").json?["device_code"]?.stringValue)
        #expect(try await harness.poll(code).json?["error"]?.stringValue == "authorization_pending")
        #expect(try await harness.poll(code).json?["error"]?.stringValue == "authorization_pending")
        clock.advance(by: 10)
        let token = try #require(try await harness.poll(code).json?["access_token"]?.stringValue)

        let since = clock.now().addingTimeInterval(-8 * 86_400)
        let filter = "userId eq '\(scenario.user.id)' and createdDateTime ge \(GraphTimestamp.filterText(since))"
        let reply = try await harness.signIns(filter: filter, token: token)
        #expect(reply.status == 200)
        guard case .array(let events)? = reply.json?["value"] else {
            Issue.record("no events: \(reply.text)")
            return
        }
        #expect(events.count >= 14)
        let times = events.compactMap { $0["createdDateTime"]?.stringValue.flatMap(GraphTimestamp.parse) }
        #expect(times.count == events.count)
        #expect(times == times.sorted(by: >))
        #expect(events.contains { $0["id"]?.stringValue == "66ea54eb-6301-4ee5-be62-ff5a759b0100" })
    }

    @Test(arguments: [
        (#"{"clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"}}"#,
         "s.json: missing required key 'tenantId'"),
        (#"{"tenantId":"nope","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"}}"#,
         "s.json: tenantId: tenantId 'nope' is not a GUID"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","premum":true,"user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"}}"#,
         "s.json: premum: unknown key 'premum' in scenario; expected one of: betaRefusalStatus, clientId, clock, consentedScopes, defaultLatencySeconds, deviceCode, faults, generate, hasReportingRole, licenceRefusalEveryWithoutDirectoryRead, nonInteractiveFilterRefused, people, premium, retentionDays, signIns, tenantAliases, tenantId, throttle, tokens, user"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","premium":"yes","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"}}"#,
         "s.json: premium: expected true or false"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b","kind":"admin"}}"#,
         "s.json: user.kind: Cannot initialize Kind from invalid String value admin"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"signIns":[{"id":"x","createdDateTime":"2026-03-10"}]}"#,
         "s.json: signIns[0]: a sign-in needs 'createdDateTime' as ISO-8601 text, e.g. 2026-03-10T12:00:00.1234567Z"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"faults":[{"pathPrefix":"/v1.0","kind":"status"}]}"#,
         "s.json: faults[0].status: a 'status' fault needs a status between 400 and 599"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"generate":[{"pattern":"failureBurst","place":"atlantis"}]}"#,
         "s.json: generate[0].place: unknown place 'atlantis'; known: amsterdam, berlin, dublin, lagos, london, madrid, manchester, moscow, newYork, paris, saoPaulo, singapore, stockholm, sydney, tokyo, toronto"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"people":[{"user":{"id":"5e1f0000-0000-4000-8000-000000000002","userPrincipalName":"c@b"},"home":"atlantis"}]}"#,
         "s.json: people[0].home: unknown place 'atlantis'; known: amsterdam, berlin, dublin, lagos, london, madrid, manchester, moscow, newYork, paris, saoPaulo, singapore, stockholm, sydney, tokyo, toronto"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"people":[{"user":{"id":"26BE570A-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"c@b"}}]}"#,
         "s.json: people: two people have the id '26BE570A-ae82-4189-b4e2-a37c6808512d'"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"people":[{"user":{"id":"5e1f0000-0000-4000-8000-000000000002","userPrincipalName":"A@B"}}]}"#,
         "s.json: people: two people have the userPrincipalName 'A@B'"),
        (#"{"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718","user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"a@b"},"people":[{"user":{"id":"5e1f0000-0000-4000-8000-000000000002","userPrincipalName":"c@b"},"hom":"paris"}]}"#,
         "s.json: people[0].hom: unknown key 'hom' in person; expected one of: generate, home, user"),
        (#"{"tenantId": "#, "s.json: not valid JSON"),
    ])
    func badScenariosSayWhatIsWrong(json: String, message: String) {
        do {
            _ = try SimulatorScenario.decode(Data(json.utf8), file: "s.json")
            Issue.record("decoded without error")
        } catch let error as SimulatorScenarioError {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func missingFileIsAClearError() {
        #expect(throws: SimulatorScenarioError.self) {
            try SimulatorScenario.load(from: URL(fileURLWithPath: "/nonexistent/scenario.json"))
        }
    }

    @Test func scenarioRoundTripsThroughJSON() throws {
        var scenario = Fixture.scenario(faults: [FaultRule(pathPrefix: "/v1.0", kind: .throttle, retryAfter: "2.5")])
        scenario.tokens.revokeRefreshTokensAt = GraphTimestamp.parse("2026-03-11T00:00:00Z")
        var factory = Fixture.factory
        scenario.signIns = [ScenarioSignIn(event: factory.signIn(at: Fixture.start), latencySeconds: 60)]
        let data = try JSONEncoder().encode(scenario)
        #expect(try SimulatorScenario.decode(data) == scenario)
    }
}
