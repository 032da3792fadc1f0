import Foundation
import TophhieSystem

/// The server's mutable state, shared by the caller, the accept thread and connection threads.
///
/// Every access goes through one lock; nothing here blocks while holding it.
final class ServerState: @unchecked Sendable {
    private let lock = NSLock()
    private var listeningFD: Int32?
    private var boundPort: UInt16?
    private var stopping = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private var connections: Set<Int32> = []

    var port: UInt16? {
        lock.withLock { boundPort }
    }

    var isStopping: Bool {
        lock.withLock { stopping }
    }

    /// Records a freshly bound listener; false when one is already running.
    func begin(fd: Int32, port: UInt16) -> Bool {
        lock.withLock {
            guard listeningFD == nil else { return false }
            listeningFD = fd
            boundPort = port
            stopping = false
            return true
        }
    }

    var isRunning: Bool {
        lock.withLock { listeningFD != nil }
    }

    /// Adds a connection unless the server is stopping or full.
    func register(_ fd: Int32, limit: Int) -> Bool {
        lock.withLock {
            guard !stopping, connections.count < limit else { return false }
            connections.insert(fd)
            return true
        }
    }

    /// Forgets a connection; the caller closes it afterwards, so `stop` never touches a reused descriptor.
    func unregister(_ fd: Int32) {
        lock.withLock { _ = connections.remove(fd) }
    }

    /// Marks the server stopping and wakes every blocked socket. Never waits.
    func beginStop() {
        lock.withLock {
            guard let fd = listeningFD, !stopping else { return }
            stopping = true
            ServerSocket.shutdownBoth(fd)
            for connection in connections { ServerSocket.shutdownBoth(connection) }
        }
    }

    /// Resumes once the accept loop has closed the listener (at once when nothing is listening).
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = lock.withLock { () -> Bool in
                if listeningFD == nil { return true }
                stopWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Called by the accept loop once it has closed the listener.
    func finishStop() {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            listeningFD = nil
            boundPort = nil
            defer { stopWaiters.removeAll() }
            return stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
