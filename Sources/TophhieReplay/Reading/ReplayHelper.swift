import TophhieRulesFast

/// The second thread that reads half of each batch of an export's sign-ins (`ReplayBatch`),
/// holding the sign-ins it read for the last two batches until its next batch starts: the
/// engine and the reading thread are done with the older of them by then, and they are freed
/// on this thread, which allocated them.
///
/// Freed on the reading thread instead, half of every batch went back to this thread's malloc
/// arena while it read the next one: each free took the arena's lock from under it, some ten
/// thousand futex calls in a replay of 100,000 Log Analytics rows.
final class ReplayHelper: @unchecked Sendable {
    let thread = SecondThread<[any FastEvent]>()
    /// Touched only on the helper's thread, by the jobs it runs one after another.
    private var older: [any FastEvent] = []
    private var newer: [any FastEvent] = []

    /// Starts `read` on the helper's thread, after dropping there what it read two batches ago.
    func start(_ read: @escaping @Sendable () throws -> [any FastEvent]) {
        thread.start { [self] in
            older = newer
            newer = []
            let made = try read()
            newer = made
            return made
        }
    }

    /// The sign-ins `start` read.
    func take() throws -> [any FastEvent] { try thread.take() }

    /// Waits for a read still running, dropping its result.
    func settle() { thread.settle() }
}
