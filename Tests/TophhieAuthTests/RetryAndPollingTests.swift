import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TophhieAuth

@Suite(.timeLimit(.minutes(20))) struct RetryAndPollingTests {
    @Test(arguments: [
        ("1.5", 1.5 as Double?), ("2.128", 2.128), ("0", 0), ("-3", nil), ("", nil), ("soon", nil),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10),
    ])
    func readsRetryAfter(header: String, seconds: Double?) {
        let now = Date(timeIntervalSince1970: 1_445_412_480) // 07:28:00 GMT
        let value = RetryAfter.seconds(header, now: now)
        #expect(value.map { abs($0 - (seconds ?? -1)) < 0.001 } ?? (seconds == nil))
    }

    @Test func policyHonoursRetryAfterThenBacksOff() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 5, maxDelay: 60)
        #expect(policy.decide(attempt: 1, outcome: .status(429, retryAfter: 1.5), jitter: 0.9) == .retry(after: 1.5))
        #expect(policy.decide(attempt: 1, outcome: .status(503, retryAfter: nil), jitter: 0) == .retry(after: 2.5))
        #expect(policy.decide(attempt: 2, outcome: .status(500, retryAfter: nil), jitter: 1) == .retry(after: 10))
        #expect(policy.decide(attempt: 3, outcome: .networkFailure, jitter: 0.5) == .retry(after: 15))
        #expect(policy.decide(attempt: 4, outcome: .status(503, retryAfter: 1), jitter: 0) == .stop)
        #expect(policy.decide(attempt: 1, outcome: .status(403, retryAfter: nil), jitter: 0) == .stop)
        #expect(policy.decide(attempt: 1, outcome: .status(429, retryAfter: 600), jitter: 0) == .stop)
    }

    @Test func connectionFailuresAndServerErrorsBackOffExponentiallyAsRFC8628Asks() {
        let start = Date(timeIntervalSince1970: 0)
        var polling = DeviceCodePolling(interval: 5, expiresIn: 900, issuedAt: start)
        let waits = (0..<6).map { polling.next(after: .transient, now: start.addingTimeInterval(Double($0))) }
        #expect(waits == [.wait(10), .wait(20), .wait(40), .wait(60), .wait(60), .wait(60)])
        // The backed-off interval stays for later pending answers; slow_down still adds 5.
        #expect(polling.next(after: .pending, now: start.addingTimeInterval(10)) == .wait(60))
        #expect(polling.next(after: .slowDown, now: start.addingTimeInterval(10)) == .wait(65))
    }

    @Test func pollingAddsFiveSecondsOnSlowDownAndStopsAtExpiry() {
        let start = Date(timeIntervalSince1970: 0)
        var polling = DeviceCodePolling(interval: 5, expiresIn: 30, issuedAt: start)
        #expect(polling.firstAction == .wait(5))
        let step1 = polling.next(after: .pending, now: start.addingTimeInterval(5))
        #expect(step1 == .wait(5))
        let step2 = polling.next(after: .slowDown, now: start.addingTimeInterval(10))
        #expect(step2 == .wait(10))
        let step3 = polling.next(after: .transient, now: start.addingTimeInterval(20))
        #expect(step3 == .fail(.expired))
        var other = DeviceCodePolling(interval: nil, expiresIn: 900, issuedAt: start)
        #expect(other.firstAction == .wait(5))
        let step4 = other.next(after: .declined, now: start)
        #expect(step4 == .fail(.declined))
        let step5 = other.next(after: .badVerificationCode, now: start)
        #expect(step5 == .fail(.badVerificationCode))
        let step6 = other.next(after: .expired, now: start)
        #expect(step6 == .fail(.expired))
        let step7 = other.next(after: .granted, now: start)
        #expect(step7 == .finish)
        #expect(DeviceCodePolling.answer(forError: "access_denied") == .declined)
        #expect(DeviceCodePolling.answer(forError: "authorization_declined") == .declined)
    }

    @Test func signInQueryAlwaysCarriesTheSelfFilter() throws {
        let query = try SignInQuery(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", notBefore: Date(timeIntervalSince1970: 1_705_155_212), top: 5000)
        #expect(query.filter == "userId eq '26be570a-ae82-4189-b4e2-a37c6808512d' and createdDateTime ge 2024-01-13T14:13:32Z")
        #expect(query.top == 1000)
        let url = query.url(graphBaseURL: URL(string: "https://graph.microsoft.com/v1.0")!).absoluteString
        #expect(url == "https://graph.microsoft.com/v1.0/auditLogs/signIns?$filter=userId%20eq%20%2726be570a-ae82-4189-b4e2-a37c6808512d%27%20and%20createdDateTime%20ge%202024-01-13T14:13:32Z&$top=1000")
    }

    @Test(arguments: ["", "abc' or userId ne '", "x y", String(repeating: "a", count: 65)])
    func refusesUserIDsThatAreNotGUIDs(id: String) {
        #expect(throws: TophhieAuthError.self) { try SignInQuery(userID: id) }
    }

    @Test func accessGatesAreExplainedInPlainWords() {
        #expect(TophhieAuthError.signInHistory(status: 403, graphCode: "Authentication_RequestFromNonPremiumTenantOrB2CTenant").accessGate == .licence)
        #expect(TophhieAuthError.signInHistory(status: 403, graphCode: "Authentication_RequestFromUnsupportedUserRole").accessGate == .role)
        #expect(TophhieAuthError.signInHistory(status: 403, graphCode: "Authorization_RequestDenied").accessGate == .consent)
        #expect(TophhieAuthError.profileUpdate(status: 403, graphCode: "Authorization_RequestDenied").accessGate == .directoryAccess)
        #expect(TophhieAuthError.profileFetch(status: 500, graphCode: nil).accessGate == nil)
        for code in ["Authentication_MSGraphPermissionMissing", "Authentication_ApplicationHasNoDirectoryReadAccess"] {
            let error = TophhieAuthError.signInHistory(status: 403, graphCode: code)
            #expect(error.accessGate == .permissionMissing)
            #expect(error.localizedDescription.contains("HTTP 403 \(code)"))
            #expect(error.localizedDescription.contains("AuditLog.Read.All and Directory.Read.All"))
        }
        let text = TophhieAuthError.profileUpdate(status: 403, graphCode: "Authorization_RequestDenied").localizedDescription
        #expect(text.contains("Directory.AccessAsUser.All"))
        #expect(text.contains("HTTP 403 Authorization_RequestDenied"))
    }
}

