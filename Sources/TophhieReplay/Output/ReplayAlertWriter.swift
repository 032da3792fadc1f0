import Foundation
import TophhieRules
import TophhieRulesFast

/// Replay's alerts, written as the engine makes them final, so a replay holds none of them.
///
/// A reader that gives up part way (a sparse first pass found wrong, a record that no longer
/// reads as it did) is followed by another over the same file, which gives the same alerts in the
/// same order: each attempt starts counting again, and the alerts an earlier attempt wrote are
/// passed over, so none is written twice and none is lost.
///
/// A streamed replay's alerts are written on a thread of the writer's own while the engine makes
/// the next (`emitAhead`): an alert-heavy replay's engine, the slowest of its threads, spent a
/// fifth of its time writing lines. One batch is written at a time, in order, the one before
/// waited for first.
final class ReplayAlertWriter: @unchecked Sendable {
    private let lock = NSLock()
    private let write: @Sendable (Alert) -> Void
    /// Alerts written (or handed to the writing thread), over every attempt.
    private var written = 0
    /// Alerts the current attempt has given.
    private var given = 0
    private let writing = SecondThread<Void>()
    /// The batch on the writing thread, kept so that the engine's thread, which made it, frees
    /// it once it is written (as the next batch is handed over): freed by the writing thread,
    /// each of its 600,000 strings and arrays in an alert-heavy replay took the engine's malloc
    /// arena's lock from under it.
    private var inFlight: [Alert] = []

    /// - Parameter passingOver: alerts an earlier replay of the same sign-ins wrote, not written again.
    init(write: @escaping @Sendable (Alert) -> Void, passingOver: Int = 0) {
        self.write = write
        written = passingOver
    }

    /// A new reader starts over the file.
    func beginAttempt() {
        lock.withLock { given = 0 }
    }

    /// Writes the alerts an earlier attempt did not, here.
    func emit(_ alerts: [Alert]) {
        drain()
        let fresh = self.fresh(alerts)
        // By index, each alert lent to `write` where it lies rather than copied out.
        for index in fresh { write(alerts[index]) }
    }

    /// Writes the alerts an earlier attempt did not on the writing thread, once the batch
    /// before is written, and returns. The caller then calls `drain` before it stops, from a
    /// blocking-work thread (this waits).
    func emitAhead(_ alerts: [Alert]) {
        drain()
        inFlight = []
        let fresh = self.fresh(alerts)
        guard !fresh.isEmpty else { return }
        inFlight = alerts
        let write = self.write
        writing.start { for index in fresh { write(alerts[index]) } }
    }

    /// Waits until every alert handed to the writing thread is written.
    func drain() {
        writing.settle()
    }

    /// `body` with its alerts written ahead (`emitAhead`), every one of them written when it
    /// returns or throws.
    func writingAhead<T>(_ body: () throws -> T) rethrows -> T {
        defer { drain() }
        return try body()
    }

    /// The places in `alerts` of those no earlier attempt wrote, counted given and written.
    private func fresh(_ alerts: [Alert]) -> Range<Int> {
        lock.withLock {
            // The alerts past those written are the last of the batch.
            let skipped = min(alerts.count, max(0, written - given))
            given += alerts.count
            written = max(written, given)
            return skipped..<alerts.count
        }
    }

    /// How many alerts the current attempt has given: after a complete one, the replay's count.
    var count: Int { lock.withLock { given } }

    /// How many alerts have been written, over every attempt.
    var writtenCount: Int { lock.withLock { written } }
}
