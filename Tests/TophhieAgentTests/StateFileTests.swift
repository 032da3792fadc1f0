import Foundation
import Testing
import TophhieJSON
@testable import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// The state file is now read and written by this package's parser, writer and Codable bridge
/// instead of Foundation's: a file an earlier build wrote must read the same, and a file this
/// build writes must read the same with Foundation's decoder (a downgrade keeps its state).
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
    static func busyState() throws -> AgentState {
        var factory = SignInFactory(seed: 5, account: .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane \"J\" Doe/é"))
        let start = Date(timeIntervalSince1970: 1_788_000_000.123_456)
        var events: [JSONValue] = []
        for hour in 0..<(24 * 15) where hour % 6 == 0 {
            events.append(factory.signIn(at: start.addingTimeInterval(Double(hour) * 3600 + 0.1), place: .london, device: hour % 4 == 0 ? .phone : .laptop))
        }
        let later = start.addingTimeInterval(15 * 86_400)
        for i in 0..<6 { events.append(factory.signIn(at: later.addingTimeInterval(Double(i) * 31.7), place: .lagos, device: .unknownLinux, errorCode: 50126)) }
        events.append(factory.signIn(at: later.addingTimeInterval(900), place: .sydney, app: .legacyIMAP))
        let engine = Engine(rules: RuleLoader.load(try RuleSource.read(paths: [repoRules])))
        let outcome = engine.evaluate(EngineState(), events: try events.map(SignInEvents.event), now: later.addingTimeInterval(1000))
        #expect(!outcome.state.recent.isEmpty && !outcome.state.baselines.isEmpty && !outcome.state.episodes.isEmpty)
        var state = AgentState()
        state.engine = outcome.state
        state.lastSuccessfulPoll = later.addingTimeInterval(1000.5)
        state.newestEventTime = later.addingTimeInterval(900)
        state.learned = true
        state.problem = AgentProblem(kind: .unavailable, detail: "Graph answered 503 \"Service Unavailable\"\n(request-id a/b)", since: later, notified: true, polls: 3)
        state.reportedUnreadable = ["x\u{1}y": later]
        return state
    }

    static func foundationDecoded(_ data: Data) throws -> AgentState {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(AgentState.self, from: data)
    }

    @Test func aFileFoundationWroteReadsAsFoundationReadsItAndBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = StateStore(stateDirectory: directory)
        let state = try StateFileTests.busyState()

        // What earlier builds wrote: Foundation's encoder, sorted keys, escaped slashes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let old = try encoder.encode(state)
        try old.write(to: store.file)
        let expected = try StateFileTests.foundationDecoded(old)
        #expect(try store.load() == expected)

        try store.commit(expected)
        let written = try Data(contentsOf: store.file)
        #expect(try StateFileTests.foundationDecoded(written) == expected)
        #expect(try store.load() == expected)
        // Written straight from the encoder, the bytes the JSON value would give.
        #expect(written == Data(try JSONValueEncoder().encode(expected).canonicalBytes()))
        // The same value always gives the same bytes.
        try store.commit(try store.load())
        #expect(try Data(contentsOf: store.file) == written)
    }

    @Test func aDamagedOrNewerFileIsRefusedWithTheSameMessages() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = StateStore(stateDirectory: directory)
        for (text, message) in [
            ("{\"version\":1,\"engine\":", "the agent state is damaged; move it aside to start learning again (alerts already sent are kept in the outbox)"),
            ("{\"version\":99}", "the agent state has version 99, this build reads version \(AgentState.currentVersion)"),
            ("{\"version\":1,\"engine\":{\"seen\":[]}}", "the agent state is damaged; move it aside to start learning again"),
        ] {
            try Data(text.utf8).write(to: store.file)
            #expect(throws: ConfigurationError(message, file: store.file.path)) { _ = try store.load() }
        }
    }
}