@Suite(.timeLimit(.minutes(20))) struct ConfigurationValidationTests {
    @Test(arguments: [
        ("http://127.0.0.1:8765/v1.0", true), ("http://localhost/v1.0", true), ("http://[::1]:80/v1.0", true),
        ("http://127.evil.example/v1.0", false), ("http://127.0.0.1.evil.example/v1.0", false),
        ("http://10.0.0.1/v1.0", false), ("https://graph.microsoft.com/v1.0", true),
    ])
    func plainHTTPOnlyToLoopback(graph: String, valid: Bool) {
        let configuration = TophhieConfiguration(tenant: "t", clientID: "c", graphBaseURL: URL(string: graph)!, stateDirectory: URL(fileURLWithPath: "/tmp/x"))
        if valid {
            #expect(throws: Never.self) { try configuration.validate() }
        } else {
            #expect(throws: TophhieAuthError.self) { try configuration.validate() }
        }
    }
}

@Suite(.timeLimit(.minutes(20))) struct NextLinkTests {
    let graph = URL(string: "https://graph.microsoft.com/v1.0")!

    @Test(arguments: [
        ("https://graph.microsoft.com/v1.0/auditLogs/signIns?$top=1000&$skiptoken=abc", true),
        ("https://graph.microsoft.com/v1.0/auditLogs/signIns?$filter=userId%20eq%20'26be570a-ae82-4189-b4e2-a37c6808512d'&$skiptoken=abc", true),
        ("https://graph.microsoft.com/v1.0/auditLogs/signIns?$filter=createdDateTime+ge+2020-01-01T00:00:00.000Z+and+userId+eq+'26be570a-ae82-4189-b4e2-a37c6808512d'&$skiptoken=x", true),
        ("https://graph.microsoft.com/v1.0/auditLogs/signIns?$top=1000", false),
        ("https://graph.microsoft.com/v1.0/auditLogs/signIns?$filter=createdDateTime%20ge%202020-01-01T00:00:00Z&$skiptoken=abc", false),
        ("https://graph.microsoft.com/v1.0/me/messages?$skiptoken=abc", false),
    ])
    func followsOnlyTheSameSelfFilteredQuery(link: String, allowed: Bool) throws {
        let query = try SignInQuery(userID: "26be570a-ae82-4189-b4e2-a37c6808512d")
        if allowed {
            #expect(throws: Never.self) { try TophhieAuth.checkNextLink(URL(string: link)!, continues: query, graphBaseURL: graph) }
        } else {
            #expect(throws: TophhieAuthError.self) { try TophhieAuth.checkNextLink(URL(string: link)!, continues: query, graphBaseURL: graph) }
        }
    }
}

/// A transport that always fails, for the call budget.
struct RefusingTransport: HTTPTransport {
    func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        HTTPReply(status: 429, headers: ["retry-after": "100"], body: Data())
    }
}

@Suite(.timeLimit(.minutes(20))) struct CallBudgetTests {
    @Test func retriesStopBeforeTheCallBudgetIsSpent() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        var requester = RetryingRequester(transport: RefusingTransport(), clock: clock, policy: RetryPolicy(maxAttempts: 10, maxRetryAfter: 120), deadline: 5, userAgent: "t", jitter: { 0 })
        requester.callBudget = 250
        let reply = try await requester.send { URLRequest(url: URL(string: "http://127.0.0.1/x")!) }
        #expect(reply.status == 429)
        #expect(clock.sleeps == [100, 100], "a third wait would end past 250 s")
    }
}
