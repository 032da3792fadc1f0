import Dispatch

/// A serial executor on a Dispatch queue, for actors whose work is blocking file I/O (the outbox:
/// every append is fsynced). Such an actor declares
/// `nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }`
/// and its methods then run on this queue's thread, never on Swift's cooperative pool.
public final class BlockingSerialExecutor: SerialExecutor, @unchecked Sendable {
    // A serial Dispatch queue is thread-safe; nothing else is stored.
    private let queue: DispatchQueue

    public init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
