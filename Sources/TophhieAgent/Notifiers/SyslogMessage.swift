import Foundation
import TophhieJSON
import TophhieRules

/// One syslog message, formatted for the wire as RFC 5424 or as RFC 3164 (glibc's local form).
///
/// Pure: the clock, host name and process id are inputs.
public struct SyslogMessage: Sendable, Hashable {
    /// One SD-ELEMENT: an SD-ID and its parameters in order.
    public struct StructuredElement: Sendable, Hashable {
        public var id: String
        public var parameters: [(name: String, value: String)]

        public init(id: String, parameters: [(name: String, value: String)]) {
            self.id = id
            self.parameters = parameters
        }

        public static func == (a: Self, b: Self) -> Bool {
            a.id == b.id && a.parameters.map(\.name) == b.parameters.map(\.name) && a.parameters.map(\.value) == b.parameters.map(\.value)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            for p in parameters { hasher.combine(p.name); hasher.combine(p.value) }
        }
    }

    public var facility: SyslogFacility
    public var severity: SyslogSeverity
    public var timestamp: Date
    public var hostname: String
    public var appName: String
    public var processID: String
    public var messageID: String
    public var structuredData: [StructuredElement]
    /// Already free of control characters; see `ControlCharacterEscaping`.
    public var text: String

    public init(facility: SyslogFacility, severity: SyslogSeverity, timestamp: Date, hostname: String, appName: String,
                processID: String, messageID: String, structuredData: [StructuredElement], text: String) {
        self.facility = facility
        self.severity = severity
        self.timestamp = timestamp
        self.hostname = hostname
        self.appName = appName
        self.processID = processID
        self.messageID = messageID
        self.structuredData = structuredData
        self.text = text
    }

    /// PRI = facility × 8 + severity.
    public var priority: Int { facility.code * 8 + severity.rawValue }

    /// `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [SD] MSG`, at most `maxBytes` long.
    ///
    /// Every part is bounded, so no value (a 1 MB group from a hostile device name) can make a
    /// message the transport refuses: the header fields have RFC 5424's limits, the structured
    /// data gets at most three quarters of what is left (its longest values cut first, each
    /// ending in `…`), and MSG is cut (at a character boundary, with `…`) to fit the rest. A
    /// UTF-8 BOM is put before MSG only when it holds non-ASCII text (a cut's `…` included), as
    /// RFC 5424 §6.4 asks.
    public func rfc5424(maxBytes: Int = 2048) -> [UInt8] {
        var header = "<\(priority)>1 \(Self.rfc5424Time(timestamp)) \(Self.headerField(hostname, limit: 255)) "
        header += "\(Self.headerField(appName, limit: 48)) \(Self.headerField(processID, limit: 128)) \(Self.headerField(messageID, limit: 32)) "
        let budget = max(0, (maxBytes - header.utf8.count) * 3 / 4)
        header += structuredData.isEmpty ? "-" : Self.fitted(structuredData, toBytes: budget)
        var bytes = Array(header.utf8)
        guard !text.isEmpty else { return bytes }
        // A cut ASCII text ends in `…`, which is not ASCII: it then needs the BOM too.
        let cut = text.utf8.count > maxBytes - bytes.count - 1
        let bom: [UInt8] = cut || text.utf8.contains(where: { $0 >= 0x80 }) ? [0xEF, 0xBB, 0xBF] : []
        bytes.append(0x20)
        bytes.append(contentsOf: bom)
        bytes.append(contentsOf: Self.truncated(text, toBytes: maxBytes - bytes.count))
        return bytes
    }

