import Foundation

/// Standard output gathered into pieces of 64 KB before each is written, and written whole by
/// `flush`: a replay prints an alert line per matching sign-in, and a write for each line was
/// a hundred thousand system calls on the alert-heavy corpus. Lines arrive one at a time (the
/// replay's alert writer writes one batch after another), the lock here is for `flush`.
final class GatheredOutput: @unchecked Sendable {
    private static let piece = 1 << 16
    private let lock = NSLock()
    private let write: @Sendable (String) -> Void
    /// Bytes, not text: a line is written straight into them (`add(writing:)`), and made text
    /// once per piece rather than once per line.
    private var pending: [UInt8] = []

    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
        pending.reserveCapacity(Self.piece + (Self.piece >> 2))
    }

    /// Adds `text`; writes what is gathered once it is 64 KB or more.
    func add(_ text: String) {
        add { $0.append(contentsOf: text.utf8) }
    }

    /// Adds what `body` appends to the gathered bytes, which must be whole UTF-8; writes what
    /// is gathered once it is 64 KB or more.
    func add(writing body: (inout [UInt8]) -> Void) {
        lock.withLock {
            body(&pending)
            if pending.count >= Self.piece { writePending() }
        }
    }

    /// Writes what is gathered.
    func flush() {
        lock.withLock {
            guard !pending.isEmpty else { return }
            writePending()
        }
    }

    private func writePending() {
        write(String(decoding: pending, as: UTF8.self))
        pending.removeAll(keepingCapacity: true)
    }
}
