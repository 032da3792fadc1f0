import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

/// One tenant, several people (issue 49): each signs in as themselves, reads their own sign-ins,
/// and is revoked alone.
@Suite("Several people in one tenant", .timeLimit(.minutes(20)))
struct PeopleTests {
    static let scope = "User.Read User.ReadWrite AuditLog.Read.All User.RevokeSessions.All offline_access openid profile"

    static func threePeople(script: [DeviceCodeSettings.Step] = [.approve], throttle: ThrottleSettings = ThrottleSettings()) -> SimulatorScenario {
        Fixture.scenario(consented: ["User.Read", "User.ReadWrite", "AuditLog.Read.All", "User.RevokeSessions.All"], script: script, throttle: throttle)
            .servingPeople(3)
    }

    func me(_ h: Harness, _ token: String) async throws -> String? {
        try await h.graph("/v1.0/me", token: token).json?["userPrincipalName"]?.stringValue
    }

    func control(_ h: Harness, _ path: String, _ body: String? = nil) async throws -> Harness.Reply {
        try await h.send("POST", h.endpoints.controlURL.appendingPathComponent(path), body: body.map { Data($0.utf8) })
    }

    @Test func peopleHaveTheirOwnIDHomeAndHistory() async throws {
        let base = Fixture.scenario()
        #expect(base.servingPeople(1) == base)
        let scenario = base.servingPeople(3)
        #expect(scenario.everyone.map(\.user.userPrincipalName) == ["person1@contoso.com", "person2@contoso.com", "person3@contoso.com"])
        #expect(scenario.everyone.map(\.user.id) == [Fixture.userID, "5e1f0000-0000-4000-8000-000000000002", "5e1f0000-0000-4000-8000-000000000003"])
        #expect(scenario.everyone.map(\.home.city) == ["London", "New York", "Paris"])
        #expect(scenario.people.map { $0.generate.map(\.seed) } == [[1007], [2007]])
        #expect(Set(scenario.everyone.map(\.user.displayName)).count == 3)

        try await withTenant(scenario) { h in
            let people = try await h.send("GET", h.endpoints.controlURL.appendingPathComponent("people"))
            #expect(people.json?.value(atPath: "value.1.home") == .string("New York, US"))
            #expect(people.json?.value(atPath: "value.2.userPrincipalName") == .string("person3@contoso.com"))
            #expect(people.json?.value(atPath: "value.2.signedIn") == .bool(false))
        }
    }

    @Test func eachLoginSignsInTheNextPersonWhoseTokenReadsTheirOwnSignIns() async throws {
        try await withTenant(Self.threePeople()) { h in
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try await h.signIn(scope: Self.scope).access) }
            #expect(try await me(h, tokens[0]) == "person1@contoso.com")
            #expect(try await me(h, tokens[1]) == "person2@contoso.com")
            #expect(try await me(h, tokens[2]) == "person3@contoso.com")

            let person2 = SimulatorScenario.personID(2)
            let own = try await h.signIns(filter: "userId eq '\(person2)'", token: tokens[1], version: "beta")
            guard case .array(let events)? = own.json?["value"], !events.isEmpty else {
                Issue.record("person 2 read no sign-ins: \(own.text)")
                return
            }
            #expect(events.allSatisfy { $0["userId"]?.stringValue == person2 })
            #expect(events.allSatisfy { $0.value(atPath: "location.city")?.stringValue == "New York" })

