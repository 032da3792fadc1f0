import Foundation
import LoopbackHTTP
import Testing
import TophhieJSON
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// Requests a loopback receiver saw, in order.
actor ReceivedRequests {
    private(set) var requests: [HTTPRequest] = []
    func add(_ request: HTTPRequest) { requests.append(request) }
    var count: Int { requests.count }
}

/// A receiver called in-process through the embedded transport: what the webhook notifier sends,
/// without a socket. Its URL names 127.0.0.1 port 9, where nothing listens.
struct InProcessReceiver: Sendable {
    let transport: EmbeddedTransport
    let clock: ManualClock
    var port: UInt16 { 9 }
}

/// An in-process receiver answering with `respond` (given the request and its 1-based number).
func inProcessReceiver(_ respond: @escaping @Sendable (HTTPRequest, Int) async -> HTTPResponse) -> (InProcessReceiver, ReceivedRequests) {
    let received = ReceivedRequests()
    let clock = ManualClock(fixedNow())
    let transport = EmbeddedTransport(clock: clock) { request in
        await received.add(request)
        return await respond(request, await received.count)
    }
    return (InProcessReceiver(transport: transport, clock: clock), received)
}

/// A loopback receiver answering with `respond` and recording every request, for the wire tests.
func startReceiver(_ respond: @escaping @Sendable (HTTPRequest, Int) async -> HTTPResponse) throws -> (LoopbackHTTPServer, ReceivedRequests, UInt16) {
    let received = ReceivedRequests()
    let server = LoopbackHTTPServer { request in
        await received.add(request)
        return await respond(request, await received.count)
    }
    let port = try server.start()
    return (server, received, port)
}

let testSecret = try! WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
let fixedNow: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_764_680_000) }

func webhook(port: UInt16, path: String = "/hook", preset: WebhookPreset = .generic, timeout: Duration = .seconds(30),
             now: @escaping @Sendable () -> Date = fixedNow, transport: any HTTPTransport = URLSessionTransport()) throws -> WebhookNotifier {
    WebhookNotifier(name: "hook", settings: try .init(endpoint: try WebhookEndpoint("http://127.0.0.1:\(port)\(path)"), preset: preset,
                                                      secret: testSecret, timeout: timeout, source: "host-a"), now: now, transport: transport)
}

/// A webhook notifier that posts to `receiver` in-process.
func webhook(_ receiver: InProcessReceiver, path: String = "/hook", preset: WebhookPreset = .generic, timeout: Duration = .seconds(5),
             now: @escaping @Sendable () -> Date = fixedNow) throws -> WebhookNotifier {
    try webhook(port: receiver.port, path: path, preset: preset, timeout: timeout, now: now, transport: receiver.transport)
}

