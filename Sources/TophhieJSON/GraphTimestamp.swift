import Foundation

/// Reads and writes Graph's `Edm.DateTimeOffset` text.
///
/// Graph sends seven fractional digits (`2020-03-13T19:15:41.6195833Z`), sometimes none, and
/// `ISO8601DateFormatter` accepts neither reliably, so the fields are read by hand.
public enum GraphTimestamp {
    /// Parses `YYYY-MM-DDThh:mm:ss[.fffffff](Z|±hh:mm)`; any number of fractional digits.
    /// - Returns: nil for anything else.
    /// - Complexity: O(length).
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse` over the text's UTF-8 bytes, lent for the call (a record's bytes, read in place).
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let b = bytes[index]
                guard b >= 48, b <= 57 else { return nil }
                value = value * 10 + Int(b - 48)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
              index < bytes.count, bytes[index] == 84 || bytes[index] == 116 else { return nil }
        index += 1
        guard let hour = number(2), expect(58), let minute = number(2), expect(58), let second = number(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            var count = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
                count += 1
            }
            guard count > 0 else { return nil }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case 90, 122:
            index += 1
        case 43, 45:
            let sign = bytes[index] == 45 ? -1 : 1
            index += 1
            guard let oh = number(2), expect(58), let om = number(2), oh < 24, om < 60 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds)
        return Date(timeIntervalSince1970: seconds + fraction)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Parses a bare date `YYYY-MM-DD` as midnight UTC (scenario files use it).
    public static func parseDate(_ text: String) -> Date? {
        parse(text + "T00:00:00Z")
    }

    /// Formats as UTC with seconds and a `Z`, the form Graph's `$filter` takes unquoted:
    /// `2024-01-13T14:13:32Z`. Fractions are dropped (rounded down).
    public static func filterText(_ date: Date) -> String {
        let (y, mo, d, h, mi, s) = components(date)
        return text(y, mo, d, h, mi, s, fraction: 0, digits: 0) ?? String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, s)
    }

    /// Formats as UTC with seven fractional digits, as Graph writes `createdDateTime`.
    public static func graphText(_ date: Date) -> String {
        let (y, mo, d, h, mi, s) = components(date)
        let whole = floor(date.timeIntervalSince1970)
        let ticks = min(9_999_999, Int(((date.timeIntervalSince1970 - whole) * 10_000_000).rounded()))
        return text(y, mo, d, h, mi, s, fraction: ticks, digits: 7)
            ?? String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%07dZ", y, mo, d, h, mi, s, ticks)
    }

    /// Formats as UTC with milliseconds: the form alerts and logs use.
    ///
    /// The fraction is rounded to the microsecond and then cut to the millisecond: cut from the
    /// binary fraction itself, `45.221` (held as 45.22099…) was written back as `45.220`. (A
    /// date of this century holds its time to about 0.2 µs, so the microsecond is exact and a
    /// finer tick is not.)
    public static func alertText(_ date: Date) -> String {
        let (y, mo, d, h, mi, s, millis) = alertComponents(date)
        return text(y, mo, d, h, mi, s, fraction: millis, digits: 3)
            ?? String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, mo, d, h, mi, s, millis)
    }

    /// Writes `alertText(date)`'s bytes into `buffer`, which has room for 24.
    /// - Returns: how many were written, or nil for a year outside 0 to 9999 (nothing written).
    package static func writeAlertText(_ date: Date, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let (y, mo, d, h, mi, s, millis) = alertComponents(date)
        guard (0...9999).contains(y) else { return nil }
        return write(y, mo, d, h, mi, s, fraction: millis, digits: 3, into: buffer)
    }

    /// The date's fields and its milliseconds, as `alertText` writes them.
    private static func alertComponents(_ date: Date) -> (Int, Int, Int, Int, Int, Int, Int) {
        let (y, mo, d, h, mi, s) = components(date)
        let whole = floor(date.timeIntervalSince1970)
        let micros = min(999_999, Int(((date.timeIntervalSince1970 - whole) * 1_000_000).rounded()))
        return (y, mo, d, h, mi, s, micros / 1000)
    }

    /// `yyyy-mm-ddThh:mm:ss.<fraction>Z` (no point and no fraction for 0 digits), the digits
    /// written into the string's own buffer, for the years 0 to 9999 (`String(format:)` writes
    /// the others): formatting through Foundation was a third of writing a replay's alerts.
    private static func text(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, fraction: Int, digits: Int) -> String? {
        guard (0...9999).contains(y) else { return nil }
        return String(unsafeUninitializedCapacity: 21 + digits) { buffer in
            write(y, mo, d, h, mi, s, fraction: fraction, digits: digits, into: buffer)
        }
    }

    /// Writes `text`'s bytes (the year 0 to 9999) into `buffer`, which has room for them.
    /// - Returns: how many were written: 21 + `digits`, or 20 with no fraction.
    private static func write(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, fraction: Int, digits: Int,
                              into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var at = 0
        func put(_ value: Int, _ width: Int) {
            // Unsigned: a signed division by ten costs half again as much (four times an alert line).
            var rest = UInt(truncatingIfNeeded: value)
            var position = at + width
            while position > at {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            at += width
        }
        func put(_ byte: Unicode.Scalar) { buffer[at] = UInt8(ascii: byte); at += 1 }
        put(y, 4); put("-"); put(mo, 2); put("-"); put(d, 2); put("T")
        put(h, 2); put(":"); put(mi, 2); put(":"); put(s, 2)
        if digits > 0 { put("."); put(fraction, digits) }
        put("Z")
        return at
    }

    private static func components(_ date: Date) -> (Int, Int, Int, Int, Int, Int) {
        let total = Int(floor(date.timeIntervalSince1970))
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        return (y, m, d, rest / 3600, (rest % 3600) / 60, rest % 60)
    }

    // Howard Hinnant's days-from-civil algorithm: exact for the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The (year, month, day) of a count of days since 1970-01-01 in the proleptic Gregorian
    /// calendar (Howard Hinnant's days-to-civil).
    package static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
