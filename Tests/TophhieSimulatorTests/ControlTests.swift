import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

@Suite("Control endpoints and lifecycle", .timeLimit(.minutes(20)))
struct ControlTests {
    @Test func signInsAddedOverHTTPAppearAfterTheirLatency() async throws {
        try await withTenant(Fixture.scenario()) { h in
            var factory = Fixture.factory
            let event = factory.signIn(at: Fixture.start.addingTimeInterval(-60))
            guard case .object(var members) = event else { return }
            members["latencySeconds"] = .int(120)
            let add = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("signins"), body: JSONValue.array([.object(members)]).canonicalData())
            #expect(add.status == 200)
            #expect(add.json?["added"] == .int(1))
            let token = try await h.signIn().access
            #expect(try await h.signIns(filter: h.selfFilter(), token: token, version: "beta").json?["value"] == .array([]))
            let clockReply = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("clock"), body: Data(#"{"advanceSeconds":61}"#.utf8))
            #expect(clockReply.status == 200)
            #expect(try await h.signIns(filter: h.selfFilter(), token: token, version: "beta").json?["value"] == .array([event]))

            let bad = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("signins"), body: Data(#"[{"id":"x"}]"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.json?["error"]?.stringValue?.contains("createdDateTime") == true)
        }
    }

    @Test func requestLogAndPatchBodiesAreReadable() async throws {
        try await withTenant(Fixture.scenario(kind: .consumer)) { h in
            let token = try await h.signIn(scope: "User.Read User.ReadWrite").access
            _ = try await h.graph("PATCH", "/v1.0/me", token: token, body: Data(#"{"city":"Leeds"}"#.utf8))
            let log = try await h.send("GET", h.endpoints.controlURL.appendingPathComponent("requests"))
            guard case .array(let entries)? = log.json?["value"] else {
                Issue.record("no log: \(log.text)")
                return
            }
            #expect(entries.map { $0["path"]?.stringValue ?? "" }.suffix(1) == ["/v1.0/me"])
            #expect(entries.last?["status"] == .int(204))
            #expect(!log.text.contains(token))
            #expect(log.text.contains("[redacted]"))
            let patches = try await h.send("GET", h.endpoints.controlURL.appendingPathComponent("patches"))
            #expect(patches.json?["value"] == .array([.string(#"{"city":"Leeds"}"#)]))
            // Device codes and refresh tokens travel in form bodies, which are not logged.
            let all = await h.tenant.requests
            #expect(all.allSatisfy { $0.path.hasPrefix("/\(Fixture.tenantID)/") || $0.path.hasPrefix("/v1.0/") })
            #expect(try await h.send("DELETE", h.endpoints.controlURL.appendingPathComponent("requests")).status == 204)
            #expect(await h.tenant.requests.isEmpty)
        }
    }

    @Test func revokeAndFaultsOverHTTP() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let refresh = try #require(try await h.signIn().refresh)
            let revoke = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("tokens/revoke"))
            #expect(revoke.json?["revoked"] == .int(1))
            #expect(try await h.refresh(refresh).json?["error_codes"] == .array([.int(50173)]))

            let fault = try await h.send("POST", h.endpoints.controlURL.appendingPathComponent("faults"), body: Data(#"{"pathPrefix":"/v1.0/me","kind":"status","status":502}"#.utf8))
            #expect(fault.status == 200)
            let token = try await h.signIn().access
            #expect(try await h.graph("/v1.0/me", token: token).status == 502)
            #expect(try await h.graph("/v1.0/me", token: token).status == 200)
        }
    }

    @Test func hostDrivenClockCannotBeMovedFromOutside() async throws {
        let tenant = SimulatedTenant(scenario: Fixture.scenario(), now: { Fixture.start })
        let harness = await Harness.embedded(tenant)
        let reply = try await harness.send("POST", harness.endpoints.controlURL.appendingPathComponent("clock"), body: Data(#"{"advanceSeconds":5}"#.utf8))
        #expect(reply.status == 409)
        await #expect(throws: SimulatorControlError(message: "the clock is driven by the host; advance it there")) { try await tenant.advanceClock(by: 5) }
    }

    @Test func deviceLoginPageApprovesByCode() async throws {
        try await withTenant(Fixture.scenario(script: [])) { h in
            let issued = try #require(try await h.deviceCode(scope: "User.Read").json)
            let userCode = try #require(issued["user_code"]?.stringValue)
            let page = try await h.send("GET", h.endpoints.verificationURL)
            #expect(page.status == 200)
            #expect(page.text.contains("<form method=\"post\" action=\"/devicelogin\">"))
            let approved = try await h.send("POST", h.endpoints.verificationURL, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                            body: Data("user_code=\(userCode)&action=approve".utf8))
            #expect(approved.text.contains("Approved."))
            #expect(try await h.poll(try #require(issued["device_code"]?.stringValue)).status == 200)
        }
    }

    @Test func ownClockStartsWhereTheScenarioSays() async throws {
        var scenario = Fixture.scenario()
        scenario.clock = ClockSettings(start: Fixture.start, speed: 0)
        let tenant = SimulatedTenant(scenario: scenario)
        let harness = await Harness.embedded(tenant)
        let moved = try await harness.send("POST", harness.endpoints.controlURL.appendingPathComponent("clock"), body: Data(#"{"set":"2026-04-01T00:00:00Z"}"#.utf8))
        #expect(moved.json?["now"]?.stringValue == "2026-04-01T00:00:00.0000000Z")
        try await tenant.advanceClock(by: 60)
        #expect(tenant.clock?.now() == GraphTimestamp.parse("2026-04-01T00:01:00Z"))
    }
}
