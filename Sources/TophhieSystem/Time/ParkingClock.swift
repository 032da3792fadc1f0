import Foundation

/// A test clock whose waits park until the test moves time past them: nothing sleeps for real,
/// and a test can act while the code under test is mid-wait (the idea of swift-async-algorithms'
/// `ManualClock` and swift-nio's `EmbeddedEventLoop.advanceTime(by:)`).
///
/// A parked wait ends when `advance(by:)` reaches its deadline or its task is cancelled
/// (`CancellationError`). `parked(total:)` lets a test wait, without polling, until the code
/// under test has reached its wait.
public final class ParkingClock: TophhieClock, @unchecked Sendable {
    // Everything below is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date
    private var sleepers: [UInt64: Sleeper] = [:]
    private var nextID: UInt64 = 0
    private var watchers: [(id: UInt64, total: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Waits that have parked since the clock was made, ended or not.
    private var parkedSoFar = 0

    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelled: Bool
    }

    public init(_ start: Date) { current = start }

    public func now() -> Date { lock.withLock { current } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        let id = lock.withLock { () -> UInt64 in
            nextID += 1
            sleepers[nextID] = Sleeper(deadline: current.addingTimeInterval(max(0, seconds)), continuation: nil, cancelled: false)
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resume, watchersDue) = lock.withLock { () -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    guard var sleeper = sleepers[id] else { return (.success(()), []) }
                    if sleeper.cancelled { sleepers[id] = nil; return (.failure(CancellationError()), []) }
                    if sleeper.deadline <= current { sleepers[id] = nil; return (.success(()), []) }
                    sleeper.continuation = continuation
                    sleepers[id] = sleeper
                    parkedSoFar += 1
                    return (nil, dueWatchers())
                }
                if let resume { continuation.resume(with: resume) }
                for watcher in watchersDue { watcher.resume() }
            }
        } onCancel: {
            let continuation = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                guard var sleeper = sleepers[id] else { return nil }
                guard let continuation = sleeper.continuation else {
                    sleeper.cancelled = true
                    sleepers[id] = sleeper
                    return nil
                }
                sleepers[id] = nil
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every wait whose deadline it reaches.
    public func advance(by seconds: Double) {
        let due = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            current = current.addingTimeInterval(seconds)
            var due: [CheckedContinuation<Void, any Error>] = []
            for (id, sleeper) in sleepers where sleeper.deadline <= current {
                if let continuation = sleeper.continuation {
                    due.append(continuation)
                    sleepers[id] = nil
                }
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }

    /// Waits parked right now.
    public var parkedCount: Int { lock.withLock { sleepers.values.filter { $0.continuation != nil }.count } }

    /// Returns once `total` waits have parked since the clock was made (ended ones included), so
    /// a test can say "the second wait has begun" without polling. Returns early if the calling
    /// task is cancelled (a test's time limit), so a test can never spin or hang here.
    public func parked(total: Int) async {
        let id = lock.withLock { () -> UInt64 in nextID += 1; return nextID }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if parkedSoFar >= total || Task.isCancelled { return true }
                    watchers.append((id, total, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                guard let index = watchers.firstIndex(where: { $0.id == id }) else { return nil }
                return watchers.remove(at: index).continuation
            }
            waiting?.resume()
        }
    }

    // Called with `lock` held.
    private func dueWatchers() -> [CheckedContinuation<Void, Never>] {
        let due = watchers.filter { $0.total <= parkedSoFar }.map(\.continuation)
        watchers.removeAll { $0.total <= parkedSoFar }
        return due
    }
}
