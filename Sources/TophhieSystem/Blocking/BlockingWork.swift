import Foundation

/// Runs blocking system calls (fsync, flock, getaddrinfo, connect, poll) off Swift's cooperative
/// pool, so a slow disk or DNS server stalls only the work that waits on it.
///
/// The shape of swift-nio's `NIOThreadPool.runIfActive`: the caller awaits, one of a fixed set of
/// threads the pool owns runs the call. Those threads are started here and never belong to the
/// cooperative pool (which has only as many threads as the machine has cores); an idle one waits
/// on a condition for the next job, which is the one blocking wait in the product, and it is
/// unreachable from async code.
public final class BlockingWork: @unchecked Sendable {
    // `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    /// A pool of `threads` threads, started now and kept for the life of the process.
    public init(threads: Int = 4, label: String = "tophhie.blocking-work") {
        for index in 0..<max(1, threads) {
            let thread = Thread { [condition] in
                while true {
                    condition.lock()
                    while self.jobs.isEmpty { condition.wait() }
                    let job = self.jobs.removeFirst()
                    condition.unlock()
                    job()
                }
            }
            thread.name = "\(label)-\(index)"
            thread.start()
        }
    }

    /// The pool the runtime shares (four threads); tests may build their own.
    public static let shared = BlockingWork()

    /// Runs `body` on one of the pool's threads and returns what it returns.
    ///
    /// - Throws: what `body` throws; `CancellationError` when the task is already cancelled
    ///   (the work is then not started; once started it runs to its end, as a system call does).
    public func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            jobs.append { continuation.resume(with: Swift.Result { try body() }) }
            condition.signal()
            condition.unlock()
        }
    }
}
