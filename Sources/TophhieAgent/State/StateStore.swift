import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// Reads and commits the agent's state: `<state>/state.json`, and the engine's state in
/// `<state>/engine-<n>.json`, each replaced atomically (temporary file, fsync, rename).
///
/// `state.json` names the engine file that goes with it, so a commit writes a new engine file
/// first and `state.json` second: a crash between the two leaves the old pair, and the stray
/// new file is removed by the next commit. A poll that processed nothing new writes only
/// `state.json`, which is small. Version-1 files held the engine's state inside `state.json`;
/// they are read, and the next commit writes the two files.
public struct StateStore: Sendable {
    public let file: URL
    private let directory: URL

    public init(stateDirectory: URL) {
        directory = stateDirectory
        file = stateDirectory.appendingPathComponent("state.json")
    }

    /// The engine file of a generation.
    public func engineFile(_ generation: Int) -> URL {
        directory.appendingPathComponent("engine-\(generation).json")
    }

    /// The saved state without the engine's (`loadEngine` reads that), or a fresh one when there
    /// is none.
    /// - Throws: `ConfigurationError` when a file is damaged, missing or from a newer version;
    ///   it is never silently replaced, because that would re-alert on the whole history.
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
        guard (1...AgentState.currentVersion).contains(version) else {
            throw ConfigurationError("the agent state has version \(version), this build reads versions 1 to \(AgentState.currentVersion)", file: file.path)
        }
        let state: AgentState
        do { state = try JSONValueDecoder().decode(AgentState.self, from: json) } catch {
            throw ConfigurationError("the agent state is damaged; move it aside to start learning again", file: file.path)
        }
        if let generation = state.engineGeneration, !FileManager.default.fileExists(atPath: engineFile(generation).path) {
            throw ConfigurationError("the agent state is damaged: its engine file \(engineFile(generation).lastPathComponent) is missing; move state.json aside to start learning again", file: file.path)
        }
        return state
    }

    /// The engine's state that goes with `state`: a fresh one before the first commit.
    /// - Throws: `ConfigurationError` when the engine file is missing or damaged.
    public func loadEngine(of state: AgentState) throws -> EngineState {
        if let inline = state.inlineEngine { return inline }
        guard let generation = state.engineGeneration else { return EngineState() }
        let path = engineFile(generation).path
        let data: Data
        do { data = try Data(contentsOf: engineFile(generation)) } catch {
            throw ConfigurationError("the agent state is damaged: its engine file cannot be read (\(error.localizedDescription)); move state.json aside to start learning again", file: path)
        }
        guard let json = try? JSONValue.parse(data), let engine = try? JSONValueDecoder().decode(EngineState.self, from: json) else {
            throw ConfigurationError("the agent state is damaged; move state.json aside to start learning again (alerts already sent are kept in the outbox)", file: path)
        }
        return engine
    }

    /// A short hash of the files' bytes (or of why they cannot be read), naming one damage.
    public func fingerprint() -> String {
        guard var bytes = FileManager.default.contents(atPath: file.path) else {
            return StableHash.fnv1a128("unreadable|\(file.path)|\(DurableFile.permissions(of: file.path).map(String.init) ?? "absent")")
        }
        // The engine file named inside, when there is one: its damage is a damage of its own.
        if let json = try? JSONValue.parse(bytes), let generation = json["engineGeneration"]?.intValue.flatMap(Int.init(exactly:)) {
            bytes += FileManager.default.contents(atPath: engineFile(generation).path) ?? Data("absent".utf8)
        }
        return StableHash.fnv1a128(bytes: bytes)
    }

    /// Replaces the state so a crash leaves the old one or the new one, never a part.
    /// - Parameter engine: the engine's new state, written to a new engine file first; nil when
    ///   it did not change (a version-1 state's is moved out all the same).
    /// - Returns: the state as committed (its engine generation).
    @discardableResult
    public func commit(_ state: AgentState, engine: EngineState? = nil) throws -> AgentState {
        var state = state
        state.version = AgentState.currentVersion
        try DurableFile.makeDirectory(directory.path)
        if let engine = engine ?? state.inlineEngine {
            let generation = (state.engineGeneration ?? 0) + 1
            // Written as it is encoded: a first poll's state is megabytes, held once is enough.
            try DurableFile.replace(engineFile(generation).path) { write in try JSONValueEncoder().encode(engine, pieces: write) }
            state.engineGeneration = generation
            state.inlineEngine = nil
        }
        try DurableFile.replace(file.path, with: try JSONValueEncoder().encodeBytes(state))
        removeStrayEngineFiles(keeping: state.engineGeneration)
        return state
    }

    /// Engine files no state names: the one a commit replaced, or one a crash left behind.
    private func removeStrayEngineFiles(keeping generation: Int?) {
        let keep = generation.map { engineFile($0).lastPathComponent }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix("engine-") && name.hasSuffix(".json") && name != keep {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}
