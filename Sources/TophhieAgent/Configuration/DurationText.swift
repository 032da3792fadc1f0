import Foundation
import TophhieRules

/// Durations in the config, written as rule timespans are: `90s`, `5m`, `24h`, `7d`.
public enum DurationText {
    /// Seconds, or nil when the text is not a duration. The same grammar as rule timespans.
    public static func seconds(_ text: String) -> Double? {
        RuleDuration.parse(text)?.interval
    }

    /// The shortest whole form: `300` → `5m`.
    public static func text(_ seconds: Double) -> String {
        for (unit, size) in [("d", 86_400.0), ("h", 3600), ("m", 60)] where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
            return "\(Int(seconds / size))\(unit)"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
    }
}
