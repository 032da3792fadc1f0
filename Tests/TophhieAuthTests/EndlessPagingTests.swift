import Foundation
import LoopbackHTTP
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

/// Paging that would never end: a poll must fail with a reason, not stop quietly or run forever.
@Suite(.timeLimit(.minutes(20))) struct EndlessPagingTests {
    /// The tenant for sign-in and `/me`; the sign-in log answers with `page(n)` for the n-th request.
    static func auth(_ harness: TenantHarness, maxPages: Int = 500, page: @escaping @Sendable (Int, HTTPRequest) -> String) -> TophhieAuth {
        let counter = Counter()
        let tenant = harness.tenant
        let transport = EmbeddedTransport(clock: harness.clock) { request in
            guard request.path == "/v1.0/auditLogs/signIns" else { return await tenant.handle(request) }
            return .json(200, data: Data(page(counter.next(), request).utf8))
        }
        var configuration = harness.configuration
        configuration.maxPages = maxPages
        return TophhieAuth(configuration: configuration, transport: transport, clock: harness.clock, jitter: { 0.5 })
    }

    static func link(_ harness: TenantHarness, token: String) -> String {
        harness.endpoints.graphBaseURL.absoluteString + "/auditLogs/signIns?$skiptoken=" + token
    }

    @Test func aRepeatedNextLinkFailsThePoll() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            let auth = Self.auth(harness) { n, _ in #"{"value":[],"@odata.nextLink":"\#(Self.link(harness, token: n == 1 ? "a" : "b"))"}"# }
            await #expect(throws: TophhieAuthError.malformedResponse("page 3 of the sign-in log links back to an earlier page; stopping instead of reading in a loop")) {
                _ = try await auth.fetchSignIns(since: harness.clock.now().addingTimeInterval(-3600))
            }
        }
    }

    @Test func pagesWithoutEndStopAtTheCap() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            let auth = Self.auth(harness, maxPages: 20) { n, _ in #"{"value":[],"@odata.nextLink":"\#(Self.link(harness, token: "t" + String(n)))"}"# }
            await #expect(throws: TophhieAuthError.malformedResponse("the sign-in log still had more pages after 20; stopping instead of paging without end")) {
                _ = try await auth.fetchSignIns(since: harness.clock.now().addingTimeInterval(-3600))
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