    /// `<PRI>Mmm dd hh:mm:ss [HOSTNAME ]APP-NAME[PROCID]: MSG`: without HOSTNAME, what glibc's
    /// `syslog(3)` writes to `/dev/log`, the only form journald and rsyslog's default local parser
    /// read correctly; with it, the network form RFC 3164 §4.1.2 asks for.
    ///
    /// Structured data goes first in the text as `key=value` pairs, so a cut keeps the alert id
    /// and rule. Over the network the whole message is at most 1,024 bytes (§4.1), whatever
    /// `maxBytes` says; the local socket is not a relay and takes `maxBytes`.
    /// - Parameter withHostname: true over UDP or TCP; false for a local socket.
    public func rfc3164(timeZone: TimeZone, maxBytes: Int = 1024, withHostname: Bool = false) -> [UInt8] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.month, .day, .hour, .minute, .second], from: timestamp)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = c.day! < 10 ? " \(c.day!)" : "\(c.day!)"
        let time = String(format: "%02d:%02d:%02d", c.hour!, c.minute!, c.second!)
        let tag = String(appName.unicodeScalars.filter { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }.prefix(32))
        // §4.1.2: HOSTNAME has no spaces; the short name, as hosts write it.
        let host = withHostname ? Self.headerField(String(hostname.split(separator: ".").first ?? "-"), limit: 255) + " " : ""
        let header = "<\(priority)>\(months[c.month! - 1]) \(day) \(time) \(host)\(tag.isEmpty ? "-" : tag)[\(processID)]: "
        var pairs: [String] = []
        for element in structuredData {
            for parameter in element.parameters {
                pairs.append("\(parameter.name)=\"\(Self.paramValue(parameter.value))\"")
            }
        }
        let content = (pairs + [text]).joined(separator: " ")
        var bytes = Array(header.utf8)
        let bound = withHostname ? min(maxBytes, Self.rfc3164MaxBytes) : maxBytes
        bytes.append(contentsOf: Self.truncated(content, toBytes: bound - bytes.count))
        return bytes
    }

    /// RFC 3164 §4.1: "The total length of the packet MUST be 1024 bytes or less."
    public static let rfc3164MaxBytes = 1024

    /// RFC 6587 octet counting: `MSG-LEN SP SYSLOG-MSG`.
    public static func octetCounted(_ message: [UInt8]) -> [UInt8] {
        Array("\(message.count) ".utf8) + message
    }

    /// RFC 3339 UTC with microseconds, the most RFC 5424 allows.
    static func rfc5424Time(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = floor(seconds)
        let micros = min(999_999, Int(((seconds - whole) * 1_000_000).rounded(.down)))
        // filterText is `YYYY-MM-DDThh:mm:ssZ`; the fraction goes before the zone.
        let base = String(GraphTimestamp.filterText(Date(timeIntervalSince1970: whole)).dropLast())
        return base + String(format: ".%06dZ", micros)
    }

    /// PRINTUSASCII only, no spaces, within the field's limit; `-` when empty.
    static func headerField(_ value: String, limit: Int) -> String {
        let cleaned = String(value.unicodeScalars.filter { $0.value >= 33 && $0.value <= 126 }.prefix(limit).map(Character.init))
        return cleaned.isEmpty ? "-" : cleaned
    }

    /// SD-NAME: 1–32 printable ASCII except `=`, space, `]`, `"`.
    static func sdName(_ value: String) -> String {
        let cleaned = value.unicodeScalars.filter { $0.value >= 33 && $0.value <= 126 && !"= ]\"".unicodeScalars.contains($0) }
        let text = String(String.UnicodeScalarView(cleaned.prefix(32)))
        return text.isEmpty ? "x" : text
    }

    /// RFC 5424 §6.3.3: `"`, `\` and `]` are escaped with a backslash; nothing else.
    ///
    /// Walks scalars, not characters: `"` followed by a combining mark is one `Character` that
    /// is not `"`, yet its first byte on the wire is a bare quote.
    static func paramValue(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" || scalar == "]" { out.append("\\") }
            out.append(scalar)
        }
        return String(out)
    }

    static func element(_ item: StructuredElement) -> String {
        Self.element(item, valueLimit: nil)
    }

    /// An SD-ELEMENT whose values are each cut to `valueLimit` bytes (before escaping) with `…`.
    static func element(_ item: StructuredElement, valueLimit: Int?) -> String {
        "[" + sdName(item.id) + item.parameters.map { parameter in
            let value = valueLimit.map { String(decoding: truncated(parameter.value, toBytes: $0), as: UTF8.self) } ?? parameter.value
            return " \(sdName(parameter.name))=\"\(paramValue(value))\""
        }.joined() + "]"
    }

    /// The structured data within `limit` bytes: whole when it fits, else with every value cut
    /// to the longest length that fits (so short values such as the alert id stay whole), else
    /// `-` when even empty values do not fit.
    static func fitted(_ elements: [StructuredElement], toBytes limit: Int) -> String {
        // Escaping only adds bytes: values longer in total than the limit cannot fit whole.
        if elements.flatMap(\.parameters).reduce(0, { $0 + $1.value.utf8.count }) <= limit {
            let whole = elements.map(element).joined()
            if whole.utf8.count <= limit { return whole }
        }
        func render(_ cap: Int) -> String { elements.map { Self.element($0, valueLimit: cap) }.joined() }
        var low = 0
        var high = elements.flatMap(\.parameters).map(\.value.utf8.count).max() ?? 0
        guard render(0).utf8.count <= limit else { return "-" }
        while low < high {
            let middle = (low + high + 1) / 2
            if render(middle).utf8.count <= limit { low = middle } else { high = middle - 1 }
        }
        return render(low)
    }

    /// The UTF-8 of `text`, cut at a character boundary with `…` so it fits in `limit` bytes.
    static func truncated(_ text: String, toBytes limit: Int) -> [UInt8] {
        guard text.utf8.count > limit else { return Array(text.utf8) }
        let ellipsis = Array("…".utf8)
        guard limit > ellipsis.count else { return [] }
        var out: [UInt8] = []
        for character in text {
            let next = Array(String(character).utf8)
            if out.count + next.count + ellipsis.count > limit { break }
            out.append(contentsOf: next)
        }
        return out + ellipsis
    }
}
