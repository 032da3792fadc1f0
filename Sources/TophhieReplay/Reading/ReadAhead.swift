/// Batches read ahead on reader threads of their own while the caller works on the batch before,
/// handed to the caller in order: batch `n` on reader `n % readers`.
///
/// With two readers every thread stays busy: an export's sign-in costs more to read than the
/// engine takes over it, and one reader splitting each batch with a helper left a core idle
/// while the halves were joined and while the faster half waited for the slower (a replay of
/// 100,000 Log Analytics rows kept its two cores 80 % busy in its second pass, a Graph page's
/// 93 %).
///
/// What each reader allocated goes back to it to be freed, as its job after next begins: what a
/// thread allocates is cheapest freed by it (its malloc arena's lock is not taken from under it).
/// A batch is held one job longer than the caller needs it because the alerts made from it hold
/// its strings until they are written, one batch later: freed the job after, the last of a
/// string was often let go with its alert, on the engine's thread (210,000 frees in another
/// thread's arena in an alert-heavy replay, against 27,000 held one job more).
/// Memory is `3 × readers + 1` batches at most: the caller's, and for each reader the one it
/// reads (or has read, waiting), the one held and the one it frees.
enum ReadAhead {
    /// One batch's work in two steps: `claim`, run by the caller, in order, as the batch is
    /// handed to a reader (what must be taken one batch after another, such as a spilled
    /// index's next entries), gives the reading, run on the reader's thread.
    typealias Job<Output> = () throws -> @Sendable () throws -> Output

    /// Hands each job's output to `body` (with its number) in order.
    /// - Parameters:
    ///   - readers: threads reading ahead (jobs must not depend on one another when more than one).
    ///   - meanwhile: work on a batch read before it is asked for, on its reader's thread
    ///     (`SecondThread.start`).
    /// - Throws: what a claim, a reading or `body` threw, once no reader is still busy.
    static func run<Output>(_ jobs: [Job<Output>], readers count: Int, meanwhile: (@Sendable (Output, () -> Bool) -> Void)? = nil,
                            _ body: (Int, Output) throws -> Void) throws {
        guard !jobs.isEmpty else { return }
        let readers = (0..<max(1, count)).map { _ in SecondThread<Output>() }
        var spent = readers.map { _ in Spent<Output>() }
        // Each reader's batch before last, until it goes to `spent`.
        var held: [Output?] = readers.map { _ in nil }
        func start(_ number: Int) throws {
            let reader = number % readers.count
            let read = try jobs[number]()
            let freeing = spent[reader]
            spent[reader] = Spent<Output>()
            readers[reader].start({
                freeing.output = nil
                return try read()
            }, meanwhile: meanwhile)
        }
        do {
            for number in 0..<min(readers.count, jobs.count) { try start(number) }
            for number in jobs.indices {
                var output: Output? = try readers[number % readers.count].take()
                if number + readers.count < jobs.count { try start(number + readers.count) }
                try body(number, output!)
                swap(&held[number % readers.count], &output)
                swap(&spent[number % readers.count].output, &output)
            }
        } catch {
            // Let the batches in flight finish before the files and buffers go.
            for reader in readers { reader.settle() }
            throw error
        }
    }
}

/// A batch the caller is done with, freed by the reader that read it (as its next job begins).
private final class Spent<Output>: @unchecked Sendable {
    var output: Output?
}
