import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): delta-seconds, with the fractions Graph sends
/// (`2.128`), or an HTTP-date. The one parser for Graph, the identity platform and webhooks.
public enum RetryAfter {
    /// Seconds to wait, or nil when the header is absent or unreadable. A date in the past gives 0.
    /// - Parameter now: the time an HTTP-date is measured from.
    public static func seconds(_ header: String?, now: Date) -> Double? {
        guard let raw = header?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if isDecimal(raw) { return Double(raw).map { max(0, $0) } }
        guard let date = httpDate(raw) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Digits with at most one `.` and digits after it: no sign, exponent, hex or `inf`.
    private static func isDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), plus the obsolete RFC 850 and asctime
    /// forms: a `Retry-After` date, or a reply's `Date` header.
    public static func httpDate(_ text: String) -> Date? {
        let text = text.replacingOccurrences(of: "  ", with: " ")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// `date` as IMF-fixdate, as a server's `Date` header carries it.
    public static func httpDateText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
