import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TophhieSystem
import TophhieJSON
import TophhieRules
@testable import TophhieAgent

/// Where `scripts/peer-checks.sh` started the real peers; absent in the hermetic run.
enum PeerEnvironment {
    static let values = ProcessInfo.processInfo.environment
    static let syslogHost = values["TOPHHIE_PEER_SYSLOG_HOST"] ?? "127.0.0.1"
    static let syslogPort = values["TOPHHIE_PEER_SYSLOG_PORT"].flatMap { UInt16($0) }
    static let syslogSocket = values["TOPHHIE_PEER_SYSLOG_SOCKET"]
    static let syslogParsed = values["TOPHHIE_PEER_SYSLOG_PARSED"]
    static let webhookURL = values["TOPHHIE_PEER_WEBHOOK_URL"]
    static let webhookSecret = values["TOPHHIE_PEER_WEBHOOK_SECRET"]
    static let webhookRecords = values["TOPHHIE_PEER_WEBHOOK_RECORDS"]
    static let python = values["TOPHHIE_PEER_PYTHON"]
    static let signScript = values["TOPHHIE_PEER_SIGN_SCRIPT"]
    static let cardScript = values["TOPHHIE_PEER_CARD_SCRIPT"]
    static let cardSchema = values["TOPHHIE_PEER_CARD_SCHEMA"]
    static let syslogGrammar = values["TOPHHIE_PEER_SYSLOG_GRAMMAR"]
    static let presetLimits = values["TOPHHIE_PEER_PRESET_LIMITS"]

