import Foundation
import Testing
import TophhieJSON
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// Where `scripts/peer-checks.sh` put msmtp (as sendmail, with its own configuration) and the
/// aiosmtpd server's records; absent in the hermetic run.
enum MailPeerEnvironment {
    static let sendmail = ProcessInfo.processInfo.environment["TOPHHIE_PEER_SENDMAIL"]
    static let records = ProcessInfo.processInfo.environment["TOPHHIE_PEER_SMTP_RECORDS"]
    static var configured: Bool { sendmail != nil && records != nil }
}

/// msmtp, a real sendmail, submits what the email notifier writes to a local aiosmtpd server,
/// and Python's `email` package parses the received message back.
@Suite(.enabled(if: MailPeerEnvironment.configured, "run by scripts/peer-checks.sh"), .serialized, .timeLimit(.minutes(20)))
struct PeerChecksMail {
    func notifier(to: [String] = ["jane@example.com", "sec@example.org"]) throws -> EmailNotifier {
        EmailNotifier(name: "peer-mail", settings: try .init(to: to, from: "tophhie-watch@peerhost", sendmail: MailPeerEnvironment.sendmail!, timeout: .seconds(20)), host: "peerhost")
    }

    func received(_ id: String) async throws -> JSONValue {
        try #require(try await PeerEnvironment.awaitLine(in: MailPeerEnvironment.records!) {
            ($0["messageID"]?.stringValue ?? "").contains(id)
        }, "the SMTP server recorded nothing for \(id)")
    }

    /// One HIGH alert, as the issue's done-when asks: it arrives in the shape given, every header
    /// the notifier wrote parsed back, the recipients from the arguments.
    @Test func aHighAlertArrivesAndParsesBack() async throws {
        let id = PeerEnvironment.uniqueID("mail")
        var alert = NotifierTestAlerts.alert(id: id, level: .high)
        alert.group = [AlertGroupValue(field: "userPrincipalName", value: "jane@contoso.com")]
        try await notifier().deliver(alert)
        let record = try await received(id)
        #expect(record["mailFrom"] == .string("tophhie-watch@peerhost"))
        #expect(record["rcptTos"] == .array([.string("jane@example.com"), .string("sec@example.org")]))
        #expect(record["headerNames"] == .array(["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted"].map(JSONValue.string)))
        #expect(record["subject"] == .string("[HIGH] Failed sign-in burst - jane@contoso[.]com"))
        #expect(record["to"] == .string("jane@example.com, sec@example.org"))
        #expect(record["date"] == .string("Tue, 02 Dec 2025 13:05:00 +0000"))
        #expect(record["messageID"] == .string("<\(id).tophhie-watch@peerhost>"))
        #expect(record["mimeVersion"] == .string("1.0"))
        #expect(record["contentType"] == .string("text/plain"))
        #expect(record["charset"] == .string("utf-8"))
        #expect(record["defects"] == .array([]))
        let body = (record["body"]?.stringValue ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(body.hasPrefix("HIGH: Failed sign-in burst\nAccount: jane@contoso[.]com\nTime: 2025-12-02T10:01:00.250Z\nPlace: Paris, FR, address 203[.]0[.]113[.]9\n"), "\(body)")
    }

    /// A sign-in whose fields carry `\r\nBcc: …` adds no header and no recipient; non-ASCII text
    /// and a 10 KB name arrive whole in quoted-printable, every line within SMTP's limit.
    @Test func hostileFieldsAddNoHeaderAndNoRecipient() async throws {
        let id = PeerEnvironment.uniqueID("hostile")
        var alert = PhoneStandIn.hostileAlert()
        alert.id = id
        alert.rule.title = "Connexion échouée"
        try await notifier(to: ["jane@example.com"]).deliver(alert)
        let record = try await received(id)
        #expect(record["rcptTos"] == .array([.string("jane@example.com")]))
        #expect(record["headerNames"] == .array(["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted"].map(JSONValue.string)))
        #expect(record["subject"] == .string(#"[HIGH] Connexion échouée - jane@contoso[.]com\r\nX-Injected: 1"#))
        #expect(record["transferEncoding"] == .string("quoted-printable"))
        #expect(record["defects"] == .array([]))
        if case .int(let longest)? = record["longestLine"] { #expect(longest <= 78) } else { Issue.record("no line length") }
        let body = (record["body"]?.stringValue ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(body.contains(#"Edge\u{202e}gnp[.]exe \r\nBcc: victim@evil[.]com "# + String(repeating: "W", count: 50)))
        #expect(body.contains("Sign-in: " + String(repeating: "Ä", count: 100)))
        #expect(body.contains("[Verify](hxxps://evil[.]example/login)"))
        #expect(!body.contains("https://evil"))
    }
}
