import Foundation

/// Reads and writes Graph's `DateTimeOffset` text (`2020-03-13T19:15:41.6195833Z`) exactly.
///
/// Written by hand because Foundation's ISO-8601 formatter keeps at most three fractional digits
/// and Graph sends seven.
public enum GraphTimestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil when the text is anything else.
    public static func parse(_ text: String) -> Date? {
        let scalars = Array(text.utf8)
        guard scalars.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 else { return nil }
                value = value * 10 + Int(scalars[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), scalars[4] == UInt8(ascii: "-"),
              let month = number(5..<7), scalars[7] == UInt8(ascii: "-"),
              let day = number(8..<10), scalars[10] == UInt8(ascii: "T"),
              let hour = number(11..<13), scalars[13] == UInt8(ascii: ":"),
              let minute = number(14..<16), scalars[16] == UInt8(ascii: ":"),
              let second = number(17..<19)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if scalars[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                fraction += Double(scalars[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start, index - start <= 9 else { return nil }
        }
        guard index < scalars.count else { return nil }
        var offsetSeconds = 0
        if scalars[index] == UInt8(ascii: "Z") {
            index += 1
        } else if scalars[index] == UInt8(ascii: "+") || scalars[index] == UInt8(ascii: "-") {
            let sign = scalars[index] == UInt8(ascii: "-") ? -1 : 1
            guard let offsetHour = number(index + 1..<index + 3), index + 3 < scalars.count,
                  scalars[index + 3] == UInt8(ascii: ":"), let offsetMinute = number(index + 4..<index + 6),
                  offsetHour < 24, offsetMinute < 60
            else { return nil }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
            index += 6
        } else {
            return nil
        }
        guard index == scalars.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // Relative to 2001 the Double keeps more fractional precision than relative to 1970.
        return Date(timeIntervalSinceReferenceDate: Double(whole - referenceOffset) + fraction)
    }

    /// Parses a bare date `YYYY-MM-DD` as midnight UTC.
    public static func parseDate(_ text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return parse(text + "T00:00:00Z")
    }

    /// Formats as UTC with seven fractional digits, the way Graph writes sign-in times.
    ///
    /// A `Date` holds about a tenth of a microsecond near the present, so the last digit may differ
    /// by one from text it was parsed from; serve stored text rather than re-formatting it.
    public static func format(_ date: Date) -> String {
        let reference = date.timeIntervalSinceReferenceDate
        var whole = reference.rounded(.down)
        var fraction = Int64(((reference - whole) * 10_000_000).rounded())
        if fraction >= 10_000_000 {
            whole += 1
            fraction -= 10_000_000
        }
        let totalSeconds = Int64(whole) + Int64(referenceOffset)
        let (year, month, day, hour, minute, second) = components(totalSeconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%07dZ", year, month, day, hour, minute, second, Int(fraction))
    }

    /// Formats as UTC whole seconds (`2026-03-10T12:00:00Z`), the way `$filter` bounds are written.
    public static func formatSeconds(_ date: Date) -> String {
        let totalSeconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (year, month, day, hour, minute, second) = components(totalSeconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, hour, minute, second)
    }

    /// Seconds from 1970-01-01 to 2001-01-01.
    private static let referenceOffset = 978_307_200

    private static func components(_ totalSeconds: Int64) -> (Int, Int, Int, Int, Int, Int) {
        let days = floorDiv(totalSeconds, 86_400)
        let secondOfDay = Int(totalSeconds - days * 86_400)
        let (year, month, day) = civilFromDays(Int(days))
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm, proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