    /// Runs `script` under the peer Python with `input` on stdin: its exit status and output.
    static func runPython(_ script: String, arguments: [String] = [], input: Data) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python!)
        process.arguments = [script] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    static var syslogConfigured: Bool { syslogPort != nil && syslogSocket != nil && syslogParsed != nil }
    static var cardConfigured: Bool { python != nil && cardScript != nil && cardSchema != nil }
    static var webhookConfigured: Bool { webhookURL != nil && webhookSecret != nil && webhookRecords != nil && python != nil && signScript != nil }

    /// JSON lines of `path` until one satisfies `match`, polling for up to 5 s.
    static func awaitLine(in path: String, where match: (JSONValue) -> Bool) async throws -> JSONValue? {
        for _ in 0..<100 {
            if let data = FileManager.default.contents(atPath: path) {
                for line in data.split(separator: 0x0A) {
                    if let value = try? JSONValue.parse(Data(line)), match(value) { return value }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    static func uniqueID(_ label: String) -> String {
        "peer-\(label)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// rsyslog, as a real independent parser, reads what the syslog notifier sends.
@Suite(.enabled(if: PeerEnvironment.syslogConfigured, "run by scripts/peer-checks.sh"), .serialized, .timeLimit(.minutes(20)))
struct PeerChecksSyslog {
    func notifier(_ transport: SyslogNotifier.Transport, facility: SyslogFacility = .auth) -> SyslogNotifier {
        SyslogNotifier(name: "peer-syslog", settings: .init(transport: transport, facility: facility, hostname: "peerhost"))
    }

    func parsed(_ id: String) async throws -> JSONValue {
        try #require(try await PeerEnvironment.awaitLine(in: PeerEnvironment.syslogParsed!) {
            ($0["raw"]?.stringValue ?? "").contains(id)
        }, "rsyslog wrote no line for \(id)")
    }

    @Test func udpRFC5424IsParsedFieldByField() async throws {
        let id = PeerEnvironment.uniqueID("udp")
        let alert = NotifierTestAlerts.alert(id: id)
        try await notifier(.udp(host: PeerEnvironment.syslogHost, port: PeerEnvironment.syslogPort!)).deliver(alert)
        let line = try await parsed(id)
        #expect(line["input"] == .string("imudp"))
        #expect(line["protocolVersion"] == .string("1"))
        #expect(line["facility"] == .string("4"))
        #expect(line["severity"] == .string("3"))
        #expect(line["hostname"] == .string("peerhost"))
        #expect(line["appName"] == .string("tophhie-watch"))
        #expect(line["procID"] == .string(String(ProcessFacts.processID)))
        #expect(line["msgID"] == .string("alert.fired"))
        #expect(line["structuredData"] == .string("[tophhie@32473 id=\"\(id)\" rule=\"failed-burst\" level=\"high\" kind=\"detection\" group=\"ipAddress=203.0.113.9\"]"))
        #expect(line["msg"] == .string(AlertTextLine.body(alert)))
    }

    /// An alert cut to the TCP default arrives in a stock rsyslog (its own maxMessageSize) as one
    /// record, whole: at 8,192 bytes it was split in two, cut mid-character.
    @Test func aLongAlertAtTheTCPDefaultIsOneRecordInAStockRsyslog() async throws {
        let id = PeerEnvironment.uniqueID("tcp-long")
        var alert = NotifierTestAlerts.alert(id: id, summary: String(repeating: "é", count: 30_000))
        alert.group = [AlertGroupValue(field: "deviceDetail.displayName", value: String(repeating: "A\u{301}]\"", count: 25_000))]
        let syslog = notifier(.tcp(host: PeerEnvironment.syslogHost, port: PeerEnvironment.syslogPort!))
        #expect(syslog.wireBytes(for: alert).count > 7_900, "the alert is cut at the default, not short of it")
        try await syslog.deliver(alert)
        let line = try await parsed(id)
        // A marker sent after it: once it is parsed, every record of the long one has been.
        let marker = PeerEnvironment.uniqueID("tcp-after")
        try await syslog.deliver(NotifierTestAlerts.alert(id: marker))
        _ = try await parsed(marker)
        let records = try String(contentsOfFile: PeerEnvironment.syslogParsed!, encoding: .utf8).split(separator: "\n").filter { $0.contains(id) }
        #expect(records.count == 1, "one record, not split")
        #expect(line["msg"]?.stringValue?.hasSuffix("…") == true, "the cut is the agent's, marked, at a character")
    }

    @Test func tcpOctetCountedKeepsEscapesAndOneMessage() async throws {
        let id = PeerEnvironment.uniqueID("tcp")
        var alert = NotifierTestAlerts.alert(id: id, level: .critical, summary: "line one\nline two \u{1b}[31m")
        alert.group = [AlertGroupValue(field: "device", value: #"ssh "brute" \x ]"#)]
        try await notifier(.tcp(host: PeerEnvironment.syslogHost, port: PeerEnvironment.syslogPort!)).deliver(alert)
        let line = try await parsed(id)
        #expect(line["input"] == .string("imtcp"))
        #expect(line["severity"] == .string("2"))
        #expect(line["msg"] == .string(AlertTextLine.body(alert)))
        let msg = line["msg"]?.stringValue ?? ""
        #expect(msg.contains(#"line one\nline two \u{1b}[31m"#))
        // The SD value as rsyslog keeps it: RFC 5424 escapes of the control-escaped text.
        #expect(line["structuredData"]?.stringValue?.hasSuffix(#" group="device=ssh \"brute\" \\\\x \]"]"#) == true)
    }

    @Test(arguments: [(AlertLevel.critical, "2"), (.high, "3"), (.medium, "4"), (.low, "5"), (.informational, "6")])
    func severityAndAuthprivFacility(level: AlertLevel, severity: String) async throws {
        let id = PeerEnvironment.uniqueID("sev-\(level.rawValue)")
        try await notifier(.udp(host: PeerEnvironment.syslogHost, port: PeerEnvironment.syslogPort!), facility: .authpriv)
            .deliver(NotifierTestAlerts.alert(id: id, level: level))
        let line = try await parsed(id)
        #expect(line["severity"] == .string(severity))
        #expect(line["facility"] == .string("10"))
    }

    @Test func nonASCIIMessageCarriesTheBOM() async throws {
        let id = PeerEnvironment.uniqueID("utf8")
        let alert = NotifierTestAlerts.alert(id: id, summary: "sign-in from Zürich, 東京")
        try await notifier(.udp(host: PeerEnvironment.syslogHost, port: PeerEnvironment.syslogPort!)).deliver(alert)
        let line = try await parsed(id)
        #expect(line["msg"] == .string("\u{FEFF}" + AlertTextLine.body(alert)))
    }

    @Test func unixSocketRFC3164IsParsedByTheLocalParser() async throws {
        let id = PeerEnvironment.uniqueID("unix")
        let alert = NotifierTestAlerts.alert(id: id, level: .medium)
        try await notifier(.unixDatagram(path: PeerEnvironment.syslogSocket!)).deliver(alert)
        let line = try await parsed(id)
        #expect(line["input"] == .string("imuxsock"))
        #expect(line["facility"] == .string("4"))
        #expect(line["severity"] == .string("4"))
        #expect(line["programName"] == .string("tophhie-watch"))
        let msg = line["msg"]?.stringValue ?? ""
        // The pairs come first, so a cut message keeps the alert id and rule.
        #expect(msg.hasPrefix(" id=\"\(id)\" rule=\"failed-burst\" level=\"medium\" kind=\"detection\" group=\"ipAddress=203.0.113.9\" "), "\(msg)")
        #expect(msg.hasSuffix(" " + AlertTextLine.body(alert)))
    }
}

/// A strict RFC 5424 grammar, written apart from our formatter, reads every message we build
/// for hostile and huge alerts, at each size bound and framing.
@Suite(.enabled(if: PeerEnvironment.python != nil && PeerEnvironment.syslogGrammar != nil, "run by scripts/peer-checks.sh"), .timeLimit(.minutes(20)))
struct PeerChecksSyslogGrammar {
    static func hostileAlerts() -> [(String, Alert)] {
        let combining = "e" + String(repeating: "\u{301}", count: 3000)
        var quoted = NotifierTestAlerts.alert(id: "sd-specials", summary: #"a ] b " c \ d"#)
        quoted.group = [AlertGroupValue(field: "device", value: #"]"\ ] x"#), AlertGroupValue(field: "app", value: "\u{1b}[2J\n\u{85}\u{202e}")]
        var huge = NotifierTestAlerts.alert(id: "huge", summary: String(repeating: "東京 Zürich ", count: 2000))
        huge.group = [AlertGroupValue(field: "device", value: String(repeating: "Ω]\"", count: 3000))]
        return [
            ("plain", NotifierTestAlerts.alert(id: "plain")),
            ("non-ascii", NotifierTestAlerts.alert(id: "non-ascii", summary: "sign-in from Zürich, 東京")),
            ("controls", NotifierTestAlerts.alert(id: "controls", device: "Edge\u{202e}gnp.exe\u{2028}\u{0}\u{7f}", summary: "line\nnext\r\u{1b}[31m")),
            ("combining", NotifierTestAlerts.alert(id: "combining", device: combining, summary: "first device '\(combining)'")),
            ("sd-specials", quoted),
            ("huge", huge),
            ("ascii-cut", NotifierTestAlerts.alert(id: "ascii-cut", summary: String(repeating: "x", count: 20_000))),
        ]
    }

    @Test func everyMessageMatchesTheGrammarAtEveryBound() throws {
        var lines: [String] = []
        let transports: [(String, SyslogNotifier.Transport, Int?)] = [
            ("udp", .udp(host: "127.0.0.1", port: 9), nil), ("udp-480", .udp(host: "127.0.0.1", port: 9), 480),
            ("tcp", .tcp(host: "127.0.0.1", port: 9), nil), ("tcp-65000", .tcp(host: "127.0.0.1", port: 9), 65_000),
        ]
        for (transportName, transport, bound) in transports {
            let notifier = SyslogNotifier(name: "grammar", settings: .init(transport: transport, format: .rfc5424, hostname: "peerhost", maxMessageBytes: bound))
            for (name, alert) in Self.hostileAlerts() {
                var framing = "none"
                if case .tcp = transport { framing = "octet-counted" }
                let bytes = notifier.wireBytes(for: alert)
                let item: JSONValue = .object([
                    "name": .string("\(transportName)/\(name)"), "framing": .string(framing),
                    "maxBytes": .int(Int64(notifier.settings.effectiveMaxBytes)),
                    "base64": .string(Data(bytes).base64EncodedString()),
                ])
                lines.append(String(decoding: item.canonicalData(), as: UTF8.self))
            }
        }
        let (status, report) = try PeerEnvironment.runPython(PeerEnvironment.syslogGrammar!, input: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(status == 0, "\(report)")
        #expect(report.hasSuffix("\(lines.count) messages, 0 invalid\n"), "\(report)")
    }
}

/// Every webhook preset's body, for hostile and huge alerts, against a table of each service's
/// documented limits written apart from the presets (`scripts/peers/preset_limits.py`).
@Suite(.enabled(if: PeerEnvironment.python != nil && PeerEnvironment.presetLimits != nil, "run by scripts/peer-checks.sh"), .timeLimit(.minutes(20)))
struct PeerChecksPresetLimits {
    static func alerts() -> [(String, Alert)] {
        let markup = "<!channel> @everyone <@U024BE7LH> <https://evil.example|Open Outlook>"
        var manyGroups = NotifierTestAlerts.alert(id: "many-groups", summary: String(repeating: "Zürich 東京 😀 ", count: 3000))
        manyGroups.group = (0..<40).map { AlertGroupValue(field: "field.\($0)", value: String(repeating: "v\u{301}", count: 500)) }
        var recovery = NotifierTestAlerts.alert(id: "notice-recovered", kind: .notice)
        recovery.resolves = "notice-opened"
        return [
            ("plain", NotifierTestAlerts.alert()),
            ("combining-marks", WebhookPresetTests.hostileAlert()),
            ("controls", NotifierTestAlerts.alert(id: "controls", device: "Edge\u{202e}gnp.exe\u{2028}\u{85}\u{1b}[2J", summary: "a\u{0}b\u{7f}c\nd")),
            ("markup", NotifierTestAlerts.alert(id: "markup", device: markup, summary: "first device '\(markup)'")),
            ("many-groups", manyGroups),
            ("recovery", recovery),
            ("phone-hostile", PhoneStandIn.hostileAlert()),
        ]
    }

    @Test func everyPresetStaysWithinItsServicesDocumentedLimits() throws {
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        let presets: [(String, WebhookPreset)] = [
            ("generic", .generic), ("slack", .slack), ("teams", .teamsWorkflows), ("discord", .discord),
            ("pagerduty", .pagerDuty(routingKey: key)), ("alertmanager", .alertmanager),
            ("ntfy", .ntfy(topic: "my-long-random-topic")), ("gotify", .gotify), ("telegram", .telegram(chatID: "123456789")),
        ]
        var lines: [String] = []
        for (presetName, preset) in presets {
            for (name, alert) in Self.alerts() {
                let body = preset.body(for: alert, context: WebhookPresetTests.context)
                let item: JSONValue = .object(["preset": .string(presetName), "name": .string(name), "body": body])
                lines.append(String(decoding: item.canonicalData(), as: UTF8.self))
            }
        }
        let (status, report) = try PeerEnvironment.runPython(PeerEnvironment.presetLimits!, input: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(status == 0, "\(report)")
        #expect(report.hasSuffix("\(lines.count) bodies, 0 over a limit\n"), "\(report)")
    }
}

/// The reference `standardwebhooks` library verifies what the webhook notifier signs.
@Suite(.enabled(if: PeerEnvironment.webhookConfigured, "run by scripts/peer-checks.sh"), .serialized, .timeLimit(.minutes(20)))
struct PeerChecksWebhook {
    func notifier(secret: String? = PeerEnvironment.webhookSecret) throws -> WebhookNotifier {
        WebhookNotifier(name: "peer-hook", settings: try .init(endpoint: try WebhookEndpoint(PeerEnvironment.webhookURL!),
                                                               secret: try WebhookSecret(parsing: secret!)))
    }

    func record(_ id: String) async throws -> JSONValue {
        try #require(try await PeerEnvironment.awaitLine(in: PeerEnvironment.webhookRecords!) { $0["webhookId"] == .string(id) },
                     "the receiver recorded nothing for \(id)")
    }

    @Test func signedAlertsVerify() async throws {
        let notifier = try notifier()
        for label in ["first", "second"] {
            let id = PeerEnvironment.uniqueID(label)
            try await notifier.deliver(NotifierTestAlerts.alert(id: id))
            let record = try await record(id)
            #expect(record["verified"] == .bool(true), "\(record)")
            #expect(record["type"] == .string("alert.fired"))
            #expect(record["userAgent"] == .string("tophhie-watch/\(WebhookNotifier.version)"))
            #expect(record["contentType"] == .string("application/json"))
        }
    }

    @Test func wrongSecretIsRejected() async throws {
        let id = PeerEnvironment.uniqueID("wrong-secret")
        let other = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        do {
            try await notifier(secret: other).deliver(NotifierTestAlerts.alert(id: id))
            Issue.record("the receiver should have refused a signature made with another secret")
        } catch let error as NotifierError {
            // Standard Webhooks retries every failure but 410: a 401 during a secret rotation must not lose the alert.
            #expect(error.code == .transient)
            #expect(error.message.contains("HTTP 401"))
        }
        let record = try await record(id)
        #expect(record["verified"] == .bool(false))
        #expect(record["error"] == .string("WebhookVerificationError: No matching signature found"))
    }

    @Test func duringARotationTheReceiversSecretVerifiesWhicheverPlaceItHas() async throws {
        let other = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        // The receiver knows one secret; the sender signs with the new one and the old one.
        for (label, order) in [("rotate-new-first", [other, PeerEnvironment.webhookSecret!]), ("rotate-old-first", [PeerEnvironment.webhookSecret!, other])] {
            let id = PeerEnvironment.uniqueID(label)
            let secrets = try WebhookSecret.list(parsing: order.joined(separator: " "))
            let notifier = WebhookNotifier(name: "peer-hook", settings: try .init(endpoint: try WebhookEndpoint(PeerEnvironment.webhookURL!),
                                                                                  secret: secrets[0], additionalSecrets: Array(secrets.dropFirst())))
            try await notifier.deliver(NotifierTestAlerts.alert(id: id))
            let record = try await record(id)
            #expect(record["verified"] == .bool(true), "\(label): \(record)")
        }
    }

    /// Sends a request built by the notifier after changing it, as an attacker would.
    func sendTampered(_ id: String, timestampOffset: Int64 = 0, tamper: (inout URLRequest) -> Void) async throws -> Int {
        let notifier = try notifier()
        var request = notifier.request(for: NotifierTestAlerts.alert(id: id), timestamp: Int64(Date().timeIntervalSince1970) + timestampOffset)
        tamper(&request)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func tamperedBodyIsRejected() async throws {
        let id = PeerEnvironment.uniqueID("tampered-body")
        let status = try await sendTampered(id) { request in
            let text = String(decoding: request.httpBody!, as: UTF8.self).replacingOccurrences(of: "\"high\"", with: "\"low\"")
            request.httpBody = Data(text.utf8)
        }
        #expect(status == 401)
        #expect(try await record(id)["verified"] == .bool(false))
    }

    @Test func tamperedSignatureIsRejected() async throws {
        let id = PeerEnvironment.uniqueID("tampered-signature")
        let status = try await sendTampered(id) { request in
            var signature = Array(request.value(forHTTPHeaderField: "webhook-signature")!)
            signature[5] = signature[5] == "A" ? "B" : "A"
            request.setValue(String(signature), forHTTPHeaderField: "webhook-signature")
        }
        #expect(status == 401)
        #expect(try await record(id)["error"] == .string("WebhookVerificationError: No matching signature found"))
    }

    @Test func staleTimestampIsRejected() async throws {
        let id = PeerEnvironment.uniqueID("stale")
        let status = try await sendTampered(id, timestampOffset: -600) { _ in }
        #expect(status == 401)
        #expect(try await record(id)["error"] == .string("WebhookVerificationError: Message timestamp too old"))
    }

    @Test func signaturesMatchTheReferenceSign() throws {
        let secret = try WebhookSecret(parsing: PeerEnvironment.webhookSecret!)
        for (index, body) in [#"{"test": 2432232314}"#, "{}", #"{"device":"ünï \u{1b} ]"}"#, String(repeating: "x", count: 1000)].enumerated() {
            let id = "msg_\(index)_\(UUID().uuidString.prefix(6))"
            let timestamp = Int64(1_700_000_000 + index * 7919)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: PeerEnvironment.python!)
            process.arguments = [PeerEnvironment.signScript!, id, String(timestamp)]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(body.utf8))
            try input.fileHandleForWriting.close()
            let reference = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(StandardWebhookSignature.sign(id: id, timestamp: timestamp, body: Array(body.utf8), secret: secret) == reference, "body \(index)")
        }
    }
}

/// Microsoft's published Adaptive Card 1.5.0 schema, through the `jsonschema` library, accepts
/// the Teams preset's card for ordinary and hostile alerts.
@Suite(.enabled(if: PeerEnvironment.cardConfigured, "run by scripts/peer-checks.sh"), .serialized, .timeLimit(.minutes(20)))
struct PeerChecksAdaptiveCard {
    func validate(_ card: JSONValue) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PeerEnvironment.python!)
        process.arguments = [PeerEnvironment.cardScript!, PeerEnvironment.cardSchema!]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(card.canonicalData())
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func theTeamsCardIsValidAdaptiveCard15() throws {
        let context = WebhookPreset.Context(source: "host", receiver: "teams")
        for alert in [NotifierTestAlerts.alert(), NotifierTestAlerts.alert(kind: .notice, summary: "a\u{202e}b [x](https://evil.example) " + String(repeating: "\u{0301}", count: 3000))] {
            let body = WebhookPreset.teamsWorkflows.body(for: alert, context: context)
            let card = try #require(body.value(atPath: "attachments.0.content"))
            let (status, text) = try validate(card)
            #expect(text == "valid\n")
            #expect(status == 0)
        }
    }

    @Test func theValidatorRefusesACardThatBreaksTheSchema() throws {
        // The check can fail: a TextBlock without its required text is refused.
        let (status, text) = try validate(.object(["type": .string("AdaptiveCard"), "version": .string("1.5"),
                                                   "body": .array([.object(["type": .string("TextBlock"), "weight": .string("Heaviest")])])]))
        #expect(status == 1 && !text.isEmpty)
    }
}
