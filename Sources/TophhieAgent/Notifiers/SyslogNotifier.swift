import Foundation
import TophhieRules
import TophhieSystem

/// Sends alerts to syslog: RFC 5424 over UDP or TCP, or RFC 3164 style to a local socket.
///
/// Failures are errors, never silent drops: a missing `/dev/log`, a refused TCP connection, or
/// (on this host) an ICMP "port unreachable" for UDP all throw a transient `NotifierError`.
public struct SyslogNotifier: Notifier {
    /// Where the messages go.
    public enum Transport: Sendable, Hashable, CustomStringConvertible {
        /// RFC 5426: one RFC 5424 message per datagram.
        case udp(host: String, port: UInt16)
        /// RFC 6587 octet-counting framing, one connection per alert.
        case tcp(host: String, port: UInt16)
        /// A local datagram socket (`/dev/log`), RFC 3164 style as glibc writes it.
        case unixDatagram(path: String)

        public var description: String {
            switch self {
            case .udp(let host, let port): return "udp://\(host):\(port)"
            case .tcp(let host, let port): return "tcp://\(host):\(port)"
            case .unixDatagram(let path): return "unix:\(path)"
            }
        }
    }

    /// The wire format; by default RFC 5424 for the network and RFC 3164 for a local socket.
    public enum Format: String, Sendable, Hashable {
        case rfc5424, rfc3164
    }

    public struct Settings: Sendable, Hashable {
        public var transport: Transport
        public var facility: SyslogFacility
        /// nil: RFC 5424 for UDP/TCP, RFC 3164 for a unix socket (journald and rsyslog's default
        /// local parser mangle RFC 5424 there).
        public var format: Format?
        public var appName: String
        /// The SD-ID of the alert element. 32473 is the documentation PEN (RFC 5612); an operator
        /// with their own enterprise number sets it here.
        public var structuredDataID: String
        /// The HOSTNAME field; nil for this machine's name.
        public var hostname: String?
        /// Longest message sent (framing aside); nil for the transport's default: 2,048 bytes
        /// over UDP and to a local socket (RFC 5426 asks receivers to take that much), 8,000 over
        /// TCP (`tcpDefaultMaxBytes`).
        public var maxMessageBytes: Int?
        /// TCP connect and send deadline.
        public var timeout: Duration

        public init(transport: Transport = .unixDatagram(path: "/dev/log"), facility: SyslogFacility = .auth, format: Format? = nil,
                    appName: String = "tophhie-watch", structuredDataID: String = "tophhie@32473", hostname: String? = nil,
                    maxMessageBytes: Int? = nil, timeout: Duration = .seconds(5)) {
            self.transport = transport
            self.facility = facility
            self.format = format
            self.appName = appName
            self.structuredDataID = structuredDataID
            self.hostname = hostname
            self.maxMessageBytes = maxMessageBytes
            self.timeout = timeout
        }

        /// The bound every message is cut to. Over TCP, under a stock rsyslog's limit: its
        /// `maxMessageSize` is documented as 8k but is 8,096 bytes in its source (runtime/glbl.c),
        /// and a longer frame is split into two records, cut mid-character.
        public var effectiveMaxBytes: Int {
            if let maxMessageBytes { return maxMessageBytes }
            if case .tcp = transport { return Self.tcpDefaultMaxBytes }
            return 2048
        }

        /// The TCP default: what a stock rsyslog takes whole, with room to spare.
        public static let tcpDefaultMaxBytes = 8000

        var effectiveFormat: Format {
            if let format { return format }
            if case .unixDatagram = transport { return .rfc3164 }
            return .rfc5424
        }
    }

    public let name: String
    public let settings: Settings
    private let now: @Sendable () -> Date
    private let timeZone: TimeZone

    /// - Parameters:
    ///   - now: the clock for the message timestamp.
    ///   - timeZone: RFC 3164 timestamps are local time.
    public init(name: String = "syslog", settings: Settings, now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) {
        self.name = name
        self.settings = settings
        self.now = now
        self.timeZone = timeZone
    }

    /// The message for `alert`, before framing.
    public func message(for alert: Alert) -> SyslogMessage {
        var parameters: [(name: String, value: String)] = [
            ("id", alert.id), ("rule", alert.rule.id), ("level", alert.level.rawValue), ("kind", alert.kind.rawValue),
        ]
        // Whose it is, right after the id: RFC 3164's text keeps the first pairs when it is cut.
        if let account = alert.account {
            parameters.insert(("account", account.name), at: 1)
            if let upn = account.userPrincipalName { parameters.insert(("userPrincipalName", upn), at: 2) }
        }
        if !alert.group.isEmpty {
            parameters.append(("group", alert.group.map { "\($0.field)=\($0.value)" }.joined(separator: ", ")))
        }
        parameters = parameters.map { ($0.name, ControlCharacterEscaping.escape($0.value)) }
        return SyslogMessage(
            facility: settings.facility, severity: SyslogSeverity(level: alert.level), timestamp: now(),
            hostname: settings.hostname ?? ProcessFacts.hostName() ?? "-", appName: settings.appName,
            processID: String(ProcessFacts.processID), messageID: alert.kind == .detection ? "alert.fired" : "agent.notice",
            structuredData: [.init(id: settings.structuredDataID, parameters: parameters)],
            text: AlertTextLine.body(alert))
    }

    /// The exact bytes sent for `alert`, framing included.
    public func wireBytes(for alert: Alert) -> [UInt8] {
        let message = message(for: alert)
        let bytes: [UInt8]
        switch settings.effectiveFormat {
        case .rfc5424: bytes = message.rfc5424(maxBytes: settings.effectiveMaxBytes)
        case .rfc3164:
            var remote = true
            if case .unixDatagram = settings.transport { remote = false }
            bytes = message.rfc3164(timeZone: timeZone, maxBytes: settings.effectiveMaxBytes, withHostname: remote)
        }
        if case .tcp = settings.transport { return SyslogMessage.octetCounted(bytes) }
        return bytes
    }

    public func deliver(_ alert: Alert) async throws {
        let bytes = wireBytes(for: alert)
        let transport = settings.transport
        let timeout = settings.timeout
        do {
            // Resolving, connecting and the refusal wait block: they run on the blocking-work pool.
            try await BlockingWork.shared.run {
                switch transport {
                case .udp(let host, let port):
                    try OutgoingSocket.sendDatagram(bytes, host: host, port: port)
                case .tcp(let host, let port):
                    try OutgoingSocket.sendStream(bytes, host: host, port: port, timeout: timeout)
                case .unixDatagram(let path):
                    try OutgoingSocket.sendUnixDatagram(bytes, path: path)
                }
            }
        } catch let error as SocketError where error.isMessageTooLong {
            // The same bytes will never fit: retrying would hold up every alert behind this one.
            throw NotifierError.permanent("syslog: the receiver's socket refused a \(bytes.count)-byte message as too long; lower max_message_bytes (now \(settings.effectiveMaxBytes))")
        } catch let error as SocketError {
            throw NotifierError.transient("syslog: cannot \(error.description)")
        }
    }
}
