import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// Reads and commits `<state>/state.json` atomically (temporary file, fsync, rename).
public struct StateStore: Sendable {
    public let file: URL

    public init(stateDirectory: URL) {
        file = stateDirectory.appendingPathComponent("state.json")
    }

    /// The saved state, or a fresh one when there is none.
    /// - Throws: `ConfigurationError` when the file is damaged or from a newer version; it is
    ///   never silently replaced, because that would re-alert on the whole history.
    public func load() throws -> AgentState {
        guard FileManager.default.fileExists(atPath: file.path) else { return AgentState() }
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw ConfigurationError("cannot read the agent state: \(error.localizedDescription)", file: file.path)
        }
        // This package's parser and decoder: Foundation's read the file twice (once for the
        // version) and took a fifth of a poll with nothing new.
        guard let json = try? JSONValue.parse(data), let version = json["version"]?.intValue.flatMap(Int.init(exactly:)) else {
            throw ConfigurationError("the agent state is damaged; move it aside to start learning again (alerts already sent are kept in the outbox)", file: file.path)
        }
        guard version == AgentState.currentVersion else {
            throw ConfigurationError("the agent state has version \(version), this build reads version \(AgentState.currentVersion)", file: file.path)
        }
        do { return try JSONValueDecoder().decode(AgentState.self, from: json) } catch {
            throw ConfigurationError("the agent state is damaged; move it aside to start learning again", file: file.path)
        }
    }

    /// A short hash of the file's bytes (or of why it cannot be read), naming one damage.
    public func fingerprint() -> String {
        if let data = FileManager.default.contents(atPath: file.path) { return StableHash.fnv1a128(bytes: data) }
        return StableHash.fnv1a128("unreadable|\(file.path)|\(DurableFile.permissions(of: file.path).map(String.init) ?? "absent")")
    }

    /// Replaces the state so a crash leaves the old one or the new one, never a part.
    public func commit(_ state: AgentState) throws {
        let bytes = try JSONValueEncoder().encodeBytes(state)
        try DurableFile.makeDirectory(file.deletingLastPathComponent().path)
        try DurableFile.replace(file.path, with: bytes)
    }
}
