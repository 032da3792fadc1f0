import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

/// The two versions of the sign-in log: beta has both streams and beta's fields; v1.0 serves
/// the interactive stream in v1.0's properties only, as Microsoft's do.
@Suite("Sign-in streams and versions", .timeLimit(.minutes(20)))
struct SignInStreamTests {
    static func events() -> (interactive: JSONValue, refresh: JSONValue, redemption: JSONValue) {
        var factory = Fixture.factory
        let interactive = factory.signIn(at: Fixture.start.addingTimeInterval(-3600))
        let refresh = factory.signIn(at: Fixture.start.addingTimeInterval(-1800), app: .outlook, interactive: false)
        let redemption = factory.signIn(at: Fixture.start.addingTimeInterval(-600), place: .moscow, interactive: false, method: .deviceCodeRedemption)
        return (interactive, refresh, redemption)
    }

    static let nonInteractive = "signInEventTypes/any(t: t eq 'nonInteractiveUser')"

    @Test func betaServesTheInteractiveStreamUnlessTheNonInteractiveOneIsAskedFor() async throws {
        let (interactive, refresh, redemption) = Self.events()
        try await withTenant(Fixture.scenario(signIns: [interactive, refresh, redemption].map { ScenarioSignIn(event: $0) })) { h in
            let token = try await h.signIn().access
            #expect(try await h.signIns(filter: h.selfFilter(), token: token, version: "beta").json?["value"] == .array([interactive]))
            let other = try await h.signIns(filter: h.selfFilter() + " and " + Self.nonInteractive, token: token, version: "beta")
            #expect(other.status == 200)
            #expect(other.json?["value"] == .array([redemption, refresh]), "newest first, the redemption with its transfer method")
            #expect(redemption["originalTransferMethod"] == .string("deviceCodeFlow"))
            let link = other.json?["@odata.context"]?.stringValue ?? ""
            #expect(link.hasSuffix("/beta/$metadata#auditLogs/signIns"), "\(link)")
        }
    }

    @Test func versionOneServesInteractiveSignInsWithoutBetasPropertiesAndRefusesTheStreamFilter() async throws {
        let (interactive, refresh, redemption) = Self.events()
        try await withTenant(Fixture.scenario(signIns: [interactive, refresh, redemption].map { ScenarioSignIn(event: $0) })) { h in
            let token = try await h.signIn().access
            let reply = try await h.signIns(filter: h.selfFilter(), token: token)
            guard case .array(let served)? = reply.json?["value"], case .object(let members)? = served.first else {
                Issue.record("no sign-ins: \(String(decoding: reply.data, as: UTF8.self))")
                return
            }
            #expect(served.count == 1)
            #expect(members["id"] == interactive["id"])
            for beta in ["signInEventTypes", "authenticationDetails", "originalTransferMethod", "authenticationProtocol", "authenticationRequirement", "incomingTokenType", "autonomousSystemNumber"] {
                #expect(members[beta] == nil, "\(beta) is not a v1.0 property")
            }
            #expect(members["appliedConditionalAccessPolicies"] != nil && members["isInteractive"] == .bool(true))
            let refused = try await h.signIns(filter: h.selfFilter() + " and " + Self.nonInteractive, token: token)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "BadRequest")
        }
    }

    @Test(arguments: [400, 403])
    func aTenantThatRefusesBetaRefusesItsSignInLog(_ status: Int) async throws {
        var scenario = Fixture.scenario(signIns: [ScenarioSignIn(event: Self.events().interactive)])
        scenario.betaRefusalStatus = status
        try await withTenant(scenario) { h in
            let token = try await h.signIn().access
            #expect(try await h.signIns(filter: h.selfFilter(), token: token, version: "beta").status == status)
            #expect(try await h.signIns(filter: h.selfFilter(), token: token).status == 200, "v1.0 still answers")
            await h.tenant.refuseBeta(with: nil)
            #expect(try await h.signIns(filter: h.selfFilter(), token: token, version: "beta").status == 200)
        }
    }

    @Test func aRefusedNonInteractiveFilterIsAnInvalidClause() async throws {
        var scenario = Fixture.scenario()
        scenario.nonInteractiveFilterRefused = true
        try await withTenant(scenario) { h in
            let token = try await h.signIn().access
            #expect(try await h.signIns(filter: h.selfFilter(), token: token, version: "beta").status == 200)
            let refused = try await h.signIns(filter: h.selfFilter() + " and " + Self.nonInteractive, token: token, version: "beta")
            #expect(refused.status == 400)
        }
    }

    @Test(arguments: [
        ("signInEventTypes/any(t: t eq 'nonInteractiveUser')", ["nonInteractiveUser"]),
        ("(signInEventTypes/any(x: x eq 'interactiveUser'))", ["interactiveUser"]),
    ])
    func theStreamLambdaParses(_ text: String, _ types: [String]) throws {
        #expect(try SignInFilter.parse(text).eventTypes == types)
    }

    @Test(arguments: ["signInEventTypes/any(t: u eq 'x')", "signInEventTypes/any(t: t ne 'x')", "signInEventTypes/any(t: t eq x)", "signInEventTypes/any t: t eq 'x'"])
    func aMalformedStreamLambdaIsRefused(_ text: String) {
        #expect(throws: SignInFilter.ParseError.self) { try SignInFilter.parse(text) }
    }
}
