import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieAgent

/// A poll recognises the sign-ins it processed before from their bytes: with nothing else, the
/// engine's state is neither read nor written; a sign-in Graph re-publishes with other content
/// is still evaluated again.
@Suite(.timeLimit(.minutes(20))) struct RecognisedSignInsTests {
    /// The processed set's key is written as the two lower-case hex digits a byte that
    /// `String(format: "%02x")` wrote (states on disk hold them), and read back the same.
    @Test func theProcessedSetsKeyIsWrittenAsTwoHexDigitsAByte() throws {
        let every = (0...255).map { UInt8($0) }
        #expect(ProcessedSignIns.hex(every) == every.map { String(format: "%02x", $0) }.joined())
        #expect(ProcessedSignIns.hex([]) == "")
        let key: [UInt8] = [0x00, 0x0F, 0xF0, 0xFF, 0x7A, 0xA7, 0x10, 0x01, 0x99, 0x5C, 0xC5, 0x3E, 0xE3, 0x80, 0x08, 0x42]
        let set = ProcessedSignIns(key: key, entries: [])
        let written = try JSONValueEncoder().encode(set)
        #expect(written.value(atPath: "key")?.stringValue == "000ff0ff7aa71001995cc53ee3800842")
        #expect(try JSONValueDecoder().decode(ProcessedSignIns.self, from: written) == set)
    }

    static let riskyRule = """
    title: Risky sign-in
    id: test-risky
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            riskLevelAggregated: high
        condition: selection
    level: high
    """

    @Test func aPollWithNothingNewNeitherReadsNorWritesTheEngineState() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.failures(3, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 600)
            #expect(try await cycle.run(now: harness.clock.now()).newEvents == 3)
            let store = StateStore(stateDirectory: harness.stateDirectory)
            let generation = try #require(try store.load().engineGeneration)
            #expect(try store.load().processed?.count == 3)
            // A poll that read the engine's state would now fail.
            try Data("damaged".utf8).write(to: store.engineFile(generation))
            for _ in 0..<3 {
                harness.clock.advance(by: 300)
                let report = try await cycle.run(now: harness.clock.now())
                #expect(report.outcome == .succeeded)
                #expect(report.fetched == 3)
                #expect(report.newEvents == 0)
                #expect(try store.load().engineGeneration == generation)
                #expect(try store.load().lastSuccessfulPoll == harness.clock.now())
            }
            #expect(try Data(contentsOf: store.engineFile(generation)) == Data("damaged".utf8))

            // Something new needs it: the damage is met, and told.
            await harness.failures(1, at: harness.clock.now().addingTimeInterval(-60))
            harness.clock.advance(by: 300)
            await #expect(throws: ConfigurationError("the agent state is damaged; move state.json aside to start learning again (alerts already sent are kept in the outbox)", file: store.engineFile(generation).path)) {
                _ = try await cycle.run(now: harness.clock.now())
            }
            #expect(await harness.recorder.delivered.map(\.rule.id) == ["tophhie.notice.state-damaged"])
        }
    }

    @Test func aSignInRepublishedWithOtherContentIsEvaluatedAgain() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle(rules: RecognisedSignInsTests.riskyRule)
            _ = try await cycle.run(now: harness.clock.now())
            let original = harness.factory.signIn(at: harness.clock.now().addingTimeInterval(60))
            await harness.tenant.addSignIns([original], latencySeconds: 0)
            harness.clock.advance(by: 300)
            #expect(try await cycle.run(now: harness.clock.now()).alerts.isEmpty)
            harness.clock.advance(by: 300)
            let quiet = try await cycle.run(now: harness.clock.now())
            #expect(quiet.alerts.isEmpty && quiet.fetched == 1 && quiet.newEvents == 0)

            // Entra raises the risk offline and re-publishes the sign-in under its id.
            guard case .object(var members) = original else { Issue.record("not an object"); return }
            members["riskLevelAggregated"] = .string("high")
            await harness.tenant.addSignIns([.object(members)], latencySeconds: 0)
            harness.clock.advance(by: 300)
            let raised = try await cycle.run(now: harness.clock.now())
            #expect(raised.alerts.map(\.rule.id) == ["test-risky"])
            #expect(raised.alerts.first?.events.map(\.id) == [try #require(original["id"]?.stringValue)])
            for _ in 0..<3 {
                harness.clock.advance(by: 300)
                #expect(try await cycle.run(now: harness.clock.now()).alerts.isEmpty, "told once")
            }
        }
    }

    @Test func aVersionOneStateKeepsWhatItKnewAndMovesToTwoFiles() async throws {
        try await AgentHarness.with { (harness: inout AgentHarness) in
            let cycle = try harness.cycle()
            _ = try await cycle.run(now: harness.clock.now())
            await harness.failures(5, at: harness.clock.now().addingTimeInterval(60))
            harness.clock.advance(by: 600)
            #expect(try await cycle.run(now: harness.clock.now()).alerts.map(\.rule.id) == ["test-burst"])

            // Rewrite the state as version 1 wrote it: the engine's state inside, nothing recognised.
            let store = StateStore(stateDirectory: harness.stateDirectory)
            let state = try store.load()
            let engine = try store.loadEngine(of: state)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            try encoder.encode(StateFileTests.VersionOne(state: state, engine: engine)).write(to: store.file)
            try FileManager.default.removeItem(at: store.engineFile(try #require(state.engineGeneration)))

            harness.clock.advance(by: 300)
            let report = try await cycle.run(now: harness.clock.now())
            #expect(report.outcome == .succeeded)
            #expect(report.alerts.isEmpty, "the burst was remembered, so it does not alert again")
            #expect(report.fetched == 5 && report.newEvents == 0)
            let moved = try store.load()
            #expect(moved.version == AgentState.currentVersion)
            #expect(try StateFileTests.files(harness.stateDirectory).filter { $0.hasPrefix("engine-") } == ["engine-1.json"])
            #expect(moved.processed?.count == 5)

            await harness.failures(5, at: harness.clock.now().addingTimeInterval(3600))
            harness.clock.advance(by: 4000)
            #expect(try await cycle.run(now: harness.clock.now()).alerts.map(\.rule.id) == ["test-burst"])
        }
    }
}

/// The stored form of the processed set: its key as hex, its entries as base64 of 24-byte
/// little-endian entries sorted by value, whatever order they were added in.
@Suite struct ProcessedSignInsFormatTests {
    static func record(_ key: SignInRecordKey, _ seconds: Int64) -> SignInRecord {
        SignInRecord(id: "\(key.high)-\(key.low)", createdDateTime: Date(timeIntervalSince1970: TimeInterval(seconds)), key: key, recognised: true)
    }

    @Test func entriesAreWrittenSortedAsLittleEndianWordsAndReadBack() throws {
        let key: [UInt8] = Array(0..<16)
        let records = [
            Self.record(SignInRecordKey(high: 2, low: 0x0102_0304_0506_0708), 1_764_806_400),
            Self.record(SignInRecordKey(high: 1, low: .max), -1),
            Self.record(SignInRecordKey(high: 2, low: 1), 0),
        ]
        let set = ProcessedSignIns(key: key, entries: []).recording(records, processed: { _ in true }, after: .distantPast)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let written = try #require(String(data: try encoder.encode(set), encoding: .utf8))
        var expected: [UInt8] = []
        func word(_ value: UInt64) { for i in 0..<8 { expected.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) } }
        word(.max); word(1); word(UInt64(bitPattern: -1))
        word(1); word(2); word(0)
        word(0x0102_0304_0506_0708); word(2); word(1_764_806_400)
        #expect(written == #"{"entries":"\#(Data(expected).base64EncodedString())","key":"000102030405060708090a0b0c0d0e0f"}"#)
        #expect(try JSONDecoder().decode(ProcessedSignIns.self, from: Data(written.utf8)) == set)
        #expect(try JSONDecoder().decode(ProcessedSignIns.self, from: encoder.encode(ProcessedSignIns(key: key, entries: []))) == ProcessedSignIns(key: key, entries: []))
    }

    /// A poll's record merges into what was kept: new keys in order, a key met again takes its
    /// new time, what fell behind the cutoff goes; each is found, and nothing else is.
    @Test func recordingMergesInKeyOrderAndForgetsWhatIsPastTheCutoff() {
        let keys = (0..<200).map { SignInRecordKey(high: UInt64($0 % 7), low: UInt64($0 * 7919 % 200)) }
        var set = ProcessedSignIns(key: Array(0..<16), entries: [])
        set = set.recording(keys.prefix(120).enumerated().map { Self.record($1, Int64($0)) }, processed: { _ in true }, after: Date(timeIntervalSince1970: 9.5))
        #expect(set.count == 110, "times 0 to 9 are at or before the cutoff")
        set = set.recording(keys.suffix(100).enumerated().map { Self.record($1, 1000 + Int64($0)) }, processed: { $0.id.isEmpty }, after: Date(timeIntervalSince1970: 9.5))
        #expect(set.count == 190, "110 kept, 80 new, 20 taken again")
        #expect(keys.dropFirst(10).allSatisfy(set.isProcessed) && !keys.prefix(10).contains(where: set.isProcessed))
        #expect(!set.isProcessed(SignInRecordKey(high: 99, low: 0)))
        let entries = set.entries
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.key < $1.key })
        #expect(entries.first { $0.key == keys[119] }?.seconds == 1019, "met again: its new time")
        let later = set.recording([], processed: { _ in true }, after: Date(timeIntervalSince1970: 500))
        #expect(later.count == 100 && later.entries.allSatisfy { $0.seconds >= 1000 })
    }

    /// A file whose entries are out of order (edited by hand) is read in order, a repeated key
    /// once, its last time kept, as the dictionary it was once read into kept it.
    @Test func entriesOutOfOrderAreReadInOrder() throws {
        var bytes: [UInt8] = []
        func entry(_ high: UInt64, _ seconds: Int64) {
            for value in [0, high, UInt64(bitPattern: seconds)] { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) } }
        }
        entry(3, 30); entry(1, 10); entry(3, 31); entry(2, 20)
        let text = #"{"entries":"\#(Data(bytes).base64EncodedString())","key":"000102030405060708090a0b0c0d0e0f"}"#
        let set = try JSONDecoder().decode(ProcessedSignIns.self, from: Data(text.utf8))
        #expect(set.entries.map(\.key.high) == [1, 2, 3] && set.entries.map(\.seconds) == [10, 20, 31])
    }
}
