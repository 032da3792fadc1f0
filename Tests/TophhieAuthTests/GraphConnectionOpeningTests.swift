import Foundation
import LoopbackHTTP
import Testing
import TophhieSimulator
@testable import TophhieAuth
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The harness's in-process transport, saying what URLSession on Linux says: waiting for the
/// first reply on a new connection costs CPU.
private struct BusyWaitingTransport: HTTPTransport {
    let inner: EmbeddedTransport
    var waitsBusilyOnNewConnections: Bool { true }

    func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        try await inner.send(request, deadline: deadline)
    }
}

@Suite(.timeLimit(.minutes(20))) struct GraphConnectionOpeningTests {
    private func busyAuth(_ harness: TenantHarness) -> TophhieAuth {
        TophhieAuth(configuration: harness.configuration, transport: BusyWaitingTransport(inner: harness.transport), clock: harness.clock, jitter: { 0.5 })
    }

    /// What the tenant was asked after `mark` requests, as "METHOD path?query".
    private func requests(_ harness: TenantHarness, after mark: Int) async -> [String] {
        await harness.tenant.requests.dropFirst(mark).map { "\($0.method) \($0.path)" + ($0.rawQuery.isEmpty ? "" : "?\($0.rawQuery)") }
    }

    @Test func aTransportThatWaitsBusilyHasTheGraphConnectionOpenedBeforeTheSignInLog() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(SignInHistoryOverHTTPTests.history(harness, count: 1500))
            let since = harness.clock.now().addingTimeInterval(-2 * 86_400)

            let mark = await harness.tenant.requests.count
            let opened = try await busyAuth(harness).fetchSignIns(since: since)
            let asked = await requests(harness, after: mark)
            #expect(asked.count == 3)
            #expect(asked.first == "GET /v1.0/me?$select=id", "one small request first")
            #expect(asked.dropFirst().allSatisfy { $0.hasPrefix("GET /v1.0/auditLogs/signIns?") }, "\(asked)")

            let plainMark = await harness.tenant.requests.count
            let plain = try await harness.auth().fetchSignIns(since: since)
            let plainAsked = await requests(harness, after: plainMark)
            #expect(plainAsked.count == 2, "a transport without the cost is not sent the extra request: \(plainAsked)")
            #expect(opened.events == plain.events)
            #expect(opened.pages == 2)
        }
    }

    @Test(arguments: [FaultRule.Kind.status, .dropConnection, .delay])
    func anOpeningRequestThatFailsIsTriedOnceAndChangesNothing(kind: FaultRule.Kind) async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(SignInHistoryOverHTTPTests.history(harness, count: 10))
            let since = harness.clock.now().addingTimeInterval(-86_400)
            // 503 would be retried, a dropped connection too, and a delay past the deadline times out.
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/me", kind: kind, count: 5, status: 503, seconds: 60))
            let mark = await harness.tenant.requests.count
            let fetched = try await busyAuth(harness).fetchSignIns(since: since)
            let asked = await requests(harness, after: mark)
            #expect(asked.filter { $0.hasPrefix("GET /v1.0/me") }.count == 1, "no retries: \(asked)")
            #expect(asked.last?.hasPrefix("GET /v1.0/auditLogs/signIns?") == true)
            #expect(fetched.events.count == 10)
        }
    }

    @Test func aSignedOutUserGetsTheSameErrorAsWithoutTheOpeningRequest() async throws {
        try await TenantHarness.with { harness in
            let since = harness.clock.now().addingTimeInterval(-86_400)
            await #expect(throws: TophhieAuthError.interactionRequired(reason: "nobody is signed in")) {
                try await busyAuth(harness).fetchSignIns(since: since)
            }
            #expect(await harness.tenant.requests.isEmpty, "nothing is sent without a token")
        }
    }
}
