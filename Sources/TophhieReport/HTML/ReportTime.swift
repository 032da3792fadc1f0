import Foundation
import TophhieJSON

/// Times as the reader lives them: in the zone chosen when the page was written, with UTC beside
/// (the log, the alerts' JSON and every other channel speak UTC).
public struct ReportTime: Sendable {
    /// The zone times are shown in.
    public var zone: TimeZone

    public init(zone: TimeZone) { self.zone = zone }

    /// UTC alone.
    public static let utc = ReportTime(zone: TimeZone(identifier: "UTC")!)

    /// Whether the zone is UTC itself, so nothing is shown twice.
    var isUTC: Bool { Self.utcNames.contains(zone.identifier) }

    /// The zone database's names for UTC itself (a host set to `Etc/UTC` is on UTC).
    static let utcNames: Set<String> = ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu",
                                        "GMT0", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich"]

    /// The zone's name for the page: `Europe/London`, or `UTC`.
    public var name: String { isUTC ? "UTC" : zone.identifier }

    /// `2024-05-09 09:01 +01:00 (08:01 UTC)`, or `2024-05-09 08:01 UTC` in UTC.
    public func text(_ date: Date) -> String {
        if isUTC { return Self.clock(date, offset: 0) + " UTC" }
        let offset = zone.secondsFromGMT(for: date)
        return Self.clock(date, offset: offset) + " " + Self.offsetText(offset) + " (" + Self.clock(date, offset: 0).suffix(5) + " UTC)"
    }

    /// The calendar day in the zone: `2024-05-09`.
    public func day(_ date: Date) -> String {
        String(Self.clock(date, offset: isUTC ? 0 : zone.secondsFromGMT(for: date)).prefix(10))
    }

    /// Seconds east of UTC at `date` (0 in UTC).
    func offset(at date: Date) -> Int { isUTC ? 0 : zone.secondsFromGMT(for: date) }

    /// `yyyy-MM-dd HH:mm` at `offset` seconds east of UTC, by arithmetic (the proleptic
    /// Gregorian calendar), so no formatter's locale can change it.
    static func clock(_ date: Date, offset: Int) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = GraphTimestamp.civilFromDays(days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(inDay / 3600)):\(two(inDay % 3600 / 60))"
    }

    /// `+01:00`, `-05:00`, `+05:30`.
    static func offsetText(_ offset: Int) -> String {
        let sign = offset < 0 ? "-" : "+", size = abs(offset)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(sign)\(two(size / 3600)):\(two(size % 3600 / 60))"
    }
}
