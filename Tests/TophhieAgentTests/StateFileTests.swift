import Foundation
import Testing
import TophhieJSON
import TophhieSystem
@testable import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// The agent's state is `state.json` and an engine file beside it, read and written by this
/// package's parser, writer and Codable bridge: a version-1 file (the engine's state inside,
/// written by Foundation's encoder) must read the same and move to the two files, and an engine
/// file this build writes must read the same with Foundation's decoder.
@Suite struct StateFileTests {
    static let repoRules: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent("rules").path
    }()

    /// A state with every part filled: windows, episodes, baselines, places, ids, a problem.
    static func busyState() throws -> (AgentState, EngineState) {
        var factory = SignInFactory(seed: 5, account: .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane \"J\" Doe/é"))
        let start = Date(timeIntervalSince1970: 1_788_000_000.123_456)
        var events: [JSONValue] = []
        for hour in 0..<(24 * 15) where hour % 6 == 0 {
            events.append(factory.signIn(at: start.addingTimeInterval(Double(hour) * 3600 + 0.1), place: .london, device: hour % 4 == 0 ? .phone : .laptop))
        }
        let later = start.addingTimeInterval(15 * 86_400)
        for i in 0..<6 { events.append(factory.signIn(at: later.addingTimeInterval(Double(i) * 31.7), place: .lagos, device: .unknownLinux, errorCode: 50126)) }
        events.append(factory.signIn(at: later.addingTimeInterval(900), place: .sydney, app: .legacyIMAP))
        let engine = PlainEvaluator(rules: RuleLoader.load(try RuleSource.read(paths: [repoRules])))
        let outcome = engine.evaluate(EngineState(), events: try events.map(SignInEvents.event), now: later.addingTimeInterval(1000))
        #expect(!outcome.state.recent.isEmpty && !outcome.state.baselines.isEmpty && !outcome.state.episodes.isEmpty)
        var state = AgentState()
        state.lastSuccessfulPoll = later.addingTimeInterval(1000.5)
        state.newestEventTime = later.addingTimeInterval(900)
        state.learned = true
        state.problem = AgentProblem(kind: .unavailable, detail: "Graph answered 503 \"Service Unavailable\"\n(request-id a/b)", since: later, notified: true, polls: 3)
        state.reportedUnreadable = ["x\u{1}y": later]
        return (state, outcome.state)
    }

    /// What version 1 wrote: the agent's fields with the engine's state inside.
    struct VersionOne: Encodable {
        var state: AgentState
        var engine: EngineState
        enum CodingKeys: String, CodingKey { case version, engine, lastSuccessfulPoll, newestEventTime, learned, problem, reportedUnreadable }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .version)
            try container.encode(engine, forKey: .engine)
            try container.encodeIfPresent(state.lastSuccessfulPoll, forKey: .lastSuccessfulPoll)
            try container.encodeIfPresent(state.newestEventTime, forKey: .newestEventTime)
            try container.encode(state.learned, forKey: .learned)
            try container.encodeIfPresent(state.problem, forKey: .problem)
            try container.encodeIfPresent(state.reportedUnreadable, forKey: .reportedUnreadable)
        }
    }

    static func temporaryStore() throws -> (StateStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (StateStore(stateDirectory: directory), directory)
    }

    static func files(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    static func foundationDecoded(_ data: Data) throws -> EngineState {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(EngineState.self, from: data)
    }

    @Test func aVersionOneFileReadsAsItWasWrittenAndMovesToTwoFiles() throws {
        let (store, directory) = try StateFileTests.temporaryStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (state, engine) = try StateFileTests.busyState()

        // What earlier builds wrote: Foundation's encoder, sorted keys, escaped slashes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        try encoder.encode(VersionOne(state: state, engine: engine)).write(to: store.file)
        let loaded = try store.load()
        #expect(loaded.version == 1)
        #expect(loaded.lastSuccessfulPoll == state.lastSuccessfulPoll && loaded.problem == state.problem && loaded.reportedUnreadable == state.reportedUnreadable)
        #expect(try store.loadEngine(of: loaded) == engine)

        // The next commit moves the engine's state out, even when it did not change.
        let committed = try store.commit(loaded)
        #expect(committed.engineGeneration == 1)
        #expect(try StateFileTests.files(directory) == ["engine-1.json", "state.json"])
        let header = try JSONValue.parse(Data(contentsOf: store.file))
        #expect(header["version"] == .int(2))
        #expect(header["engine"] == nil)
        #expect(header["engineGeneration"] == .int(1))
        let again = try store.load()
        #expect(again == committed)
        #expect(try store.loadEngine(of: again) == engine)
        let engineBytes = try Data(contentsOf: store.engineFile(1))
        #expect(try StateFileTests.foundationDecoded(engineBytes) == engine, "a file this build writes reads the same with Foundation")
        // Written straight from the encoder, the bytes the JSON value would give.
        #expect(engineBytes == Data(try JSONValueEncoder().encode(engine).canonicalBytes()))
    }

    @Test func theSameValueAlwaysWritesTheSameBytes() throws {
        let (store, directory) = try StateFileTests.temporaryStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (state, engine) = try StateFileTests.busyState()
        try store.commit(state, engine: engine)
        let header = try Data(contentsOf: store.file), body = try Data(contentsOf: store.engineFile(1))
        try store.commit(try store.load())
        #expect(try Data(contentsOf: store.file) == header)
        #expect(try StateFileTests.files(directory) == ["engine-1.json", "state.json"], "no engine given: its file stays")
        try store.commit(try store.load(), engine: try store.loadEngine(of: try store.load()))
        #expect(try StateFileTests.files(directory) == ["engine-2.json", "state.json"], "a new engine file replaces the old")
        #expect(try Data(contentsOf: store.engineFile(2)) == body)
    }

    @Test func aCrashBetweenTheEngineFileAndStateJSONLeavesTheOldPair() throws {
        let (store, directory) = try StateFileTests.temporaryStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (state, engine) = try StateFileTests.busyState()
        try store.commit(state, engine: EngineState())
        // state.json cannot be replaced: the commit stops after writing the new engine file.
        let blocker = DurableFile.temporaryPath(for: store.file.path)
        try FileManager.default.createDirectory(atPath: blocker + "/inside", withIntermediateDirectories: true)
        #expect(throws: FileError(operation: "create", path: blocker, code: 17)) { try store.commit(try store.load(), engine: engine) }
        #expect(try StateFileTests.files(directory).filter { !$0.hasPrefix(".") } == ["engine-1.json", "engine-2.json", "state.json"])
        let old = try store.load()
        #expect(old.engineGeneration == 1)
        #expect(try store.loadEngine(of: old) == EngineState(), "the old pair")
        try FileManager.default.removeItem(atPath: blocker)
        try store.commit(old, engine: engine)
        #expect(try StateFileTests.files(directory) == ["engine-2.json", "state.json"])
        #expect(try store.loadEngine(of: try store.load()) == engine)
    }

    @Test func aDamagedOrNewerFileIsRefusedWithTheSameMessages() throws {
        let (store, directory) = try StateFileTests.temporaryStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (text, message) in [
            ("{\"version\":1,\"engine\":", "the agent state is damaged; move it aside to start learning again (alerts already sent are kept in the outbox)"),
            ("{\"version\":99}", "the agent state has version 99, this build reads versions 1 to \(AgentState.currentVersion)"),
            ("{\"version\":1,\"learned\":true,\"engine\":{\"seen\":[]}}", "the agent state is damaged; move it aside to start learning again"),
            ("{\"version\":2,\"learned\":true,\"engineGeneration\":3}", "the agent state is damaged: its engine file engine-3.json is missing; move state.json aside to start learning again"),
        ] {
            try Data(text.utf8).write(to: store.file)
            #expect(throws: ConfigurationError(message, file: store.file.path)) { _ = try store.load() }
        }
        try Data("{\"seen\":[]}".utf8).write(to: store.engineFile(3))
        let state = try store.load()
        #expect(throws: ConfigurationError("the agent state is damaged; move state.json aside to start learning again (alerts already sent are kept in the outbox)", file: store.engineFile(3).path)) {
            _ = try store.loadEngine(of: state)
        }
    }
}
