import Foundation

/// When the daemon polls next: every interval plus a random share of the jitter, and sooner
/// after a failure is not attempted (the throttling budget is small). Pure.
public struct PollSchedule: Sendable, Equatable {
    public var interval: Double
    public var jitter: Double

    public init(interval: Double, jitter: Double) {
        self.interval = interval
        self.jitter = jitter
    }

    /// Seconds to wait after a cycle that ended at `finished`, given a uniform draw in `0..<1`.
    public func delay(random: Double) -> Double {
        interval + jitter * min(max(random, 0), 1)
    }
}
