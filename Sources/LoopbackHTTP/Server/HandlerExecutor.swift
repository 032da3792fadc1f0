import Dispatch

/// The executor a server's handlers run on: a Dispatch queue the server owns, never a thread of
/// Swift's cooperative pool, so tests that keep the pool busy cannot starve a server's answers.
///
/// Handler tasks prefer it (`Task(executorPreference:)`), and so do the default actors they call
/// into, such as the simulated tenant. Its threads may block briefly on socket writes.
final class HandlerExecutor: TaskExecutor, @unchecked Sendable {
    // A Dispatch queue is thread-safe; nothing else is stored.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
