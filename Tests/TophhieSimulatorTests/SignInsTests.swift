import Foundation
import TophhieJSON
import TophhieSimulator
import Testing
import TophhieSystem

@Suite("Graph auditLogs/signIns", .timeLimit(.minutes(20)))
struct SignInsTests {
    /// Sign-ins every two hours over the last `hours`, oldest first.
    static func history(hours: Int, every: Int = 2, latency: Double? = nil) -> [ScenarioSignIn] {
        var factory = Fixture.factory
        return stride(from: hours, to: 0, by: -every).map {
            ScenarioSignIn(event: factory.signIn(at: Fixture.start.addingTimeInterval(-Double($0) * 3600)), latencySeconds: latency)
        }
    }

    @Test func gatesApplyInGraphsOrder() async throws {
        try await withTenant(Fixture.scenario(premium: false)) { h in
            let noScope = try await h.signIns(filter: h.selfFilter(), token: try await h.signIn(scope: "User.Read").access)
            #expect(noScope.status == 403)
            #expect(noScope.errorCode == "Authorization_RequestDenied")

            let token = try await h.signIn().access
            let nonPremium = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(nonPremium.status == 403)
            #expect(nonPremium.errorCode == "Authentication_RequestFromNonPremiumTenantOrB2CTenant")
            #expect(nonPremium.json?.value(atPath: "error.message")?.stringValue == "Neither tenant is B2C or tenant doesn't have premium license")
        }
        try await withTenant(Fixture.scenario()) { h in
            let token = try await h.signIn().access
            for filter in [nil, "createdDateTime ge 2026-03-09T00:00:00Z", "userId eq '\(Fixture.otherUserID)'",
                           "userId eq '\(Fixture.userID)' and userId eq '\(Fixture.otherUserID)'"] {
                let reply = try await h.signIns(filter: filter, token: token)
                #expect(reply.status == 403, "filter \(filter ?? "none")")
                #expect(reply.errorCode == "Authentication_RequestFromUnsupportedUserRole")
                #expect(reply.json?.value(atPath: "error.message")?.stringValue == "User is not in the allowed roles")
            }
            let own = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(own.status == 200)
            #expect(own.json?["@odata.context"]?.stringValue == "\(h.endpoints.graphBaseURL.absoluteString)/$metadata#auditLogs/signIns")
            #expect(own.json?["value"] == .array([]))
        }
        try await withTenant(Fixture.scenario(hasReportingRole: true)) { h in
            let reply = try await h.signIns(filter: nil, token: try await h.signIn().access)
            #expect(reply.status == 200)
        }
    }

    @Test(arguments: [
        "userId eq '\(Fixture.userID)' and createdDateTime ge '2026-03-09T00:00:00Z'",
        "userId eq '\(Fixture.userID)' or createdDateTime ge 2026-03-09T00:00:00Z",
        "userId eq '\(Fixture.userID)' and appDisplayName eq 'Teams'",
        "userId eq '\(Fixture.userID)' and createdDateTime gt 2026-03-09T00:00:00Z",
        "userId eq '\(Fixture.userID)' and createdDateTime ge yesterday",
        "(userId eq '\(Fixture.userID)'",
        "userId eq \(Fixture.userID)",
        "userId eq '\(Fixture.userID)' and createdDateTime ge 2025-12-01T00:00:00Z",
    ])
    func badFiltersAreInvalidClauses(filter: String) async throws {
        try await withTenant(Fixture.scenario()) { h in
            let reply = try await h.signIns(filter: filter, token: try await h.signIn().access)
            #expect(reply.status == 400)
            #expect(reply.errorCode == "BadRequest")
            #expect(reply.json?.value(atPath: "error.message")?.stringValue == "Invalid filter clause")
        }
    }

    @Test(arguments: ["0", "1001", "ten", "-5"])
    func topOutsideOneToAThousandIsRefused(top: String) async throws {
        try await withTenant(Fixture.scenario()) { h in
            let token = try await h.signIn().access
            let reply = try await h.graph("/v1.0/auditLogs/signIns?$top=\(top)&$filter=userId%20eq%20'\(Fixture.userID)'", token: token)
            #expect(reply.status == 400)
            #expect(reply.errorCode == "BadRequest")
        }
    }

