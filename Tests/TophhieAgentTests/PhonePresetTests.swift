import Foundation
import LoopbackHTTP
import Testing
import TophhieJSON
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// In-process stand-ins for ntfy, Gotify and the Telegram Bot API: each checks a request against
/// the service's published contract and answers as the service does; a request that breaks it
/// gets the service's refusal (400) and the reason is recorded.
enum PhoneStandIn {
    static let token = "tk_0123456789abcdefGHIJ"

    /// ntfy: JSON to the server's root, `{topic, title, message, priority, tags}`, the message at
    /// most 4,096 bytes (a longer one becomes an attachment), priority 1–5.
    static func ntfy(_ request: HTTPRequest) -> [String] {
        var broken: [String] = []
        if request.method != "POST" { broken.append("method \(request.method)") }
        if request.path != "/" { broken.append("path \(request.path): the JSON form is posted to the root") }
        guard let body = try? JSONValue.parse(request.body), case .object(let members) = body else { return broken + ["body is not a JSON object"] }
        for key in members.keys where !["topic", "title", "message", "priority", "tags"].contains(key) { broken.append("unexpected key \(key)") }
        if members["topic"]?.stringValue?.range(of: "^[-_A-Za-z0-9]{1,64}$", options: .regularExpression) == nil { broken.append("topic") }
        guard let message = members["message"]?.stringValue else { return broken + ["no message"] }
        if message.utf8.count > 4096 { broken.append("message of \(message.utf8.count) bytes") }
        if case .int(let p)? = members["priority"], (1...5).contains(p) {} else { broken.append("priority") }
        if case .array(let tags)? = members["tags"], tags.allSatisfy({ $0.stringValue != nil }) {} else { broken.append("tags") }
        if request.header("webhook-signature") != nil { broken.append("signed") }
        return broken
    }

    /// Gotify: `POST /message` with `X-Gotify-Key`, `{title, message, priority}`, priority 0–10.
    static func gotify(_ request: HTTPRequest) -> [String] {
        var broken: [String] = []
        if request.path != "/message" { broken.append("path \(request.path)") }
        if request.header("x-gotify-key") != token { broken.append("app token") }
        guard let body = try? JSONValue.parse(request.body), case .object(let members) = body else { return broken + ["body is not a JSON object"] }
        for key in members.keys where !["title", "message", "priority"].contains(key) { broken.append("unexpected key \(key)") }
        if (members["message"]?.stringValue ?? "").isEmpty { broken.append("no message") }
        if case .int(let p)? = members["priority"], (0...10).contains(p) {} else { broken.append("priority") }
        if request.header("webhook-signature") != nil { broken.append("signed") }
        return broken
    }

    /// Telegram `sendMessage`: `/bot<token>/sendMessage`, `{chat_id, text}` with text of 1–4,096
    /// characters (counted as UTF-16 units, never fewer), no `parse_mode`.
    static func telegram(_ request: HTTPRequest) -> [String] {
        var broken: [String] = []
        if request.path != "/bot\(token)/sendMessage" { broken.append("path") }
        guard let body = try? JSONValue.parse(request.body), case .object(let members) = body else { return broken + ["body is not a JSON object"] }
        if members["parse_mode"] != nil { broken.append("parse_mode") }
        if members["chat_id"]?.stringValue == nil { broken.append("chat_id") }
        let text = members["text"]?.stringValue ?? ""
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || text.utf16.count > 4096 { broken.append("text of \(text.utf16.count) units") }
        if case .bool? = members["disable_notification"] {} else { broken.append("disable_notification") }
        if request.header("webhook-signature") != nil { broken.append("signed") }
        return broken
    }

