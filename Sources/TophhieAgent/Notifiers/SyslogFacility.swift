import TophhieRules

/// A syslog facility by its RFC 5424 code (not glibc's pre-shifted `LOG_*` constants).
public struct SyslogFacility: Sendable, Hashable, CustomStringConvertible {
    /// 0–23.
    public let code: Int

    static let names: [String] = [
        "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
        "ntp", "audit", "alert", "clock", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
    ]

    /// Security/authorization messages, code 4: the default for sign-in alerts.
    public static let auth = SyslogFacility(code: 4)
    /// Private security messages, code 10.
    public static let authpriv = SyslogFacility(code: 10)
    public static let user = SyslogFacility(code: 1)
    public static let daemon = SyslogFacility(code: 3)

    /// `local0` … `local7`.
    public static func local(_ n: Int) -> SyslogFacility? {
        (0...7).contains(n) ? SyslogFacility(code: 16 + n) : nil
    }

    private init(code: Int) { self.code = code }

    /// A facility by name (`auth`, `authpriv`, `local3`) or number 0–23.
    /// - Throws: `SyslogSettingError` listing the accepted names.
    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        if let index = Self.names.firstIndex(of: lowered) {
            code = index
        } else if let number = Int(lowered), (0...23).contains(number) {
            code = number
        } else {
            throw SyslogSettingError("unknown syslog facility \"\(ControlCharacterEscaping.escape(text))\"; use one of \(Self.names.joined(separator: ", ")) or 0-23")
        }
    }

    public var description: String { Self.names[code] }
}

/// RFC 5424 severities the agent sends. `emerg` and `alert` are never used: Debian's default
/// rsyslog configuration wall-broadcasts `*.emerg` to every terminal.
public enum SyslogSeverity: Int, Sendable, Hashable {
    case critical = 2, error = 3, warning = 4, notice = 5, informational = 6

    /// critical→crit, high→err, medium→warning, low→notice, informational→info.
    public init(level: AlertLevel) {
        switch level {
        case .critical: self = .critical
        case .high: self = .error
        case .medium: self = .warning
        case .low: self = .notice
        case .informational: self = .informational
        }
    }
}

/// A bad syslog setting, in words.
public struct SyslogSettingError: Error, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