            // Person 2's token asking for person 1's sign-ins: what Graph gives a role-less user.
            let other = try await h.signIns(filter: h.selfFilter(), token: tokens[1])
            #expect(other.status == 403)
            #expect(other.errorCode == "Authentication_RequestFromUnsupportedUserRole")
        }
    }

    @Test func anApprovalNamingAPersonSignsInThatPerson() async throws {
        try await withTenant(Self.threePeople(script: [])) { h in
            let issued = try #require(try await h.deviceCode(scope: Self.scope).json)
            let userCode = try #require(issued["user_code"]?.stringValue)
            let unknown = try await control(h, "device/approve", #"{"person":"nobody@contoso.com"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] == .string("no person 'nobody@contoso.com' in this tenant; GET /_sim/people lists them"))

            let approved = try await control(h, "device/approve", #"{"person":"PERSON3@contoso.com"}"#)
            #expect(approved.json == .object(["approved": .string(userCode), "person": .string("person3@contoso.com")]))
            let deviceCode = try #require(issued["device_code"]?.stringValue)
            let reply = try await h.poll(deviceCode)
            let access = try #require(reply.json?["access_token"]?.stringValue)
            #expect(try await me(h, access) == "person3@contoso.com")
            let idToken = try #require(reply.json?["id_token"]?.stringValue)
            let claims = try #require(idToken.split(separator: ".").dropFirst().first)
            let padded = String(claims).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                .padding(toLength: (claims.count + 3) / 4 * 4, withPad: "=", startingAt: 0)
            let decoded = try #require(Data(base64Encoded: padded))
            #expect(try JSONValue.parse(decoded)["oid"] == .string(SimulatorScenario.personID(3)))

            let none = try await control(h, "device/approve", #"{"person":"person2@contoso.com"}"#)
            #expect(none.status == 404)
            #expect(none.json?["error"] == .string("no pending device code to approve"))

            // Today's approval, by user code alone, signs in the first person not signed in.
            let second = try #require(try await h.deviceCode(scope: Self.scope).json)
            let secondCode = try #require(second["user_code"]?.stringValue)
            let secondDevice = try #require(second["device_code"]?.stringValue)
            let plain = try await control(h, "device/approve", #"{"userCode":"\#(secondCode)"}"#)
            #expect(plain.json?["person"] == nil)
            let redeemed = try await h.poll(secondDevice)
            let token = try #require(redeemed.json?["access_token"]?.stringValue)
            #expect(try await me(h, token) == "person1@contoso.com")
        }
    }

    @Test func theSignInPageApprovesAsTheNamedPerson() async throws {
        try await withTenant(Self.threePeople(script: [])) { h in
            let issued = try #require(try await h.deviceCode(scope: Self.scope).json)
            let userCode = try #require(issued["user_code"]?.stringValue)
            let deviceCode = try #require(issued["device_code"]?.stringValue)
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            #expect(try await h.send("GET", h.endpoints.verificationURL).text.contains(#"<input name="person""#))
            let unknown = try await h.send("POST", h.endpoints.verificationURL, headers: form, body: Data("user_code=\(userCode)&person=zed%40contoso.com&action=approve".utf8))
            #expect(unknown.text.contains("<strong>no person 'zed@contoso.com' in this tenant; GET /_sim/people lists them</strong>"))
            let approved = try await h.send("POST", h.endpoints.verificationURL, headers: form, body: Data("user_code=\(userCode)&person=person2%40contoso.com&action=approve".utf8))
            #expect(approved.text.contains("Approved."))
            let token = try #require(try await h.poll(deviceCode).json?["access_token"]?.stringValue)
            #expect(try await me(h, token) == "person2@contoso.com")
        }
    }

    @Test func revokingOnePersonLeavesTheOthersSignedIn() async throws {
        try await withTenant(Self.threePeople()) { h in
            var signIns: [(access: String, refresh: String?)] = []
            for _ in 0..<3 { signIns.append(try await h.signIn(scope: Self.scope)) }
            let refresh = try signIns.map { try #require($0.refresh) }

            let revoked = try await control(h, "tokens/revoke", #"{"person":"person2@contoso.com"}"#)
            #expect(revoked.json == .object(["person": .string("person2@contoso.com"), "revoked": .int(1)]))
            #expect(try await h.refresh(refresh[1]).json?["error_codes"] == .array([.int(50173)]))
            #expect(try await h.refresh(refresh[0]).status == 200)
            #expect(try await h.refresh(refresh[2]).status == 200)
            let unknown = try await control(h, "tokens/revoke", #"{"person":"5e1f0000-0000-4000-8000-000000000009"}"#)
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] == .string("no person '5e1f0000-0000-4000-8000-000000000009' in this tenant; GET /_sim/people lists them"))

            // The next login is the revoked person's, the one without a session.
            let again = try await h.signIn(scope: Self.scope)
            #expect(try await me(h, again.access) == "person2@contoso.com")

            // Person 3 revoking their own sessions through Graph ends theirs alone.
            let own = try await h.graph("POST", "/v1.0/me/revokeSignInSessions", token: signIns[2].access, body: nil)
            #expect(own.status == 200)
            let againRefresh = try #require(again.refresh)
            #expect(try await h.refresh(againRefresh).status == 200)
            let people = await h.tenant.everyone
            #expect(people[2].profile["signInSessionsValidFromDateTime"] != nil)
            #expect(people[0].profile["signInSessionsValidFromDateTime"] == nil)
            #expect(await h.tenant.signedInPeople == [Fixture.userID, SimulatorScenario.personID(2)])
        }
    }

    @Test func signInsArePostedForAnyPersonByUserID() async throws {
        try await withTenant(Self.threePeople()) { h in
            _ = try await h.signIn(scope: Self.scope)
            let token = try await h.signIn(scope: Self.scope).access
            let person2 = SimulatorScenario.personID(2)
            let event = #"{"id":"attack-1","createdDateTime":"2026-03-10T11:59:00Z","userId":"\#(person2)","status":{"errorCode":0},"isInteractive":true}"#
            #expect(try await control(h, "signins", "[\(event)]").json?["added"] == .int(1))
            let read = try await h.signIns(filter: "userId eq '\(person2)' and createdDateTime ge 2026-03-10T11:58:00Z", token: token)
            #expect(read.json?.value(atPath: "value.0.id") == .string("attack-1"))

            let stranger = try await control(h, "signins", #"[{"id":"s-1","createdDateTime":"2026-03-10T11:59:00Z","userId":"\#(Fixture.otherUserID)"}]"#)
            #expect(stranger.status == 400)
            #expect(stranger.json?["error"] == .string("sign-in 's-1' has userId '\(Fixture.otherUserID)', which is no person in this tenant; GET /_sim/people lists them"))
            let nobody = try await control(h, "signins", #"[{"id":"s-2","createdDateTime":"2026-03-10T11:59:00Z"}]"#)
            #expect(nobody.status == 400)
            #expect(nobody.json?["error"] == .string("sign-in 's-2' has no userId; give the id of one of the tenant's people (GET /_sim/people)"))
        }
    }

    /// Graph's budget is per app per tenant: everyone's requests count against the same five.
    @Test func theGraphLimitIsSharedByEveryoneAndItsRefusalsAreCounted() async throws {
        try await withTenant(Self.threePeople(throttle: ThrottleSettings(enabled: true))) { h in
            let first = try await h.signIn(scope: Self.scope).access
            let second = try await h.signIn(scope: Self.scope).access
            let person2 = "userId eq '\(SimulatorScenario.personID(2))'"
            for _ in 0..<3 { #expect(try await h.signIns(filter: h.selfFilter(), token: first).status == 200) }
            for _ in 0..<2 { #expect(try await h.signIns(filter: person2, token: second).status == 200) }
            h.clock.advance(by: 4)
            let refused = try await h.signIns(filter: person2, token: second)
            #expect(refused.status == 429)
            #expect(refused.headers["retry-after"] == "6")
            #expect(await h.tenant.graphLimitRefusals == 1)
            let status = try await h.send("GET", h.endpoints.controlURL.appendingPathComponent("status"))
            #expect(status.json?.value(atPath: "graphLimit.enforced") == .bool(true))
            #expect(status.json?.value(atPath: "graphLimit.refused") == .int(1))
            #expect(status.json?.value(atPath: "graphLimit.requests") == .int(5))
            h.clock.advance(by: 6)
            #expect(try await h.signIns(filter: person2, token: second).status == 200)
        }
        try await withTenant(Self.threePeople()) { h in
            let token = try await h.signIn(scope: Self.scope).access
            for _ in 0..<8 { #expect(try await h.signIns(filter: h.selfFilter(), token: token).status == 200) }
            let status = try await h.send("GET", h.endpoints.controlURL.appendingPathComponent("status"))
            #expect(status.json?.value(atPath: "graphLimit.enforced") == .bool(false))
            #expect(status.json?.value(atPath: "graphLimit.refused") == .int(0))
        }
    }

    @Test func aScenarioFileListsPeople() throws {
        let json = #"""
        {"tenantId":"8f2d5c1e-3b4a-4c6d-9e8f-0a1b2c3d4e5f","clientId":"5c3b2a19-8d7e-4f60-a1b2-c3d4e5f60718",
         "user":{"id":"26be570a-ae82-4189-b4e2-a37c6808512d","userPrincipalName":"jane@contoso.com"},
         "people":[{"user":{"id":"5e1f0000-0000-4000-8000-000000000002","userPrincipalName":"sam@contoso.com","displayName":"Sam"},
                    "home":"tokyo","generate":[{"pattern":"normalHistory","seed":3,"days":2}]}]}
        """#
        let scenario = try SimulatorScenario.decode(Data(json.utf8), file: "s.json")
        #expect(scenario.everyone.map(\.user.userPrincipalName) == ["jane@contoso.com", "sam@contoso.com"])
        #expect(scenario.people.first?.home == .tokyo)
        #expect(scenario.people.first?.generate.first?.days == 2)
    }

    /// The household example: three people of their own, each reading only their own history.
    @Test func theHouseholdExampleServesThreePeople() async throws {
        var scenario = try SimulatorScenario.load(from: ScenarioTests.repoRoot.appendingPathComponent("examples/scenarios/household.json"))
        #expect(scenario.everyone.map(\.user.userPrincipalName) == ["jane@contoso.com", "sam@contoso.com", "grandad@contoso.com"])
        // The file approves after 3 s of its clock; this one stands still, so approve at once.
        scenario.deviceCode = DeviceCodeSettings(script: [.approve])
        try await withTenant(scenario) { h in
            var cities: [Set<String>] = []
            for person in scenario.everyone {
                let token = try await h.signIn(scope: "User.Read AuditLog.Read.All offline_access").access
                let reply = try await h.signIns(filter: "userId eq '\(person.user.id)'", token: token, version: "beta")
                guard case .array(let events)? = reply.json?["value"] else {
                    Issue.record("\(person.user.userPrincipalName) read nothing: \(reply.text)")
                    return
                }
                cities.append(Set(events.compactMap { $0.value(atPath: "location.city")?.stringValue }))
            }
            #expect(cities == [["London"], ["Paris"], ["Dublin"]])
        }
    }
}
