import Foundation

/// The simulator's notion of "now": a manual clock tests advance, or a running clock that can be
/// started in the past, sped up, and jumped forward.
public final class SimulatorClock: Sendable {
    private let state: Locked

    private final class Locked: @unchecked Sendable {
        let lock = NSLock()
        var simulatedAnchor: Date
        var realAnchor: Date
        var speed: Double

        init(simulatedAnchor: Date, realAnchor: Date, speed: Double) {
            self.simulatedAnchor = simulatedAnchor
            self.realAnchor = realAnchor
            self.speed = speed
        }
    }

    private init(simulatedAnchor: Date, speed: Double) {
        state = Locked(simulatedAnchor: simulatedAnchor, realAnchor: Date(), speed: speed)
    }

    /// A clock that stands still at `date` until advanced.
    public static func manual(at date: Date) -> SimulatorClock {
        SimulatorClock(simulatedAnchor: date, speed: 0)
    }

    /// A clock that reads `start` now and then runs `speed` times as fast as real time.
    public static func running(from start: Date = Date(), speed: Double = 1) -> SimulatorClock {
        SimulatorClock(simulatedAnchor: start, speed: speed)
    }

    /// The current simulated time.
    public func now() -> Date {
        state.lock.withLock {
            state.simulatedAnchor.addingTimeInterval(Date().timeIntervalSince(state.realAnchor) * state.speed)
        }
    }

    /// Moves the clock forward (or back, for negative `seconds`).
    public func advance(by seconds: TimeInterval) {
        state.lock.withLock { state.simulatedAnchor.addTimeInterval(seconds) }
    }

    /// Sets the clock to `date`; a running clock keeps running from there.
    public func set(to date: Date) {
        state.lock.withLock {
            state.simulatedAnchor = date
            state.realAnchor = Date()
        }
    }
}
