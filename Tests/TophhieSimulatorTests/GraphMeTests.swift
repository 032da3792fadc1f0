import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

@Suite("Graph /me", .timeLimit(.minutes(20)))
struct GraphMeTests {
    @Test func bearerTokenIsRequiredAndChecked() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let missing = try await h.graph("/v1.0/me", token: nil)
            #expect(missing.status == 401)
            #expect(missing.errorCode == "InvalidAuthenticationToken")
            #expect(missing.json?.value(atPath: "error.message")?.stringValue == "Access token is empty.")
            #expect(missing.json?.value(atPath: "error.innerError.request-id")?.stringValue?.isEmpty == false)
            #expect(missing.json?.value(atPath: "error.innerError.date")?.stringValue?.isEmpty == false)

            let unknown = try await h.graph("/v1.0/me", token: "not-a-token")
            #expect(unknown.status == 401)
            #expect(unknown.errorCode == "InvalidAuthenticationToken")

            let token = try await h.signIn().access
            #expect(try await h.graph("/v1.0/me", token: token).status == 200)
            h.clock.advance(by: 3600)
            let expired = try await h.graph("/v1.0/me", token: token)
            #expect(expired.status == 401)
            #expect(expired.json?.value(atPath: "error.message")?.stringValue == "Lifetime validation failed, the token is expired.")
        }
    }

    @Test func defaultPropertySetWithoutSelect() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let reply = try await h.graph("/v1.0/me", token: try await h.signIn().access)
            guard case .object(let body)? = reply.json else {
                Issue.record("not an object: \(reply.text)")
                return
            }
            #expect(Set(body.keys) == Set(["@odata.context", "businessPhones", "displayName", "givenName", "id", "jobTitle", "mail", "mobilePhone", "officeLocation", "preferredLanguage", "surname", "userPrincipalName"]))
            #expect(body["@odata.context"]?.stringValue == "\(h.endpoints.graphBaseURL.absoluteString)/$metadata#users/$entity")
            #expect(body["id"]?.stringValue == Fixture.userID)
            #expect(body["businessPhones"] == .array([]))
            #expect(body["mobilePhone"] == .null)
            // city exists on the user but is not in the default set.
            #expect(body["city"] == nil)
        }
    }

    @Test func selectReturnsOnlyTheNamedProperties() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let token = try await h.signIn().access
            let reply = try await h.graph("/v1.0/me?$select=id,displayName,city,postalCode", token: token)
            #expect(reply.status == 200)
            #expect(reply.json == .object([
                "@odata.context": .string("\(h.endpoints.graphBaseURL.absoluteString)/$metadata#users(id,displayName,city,postalCode)/$entity"),
                "id": .string(Fixture.userID), "displayName": .string("Jane Doe"), "city": .string("London"), "postalCode": .null,
            ]))
            let unknown = try await h.graph("/v1.0/me?$select=id,favouriteColour", token: token)
            #expect(unknown.status == 400)
            #expect(unknown.errorCode == "Request_BadRequest")
        }
    }

    @Test func readingNeedsUserRead() async throws {
        try await withTenant(Fixture.scenario()) { h in
            let token = try await h.signIn(scope: "AuditLog.Read.All").access
            let reply = try await h.graph("/v1.0/me", token: token)
            #expect(reply.status == 403)
            #expect(reply.errorCode == "Authorization_RequestDenied")
        }
    }

    @Test func consumerCanEditWithUserReadWriteAndNullClears() async throws {
        try await withTenant(Fixture.scenario(kind: .consumer)) { h in
            let token = try await h.signIn(scope: "User.Read User.ReadWrite").access
            let body = Data(#"{"givenName":"Janet","city":null,"country":"GB","preferredLanguage":"fr-FR"}"#.utf8)
            let reply = try await h.graph("PATCH", "/v1.0/me", token: token, body: body)
            #expect(reply.status == 204)
            #expect(reply.data.isEmpty)
            #expect(await h.tenant.patchBodies == [body])
            let after = try await h.graph("/v1.0/me?$select=givenName,city,country,preferredLanguage,surname", token: token)
            #expect(after.json?["givenName"]?.stringValue == "Janet")
            #expect(after.json?["city"] == .null)
            #expect(after.json?["country"]?.stringValue == "GB")
            #expect(after.json?["preferredLanguage"]?.stringValue == "fr-FR")
            #expect(after.json?["surname"]?.stringValue == "Doe")
        }
    }

    @Test func memberNeedsDirectoryAccessAsUser() async throws {
        try await withTenant(Fixture.scenario(kind: .member)) { h in
            let limited = try await h.signIn(scope: "User.Read User.ReadWrite").access
            let denied = try await h.graph("PATCH", "/v1.0/me", token: limited, body: Data(#"{"city":"Leeds"}"#.utf8))
            #expect(denied.status == 403)
            #expect(denied.errorCode == "Authorization_RequestDenied")
            #expect(denied.json?.value(atPath: "error.message")?.stringValue == "Insufficient privileges to complete the operation.")
            #expect(await h.tenant.userProperties["city"] == .string("London"))

            let full = try await h.signIn(scope: "User.Read User.ReadWrite Directory.AccessAsUser.All").access
            #expect(try await h.graph("PATCH", "/v1.0/me", token: full, body: Data(#"{"city":"Leeds"}"#.utf8)).status == 204)
            #expect(await h.tenant.userProperties["city"] == .string("Leeds"))
        }
    }

    @Test(arguments: [
        (#"{"displayName":null}"#, 400, "Request_BadRequest"),
        (#"{"displayName":""}"#, 400, "Request_BadRequest"),
        (#"{"city":""}"#, 400, "Request_BadRequest"),
        (#"{"city":42}"#, 400, "Request_BadRequest"),
        (#"{"preferredLanguage":"not a tag"}"#, 400, "Request_BadRequest"),
        (#"{"favouriteColour":"blue"}"#, 400, "Request_BadRequest"),
        (#"{"mobilePhone":"+44 20 7946 0000"}"#, 403, "Authorization_RequestDenied"),
        (#"[1,2]"#, 400, "BadRequest"),
        (#"{"city":"#, 400, "BadRequest"),
    ])
    func patchRules(body: String, status: Int, code: String) async throws {
        try await withTenant(Fixture.scenario(kind: .consumer)) { h in
            let token = try await h.signIn(scope: "User.Read User.ReadWrite").access
            let reply = try await h.graph("PATCH", "/v1.0/me", token: token, body: Data(body.utf8))
            #expect(reply.status == status)
            #expect(reply.errorCode == code)
            #expect(await h.tenant.patchBodies == [Data(body.utf8)])
            #expect(await h.tenant.userProperties["displayName"] == .string("Jane Doe"))
        }
    }

    @Test func patchNeedsUserReadWrite() async throws {
        try await withTenant(Fixture.scenario(kind: .consumer)) { h in
            let token = try await h.signIn(scope: "User.Read").access
            let reply = try await h.graph("PATCH", "/v1.0/me", token: token, body: Data(#"{"city":"Leeds"}"#.utf8))
            #expect(reply.status == 403)
            #expect(reply.errorCode == "Authorization_RequestDenied")
        }
    }
}
