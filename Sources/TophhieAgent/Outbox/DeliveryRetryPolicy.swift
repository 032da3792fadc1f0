import Foundation
import TophhieSystem

/// Decides what to do after each failed delivery attempt: wait and retry, leave it for the next
/// cycle, or give up. Pure: time spent, the alert's age and the random draw are inputs.
///
/// Backoff is exponential with jitter (`initialDelay × multiplier^(n−1)`, spread by ±`jitter`,
/// capped at `maxDelay`); a receiver's `Retry-After` replaces the computed delay.
public struct DeliveryRetryPolicy: Sendable {
    public struct Settings: Sendable, Hashable {
        public var initialDelay: Duration
        public var multiplier: Double
        public var maxDelay: Duration
        /// 0.5 spreads each delay over 50 %…150 % of its nominal value.
        public var jitter: Double
        /// Attempts at one alert within one drain before leaving it for the next cycle.
        public var maxAttemptsPerCycle: Int
        /// Waiting (sleeps) allowed within one drain; a longer wait defers to the next cycle.
        public var maxWaitPerCycle: Duration
        /// An alert still failing after this long in the outbox is dead-lettered.
        public var maxAge: Duration

        public init(initialDelay: Duration = .milliseconds(500), multiplier: Double = 2, maxDelay: Duration = .seconds(60), jitter: Double = 0.5,
                    maxAttemptsPerCycle: Int = 5, maxWaitPerCycle: Duration = .seconds(120), maxAge: Duration = .seconds(3 * 86_400)) {
            self.initialDelay = initialDelay
            self.multiplier = multiplier
            self.maxDelay = maxDelay
            self.jitter = jitter
            self.maxAttemptsPerCycle = maxAttemptsPerCycle
            self.maxWaitPerCycle = maxWaitPerCycle
            self.maxAge = maxAge
        }
    }

    /// What the delivery shell does next.
    public enum Action: Sendable, Hashable {
        /// Sleep this long, then try the same alert again.
        case retry(after: Duration)
        /// Stop this drain, keeping this alert first in line; `notBefore` is the receiver's
        /// `Retry-After` when it asked for longer than this cycle may wait.
        case deferToNextCycle(notBefore: Duration?)
        /// Move the alert to the dead-letter file and carry on with the next one.
        case deadLetter(reason: String)
        /// The receiver is gone: disable the channel, keep this alert and the rest queued.
        case disableChannel(reason: String)
    }

    public let settings: Settings
    /// Failed attempts at the current alert in this drain.
    public private(set) var attempts = 0
    /// Time slept in this drain so far.
    public private(set) var waited: Duration = .zero

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Starts counting attempts for the next alert; the drain's waiting budget carries over.
    public mutating func nextAlert() {
        attempts = 0
    }

    /// The decision after `failure`.
    /// - Parameters:
    ///   - age: how long the alert has been in the outbox.
    ///   - random: a uniform draw in [0, 1) for the jitter.
    public mutating func decide(after failure: NotifierError, age: Duration, random: Double) -> Action {
        if failure.code == .gone { return .disableChannel(reason: failure.message) }
        guard failure.isTransient else { return .deadLetter(reason: failure.message) }
        attempts += 1
        if age >= settings.maxAge {
            return .deadLetter(reason: "still failing after \(Self.hoursText(age)) in the outbox: \(failure.message)")
        }
        if attempts >= settings.maxAttemptsPerCycle { return .deferToNextCycle(notBefore: failure.retryAfter) }
        let delay = failure.retryAfter ?? backoff(attempt: attempts, random: random)
        if waited + delay > settings.maxWaitPerCycle { return .deferToNextCycle(notBefore: failure.retryAfter) }
        waited += delay
        return .retry(after: delay)
    }

    /// The jittered delay after failed attempt `attempt` (1-based).
    public func backoff(attempt: Int, random: Double) -> Duration {
        let formula = Backoff(initial: Self.seconds(settings.initialDelay), multiplier: settings.multiplier,
                              maximum: Self.seconds(settings.maxDelay), spread: (1 - settings.jitter)...(1 + settings.jitter))
        return .milliseconds(Int64((formula.delay(afterAttempt: attempt, random: random) * 1000).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func hoursText(_ duration: Duration) -> String {
        let hours = Double(duration.components.seconds) / 3600
        return hours >= 48 ? "\(Int(hours / 24)) days" : String(format: "%.1f hours", hours)
    }
}
