import Foundation

/// Reads durations written as `90s`, `5m`, `24h`, `7d` (a bare number is seconds).
public enum DurationText {
    /// Seconds, or nil when the text is not a duration.
    public static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let unit = trimmed.last else { return nil }
        let multipliers: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let multiplier = multipliers[unit] {
            guard let value = Double(trimmed.dropLast()), value.isFinite, value >= 0 else { return nil }
            return value * multiplier
        }
        guard let value = Double(trimmed), value.isFinite, value >= 0 else { return nil }
        return value
    }

    /// The shortest whole form: `300` → `5m`.
    public static func text(_ seconds: Double) -> String {
        for (unit, size) in [("d", 86_400.0), ("h", 3600), ("m", 60)] where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
            return "\(Int(seconds / size))\(unit)"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
    }
}