    /// A receiver answering 200 to what keeps the contract, 400 naming what breaks it.
    static func receiver(_ check: @escaping @Sendable (HTTPRequest) -> [String]) -> (InProcessReceiver, ReceivedRequests) {
        inProcessReceiver { request, _ in
            let broken = check(request)
            return broken.isEmpty ? .text(200, #"{"ok":true}"#) : .text(400, broken.joined(separator: "; "))
        }
    }

    static func notifier(_ receiver: InProcessReceiver, preset: WebhookPreset, path: String, token: String? = PhoneStandIn.token) throws -> WebhookNotifier {
        WebhookNotifier(name: "phone", settings: try .init(endpoint: try WebhookEndpoint("http://127.0.0.1:\(receiver.port)\(path)"), preset: preset, secret: nil,
                                                           timeout: .seconds(5), token: try token.map(NotifierToken.init)),
                        now: fixedNow, transport: receiver.transport)
    }

    /// Sign-in fields an attacker chooses: header text after CR/LF, bidi controls, a 10 KB
    /// name, Markdown and HTML, URLs and domains.
    static func hostileAlert(level: AlertLevel = .high) -> Alert {
        let markup = "*bold* _it_ `code` [Verify](https://evil.example/login) <b>x</b> <a href=\"http://evil.com\">y</a> &amp;"
        var alert = NotifierTestAlerts.alert(level: level, device: "Edge\u{202e}gnp.exe \r\nBcc: victim@evil.com " + String(repeating: "W", count: 10_240),
                                             summary: "first sign-in from login.microsoftonline.com.evil.example\r\nBcc: all@contoso.com " + markup)
        alert.events[1].location = "Paris\u{2028}FR \u{2066}evil\u{2069}"
        alert.events[1].ipAddress = "203.0.113.9"
        alert.events[1].app = String(repeating: "Ä", count: 10_240)
        alert.events[1].device = alert.events[0].device
        alert.group = [AlertGroupValue(field: "userPrincipalName", value: "jane@contoso.com\r\nX-Injected: 1")]
        return alert
    }
}

@Suite(.timeLimit(.minutes(20))) struct PhonePresetTests {
    func body(_ preset: WebhookPreset, _ alert: Alert) -> JSONValue {
        try! JSONValue.parse(preset.body(for: alert, context: WebhookPresetTests.context).canonicalData())
    }

    @Test func ntfyIsJSONToTheServerRootWithTheTopicInTheBody() async throws {
        let (receiver, received) = PhoneStandIn.receiver(PhoneStandIn.ntfy)
        let notifier = try PhoneStandIn.notifier(receiver, preset: .ntfy(topic: "my-long-random-topic"), path: "/my-long-random-topic")
        try await notifier.deliver(NotifierTestAlerts.alert())
        let request = try #require(await received.requests.first)
        #expect(request.path == "/")
        #expect(request.header("authorization") == "Bearer \(PhoneStandIn.token)")
        #expect(request.header("webhook-id") == nil && request.header("webhook-timestamp") == nil && request.header("webhook-signature") == nil)
        let value = try JSONValue.parse(request.body)
        #expect(value == .object([
            "topic": .string("my-long-random-topic"),
            "title": .string("HIGH: Failed sign-in burst"),
            "message": .string("Time: 2025-12-02T10:01:00.250Z\nPlace: Paris, FR, address 203[.]0[.]113[.]9\nSign-in: Azure Portal\n5 failed sign-ins from 203[.]0[.]113[.]9 in 10m\nSign-ins: 2\nRule: failed-burst · alert a-1"),
            "priority": .int(5),
            "tags": .array([.string("warning"), .string("tophhie-watch")]),
        ]))
        // Without a token, no Authorization header; a server under a path prefix keeps it.
        let (open, openReceived) = PhoneStandIn.receiver { _ in [] }
        try await PhoneStandIn.notifier(open, preset: .ntfy(topic: "t"), path: "/ntfy/t", token: nil).deliver(NotifierTestAlerts.alert())
        #expect(await openReceived.requests.first?.header("authorization") == nil)
        #expect(await openReceived.requests.first?.path == "/ntfy/")
    }

    @Test func gotifyCarriesTheAppTokenInItsHeader() async throws {
        let (receiver, received) = PhoneStandIn.receiver(PhoneStandIn.gotify)
        try await PhoneStandIn.notifier(receiver, preset: .gotify, path: "/message").deliver(NotifierTestAlerts.alert(level: .critical))
        let request = try #require(await received.requests.first)
        let value = try JSONValue.parse(request.body)
        #expect(value["title"] == .string("CRITICAL: Failed sign-in burst"))
        #expect(value["priority"] == .int(10))
        #expect(request.header("webhook-signature") == nil)
    }

    @Test func telegramIsPlainTextToTheBotPath() async throws {
        let (receiver, received) = PhoneStandIn.receiver(PhoneStandIn.telegram)
        try await PhoneStandIn.notifier(receiver, preset: .telegram(chatID: "123456789"), path: "").deliver(NotifierTestAlerts.alert())
        let request = try #require(await received.requests.first)
        let value = try JSONValue.parse(request.body)
        #expect(value == .object([
            "chat_id": .string("123456789"),
            "text": .string("HIGH: Failed sign-in burst\nTime: 2025-12-02T10:01:00.250Z\nPlace: Paris, FR, address 203[.]0[.]113[.]9\nSign-in: Azure Portal\n5 failed sign-ins from 203[.]0[.]113[.]9 in 10m\nSign-ins: 2\nRule: failed-burst · alert a-1"),
            "disable_notification": .bool(false),
            "link_preview_options": .object(["is_disabled": .bool(true)]),
        ]))
    }

    /// The issue's table: critical ntfy 5, Gotify 10, sound; high 5, 8, sound; medium 4, 5,
    /// sound; low, informational and notices 3, 2, silent.
    @Test(arguments: [
        (AlertLevel.critical, AlertKind.detection, 5, 10, false), (.high, .detection, 5, 8, false), (.medium, .detection, 4, 5, false),
        (.low, .detection, 3, 2, true), (.informational, .detection, 3, 2, true), (.high, .notice, 3, 2, true),
    ])
    func levelsMapToEachServicesUrgency(level: AlertLevel, kind: AlertKind, ntfy: Int, gotify: Int, silent: Bool) {
        let alert = NotifierTestAlerts.alert(level: level, kind: kind)
        #expect(body(.ntfy(topic: "t"), alert)["priority"] == .int(Int64(ntfy)))
        #expect(body(.gotify, alert)["priority"] == .int(Int64(gotify)))
        #expect(body(.telegram(chatID: "1"), alert)["disable_notification"] == .bool(silent))
    }

    /// A takeover alert carries the response steps, numbered, one a line.
    @Test func takeoverStepsArriveOnThePhone() {
        var alert = NotifierTestAlerts.alert()
        alert.rule.id = "token-from-new-place"
        let text = body(.telegram(chatID: "1"), alert)["text"]?.stringValue ?? ""
        #expect(text.contains("\nWhat to do now:\n1. revoke every session of your account: tophhie-watch respond --revoke-sessions\n2. change your password\n3. say 'this wasn't me'"), "\(text)")
    }

    /// Hostile sign-in fields through each stand-in: every request keeps the published limits,
    /// carries no raw CR/LF, bidi or separator character from the data, no live URL or domain,
    /// no header made of sign-in text, and the Markdown and HTML arrive as the literal text.
    @Test func hostileSignInFieldsKeepEachServicesContract() async throws {
        let alert = PhoneStandIn.hostileAlert()
        let cases: [(WebhookPreset, String, @Sendable (HTTPRequest) -> [String], String)] = [
            (.ntfy(topic: "topic"), "/topic", PhoneStandIn.ntfy, "message"),
            (.gotify, "/message", PhoneStandIn.gotify, "message"),
            (.telegram(chatID: "-1001234567890"), "", PhoneStandIn.telegram, "text"),
        ]
        for (preset, path, check, key) in cases {
            let (receiver, received) = PhoneStandIn.receiver(check)
            try await PhoneStandIn.notifier(receiver, preset: preset, path: path).deliver(alert)
            let request = try #require(await received.requests.first)
            #expect(check(request) == [], "\(preset)")
            #expect(!request.headers.contains { ["bcc", "x-injected"].contains($0.name.lowercased()) }, "\(preset)")
            let value = try JSONValue.parse(request.body)
            let text = (value["title"]?.stringValue ?? "") + "\n" + (value[key]?.stringValue ?? "")
            let raw = text.unicodeScalars.filter { $0 != "\n" && ControlCharacterEscaping.needsEscape($0) }
            #expect(raw.isEmpty, "\(preset): \(raw.map { String($0.value, radix: 16) })")
            #expect(!text.contains("\r") && !text.contains("\nBcc:") && !text.contains("\nX-Injected"), "\(preset)")
            #expect(text.contains(#"Edge\u{202e}gnp[.]exe \r\nBcc: victim@evil[.]com"#), "\(preset): \(text.prefix(400))")
            #expect(text.contains("login[.]microsoftonline[.]com[.]evil[.]example"), "\(preset)")
            #expect(text.contains("[Verify](hxxps://evil[.]example/login)"), "\(preset)")
            #expect(text.contains(#"<a href="hxxp://evil[.]com">y</a>"#), "\(preset)")
            #expect(text.contains("*bold* _it_ `code`") && text.contains("<b>x</b>") && text.contains("&amp;"), "\(preset): Markdown and HTML stay literal")
            #expect(!text.contains("https://evil") && !text.contains("http://evil") && !text.contains("evil.com"), "\(preset)")
            #expect(text.contains(#"Account: jane@contoso[.]com\r\nX-Injected: 1"#), "\(preset)")
            #expect(text.contains("Place: Paris\\u{2028}FR \\u{2066}evil\\u{2069}, address 203[.]0[.]113[.]9"), "\(preset)")
            #expect(text.contains("Time: ") && text.contains("HIGH: Failed sign-in burst"), "\(preset)")
        }
    }

    /// The limits hold after escaping: a summary of 10,000 bidi controls grows sixfold when each
    /// is shown as `\u{202e}`, and a text of astral characters counts two UTF-16 units each.
    @Test func limitsHoldAfterEscaping() {
        var alert = NotifierTestAlerts.alert(summary: String(repeating: "\u{202e}", count: 10_000))
        alert.rule.title = String(repeating: "𝕏", count: 3000)
        alert.rule.id = String(repeating: "𝕏", count: 3000)
        alert.id = String(repeating: "𝕏", count: 3000)
        let ntfy = body(.ntfy(topic: "t"), alert)
        #expect((ntfy["message"]?.stringValue ?? "").utf8.count <= 4096)
        let telegram = body(.telegram(chatID: "1"), alert)["text"]?.stringValue ?? ""
        #expect(telegram.utf16.count <= 4096 && !telegram.isEmpty)
        #expect(telegram.hasPrefix("HIGH: 𝕏"))
        #expect(!telegram.unicodeScalars.contains("\u{202e}"))
        let gotify = body(.gotify, alert)
        #expect((gotify["message"]?.stringValue ?? "").utf8.count <= 4096)
    }

    /// Telegram's token sits in its URL path: no error, description or dump shows it, whatever
    /// the failure.
    @Test func theTelegramTokenIsInNoErrorOrDescription() async throws {
        for answer in [500, 401, 400, 302] {
            let (receiver, _) = inProcessReceiver { _, _ in .text(answer, "Unauthorized") }
            let notifier = try PhoneStandIn.notifier(receiver, preset: .telegram(chatID: "1"), path: "")
            do {
                try await notifier.deliver(NotifierTestAlerts.alert())
                Issue.record("HTTP \(answer) delivered")
            } catch let error as NotifierError {
                #expect(!error.message.contains(PhoneStandIn.token) && !error.message.contains("/bot"), "HTTP \(answer)")
                #expect(error.message.hasPrefix("webhook http://127.0.0.1:9/…: HTTP \(answer)"), "\(error.message)")
            }
            var dumped = ""
            dump(notifier, to: &dumped)
            #expect(!dumped.contains(PhoneStandIn.token))
            #expect(!"\(notifier.settings)".contains(PhoneStandIn.token))
            #expect(!String(reflecting: notifier.settings.token!).contains(PhoneStandIn.token))
        }
        // Nothing listens: the transport's failure names no URL either.
        let refused = WebhookNotifier(name: "t", settings: try .init(endpoint: try WebhookEndpoint("http://127.0.0.1:9"), preset: .telegram(chatID: "1"), secret: nil, timeout: .seconds(2), token: try NotifierToken(PhoneStandIn.token)))
        do { try await refused.deliver(NotifierTestAlerts.alert()) } catch let error as NotifierError {
            #expect(!error.message.contains(PhoneStandIn.token), "\(error.message.count)")
        }
    }

    /// Telegram's flood control gives the wait in its JSON body; the outbox honours it.
    @Test func telegramsRetryAfterInTheBodyIsHonoured() async throws {
        let (receiver, _) = inProcessReceiver { _, _ in .text(429, #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 17","parameters":{"retry_after":17}}"#) }
        let notifier = try PhoneStandIn.notifier(receiver, preset: .telegram(chatID: "1"), path: "")
        await #expect(throws: NotifierError.transient("webhook http://127.0.0.1:9/…: HTTP 429 (receiver asked to wait 17 s)", retryAfter: .seconds(17))) {
            try await notifier.deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func defangingLeavesPlainTextAlone() {
        #expect(Defanging.defang("Firefox 115.0 on Windows 10, Paris, FR") == "Firefox 115.0 on Windows 10, Paris, FR")
        #expect(Defanging.defang("see https://evil.com/a?b=c.d and HTTP://x.org") == "see hxxps://evil[.]com/a?b=c[.]d and hxxp://x[.]org")
        #expect(Defanging.defang("evil。com ftp://h.io tg://resolve") == "evil[.]com fxp://h[.]io tg[:]//resolve")
        #expect(Defanging.defang("10.0.0.1 and 1.2.3") == "10[.]0[.]0[.]1 and 1.2.3")
    }

    /// The configuration the issue gives, read by the factory: the tokens from the environment,
    /// chat_id, and each mistake named.
    @Test func theFactoryReadsTheIssuesConfiguration() throws {
        let environment = ["NTFY_TOKEN": "tk_ntfy", "GOTIFY_TOKEN": "AbCdEf.123", "TELEGRAM_BOT_TOKEN": "123456:ABC-DEF"]
        let factory = NotifierFactory(environment: environment, outputIsTerminal: false)
        func make(_ options: [String: String]) throws -> WebhookNotifier {
            try #require(try factory.make(NotifierConfiguration(name: "phone", type: "webhook", options: options)).0 as? WebhookNotifier)
        }
        let ntfy = try make(["preset": "ntfy", "url": "https://ntfy.sh/my-long-random-topic", "token_env": "NTFY_TOKEN"])
        #expect(ntfy.settings.preset == .ntfy(topic: "my-long-random-topic"))
        #expect(ntfy.target.absoluteString == "https://ntfy.sh/")
        let gotify = try make(["preset": "gotify", "url": "https://gotify.example.com/message", "token_env": "GOTIFY_TOKEN"])
        #expect(gotify.settings.preset == .gotify && gotify.target.absoluteString == "https://gotify.example.com/message")
        let telegram = try make(["preset": "telegram", "url": "https://api.telegram.org", "token_env": "TELEGRAM_BOT_TOKEN", "chat_id": "123456789"])
        #expect(telegram.target.absoluteString == "https://api.telegram.org/bot123456:ABC-DEF/sendMessage")
        #expect(telegram.settings.preset == .telegram(chatID: "123456789"))

        func failure(_ options: [String: String], _ env: [String: String] = environment) -> String {
            do {
                _ = try NotifierFactory(environment: env, outputIsTerminal: false).make(NotifierConfiguration(name: "phone", type: "webhook", options: options))
                return "made"
            } catch { return "\(error)" }
        }
        #expect(failure(["preset": "telegram", "url": "https://api.telegram.org", "token_env": "TELEGRAM_BOT_TOKEN"]) == "error: notifier 'phone': the telegram preset needs chat_id (the chat's number, or @channelname)")
        #expect(failure(["preset": "telegram", "url": "https://api.telegram.org", "chat_id": "1"]) == "error: notifier 'phone': the telegram preset needs the bot token: token_env or token_file")
        #expect(failure(["preset": "telegram", "url": "https://api.telegram.org", "token_env": "TELEGRAM_BOT_TOKEN", "chat_id": "1\r\nx"]) == #"error: notifier 'phone': chat_id must be a chat's number (as "123456789" or "-100…") or @channelname, not '1\r\nx'"#)
        #expect(failure(["preset": "gotify", "url": "https://gotify.example.com/message", "token_env": "GOTIFY_TOKEN"], [:]) == "error: notifier 'phone': the environment variable GOTIFY_TOKEN named by token_env is not set")
        #expect(failure(["preset": "gotify", "url": "https://gotify.example.com/message", "token": "inline"]) == "error: notifier 'phone': a token is read from token_env or token_file, never written in the config file")
        #expect(failure(["preset": "ntfy", "url": "https://ntfy.sh/"]) == "error: notifier 'phone': the ntfy url names the topic: https://ntfy.sh/<topic> (1-64 letters, digits, '-' or '_')")
        #expect(failure(["preset": "ntfy", "url": "http://ntfy.example.com/t"]) == "error: notifier 'phone': the webhook URL must use https (plain http is allowed only to 127.0.0.1 or localhost, not ntfy.example.com)")
        #expect(failure(["preset": "ntfy", "url": "https://ntfy.sh/t", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]) == "error: notifier 'phone': the ntfy preset is not signed (its token authenticates); remove the secret")
        #expect(failure(["preset": "slack", "url": "https://hooks.slack.com/x", "token_env": "NTFY_TOKEN"]) == "error: notifier 'phone': token is for the ntfy, gotify and telegram presets; the slack preset does not use it")
        for message in [failure(["preset": "telegram", "url": "https://api.telegram.org", "token_env": "TELEGRAM_BOT_TOKEN", "chat_id": "x y"])] {
            #expect(!message.contains("ABC-DEF"))
        }
    }
}

@Suite struct PersonalAlertTextTests {
    @Test(arguments: [
        ([AlertGroupValue(field: "userId", value: "26be570a"), AlertGroupValue(field: "userPrincipalName", value: "jane@contoso.com")], "jane@contoso.com"),
        ([AlertGroupValue(field: "userId", value: "26be570a")], "object id 26be570a"),
        ([AlertGroupValue(field: "ipAddress", value: "203.0.113.9")], nil),
    ])
    func theAccountIsTheNameWhenTheAlertHasIt(group: [AlertGroupValue], expected: String?) {
        var alert = NotifierTestAlerts.alert()
        alert.group = group
        #expect(PersonalAlertText.account(alert) == expected)
    }
}
