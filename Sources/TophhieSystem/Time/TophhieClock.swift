import Foundation

/// Time as an input: the real clock in production, a hand-moved one in tests and the demo.
public protocol TophhieClock: Sendable {
    func now() -> Date
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The machine's clock.
public struct SystemClock: TophhieClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { try Task.checkCancellation(); return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}

/// A clock that moves only when told: `sleep` advances it at once and records the wait.
///
/// Tests read `sleeps` to prove a wait happened (a 429's `Retry-After: 1.5`) without waiting.
public final class ManualClock: TophhieClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var recorded: [Double] = []

    public init(_ start: Date) { current = start }

    public func now() -> Date { lock.withLock { current } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recorded.append(seconds)
            current = current.addingTimeInterval(max(0, seconds))
        }
    }

    /// Moves the clock forward.
    public func advance(by seconds: Double) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        lock.withLock { current = date }
    }

    /// Every wait asked for, in order.
    public var sleeps: [Double] { lock.withLock { recorded } }
}
