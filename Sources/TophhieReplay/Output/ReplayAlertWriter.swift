import Foundation
import TophhieRules
import TophhieRulesFast

/// Replay's alerts, written as the engine makes them final, so a replay holds none of them.
///
/// A reader that gives up part way (a sparse first pass found wrong, a record that no longer
/// reads as it did) is followed by another over the same file, which gives the same alerts in the
/// same order: each attempt starts counting again, and the alerts an earlier attempt wrote are
/// passed over, so none is written twice and none is lost.
final class ReplayAlertWriter: @unchecked Sendable {
    private let lock = NSLock()
    private let write: @Sendable (Alert) -> Void
    /// Alerts written, over every attempt.
    private var written = 0
    /// Alerts the current attempt has given.
    private var given = 0

    init(write: @escaping @Sendable (Alert) -> Void) {
        self.write = write
    }

    /// A new reader starts over the file.
    func beginAttempt() {
        lock.withLock { given = 0 }
    }

    /// Writes the alerts an earlier attempt did not.
    func emit(_ alerts: [Alert]) {
        lock.withLock {
            // By index, each alert lent to `write` where it lies rather than copied out.
            for index in alerts.indices {
                given += 1
                if given > written {
                    write(alerts[index])
                    written += 1
                }
            }
        }
    }

    /// How many alerts the current attempt has given: after a complete one, the replay's count.
    var count: Int { lock.withLock { given } }
}
