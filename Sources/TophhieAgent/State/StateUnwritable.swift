import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// The state directory cannot be written (full, read-only, permission changed, or removed):
/// the poll cannot do its job, so it says so through the notifiers that need no disk and fails
/// (`poll` exits 2; the daemon backs off and retries, or stops when the directory is gone).
public struct StateUnwritable: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file call that failed.
    public var fault: FileError
    public var stateDirectory: String
    /// The state directory itself was removed: the token cache and the outbox went with it, so
    /// the agent does not recreate it.
    public var directoryGone: Bool

    public init(fault: FileError, stateDirectory: String, directoryGone: Bool) {
        self.fault = fault
        self.stateDirectory = stateDirectory
        self.directoryGone = directoryGone
    }

    /// What went wrong and what is kept, for the notice and the log.
    public var description: String {
        if directoryGone {
            return "the state directory \(stateDirectory) was removed while the agent ran; it is not recreated, since the token cache and the outbox went with it: restore it, or run 'tophhie-watch login' to start again"
        }
        return "cannot write the state directory \(stateDirectory) (\(fault)); sign-ins are not checked until it can be written, and alerts already queued are kept"
    }

    /// The storage fault inside `error`, when it is one: a `FileError` from the durable-file
    /// layer, directly or inside an outbox error.
    static func fault(in error: any Error) -> FileError? {
        let file = (error as? FileError) ?? (error as? OutboxError)?.fileError
        guard let file, file.isStorageFault else { return nil }
        return file
    }
}

/// Where the agent remembers, outside the state directory it cannot write, that it told of a
/// storage fault: a file in the runtime directory (`$XDG_RUNTIME_DIR`, a tmpfs), so the notice
/// goes out at most hourly and the poll that can write again says so.
struct StateFaultMarker: Sendable {
    let path: String

    /// How often a lasting fault is told again.
    static let repeatEvery: TimeInterval = 3600

    init(runtimeDirectory: URL, stateDirectory: URL) {
        let name = "state-unwritable-" + StableHash.fnv1a128(stateDirectory.standardizedFileURL.path)
        path = runtimeDirectory.appendingPathComponent("tophhie-watch").appendingPathComponent(name).path
    }

    /// When the fault was last told, or nil when none is remembered.
    func lastTold() -> Date? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return GraphTimestamp.parse(String(decoding: data, as: UTF8.self))
    }

    func record(_ at: Date) throws {
        try DurableFile.makeDirectory(DurableFile.parentDirectory(of: path), mode: 0o700)
        try DurableFile.replace(path, with: Array(GraphTimestamp.graphText(at).utf8), mode: 0o600)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
