import Foundation
import Testing
import TophhieSystem
import TophhieRules
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct SyslogMessageTests {
    static let fixedTime = Date(timeIntervalSince1970: 1_764_669_600.123456) // 2025-12-02T10:00:00.123456Z

    static func message(text: String = "HIGH alert text", value: String = "203.0.113.9") -> SyslogMessage {
        SyslogMessage(facility: .auth, severity: .error, timestamp: fixedTime, hostname: "host one", appName: "tophhie-watch",
                      processID: "4242", messageID: "alert.fired",
                      structuredData: [.init(id: "tophhie@32473", parameters: [("id", "a-1"), ("group", value)])], text: text)
    }

    @Test func rfc5424ExactBytes() {
        let text = String(decoding: Self.message().rfc5424(), as: UTF8.self)
        #expect(text == #"<35>1 2025-12-02T10:00:00.123456Z hostone tophhie-watch 4242 alert.fired [tophhie@32473 id="a-1" group="203.0.113.9"] HIGH alert text"#)
    }

    @Test func parameterEscaping() {
        let text = String(decoding: Self.message(value: #"ssh "brute" \x ]"#).rfc5424(), as: UTF8.self)
        #expect(text.contains(#"group="ssh \"brute\" \\x \]""#))
    }

    @Test func bomOnlyForNonASCII() {
        let ascii = Self.message(text: "plain").rfc5424()
        #expect(!ascii.starts(with: [0xEF]) && !ascii.contains(0xEF))
        let utf8 = Self.message(text: "Zürich").rfc5424()
        let marker = Array(#"] "#.utf8) + [0xEF, 0xBB, 0xBF] + Array("Zürich".utf8)
        #expect(utf8.suffix(marker.count).elementsEqual(marker))
    }

    @Test func truncatesAtCharacterBoundary() {
        let long = String(repeating: "é", count: 3000)
        let bytes = Self.message(text: long).rfc5424(maxBytes: 480)
        #expect(bytes.count <= 480)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasSuffix("é…"))
        #expect(!text.contains("\u{FFFD}"), "no split character")
    }

    @Test func aCutASCIIMessageGetsTheBOMItsEllipsisNeeds() {
        let bytes = Self.message(text: String(repeating: "x", count: 5000)).rfc5424(maxBytes: 480)
        #expect(bytes.count <= 480)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("] \u{FEFF}xxx"), "the BOM starts MSG")
        #expect(text.hasSuffix("x…"))
        // Uncut ASCII stays without one.
        #expect(!String(decoding: Self.message().rfc5424(), as: UTF8.self).contains("\u{FEFF}"))
    }

    @Test func rfc3164Form() {
        let text = String(decoding: Self.message().rfc3164(timeZone: TimeZone(identifier: "UTC")!), as: UTF8.self)
        #expect(text == #"<35>Dec  2 10:00:00 tophhie-watch[4242]: id="a-1" group="203.0.113.9" HIGH alert text"#)
    }

    @Test func rfc3164OverTheNetworkNamesTheHostAndStaysWithin1024Bytes() {
        let utc = TimeZone(identifier: "UTC")!
        let networked = String(decoding: Self.message().rfc3164(timeZone: utc, withHostname: true), as: UTF8.self)
        #expect(networked.hasPrefix("<35>Dec  2 10:00:00 hostone tophhie-watch[4242]: "), "\(networked)")
        // A long text is cut, the 1,024 bytes of RFC 3164 hold even when more room was configured,
        // and the alert id survives the cut because it comes first.
        let long = Self.message(text: String(repeating: "x", count: 5000)).rfc3164(timeZone: utc, maxBytes: 8192, withHostname: true)
        #expect(long.count <= 1024)
        #expect(String(decoding: long, as: UTF8.self).contains(#"id="a-1""#))
    }

    @Test func octetCounting() {
        #expect(SyslogMessage.octetCounted(Array("<35>1 x".utf8)) == Array("7 <35>1 x".utf8))
        #expect(SyslogMessage.octetCounted(Array("é".utf8)) == Array("2 é".utf8))
    }

    @Test(arguments: [(AlertLevel.critical, 2), (.high, 3), (.medium, 4), (.low, 5), (.informational, 6)])
    func severityFromLevel(level: AlertLevel, severity: Int) {
        #expect(SyslogSeverity(level: level).rawValue == severity)
    }

    @Test(arguments: [("auth", 4), ("authpriv", 10), ("AUTH", 4), ("local0", 16), ("local7", 23), ("user", 1), ("13", 13)])
    func facilityNames(text: String, code: Int) throws {
        #expect(try SyslogFacility(parsing: text).code == code)
    }

    @Test func unknownFacility() {
        #expect(throws: SyslogSettingError.self) { try SyslogFacility(parsing: "local8") }
        do {
            _ = try SyslogFacility(parsing: "bogus")
        } catch {
            #expect("\(error)".hasPrefix(#"unknown syslog facility "bogus"; use one of kern, user"#))
        }
        #expect(SyslogFacility.local(3)?.code == 19)
        #expect(SyslogFacility.local(8) == nil)
    }
}

/// Real UDP, TCP and unix sockets on this host: the syslog transports over the wire.
@Suite(.serialized, .timeLimit(.minutes(20))) struct SyslogNotifierTests {
    static let clock: @Sendable () -> Date = { SyslogMessageTests.fixedTime }

    func notifier(_ transport: SyslogNotifier.Transport, facility: SyslogFacility = .auth) -> SyslogNotifier {
        SyslogNotifier(settings: .init(transport: transport, facility: facility, hostname: "testhost"), now: Self.clock,
                       timeZone: TimeZone(identifier: "UTC")!)
    }

    @Test func alertFieldsAndEscapedText() {
        let hostile = NotifierTestAlerts.alert(summary: "fail\n<34>1 forged ] \"q\"")
        let text = String(decoding: notifier(.udp(host: "127.0.0.1", port: 9)).wireBytes(for: hostile), as: UTF8.self)
        let pid = ProcessFacts.processID
        #expect(text.hasPrefix("<35>1 2025-12-02T10:00:00.123456Z testhost tophhie-watch \(pid) alert.fired [tophhie@32473 id=\"a-1\" rule=\"failed-burst\" level=\"high\" kind=\"detection\" group=\"ipAddress=203.0.113.9\"] HIGH [failed-burst]"))
        #expect(!text.contains("\n"))
        #expect(text.contains(#"fail\n<34>1 forged ] "q""#))
    }

    @Test func noticeUsesItsOwnMessageID() {
        let notice = NotifierTestAlerts.alert(level: .critical, ruleID: "agent.sign-in-needed", kind: .notice)
        let text = String(decoding: notifier(.udp(host: "127.0.0.1", port: 9), facility: .authpriv).wireBytes(for: notice), as: UTF8.self)
        #expect(text.hasPrefix("<82>1 "))
        #expect(text.contains(" agent.notice [tophhie@32473 "))
    }

    @Test func udpDatagramArrives() async throws {
        let (listener, port) = try ListeningSocket.bindListener(kind: .datagram)
        let syslog = notifier(.udp(host: "127.0.0.1", port: port))
        let alert = NotifierTestAlerts.alert()
        try await syslog.deliver(alert)
        let received = try #require(try ListeningSocket.receiveDatagram(listener, timeout: .seconds(10)))
        #expect(received == syslog.wireBytes(for: alert))
        #expect(received.starts(with: Array("<35>1 ".utf8)))
    }

    /// An alert whose group value is 125 KB of attacker-chosen text (a device name), marks and escapes.
    static func hugeGroupAlert() -> Alert {
        var alert = NotifierTestAlerts.alert(summary: String(repeating: "é", count: 30_000))
        alert.group = [AlertGroupValue(field: "deviceDetail.displayName", value: String(repeating: "A\u{301}]\"", count: 25_000))]
        return alert
    }

    @Test(arguments: [
        (SyslogNotifier.Transport.udp(host: "127.0.0.1", port: 9), 2048),
        (.tcp(host: "127.0.0.1", port: 9), 8000),
        (.unixDatagram(path: "/dev/log"), 2048),
    ])
    func aHugeValueIsCutToTheTransportsBound(transport: SyslogNotifier.Transport, bound: Int) throws {
        let syslog = notifier(transport)
        var bytes = syslog.wireBytes(for: Self.hugeGroupAlert())
        if case .tcp = transport {
            let space = try #require(bytes.firstIndex(of: 0x20))
            let counted = try #require(Int(String(decoding: bytes[..<space], as: UTF8.self)))
            bytes = Array(bytes[(space + 1)...])
            #expect(counted == bytes.count, "the octet count frames the cut message")
        }
        #expect(bytes.count <= bound)
        #expect(bytes.count > bound - 16, "the bound is used, not wasted")
        let text = String(decoding: bytes, as: UTF8.self)
        if case .unixDatagram = transport { return }
        // The short values stay whole, the long one is cut inside its quotes, and SD stays well-formed.
        #expect(text.contains(#"[tophhie@32473 id="a-1" rule="failed-burst" level="high" kind="detection" group="deviceDetail.displayName="#))
        let sdEnd = try #require(text.range(of: "…\"] "))
        #expect(!text[..<sdEnd.lowerBound].hasSuffix("\\"), "the cut does not leave a dangling escape")
        #expect(text.hasSuffix("é…") || text.hasSuffix("…"))
    }

    @Test func aHugeValueStillArrivesOverUDP() async throws {
        let (listener, port) = try ListeningSocket.bindListener(kind: .datagram)
        let syslog = notifier(.udp(host: "127.0.0.1", port: port))
        try await syslog.deliver(Self.hugeGroupAlert())
        let received = try #require(try ListeningSocket.receiveDatagram(listener, timeout: .seconds(10)))
        #expect(received.count <= 2048)
        #expect(received == syslog.wireBytes(for: Self.hugeGroupAlert()))
    }

    @Test func tcpOctetCountedFrameArrives() async throws {
        let (listener, port) = try ListeningSocket.bindListener(kind: .stream)
        let syslog = notifier(.tcp(host: "127.0.0.1", port: port))
        let alert = NotifierTestAlerts.alert(summary: "two\nlines stay one message")
        async let received = BlockingWork.shared.run { try ListeningSocket.acceptAndReadAll(listener, timeout: .seconds(10)) }
        try await syslog.deliver(alert)
        let bytes = try #require(try await received)
        let space = try #require(bytes.firstIndex(of: 0x20))
        let length = try #require(Int(String(decoding: bytes[..<space], as: UTF8.self)))
        let body = Array(bytes[(space + 1)...])
        #expect(body.count == length)
        #expect(body.starts(with: Array("<35>1 2025-12-02T10:00:00.123456Z testhost".utf8)))
    }

    @Test func unixSocketGetsRFC3164() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tw-syslog-\(UUID().uuidString.prefix(8)).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let listener = try ListeningSocket.bindUnixDatagram(path: path)
        let syslog = notifier(.unixDatagram(path: path))
        try await syslog.deliver(NotifierTestAlerts.alert())
        let received = String(decoding: try #require(try ListeningSocket.receiveDatagram(listener, timeout: .seconds(10))), as: UTF8.self)
        #expect(received.hasPrefix(#"<35>Dec  2 10:00:00 tophhie-watch[\#(ProcessFacts.processID)]: id="a-1" rule="failed-burst" level="high" kind="detection" group="ipAddress=203.0.113.9" HIGH [failed-burst] Failed sign-in burst: "#), "\(received)")
    }

    @Test func missingUnixSocketIsAnError() async {
        let path = "/tmp/tw-no-such-socket-\(UUID().uuidString.prefix(8))"
        await #expect(throws: NotifierError.transient("syslog: cannot send to unix socket \(path): No such file or directory")) {
            try await notifier(.unixDatagram(path: path)).deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func refusedTCPIsAnError() async throws {
        // Bind then close to find a port nothing listens on.
        let port = try { () throws -> UInt16 in let (_, port) = try ListeningSocket.bindListener(kind: .stream); return port }()
        await #expect(throws: NotifierError.transient("syslog: cannot connect to tcp 127.0.0.1:\(port): Connection refused")) {
            try await notifier(.tcp(host: "127.0.0.1", port: port)).deliver(NotifierTestAlerts.alert())
        }
    }

    @Test func closedUDPPortIsAnError() async throws {
        let port = try { () throws -> UInt16 in let (_, port) = try ListeningSocket.bindListener(kind: .datagram); return port }()
        await #expect(throws: NotifierError.transient("syslog: cannot send to udp 127.0.0.1:\(port): Connection refused")) {
            try await notifier(.udp(host: "127.0.0.1", port: port)).deliver(NotifierTestAlerts.alert())
        }
    }
}