    @Test func pagingFollowsNextLinksNewestFirst() async throws {
        let events = Self.history(hours: 14)  // 7 events
        try await withTenant(Fixture.scenario(signIns: events)) { h in
            let token = try await h.signIn().access
            var reply = try await h.signIns(filter: "(userId eq '\(Fixture.userID)') and createdDateTime ge 2026-03-09T00:00:00Z", top: 2, token: token)
            var pages: [[JSONValue]] = []
            var links: [String] = []
            while true {
                #expect(reply.status == 200)
                // Written as the canonical writer writes the whole page, from each event's bytes.
                #expect(reply.json.map { Data($0.canonicalBytes()) } == reply.data)
                guard case .array(let page)? = reply.json?["value"] else { break }
                pages.append(page)
                guard let next = reply.json?["@odata.nextLink"]?.stringValue else { break }
                links.append(next)
                #expect(next.hasPrefix("\(h.endpoints.graphBaseURL.absoluteString)/auditLogs/signIns?"))
                #expect(next.contains("$skiptoken="))
                reply = try await h.graph(String(next.dropFirst(h.endpoints.authorityHost.absoluteString.count)), token: token)
            }
            #expect(pages.map(\.count) == [2, 2, 2, 1])
            let ids = pages.flatMap { $0 }.compactMap { $0["id"]?.stringValue }
            #expect(ids == events.reversed().compactMap { $0.event["id"]?.stringValue })
            // Replaying a used nextLink is refused.
            let replay = try await h.graph(String(links[0].dropFirst(h.endpoints.authorityHost.absoluteString.count)), token: token)
            #expect(replay.status == 400)
            // Every sign-in request the tenant saw carried the self-filter.
            let logged = await h.tenant.requests.filter { $0.path == "/v1.0/auditLogs/signIns" }
            #expect(logged.count == 5)
            for entry in logged {
                #expect(entry.query["$filter"]?.contains("userId eq '\(Fixture.userID)'") == true)
                #expect(entry.header("Authorization") == "[redacted]")
            }
        }
    }

    @Test func retentionHidesOldEvents() async throws {
        var factory = Fixture.factory
        let old = factory.signIn(at: Fixture.start.addingTimeInterval(-8 * 86_400))
        let recent = factory.signIn(at: Fixture.start.addingTimeInterval(-6 * 86_400))
        let signIns = [ScenarioSignIn(event: old), ScenarioSignIn(event: recent)]
        for (days, expected) in [(7, [recent]), (30, [recent, old])] {
            try await withTenant(Fixture.scenario(retentionDays: days, signIns: signIns)) { h in
                let reply = try await h.signIns(filter: h.selfFilter(), token: try await h.signIn().access, version: "beta")
                #expect(reply.json?["value"] == .array(expected), "retention \(days)")
            }
        }
    }

    @Test func eventsAppearOnlyAfterTheirLatency() async throws {
        var factory = Fixture.factory
        let prompt = factory.signIn(at: Fixture.start.addingTimeInterval(-600))
        let late = factory.signIn(at: Fixture.start.addingTimeInterval(-300))
        let signIns = [ScenarioSignIn(event: prompt, latencySeconds: 120), ScenarioSignIn(event: late, latencySeconds: 3 * 3600)]
        try await withTenant(Fixture.scenario(signIns: signIns)) { h in
            let token = try await h.signIn().access
            let first = try await h.signIns(filter: h.selfFilter(), token: token, version: "beta")
            #expect(first.json?["value"] == .array([prompt]))
            // The late event happened at -300 s plus a sub-second jitter; it shows 3 h after that.
            h.clock.advance(by: 3 * 3600 - 301)
            #expect(try await h.signIns(filter: h.selfFilter(), token: try await h.signIn().access, version: "beta").json?["value"] == .array([prompt]))
            h.clock.advance(by: 2)
            let later = try await h.signIns(filter: h.selfFilter(), token: try await h.signIn().access, version: "beta")
            #expect(later.json?["value"] == .array([late, prompt]))
            // latencySeconds is the simulator's, never served.
            #expect(!later.text.contains("latencySeconds"))
        }
    }

    @Test func duplicatesCanBeServedWithUpdatedFields() async throws {
        var factory = Fixture.factory
        let original = factory.signIn(at: Fixture.start.addingTimeInterval(-3600))
        guard case .object(var updated) = original else { return }
        updated["riskLevelAggregated"] = .string("medium")
        try await withTenant(Fixture.scenario(signIns: [ScenarioSignIn(event: original), ScenarioSignIn(event: .object(updated), latencySeconds: 7200)])) { h in
            let token = try await h.signIn().access
            let before = try await h.signIns(filter: h.selfFilter(), token: token, version: "beta")
            #expect(before.json?["value"] == .array([original]))
            h.clock.advance(by: 3601)
            let token2 = try await h.signIn().access
            let after = try await h.signIns(filter: h.selfFilter(), top: 1, token: token2, version: "beta")
            // Same id twice, on different pages; equal times list the later-published copy first.
            #expect(after.json?["value"] == .array([.object(updated)]))
            let next = try #require(after.json?["@odata.nextLink"]?.stringValue)
            let second = try await h.graph(String(next.dropFirst(h.endpoints.authorityHost.absoluteString.count)), token: token2)
            #expect(second.json?["value"] == .array([original]))
        }
    }

