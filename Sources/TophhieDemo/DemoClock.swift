import Foundation
import TophhieAgent
import TophhieAuth

/// The demo's accelerated clock: a wait moves simulated time forward at once, lets the tenant's
/// story catch up, and takes a few real milliseconds so a person can follow.
final class DemoClock: TophhieClock, @unchecked Sendable {
    private let manual: ManualClock
    private let onAdvance: @Sendable (Date) async -> Void
    private let pace: Double

    init(start: Date, pace: Double, onAdvance: @escaping @Sendable (Date) async -> Void) {
        manual = ManualClock(start)
        self.pace = pace
        self.onAdvance = onAdvance
    }

    func now() -> Date { manual.now() }

    func sleep(seconds: Double) async throws {
        try await manual.sleep(seconds: seconds)
        if seconds >= 60, pace > 0 {
            try await Task.sleep(nanoseconds: UInt64(pace * 1_000_000_000))
        }
        await onAdvance(manual.now())
    }
}
