import Foundation

/// Standard output gathered into pieces of 64 KB before each is written, and written whole by
/// `flush`: a replay prints an alert line per matching sign-in, and a write for each line was
/// a hundred thousand system calls on the alert-heavy corpus. Lines arrive from one thread at
/// a time (the replay's alert writer holds a lock), the lock here is for `flush`.
final class GatheredOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let write: @Sendable (String) -> Void
    private var pending = ""

    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Adds `text`; writes what is gathered once it is 64 KB or more.
    func add(_ text: String) {
        lock.withLock {
            pending += text
            if pending.utf8.count >= 1 << 16 {
                write(pending)
                pending = ""
            }
        }
    }

    /// Writes what is gathered.
    func flush() {
        lock.withLock {
            guard !pending.isEmpty else { return }
            write(pending)
            pending = ""
        }
    }
}
