import Dispatch
import Foundation
import Testing
import TophhieSystem

@Suite(.timeLimit(.minutes(20))) struct BlockingWorkTests {
    /// Blocking calls that outnumber the cooperative pool's threads still all run at once: the
    /// work pool's threads are its own, so the awaiting tasks hold no cooperative thread.
    @Test func moreBlockingCallsThanCoresRunSideBySide() async throws {
        let width = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let pool = BlockingWork(threads: width, label: "test.blocking")
        let gate = CountingGate(expected: width)
        let arrived = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<width {
                group.addTask { try await pool.run { gate.arriveAndWait(); return index } }
            }
            var seen: [Int] = []
            for try await index in group { seen.append(index) }
            return seen.sorted()
        }
        #expect(arrived == Array(0..<width))
    }

    @Test func errorsComeBackAsThrown() async {
        await #expect(throws: FileError(operation: "open", path: "/nonexistent/x", code: 2)) {
            try await BlockingWork.shared.run { throw FileError(operation: "open", path: "/nonexistent/x", code: 2) }
        }
    }

    @Test func aCancelledTaskStartsNoWork() async {
        let started = Flag()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await BlockingWork.shared.run { started.set(); return 1 }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!started.value)
    }
}

/// Releases everyone once `expected` threads have arrived; a thread that waits more than 5
/// minutes gives up, so a pool that serialises the work fails the test instead of hanging it
/// (a loaded machine may keep a thread from starting for a minute).
final class CountingGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0
    private let expected: Int
    init(expected: Int) { self.expected = expected }

    func arriveAndWait() {
        condition.lock()
        count += 1
        condition.broadcast()
        let limit = Date().addingTimeInterval(300)
        while count < expected, condition.wait(until: limit) {}
        condition.unlock()
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false
    func set() { lock.withLock { isSet = true } }
    var value: Bool { lock.withLock { isSet } }
}