@Suite(.timeLimit(.minutes(20))) struct WebhookNotifierTests {
    @Test func sameWebhookIDOnEveryAttemptNewTimestamp() async throws {
        let (receiver, received) = inProcessReceiver { _, n in n == 1 ? .text(503, "busy") : .empty(200) }
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_764_680_000))
        let notifier = try webhook(receiver, now: { clock.now })
        await #expect(throws: NotifierError.self) { try await notifier.deliver(NotifierTestAlerts.alert()) }
        clock.advance(by: 30)
        try await notifier.deliver(NotifierTestAlerts.alert())
        let requests = await received.requests
        #expect(requests.map { $0.header("webhook-id") } == ["a-1", "a-1"])
        #expect(requests.map { $0.header("webhook-timestamp") } == ["1764680000", "1764680030"])
        #expect(requests[0].body == requests[1].body)
    }

    @Test(arguments: [
        (200, nil), (202, nil), (204, nil),
        (408, "transient"), (429, "transient"), (500, "transient"), (502, "transient"), (503, "transient"), (504, "transient"),
        // Standard Webhooks: every failure but 410 is retried, so a receiver that answers 401 or
        // 404 for a minute while it is redeployed or its secret rotated loses nothing.
        (401, "transient"), (403, "transient"), (404, "transient"), (409, "transient"), (418, "transient"),
        (410, "gone"),
        // A refusal of this body fails the same way every time: dead-lettered, not retried for days.
        (400, "permanent"), (413, "permanent"), (415, "permanent"), (422, "permanent"),
    ] as [(Int, String?)])
    func statusClassificationOverTheWire(status: Int, expected: String?) async throws {
        let (receiver, _) = inProcessReceiver { _, _ in .text(status, "answer") }
        do {
            try await webhook(receiver).deliver(NotifierTestAlerts.alert())
            #expect(expected == nil, "HTTP \(status) should have failed")
        } catch let error as NotifierError {
            #expect(error.code.description == expected, "HTTP \(status): \(error.message)")
            #expect(error.message.hasPrefix("webhook http://127.0.0.1:\(receiver.port)/…: HTTP \(status)"))
            #expect(!error.message.contains("/hook"), "the path may hold a credential")
        }
    }

    @Test func retryAfterSecondsIsHonoured() async throws {
        let (receiver, _) = inProcessReceiver { _, _ in .text(429, "slow down", headers: [("Retry-After", "7")]) }
        await #expect(throws: NotifierError.transient("webhook http://127.0.0.1:\(receiver.port)/…: HTTP 429 (receiver asked to wait 7 s)", retryAfter: .seconds(7))) {
            try await webhook(receiver).deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func retryAfterDateIsHonoured() async throws {
        // fixedNow is 2025-12-02T12:53:20Z; ask for 90 s later.
        let (receiver, _) = inProcessReceiver { _, _ in .text(503, "maintenance", headers: [("Retry-After", "Tue, 02 Dec 2025 12:54:50 GMT")]) }
        do {
            try await webhook(receiver).deliver(NotifierTestAlerts.alert())
            Issue.record("503 should fail")
        } catch let error as NotifierError {
            #expect(error.retryAfter == .seconds(90))
            #expect(error.isTransient)
        }
    }

    @Test func deadlineIsEnforcedByTheNotifier() async throws {
        let (receiver, _) = inProcessReceiver { _, _ in HTTPResponse.empty(200).delayed(by: 3) }
        await #expect(throws: NotifierError.transient("webhook http://127.0.0.1:\(receiver.port)/…: no answer within 0.4 s")) {
            try await webhook(receiver, timeout: .milliseconds(400)).deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func webhookIDNeverHoldsADot() {
        #expect(WebhookNotifier.webhookID("rule.x:1 2\n") == "rule_x:1_2_")
    }
}

@Suite(.timeLimit(.minutes(20))) struct WebhookSettingsTests {
    @Test(arguments: [
        ("https://hooks.example.com/services/T/B/secret", nil),
        ("http://127.0.0.1:8080/hook", nil),
        ("http://127.1.2.3/hook", nil),
        ("http://localhost:9000/x", nil),
        // Accepted, it was never delivered: Foundation's URLSession on Linux refuses IPv6 literals.
        ("http://[::1]:9000/x", "the webhook URL's host is an IPv6 address ([::1]), which this build's HTTP client cannot reach; use a host name: http://localhost:PORT reaches a receiver listening on ::1"),
        ("http://example.com/hook", "the webhook URL must use https (plain http is allowed only to 127.0.0.1 or localhost, not example.com)"),
        ("http://127.0.0.1.evil.com/hook", "the webhook URL must use https (plain http is allowed only to 127.0.0.1 or localhost, not 127.0.0.1.evil.com)"),
        ("http://10.0.0.1/hook", "the webhook URL must use https (plain http is allowed only to 127.0.0.1 or localhost, not 10.0.0.1)"),
        ("ftp://example.com/x", #"the webhook URL must use https, not "ftp""#),
        ("https://user:pw@example.com/x", "the webhook URL must not contain a user name or password; use the signing secret instead"),
        ("not a url", "the webhook URL is not a valid absolute URL"),
        ("/relative/path", "the webhook URL is not a valid absolute URL"),
    ] as [(String, String?)])
    func endpointRules(url: String, error: String?) {
        if let error {
            #expect(throws: WebhookSettingError(error)) { try WebhookEndpoint(url) }
        } else {
            #expect(throws: Never.self) { try WebhookEndpoint(url) }
        }
    }

    @Test func descriptionHidesThePath() throws {
        let endpoint = try WebhookEndpoint("https://hooks.slack.com/services/T000/B000/XXXXSECRET")
        #expect("\(endpoint)" == "https://hooks.slack.com/…")
        #expect(try "\(WebhookEndpoint("https://example.com:8443/a?token=1"))" == "https://example.com:8443/…")
    }

    @Test func settingsNeverShowSecretsOrTheFullURL() throws {
        let settings = try WebhookNotifier.Settings(endpoint: try WebhookEndpoint("https://hooks.slack.com/services/T000/B000/XXXXSECRET"),
                                                    preset: .pagerDuty(routingKey: try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")),
                                                    secret: testSecret)
        var dumped = ""
        dump(settings, to: &dumped)
        for text in ["\(settings)", String(reflecting: settings), dumped] {
            #expect(!text.contains("XXXXSECRET") && !text.contains("MfKQ9r8") && !text.contains("R0123456789"), "\(text)")
            #expect(text.contains("hooks.slack.com"))
        }
    }

    @Test func genericNeedsASecret() throws {
        let endpoint = try WebhookEndpoint("https://example.com/hook")
        #expect(throws: WebhookSettingError("the generic webhook needs a signing secret (whsec_…) so the receiver can verify each alert")) {
            try WebhookNotifier.Settings(endpoint: endpoint, preset: .generic, secret: nil)
        }
        _ = try WebhookNotifier.Settings(endpoint: endpoint, preset: .slack, secret: nil)
    }

    @Test func routingKeyIsRedacted() throws {
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        #expect("\(key)" == "<redacted routing key>")
        var dumped = ""
        dump(WebhookPreset.pagerDuty(routingKey: key), to: &dumped)
        #expect(!dumped.contains("R0123456789"))
        #expect(throws: WebhookSettingError.self) { try PagerDutyRoutingKey("short") }
    }
}

@Suite(.timeLimit(.minutes(20))) struct WebhookResponseClassifierTests {
    static let now = Date(timeIntervalSince1970: 1_764_680_000) // Tue, 02 Dec 2025 12:53:20 GMT

    @Test(arguments: [
        ("120", Duration.seconds(120)), ("0", .seconds(0)), (" 5 ", .seconds(5)),
        ("999999", .seconds(3600)), ("99999999999999999999999", .seconds(3600)),
        ("Tue, 02 Dec 2025 12:54:20 GMT", .seconds(60)),
        ("Tuesday, 02-Dec-25 12:54:20 GMT", .seconds(60)),
        ("Tue Dec  2 12:54:20 2025", .seconds(60)),
        ("Mon, 01 Dec 2025 12:00:00 GMT", .seconds(0)),
        ("1.5", .milliseconds(1500)),
    ])
    func retryAfterForms(value: String, expected: Duration) {
        #expect(WebhookResponseClassifier.parseRetryAfter(value, now: Self.now) == expected)
    }

    @Test(arguments: ["soon", "-5", "1e3", ""])
    func unreadableRetryAfter(value: String) {
        #expect(WebhookResponseClassifier.parseRetryAfter(value, now: Self.now) == nil)
    }

    @Test func goneSaysSo() {
        let error = WebhookResponseClassifier.classify(status: 410, retryAfter: nil, endpoint: "https://x/…", now: Self.now)
        #expect(error == .gone("webhook https://x/…: HTTP 410 Gone: the receiver says this endpoint no longer exists; alerts stay queued until 'tophhie-watch outbox enable' after it is fixed"))
    }
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(start: Date) { current = start }
    var now: Date {
        lock.lock(); defer { lock.unlock() }
        return current
    }
    func advance(by seconds: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        current = current.addingTimeInterval(seconds)
    }
}

/// The webhook notifier over real loopback sockets and URLSession: a signed POST, redirects that
/// must not be followed, a refused and a dropped connection. The rest run in-process.
@Suite(.serialized, .timeLimit(.minutes(20))) struct WebhookOverTheWireTests {
    @Test func signedPostWithStandardHeaders() async throws {
        let (server, received, port) = try startReceiver { _, _ in .empty(204) }
        
        let alert = NotifierTestAlerts.alert()
        try await webhook(port: port).deliver(alert)
        let request = try #require(await received.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/hook")
        #expect(request.header("webhook-id") == "a-1")
        #expect(request.header("webhook-timestamp") == "1764680000")
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("user-agent") == "tophhie-watch/\(WebhookNotifier.version)")
        let signature = try #require(request.header("webhook-signature"))
        #expect(signature.hasPrefix("v1,"))
        #expect(StandardWebhookSignature.verify(header: signature, id: "a-1", timestamp: 1_764_680_000, body: Array(request.body), secret: testSecret))
        #expect(!StandardWebhookSignature.verify(header: signature, id: "a-2", timestamp: 1_764_680_000, body: Array(request.body), secret: testSecret))
        let body = try JSONValue.parse(request.body)
        #expect(body["type"] == .string("alert.fired"))
        #expect(body["timestamp"] == .string("2025-12-02T13:05:00.000Z"))
        #expect(body.value(atPath: "data.id") == .string("a-1"))
        #expect(body.value(atPath: "data.rule.id") == .string("failed-burst"))
        await server.stop()
    }

    @Test(arguments: [302, 307, 308, 301])
    func redirectsAreNotFollowed(status: Int) async throws {
        let (target, targetReceived, targetPort) = try startReceiver { _, _ in .empty(200) }
        
        let (server, received, port) = try startReceiver { _, _ in
            HTTPResponse(status: status, headers: [("Location", "http://127.0.0.1:\(targetPort)/elsewhere")])
        }
        
        // Retried (the URL may be fixed within the dead-letter age), never followed.
        await #expect(throws: NotifierError.transient("webhook http://127.0.0.1:\(port)/…: HTTP \(status) redirect not followed; configure the final URL")) {
            try await webhook(port: port).deliver(NotifierTestAlerts.alert())
        }
        #expect(await received.count == 1)
        #expect(await targetReceived.count == 0)
        await server.stop()
        await target.stop()
    }

    @Test func refusedConnectionIsTransient() async throws {
        let server = LoopbackHTTPServer { _ in .empty(200) }
        let port = try server.start()
        await server.stop()
        await #expect(throws: NotifierError.transient("webhook http://127.0.0.1:\(port)/…: connection refused")) {
            try await webhook(port: port).deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func droppedConnectionIsTransient() async throws {
        let (server, _, port) = try startReceiver { _, _ in .dropConnection }
        
        await #expect(throws: NotifierError.transient("webhook http://127.0.0.1:\(port)/…: connection lost")) {
            try await webhook(port: port).deliver(NotifierTestAlerts.alert())
        }
        await server.stop()
    }
}
