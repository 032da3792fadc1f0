import Foundation
import Testing
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// A stand-in sendmail: a shell script that records its arguments and standard input in its
/// folder and exits with the status it was made with.
struct FakeSendmail {
    let folder: String
    var path: String { folder + "/sendmail" }
    var arguments: [String] { ((try? String(contentsOfFile: folder + "/args", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
    var message: String { (try? String(contentsOfFile: folder + "/message", encoding: .utf8)) ?? "" }

    init(exit status: Int32 = 0, script: String? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-mail-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let body = script ?? "printf '%s\\n' \"$@\" > '\(folder)/args'\ncat > '\(folder)/message'\necho 'sendmail: said something' >&2\nexit \(status)\n"
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

/// The headers of a message (unfolded, in order) and its body.
func parseMessage(_ text: String) -> (headers: [(String, String)], body: String) {
    let parts = text.components(separatedBy: "\n\n")
    var headers: [(String, String)] = []
    for line in parts[0].split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix(" ") || line.hasPrefix("\t"), !headers.isEmpty {
            headers[headers.count - 1].1 += String(line)
        } else if let colon = line.firstIndex(of: ":") {
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
    }
    return (headers, parts.dropFirst().joined(separator: "\n\n"))
}

/// RFC 2047 encoded words (B) back to text.
func decodeWords(_ value: String) -> String {
    guard value.contains("=?utf-8?B?") else { return value }
    var data = Data()
    for word in value.components(separatedBy: "?=") where word.contains("=?utf-8?B?") {
        data.append(Data(base64Encoded: String(word.components(separatedBy: "=?utf-8?B?")[1])) ?? Data())
    }
    return String(decoding: data, as: UTF8.self)
}

/// Quoted-printable back to text.
func decodeQuotedPrintable(_ text: String) -> String {
    var bytes: [UInt8] = []
    let source = Array(text.replacingOccurrences(of: "=\n", with: "").utf8)
    var index = 0
    while index < source.count {
        if source[index] == UInt8(ascii: "="), index + 2 < source.count, let byte = UInt8(String(decoding: source[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
            bytes.append(byte)
            index += 3
        } else {
            bytes.append(source[index])
            index += 1
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

@Suite(.timeLimit(.minutes(20))) struct EmailNotifierTests {
    func notifier(_ sendmail: FakeSendmail, to: [String] = ["jane@example.com"], timeout: Duration = .seconds(10)) throws -> EmailNotifier {
        EmailNotifier(name: "mail", settings: try .init(to: to, from: "tophhie-watch@host-a", sendmail: sendmail.path, timeout: timeout), host: "host-a")
    }

    /// One message per alert, the recipients as arguments after `--`, never `-t`.
    @Test func sendmailGetsTheRecipientsAsArgumentsAndOneMessage() async throws {
        let sendmail = try FakeSendmail()
        defer { sendmail.remove() }
        var alert = NotifierTestAlerts.alert()
        alert.group = [AlertGroupValue(field: "userPrincipalName", value: "jane@contoso.com")]
        try await notifier(sendmail, to: ["jane@example.com", "sec@example.org"]).deliver(alert)
        #expect(sendmail.arguments == ["-i", "-f", "tophhie-watch@host-a", "--", "jane@example.com", "sec@example.org"])
        let (headers, body) = parseMessage(sendmail.message)
        #expect(headers.map(\.0) == ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted"])
        #expect(headers[0].1 == "tophhie-watch@host-a")
        #expect(headers[1].1 == "jane@example.com, sec@example.org")
        #expect(headers[2].1 == "[HIGH] Failed sign-in burst - jane@contoso[.]com")
        #expect(headers[3].1 == "Tue, 02 Dec 2025 13:05:00 +0000")
        #expect(headers[4].1 == "<a-1.tophhie-watch@host-a>")
        #expect(headers[6].1 == "text/plain; charset=utf-8")
        #expect(headers[7].1 == "quoted-printable")
        let text = decodeQuotedPrintable(body)
        #expect(text.hasPrefix("HIGH: Failed sign-in burst\nAccount: jane@contoso[.]com\nTime: 2025-12-02T10:01:00.250Z\nPlace: Paris, FR, address 203[.]0[.]113[.]9\n"), "\(text)")
        #expect(text.contains("5 failed sign-ins from 203[.]0[.]113[.]9 in 10m"))
    }

    /// A non-ASCII subject is in encoded words; the text decodes back exactly.
    @Test func aSubjectThatIsNotASCIIIsEncodedAndFolded() throws {
        let header = EmailMessage.header("Subject", "[HIGH] Connexion échouée — " + String(repeating: "é", count: 100))
        #expect(header.split(separator: "\n").allSatisfy { $0.count <= 78 }, "\(header)")
        #expect(header.hasPrefix("Subject: =?utf-8?B?"))
        #expect(decodeWords(String(header.dropFirst("Subject: ".count))) == "[HIGH] Connexion échouée — " + String(repeating: "é", count: 100))
        let ascii = EmailMessage.header("Subject", String(repeating: "word ", count: 40))
        #expect(ascii.split(separator: "\n").allSatisfy { $0.count <= 78 } && ascii.split(separator: "\n").count > 1, "\(ascii)")
    }

    /// A sign-in whose fields carry `\r\nBcc: …` adds no header: the message has exactly the
    /// program's headers, and the text shows the escape.
    @Test func aSignInWithCRLFBccAddsNoHeader() async throws {
        let sendmail = try FakeSendmail()
        defer { sendmail.remove() }
        let alert = PhoneStandIn.hostileAlert()
        try await notifier(sendmail).deliver(alert)
        let message = sendmail.message
        #expect(!message.contains("\r"))
        let (headers, body) = parseMessage(message)
        #expect(headers.map(\.0) == ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted"])
        #expect(!headers.contains { $0.0.lowercased() == "bcc" || $0.0.lowercased() == "x-injected" })
        #expect(decodeWords(headers[2].1) == #"[HIGH] Failed sign-in burst - jane@contoso[.]com\r\nX-Injected: 1"#, "\(headers[2].1)")
        #expect(sendmail.arguments == ["-i", "-f", "tophhie-watch@host-a", "--", "jane@example.com"])
        let text = decodeQuotedPrintable(body)
        #expect(text.contains(#"Edge\u{202e}gnp[.]exe \r\nBcc: victim@evil[.]com"#))
        #expect(text.contains("[Verify](hxxps://evil[.]example/login)"))
        #expect(body.split(separator: "\n").allSatisfy { $0.utf8.count <= 76 })
        #expect(!text.unicodeScalars.contains { $0 != "\n" && ControlCharacterEscaping.needsEscape($0) })
    }

    /// sendmail's exit status through the outbox's words: 0 delivered, 67 and 68 permanent
    /// (dead-lettered at once), 75 and the rest transient (retried).
    @Test(arguments: [
        (Int32(0), nil as String?),
        (67, "permanent: email: PATH exited 67 (EX_NOUSER: no such user): sendmail: said something"),
        (68, "permanent: email: PATH exited 68 (EX_NOHOST: no such host): sendmail: said something"),
        (75, "transient: email: PATH exited 75 (EX_TEMPFAIL: try again later): sendmail: said something"),
        (1, "transient: email: PATH exited 1: sendmail: said something"),
    ])
    func theExitStatusDecides(status: Int32, expected: String?) async throws {
        let sendmail = try FakeSendmail(exit: status)
        defer { sendmail.remove() }
        do {
            try await notifier(sendmail).deliver(NotifierTestAlerts.alert())
            #expect(expected == nil)
        } catch let error as NotifierError {
            #expect("\(error.code): \(error.message)" == expected?.replacingOccurrences(of: "PATH", with: sendmail.path))
        }
        var policy = DeliveryRetryPolicy()
        if let expected {
            let failure = expected.hasPrefix("permanent") ? NotifierError.permanent("x") : NotifierError.transient("x")
            let action = policy.decide(after: failure, age: .seconds(1), random: 0.5)
            if expected.hasPrefix("permanent") { #expect(action == .deadLetter(reason: "x")) } else { #expect(action != .deadLetter(reason: "x")) }
        }
    }

    /// A sendmail that hangs is killed at the timeout (the error says so, and only that path
    /// does), and the attempt is retried. How long it took is not asserted: tests time nothing.
    @Test func aHangingSendmailIsKilledAtTheTimeout() async throws {
        let sendmail = try FakeSendmail(script: "cat > /dev/null\nsleep 30\n")
        defer { sendmail.remove() }
        await #expect(throws: NotifierError.transient("email: \(sendmail.path) did not finish within 1 s and was killed")) {
            try await notifier(sendmail, timeout: .seconds(1)).deliver(NotifierTestAlerts.alert())
        }
    }

    /// A sendmail that does not exist or cannot run is retried (it may be installed later).
    @Test func aMissingSendmailIsRetried() async throws {
        let notifier = EmailNotifier(settings: try .init(to: ["a@b.example"], from: "c@d.example", sendmail: "/nonexistent/sendmail"), host: "h")
        await #expect(throws: NotifierError.transient("email: cannot run /nonexistent/sendmail: No such file or directory")) {
            try await notifier.deliver(NotifierTestAlerts.alert())
        }
        #expect(Subprocess.whyNotExecutable("/nonexistent/sendmail") == "/nonexistent/sendmail: No such file or directory")
        let plain = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-plain-\(UUID().uuidString)").path
        try "not a program".write(toFile: plain, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: plain) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: plain)
        #expect(Subprocess.whyNotExecutable(plain) == "\(plain) is not executable (mode 644)")
    }

    /// The configuration the issue gives, and each mistake named.
    @Test func theFactoryReadsTheEmailConfiguration() throws {
        let factory = NotifierFactory(environment: [:], outputIsTerminal: false)
        let mail = try #require(try factory.make(NotifierConfiguration(name: "mail", type: "email", options: ["to": "jane@example.com, sec@example.org"])).0 as? EmailNotifier)
        #expect(mail.settings.to == ["jane@example.com", "sec@example.org"])
        #expect(mail.settings.from == "tophhie-watch@" + EmailNotifier.hostName())
        #expect(mail.settings.sendmail == "/usr/sbin/sendmail")
        #expect(mail.arguments == ["-i", "-f", mail.settings.from, "--", "jane@example.com", "sec@example.org"])
        func failure(_ options: [String: String]) -> String {
            do { _ = try factory.make(NotifierConfiguration(name: "mail", type: "email", options: options)); return "made" } catch { return "\(error)" }
        }
        #expect(failure([:]) == "error: notifier 'mail': an email notifier needs 'to': one or more addresses")
        #expect(failure(["to": "-oQ/tmp/x@evil.example"]) == "error: notifier 'mail': '-oQ/tmp/x@evil.example' is not a plain mail address (local@domain, ASCII, no spaces, not starting with '-')")
        #expect(failure(["to": "Jane <jane@example.com>"]) == "error: notifier 'mail': 'Jane <jane@example.com>' is not a plain mail address (local@domain, ASCII, no spaces, not starting with '-')")
        #expect(failure(["to": "a@b.example", "sendmail": "sendmail"]) == "error: notifier 'mail': sendmail must be an absolute path, not 'sendmail'")
        #expect(failure(["to": "a@b.example", "url": "x"]) == "error: notifier 'mail': unknown key 'url' for a email notifier; known: from, sendmail, timeout, to")
    }

    @Test func aListOfRecipientsInTheConfigFile() throws {
        let configuration = try AgentConfiguration.parse("notifiers:\n  - name: mail\n    type: email\n    to:\n      - jane@example.com\n      - sec@example.org\n", file: "cfg.yml", baseDirectory: URL(fileURLWithPath: "/"), environment: [:])
        #expect(configuration.notifiers[0].options["to"] == "jane@example.com, sec@example.org")
    }
}
