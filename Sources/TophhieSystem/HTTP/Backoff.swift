import Foundation

/// Exponential backoff with jitter: the one formula behind Graph retries and webhook delivery.
///
/// The delay after failed attempt `n` is `initial × multiplier^(n−1)`, capped at `maximum`, then
/// spread over `spread` (a factor range) by a uniform draw the caller passes in (so it stays
/// pure), and capped at `maximum` again.
public struct Backoff: Sendable, Equatable, Hashable {
    public var initial: Double
    public var multiplier: Double
    public var maximum: Double
    /// The factor range the draw spreads a delay over: `0.5...1` is "equal jitter" (half fixed,
    /// half random), `0.5...1.5` spreads it evenly around the nominal value.
    public var spread: ClosedRange<Double>

    public init(initial: Double, multiplier: Double = 2, maximum: Double, spread: ClosedRange<Double> = 0.5...1) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.spread = spread
    }

    /// Seconds to wait after failed attempt `attempt` (1-based).
    /// - Parameter random: a uniform draw in `0..<1`; values outside are clamped.
    public func delay(afterAttempt attempt: Int, random: Double) -> Double {
        var nominal = initial
        for _ in 1..<max(1, attempt) {
            nominal *= multiplier
            if nominal >= maximum { break }
        }
        nominal = min(nominal, maximum)
        let draw = min(max(random, 0), 1)
        let factor = spread.lowerBound + (spread.upperBound - spread.lowerBound) * draw
        return min(maximum, nominal * factor)
    }
}