    @Test func addedSignInsAndTimeFiltersApply() async throws {
        try await withTenant(Fixture.scenario()) { h in
            var factory = Fixture.factory
            let a = factory.signIn(at: Fixture.start.addingTimeInterval(-7200))
            let b = factory.signIn(at: Fixture.start.addingTimeInterval(-3600))
            let other = SignInFactory(seed: 5, account: .init(userID: Fixture.otherUserID, userPrincipalName: "bob@contoso.com", displayName: "Bob"))
            var otherFactory = other
            let c = otherFactory.signIn(at: Fixture.start.addingTimeInterval(-1800))
            await h.tenant.addSignIns([a, b, c])
            let token = try await h.signIn().access
            let since = try await h.signIns(filter: h.selfFilter(since: Fixture.start.addingTimeInterval(-5400)), token: token, version: "beta")
            #expect(since.json?["value"] == .array([b]))
            let bounded = "userId eq '\(Fixture.userID)' and createdDateTime le \(GraphTimestamp.filterText(Fixture.start.addingTimeInterval(-5400)))"
            #expect(try await h.signIns(filter: bounded, token: token, version: "beta").json?["value"] == .array([a]))
        }
    }

    @Test func throttlingFaultSendsRetryAfterThenRecovers() async throws {
        let fault = FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .throttle, count: 2, retryAfter: "1.5")
        try await withTenant(Fixture.scenario(signIns: Self.history(hours: 4), faults: [fault])) { h in
            let token = try await h.signIn().access
            for _ in 0..<2 {
                let reply = try await h.signIns(filter: h.selfFilter(), token: token)
                #expect(reply.status == 429)
                #expect(reply.headers["retry-after"] == "1.5")
                #expect(reply.errorCode == "TooManyRequests")
                #expect(reply.json?.value(atPath: "error.innerError.status")?.stringValue == "429")
            }
            let ok = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(ok.status == 200)
            if case .array(let items)? = ok.json?["value"] { #expect(items.count == 2) } else { Issue.record("no value") }
        }
    }

    @Test func throttleBudgetIsFivePerTenSecondsOnTheSimulatorClock() async throws {
        try await withTenant(Fixture.scenario(throttle: ThrottleSettings(enabled: true))) { h in
            let token = try await h.signIn().access
            for _ in 0..<5 { #expect(try await h.signIns(filter: h.selfFilter(), token: token).status == 200) }
            h.clock.advance(by: 2.5)
            let throttled = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(throttled.status == 429)
            #expect(throttled.headers["retry-after"] == "7.5")
            h.clock.advance(by: 7.5)
            #expect(try await h.signIns(filter: h.selfFilter(), token: token).status == 200)
        }
    }

    @Test func malformedPagesAndServerErrors() async throws {
        let faults = [
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .malformedEvent, count: 1),
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .invalidJSON, count: 1, skip: 1),
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .status, count: 1, skip: 2, status: 503),
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .status, count: 1, skip: 3, status: 504),
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .dropConnection, count: 1, skip: 4),
        ]
        try await withTenant(Fixture.scenario(signIns: Self.history(hours: 4), faults: faults)) { h in
            let token = try await h.signIn().access
            let malformed = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(malformed.status == 200)
            #expect(malformed.json?.value(atPath: "value.0.createdDateTime") == .int(42))
            #expect(malformed.json?.value(atPath: "value.1.createdDateTime")?.stringValue != nil)

            let invalid = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(invalid.status == 200)
            #expect(invalid.json == nil)

            let unavailable = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(unavailable.status == 503)
            #expect(unavailable.headers["retry-after"] == nil)
            #expect(unavailable.errorCode == "ServiceUnavailable")
            #expect(try await h.signIns(filter: h.selfFilter(), token: token).status == 504)

            await #expect(throws: HTTPTransportError(.connectionLost, "the connection to http://127.0.0.1:9 was lost")) {
                _ = try await h.signIns(filter: h.selfFilter(), token: token)
            }
            #expect(try await h.signIns(filter: h.selfFilter(), token: token).status == 200)
        }
    }

    @Test func delayedAndTruncatedResponses() async throws {
        let faults = [
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .delay, count: 1, seconds: 0.3),
            FaultRule(pathPrefix: "/v1.0/auditLogs", kind: .truncatedBody, count: 1, skip: 1),
        ]
        try await withTenant(Fixture.scenario(signIns: Self.history(hours: 4), faults: faults)) { h in
            let token = try await h.signIn().access
            let delayed = try await h.signIns(filter: h.selfFilter(), token: token)
            #expect(delayed.status == 200)
            if case .array(let items)? = delayed.json?["value"] { #expect(items.count == 2) } else { Issue.record("no value") }
            await #expect(throws: HTTPTransportError(.connectionLost, "the connection to http://127.0.0.1:9 was lost")) {
                _ = try await h.signIns(filter: h.selfFilter(), token: token)
            }
            let statuses = await h.tenant.requests.filter { $0.path == "/v1.0/auditLogs/signIns" }.map(\.status)
            #expect(statuses == [200, 0])
        }
    }
}
