import Foundation
import TophhieSystem

/// One agent per state directory: an exclusive lock on the directory itself, held for a poll
/// (cron) or for the daemon's life; `<state>/agent.lock` names the holder's pid.
public final class StateDirectoryLock: @unchecked Sendable {
    public let path: String
    private var descriptor: Int32?

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Another process holds the lock.
    public struct Held: Error, CustomStringConvertible, Sendable, Equatable {
        public let path: String
        /// The holder's pid as it wrote it, when readable.
        public let owner: String?
        public var description: String {
            "another tophhie-watch\(owner.map { " (pid \($0))" } ?? "") is already running on this state directory (\(path) is locked); nothing to do"
        }
    }

    /// Takes the lock or says who has it.
    /// - Throws: `Held` when another process holds it; `ConfigurationError` when the folder cannot be made.
    public static func acquire(stateDirectory: URL) throws -> StateDirectoryLock {
        do { try DurableFile.makeDirectory(stateDirectory.path) } catch {
            throw ConfigurationError("cannot create the state directory: \(error)")
        }
        // The lock is on the directory itself, so deleting a file in it cannot let a second agent
        // in; `agent.lock` only tells the next one who holds it.
        let path = stateDirectory.path
        let ownerFile = stateDirectory.appendingPathComponent("agent.lock").path
        let fd: Int32?
        do { fd = try FileLock.tryLockDirectory(path) } catch {
            throw ConfigurationError("cannot lock the state directory: \(error)")
        }
        guard let fd else {
            let owner = (try? String(contentsOfFile: ownerFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            throw Held(path: path, owner: owner?.isEmpty == false ? owner : nil)
        }
        try? DurableFile.replace(ownerFile, with: Array("\(ProcessFacts.processID)\n".utf8))
        // What a killed agent was writing (a state or engine file, an outbox, the owner's file)
        // goes now that no other agent can be writing here.
        DurableFile.removeDeadTemporaries(in: path)
        DurableFile.removeDeadTemporaries(in: path + "/outbox")
        return StateDirectoryLock(path: path, descriptor: fd)
    }

    /// Lets the next agent in.
    public func release() {
        if let descriptor { FileLock.unlock(descriptor) }
        descriptor = nil
    }

    deinit { release() }
}
