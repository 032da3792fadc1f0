import Foundation

/// One job at a time on a second thread while the caller goes on, its result handed back when
/// asked: the machine has two cores, and a replay's reading and parsing can run beside its
/// engine or its matching.
///
/// Jobs run in the order started and at most one is in flight, all on one thread of its own
/// that lives as long as this object: a dispatch queue ran a job on whichever worker was free,
/// and a job started while the last was still returning went to a new worker, whose first
/// allocation gave it a malloc arena of its own (a replay of a million sign-ins peaked at 70 MB
/// instead of 55). Used from a blocking-work thread (replay and rules match run inside
/// `BlockingWork.run`), never from Swift's cooperative pool: `take` waits.
final class SecondThread<Output>: @unchecked Sendable {
    /// What the caller and the thread share, all under `condition`: the job handed over,
    /// whether its output has been asked for, its result once done, and whether the object is
    /// gone (the thread then ends).
    private final class Mailbox: @unchecked Sendable {
        let condition = NSCondition()
        var job: (@Sendable () -> Void)?
        var asked = false
        var result: Result<Output, any Error>?
        var closing = false
    }

    private let mailbox = Mailbox()
    private var thread: Thread?
    private(set) var busy = false

    init() {}

    deinit {
        mailbox.condition.lock()
        mailbox.closing = true
        mailbox.condition.broadcast()
        mailbox.condition.unlock()
    }

    /// The thread's loop: each job handed over, until the object goes.
    private static func serve(_ mailbox: Mailbox) {
        while true {
            mailbox.condition.lock()
            while mailbox.job == nil && !mailbox.closing { mailbox.condition.wait() }
            guard let job = mailbox.job else {
                mailbox.condition.unlock()
                return
            }
            mailbox.job = nil
            mailbox.condition.unlock()
            job()
        }
    }

    /// Starts `job`; the one before must have been taken.
    /// - Parameter meanwhile: work on the job's output while its result waits to be taken,
    ///   handed a test of whether it has been asked for, which it calls between small steps
    ///   and stops at (the caller then waits for the step in hand). What it writes is read by
    ///   the caller of `take` only after it returns.
    func start(_ job: @escaping @Sendable () throws -> Output, meanwhile: (@Sendable (Output, () -> Bool) -> Void)? = nil) {
        precondition(!busy, "a job is already running")
        busy = true
        let mailbox = self.mailbox
        if thread == nil {
            let made = Thread { SecondThread.serve(mailbox) }
            made.name = "tophhie.replay.second-thread"
            made.start()
            thread = made
        }
        let work: @Sendable () -> Void = {
            let outcome = Result { try job() }
            if let meanwhile, case .success(let output) = outcome {
                meanwhile(output) {
                    mailbox.condition.lock()
                    defer { mailbox.condition.unlock() }
                    return mailbox.asked
                }
            }
            mailbox.condition.lock()
            mailbox.result = outcome
            mailbox.condition.broadcast()
            mailbox.condition.unlock()
        }
        mailbox.condition.lock()
        mailbox.job = work
        mailbox.condition.broadcast()
        mailbox.condition.unlock()
    }

    /// Waits for the job started last.
    /// - Throws: what the job threw.
    func take() throws -> Output {
        precondition(busy, "no job was started")
        mailbox.condition.lock()
        mailbox.asked = true
        while mailbox.result == nil { mailbox.condition.wait() }
        let outcome = mailbox.result!
        mailbox.result = nil
        mailbox.asked = false
        mailbox.condition.unlock()
        busy = false
        return try outcome.get()
    }

    /// Waits for a job still running, dropping its result: before the buffers it reads go.
    func settle() {
        if busy { _ = try? take() }
    }
}
