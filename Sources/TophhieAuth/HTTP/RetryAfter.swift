import Foundation

/// Reads a `Retry-After` header: delta-seconds (Graph sends fractions such as `2.128`) or an HTTP-date.
public enum RetryAfter {
    /// Seconds to wait, or nil when the header is absent or unreadable. Negative or past values give 0.
    /// - Parameter now: the time an HTTP-date is measured from.
    public static func seconds(_ header: String?, now: Date) -> Double? {
        guard let raw = header?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if let value = Double(raw), value.isFinite { return max(0, value) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: raw) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
