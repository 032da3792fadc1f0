import Foundation

/// A Sigma timespan such as `10m`, `1h`, `14d`: a whole number and one unit.
package struct RuleDuration: Sendable, Hashable, Codable, CustomStringConvertible {
    public var seconds: Int64
    public var text: String

    public init(seconds: Int64, text: String) {
        self.seconds = seconds
        self.text = text
    }

    /// Parses `N` followed by `s`, `m`, `h`, `d` or `w`; nil for anything else.
    public static func parse(_ text: String) -> RuleDuration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let unit = trimmed.last, let number = Int64(trimmed.dropLast()), number >= 0 else { return nil }
        let scale: Int64
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        case "w": scale = 604_800
        default: return nil
        }
        guard number <= Int64.max / scale / 1000 else { return nil }
        return RuleDuration(seconds: number * scale, text: trimmed)
    }

    public var interval: TimeInterval { TimeInterval(seconds) }
    public var description: String { text }
    public static let zero = RuleDuration(seconds: 0, text: "0s")
}
