import Dispatch

/// Runs blocking system calls (fsync, flock, getaddrinfo, connect, poll) off Swift's cooperative
/// pool, so a slow disk or DNS server stalls only the work that waits on it.
///
/// The shape of swift-nio's `NIOThreadPool.runIfActive`: the caller awaits, a thread the pool
/// owns blocks. The pool's threads come from Dispatch, never from the cooperative pool, which has
/// only as many threads as the machine has cores.
public struct BlockingWork: Sendable {
    private let queue: DispatchQueue

    /// A pool with its own queue; `label` names its threads in a debugger.
    public init(label: String = "tophhie.blocking-work") {
        queue = DispatchQueue(label: label, qos: .utility, attributes: .concurrent)
    }

    /// The pool the runtime shares; tests may build their own.
    public static let shared = BlockingWork()

    /// Runs `body` on one of the pool's threads and returns what it returns.
    ///
    /// - Throws: what `body` throws; `CancellationError` when the task is already cancelled
    ///   (the work is then not started; once started it runs to its end, as a system call does).
    public func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Swift.Result { try body() })
            }
        }
    }
}
