import Foundation
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

@Suite(.timeLimit(.minutes(20))) struct SignInHistoryOverHTTPTests {
    static func history(_ harness: TenantHarness, count: Int, spacing: Double = 60) -> [JSONValue] {
        var factory = SignInFactory(seed: 7, account: .init(userID: TenantHarness.userID, userPrincipalName: "jane@contoso.com", displayName: "Jane Doe"))
        return (0..<count).map { factory.signIn(at: TenantHarness.start.addingTimeInterval(-Double($0 + 1) * spacing)) }
    }

    @Test func everyRequestCarriesTheSelfFilterAndPagesFollowNextLink() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(Self.history(harness, count: 2500))
            let events = try await harness.auth().getSignInHistory(top: 2500)
            #expect(events.count == 2500)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.createdDateTime >= $1.createdDateTime }, "newest first")
            let requests = await harness.signInRequests()
            #expect(requests.count == 3, "three pages of at most 1000")
            for request in requests {
                #expect(request.query["$filter"]?.contains("userId eq '\(TenantHarness.userID)'") == true, "\(request.rawQuery)")
                #expect(request.status == 200)
            }
            #expect(requests[1].query["$skiptoken"] != nil, "the second page came from the nextLink")
        }
    }

    @Test func windowedFetchClampsToRetentionAndSaysSo() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(Self.history(harness, count: 10, spacing: 86_400 * 4))
            let asked = harness.clock.now().addingTimeInterval(-60 * 86_400)
            let fetch = try await harness.auth().fetchSignIns(since: asked)
            #expect(fetch.requestedLowerBound == asked)
            #expect(abs(fetch.lowerBound.timeIntervalSince(harness.clock.now().addingTimeInterval(-30 * 86_400))) < 1)
            #expect(fetch.events.count == 7, "events 4, 8 … 28 days old are inside 30 days of retention")
            let filter = try #require(await harness.signInRequests().last?.query["$filter"])
            #expect(filter.contains("createdDateTime ge 2026-07-30T"))
            #expect(!filter.contains("'2026"), "dates are unquoted")
        }
    }

    @Test func throttledRequestWaitsRetryAfterThenSucceeds() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(Self.history(harness, count: 3))
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .throttle, count: 1, retryAfter: "1.5"))
            let before = harness.clock.sleeps.count
            let events = try await harness.auth().getSignInHistory(top: 10)
            #expect(events.count == 3)
            #expect(Array(harness.clock.sleeps.dropFirst(before)) == [1.5])
            let statuses = await harness.signInRequests().map(\.status)
            #expect(statuses == [429, 200])
        }
    }

    @Test func serverErrorsBackOffThenGiveUpWithTheStatus() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .status, count: 10, status: 503))
            let before = harness.clock.sleeps.count
            let error = await #expect(throws: TophhieAuthError.self) { _ = try await harness.auth().getSignInHistory(top: 10) }
            #expect(error?.withoutRequestIDs == .signInHistory(status: 503, graphCode: "ServiceUnavailable"))
            let waits = Array(harness.clock.sleeps.dropFirst(before))
            #expect(waits == [3.75, 7.5, 15], "exponential with jitter 0.5, four attempts")
        }
    }

    @Test func malformedEventIsSkippedAndReported() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(Self.history(harness, count: 4))
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .malformedEvent, count: 1))
            let fetch = try await harness.auth().fetchSignIns(since: harness.clock.now().addingTimeInterval(-86_400))
            #expect(fetch.skipped.count == 1)
            #expect(fetch.events.count + fetch.skipped.count >= 4)
            #expect(fetch.skipped.first?.description.contains("skipped") == true)
        }
    }

    @Test(arguments: [
        (FaultRule.Kind.invalidUTF8InEvent, "invalid UTF-8 in a string"),
        (.controlByteInEvent, "control character in a string"),
        (.loneSurrogateInEvent, "unpaired surrogate in a \\u escape"),
    ])
    func eventWithBadBytesCostsOnlyThatEvent(kind: FaultRule.Kind, message: String) async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            let history = Self.history(harness, count: 4)
            await harness.tenant.addSignIns(history)
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: kind, count: 1))
            let fetch = try await harness.auth().fetchSignIns(since: harness.clock.now().addingTimeInterval(-86_400))
            #expect(fetch.events.count == 3, "the other events of the page are read")
            let skipped = try #require(fetch.skipped.first)
            #expect(fetch.skipped.count == 1)
            let newest = try #require(history.first?["id"]?.stringValue)
            #expect(skipped.id == newest, "the damaged event is named by its id")
            #expect(skipped.problem.hasPrefix("the event is not valid JSON (\(message) at byte "))
            #expect(!fetch.events.contains { $0.id == newest })
        }
    }

    @Test func pageThatIsNotJSONIsAClearError() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .invalidJSON, count: 1))
            do {
                _ = try await harness.auth().getSignInHistory(top: 10)
                Issue.record("an invalid page was accepted")
            } catch let error as TophhieAuthError {
                guard case .malformedResponse(let message) = error else { Issue.record("got \(error)"); return }
                #expect(message.hasPrefix("page 1 of the sign-in log is not JSON"))
            }
        }
    }

    @Test func nonPremiumTenantIsExplainedAsLicence() async throws {
        try await TenantHarness.with(TenantHarness.scenario(premium: false)) { harness in
            try await harness.signIn()
            do {
                _ = try await harness.auth().getSignInHistory(top: 10)
                Issue.record("a free tenant returned sign-ins")
            } catch let error as TophhieAuthError {
                #expect(error.withoutRequestIDs == .signInHistory(status: 403, graphCode: "Authentication_RequestFromNonPremiumTenantOrB2CTenant"))
                #expect(error.accessGate == .licence)
                #expect(error.localizedDescription.contains("P1 or P2"))
            }
        }
    }

    @Test func aFailureNamesGraphsRequestIDAndTheClientRequestIDWeSent() async throws {
        try await TenantHarness.with(TenantHarness.scenario(premium: false)) { harness in
            try await harness.signIn()
            let error = await #expect(throws: TophhieAuthError.self) { _ = try await harness.auth().getSignInHistory(top: 10) }
            let request = try #require(await harness.tenant.requests.last { $0.path.hasSuffix("/auditLogs/signIns") })
            let sent = try #require(request.headers.first { $0.name.lowercased() == "client-request-id" }?.value)
            #expect(UUID(uuidString: sent) != nil, "a GUID, as Graph asks")
            guard case .signInHistory(_, _, let ids)? = error, let ids else { Issue.record("no ids in \(String(describing: error))"); return }
            #expect(ids.clientRequestID == sent)
            let requestID = try #require(ids.requestID)
            #expect(UUID(uuidString: requestID) != nil)
            #expect(ids.date?.hasPrefix("20") == true)
            #expect(error?.localizedDescription.contains("HTTP 403 Authentication_RequestFromNonPremiumTenantOrB2CTenant (request-id \(requestID), client-request-id \(sent), date ") == true, "\(error?.localizedDescription ?? "")")
        }
    }

    @Test func eachRequestCarriesItsOwnClientRequestID() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            _ = try await harness.auth().getSignInHistory(top: 1)
            _ = try await harness.auth().getUserProfile()
            let ids = await harness.tenant.requests.filter { $0.path.hasPrefix("/v1.0/") }.compactMap { $0.headers.first { $0.name.lowercased() == "client-request-id" }?.value }
            #expect(ids.count >= 2)
            #expect(Set(ids).count == ids.count, "\(ids)")
        }
    }

    @Test func anotherUsersIDIsRefusedAsRole() async throws {
        try await TenantHarness.with { harness in
            var session = try await harness.signIn()
            session.objectID = "00000000-1111-2222-3333-444444444444"
            try TokenCache(file: harness.stateDirectory.appendingPathComponent("tokens.json")).save(session)
            do {
                _ = try await harness.auth().getSignInHistory(top: 10)
                Issue.record("another user's sign-ins were returned")
            } catch let error as TophhieAuthError {
                #expect(error.accessGate == .role)
                #expect(error.localizedDescription.contains("Reports Reader"))
            }
        }
    }
}
