import Foundation
import Testing
@testable import TophhieReplay

/// Batches read ahead on reader threads come to the caller in order, claimed in order, each
/// freed by the thread that read it; an error stops the reading once no reader is busy. And a
/// first pass's records worked on two threads are applied in the file's order, none after one
/// whose apply threw.
@Suite(.timeLimit(.minutes(20))) struct ReadAheadTests {
    /// What a reading made: the thread it was made on, and, once it is freed, the thread that
    /// freed it (noted in `frees`).
    final class Made: @unchecked Sendable {
        let number: Int
        let madeOn = ObjectIdentifier(Thread.current)
        let frees: Frees
        init(_ number: Int, frees: Frees) {
            self.number = number
            self.frees = frees
        }
        deinit { frees.note(number, madeOn: madeOn, freedOn: ObjectIdentifier(Thread.current)) }
    }

    final class Frees: @unchecked Sendable {
        private let lock = NSLock()
        private var freed: [Int: (madeOn: ObjectIdentifier, freedOn: ObjectIdentifier)] = [:]
        func note(_ number: Int, madeOn: ObjectIdentifier, freedOn: ObjectIdentifier) {
            lock.lock(); defer { lock.unlock() }
            freed[number] = (madeOn, freedOn)
        }
        var all: [Int: (madeOn: ObjectIdentifier, freedOn: ObjectIdentifier)] {
            lock.lock(); defer { lock.unlock() }
            return freed
        }
    }

    @Test(arguments: [1, 2, 3])
    func batchesComeInOrderClaimedInOrderAndFreedByTheirReaders(readers: Int) throws {
        let frees = Frees()
        var claimed: [Int] = []
        var seen: [Int] = []
        let caller = ObjectIdentifier(Thread.current)
        let jobs: [ReadAhead.Job<Made>] = (0..<40).map { number in
            {
                claimed.append(number)
                return {
                    // Later batches are read faster than earlier ones, so a reader ahead
                    // finishes first.
                    var sum = 0
                    for i in 0..<((40 - number) * 2_000) { sum &+= i }
                    return Made(number + (sum == -1 ? 1 : 0), frees: frees)
                }
            }
        }
        try ReadAhead.run(jobs, readers: readers) { number, made in
            #expect(made.number == number)
            #expect(claimed.count == min(40, number + readers + 1), "batch \(number + readers) is claimed before batch \(number) is handed over, and no later one")
            seen.append(made.number)
        }
        #expect(seen == Array(0..<40))
        #expect(claimed == Array(0..<40))
        // The last batches may be let go by a reader just after the run returns.
        let freed = frees.all
        #expect(Set(freed.keys).isSuperset(of: 0..<40 - 3 * readers))
        // Batch n is freed as its reader begins batch n + 3 × readers: every one but the last
        // three of each reader goes back to it.
        let freedByReaders = freed.filter { $0.key < 40 - 3 * readers }
        #expect(freedByReaders.allSatisfy { $0.value.freedOn == $0.value.madeOn && $0.value.madeOn != caller })
        #expect(Set(freed.values.map(\.madeOn)).count == readers, "batch n is read by reader n % \(readers)")
    }

    /// A reading that throws stops the run with its error: no batch after it is handed over,
    /// and no reader is still busy once it returns.
    @Test func aReadingThatThrowsStopsTheRunOnceEveryReaderIsDone() {
        struct Broken: Error, Equatable { let number: Int }
        final class Running: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
            func add(_ step: Int) { lock.lock(); count += step; lock.unlock() }
        }
        let running = Running()
        var handed: [Int] = []
        let jobs: [ReadAhead.Job<Int>] = (0..<20).map { number in
            {
                {
                    running.add(1)
                    defer { running.add(-1) }
                    if number == 7 { throw Broken(number: 7) }
                    var sum = 0
                    for i in 0..<50_000 { sum &+= i }
                    return number + (sum == -1 ? 1 : 0)
                }
            }
        }
        #expect(throws: Broken(number: 7)) {
            try ReadAhead.run(jobs, readers: 2) { number, _ in handed.append(number) }
        }
        #expect(handed == Array(0..<7))
        #expect(running.count == 0, "no reader is still reading")
    }

    /// A claim that throws stops the run as a reading does.
    @Test func aClaimThatThrowsStopsTheRun() {
        struct Broken: Error, Equatable {}
        var handed: [Int] = []
        let jobs: [ReadAhead.Job<Int>] = (0..<10).map { number in
            {
                if number == 5 { throw Broken() }
                return { number }
            }
        }
        #expect(throws: Broken()) {
            try ReadAhead.run(jobs, readers: 2) { number, _ in handed.append(number) }
        }
        // Batch 5 is claimed as batch 3 is handed over.
        #expect(handed == [0, 1, 2])
    }

    /// Records in batches of a few bytes: each worked on once, applied in order, and none after
    /// the one whose apply threw, whatever batch it is in.
    @Test(arguments: [1, 7, 64])
    func aFirstPassAppliesEveryRecordInOrderAndNoneAfterOneThatThrew(batchBytes: Int) {
        final class Worked: @unchecked Sendable {
            let lock = NSLock()
            var items: [Int] = []
            func add(_ more: ArraySlice<Int>) { lock.lock(); items += more; lock.unlock() }
        }
        let worked = Worked()
        var batches = TwoThreadBatches<Int, Int>(batchBytes: batchBytes) { items in
            worked.add(items)
            return items.map { $0 * 10 }
        }
        var applied: [Int] = []
        for item in 0..<500 {
            batches.add(item, size: 3) { item, outcome in
                #expect(outcome == item * 10)
                applied.append(item)
            }
        }
        batches.flush { item, outcome in
            #expect(outcome == item * 10)
            applied.append(item)
        }
        #expect(applied == Array(0..<500))
        #expect(worked.items.sorted() == Array(0..<500))

        struct Stop: Error, Equatable {}
        var stopping = TwoThreadBatches<Int, Int>(batchBytes: batchBytes) { items in items.map { $0 } }
        var before: [Int] = []
        let apply: (Int, Int) throws -> Void = { item, _ in
            if item == 123 { throw Stop() }
            before.append(item)
        }
        #expect(throws: Stop()) {
            for item in 0..<500 { try stopping.add(item, size: 3, apply: apply) }
            try stopping.flush(apply: apply)
        }
        #expect(before == Array(0..<123))
    }
}
