import Dispatch
import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieCLI
@testable import TophhieReplay

/// A job's `meanwhile` works on its output until the output is asked for, and what it wrote is
/// what the caller of `take` reads; a replay's reading thread works events out ahead this way.
@Suite(.timeLimit(.minutes(20))) struct SecondThreadTests {
    final class Counter: @unchecked Sendable {
        var steps = 0
        var seenByMeanwhile = -1
    }

    /// The meanwhile would run for ever: `take` stops it, and sees the steps it made. (Taken on
    /// another thread, so a `take` that never stopped it fails the test after 10 minutes, and
    /// the meanwhile is then let go, instead of hanging the suite; a loaded machine may keep a
    /// thread from running for a minute.)
    @Test func meanwhileRunsUntilTheOutputIsAskedFor() throws {
        let thread = SecondThread<Counter>()
        let giveUp = Counter()
        let lock = NSLock()
        @Sendable func gaveUp() -> Bool { lock.lock(); defer { lock.unlock() }; return giveUp.steps > 0 }
        for _ in 0..<2 {
            let started = DispatchSemaphore(value: 0), taken = DispatchSemaphore(value: 0)
            thread.start({ Counter() }, meanwhile: { counter, asked in
                while !asked() && !gaveUp() {
                    counter.steps += 1
                    if counter.steps == 10 { started.signal() }
                }
                counter.seenByMeanwhile = counter.steps
            })
            started.wait()
            let result = Counter()
            DispatchQueue.global().async {
                if let counter = try? thread.take() { (result.steps, result.seenByMeanwhile) = (counter.steps, counter.seenByMeanwhile) }
                taken.signal()
            }
            guard taken.wait(timeout: .now() + 600) == .success else {
                Issue.record("take did not stop the meanwhile")
                lock.lock(); giveUp.steps = 1; lock.unlock()
                taken.wait()
                return
            }
            #expect(result.steps >= 10)
            #expect(result.seenByMeanwhile == result.steps, "the caller reads what the meanwhile wrote last")
        }
    }

    /// A job that throws has no output to work on: its error is what `take` throws.
    @Test func aJobThatThrowsSkipsTheMeanwhile() {
        struct Broken: Error, Equatable {}
        let thread = SecondThread<Counter>()
        let ran = Counter()
        thread.start({ throw Broken() }, meanwhile: { _, _ in ran.steps += 1 })
        #expect(throws: Broken()) { try thread.take() }
        #expect(ran.steps == 0)
    }
    /// Every job runs on the one thread the object keeps (a thread each job could start on
    /// gets a malloc arena of its own), and the thread ends when the object goes.
    @Test func everyJobRunsOnOneThreadThatEndsWithTheObject() throws {
        final class Seen: @unchecked Sendable { var thread: Thread? }
        var threads: [ObjectIdentifier] = []
        let seen = Seen()
        do {
            let second = SecondThread<ObjectIdentifier>()
            for _ in 0..<20 {
                second.start { seen.thread = Thread.current; return ObjectIdentifier(Thread.current) }
                threads.append(try second.take())
            }
        }
        #expect(Set(threads).count == 1 && threads.count == 20)
        let thread = try #require(seen.thread)
        let deadline = Date().addingTimeInterval(600)
        while !thread.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(thread.isFinished, "the thread ends once the object is gone")
    }
}
