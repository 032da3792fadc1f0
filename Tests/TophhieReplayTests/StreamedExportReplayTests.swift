import Foundation
import Testing
import TophhieJSON
import TophhieRules
import TophhieSystem
import TophhieTestSupport
@testable import TophhieReplay

/// An export replayed straight from itself (issue 46): the first pass checks and indexes its
/// records, the second reads them back in time order, maps them and hands them to the engine.
/// No copy of the export is written, and the alerts, skips and counts are those of the export
/// converted to Graph's records and replayed as a Graph file.
@Suite(.timeLimit(.minutes(2))) struct StreamedExportReplayTests {
    /// A folder of its own for scratch files, so a test can see that none was written.
    static func scratchFolder() throws -> String {
        let path = NSTemporaryDirectory() + "tophhie-scratch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// The alerts of an export replayed from itself, each as its id and summary.
    static func streamedAlerts(_ index: ExportIndex) async throws -> [String] {
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let seen = WrappedExportTests.AlertLines()
        _ = try await Replay.run(export: index, rules: rules, settings: EngineSettings(), write: { seen.add("\($0.id) \($0.summary)") })
        return seen.lines
    }

    /// The alerts, skips and counts of the export read both ways.
    static func bothWays(_ file: String, format: ExportFormat? = nil) async throws -> (streamed: ExportConversion, written: ExportConversion, streamedAlerts: [String], writtenAlerts: [String], scratch: [String]) {
        let scratch = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let written = try #require(try ExportConversion.convert(file: file, format: format, strict: false, scratch: NSTemporaryDirectory()))
        defer { written.remove() }
        let streamed = try #require(try ExportConversion.convert(file: file, format: format, strict: false, scratch: scratch, streaming: true))
        let index = try #require(streamed.index)
        let streamedAlerts = try await streamedAlerts(index)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch)
        return (streamed, written, streamedAlerts, try await WrappedExportTests.alerts(written.path), left)
    }

    @Test(arguments: ["log-analytics-signinlogs.json", "log-analytics-signinlogs.csv", "graph-powershell.json", "azure-monitor-records.json",
                      "InteractiveSignIns_2024-05-01_2024-05-02.csv", "NonInteractiveSignIns_2024-05-01_2024-05-02.csv"])
    func everyExportFixtureGivesTheAlertsAndSkipsOfItsConversionWithoutWritingIt(_ name: String) async throws {
        let read = try await Self.bothWays(ExportFormatTests.fixture(name))
        #expect(read.streamed.path.isEmpty)
        #expect(read.scratch.isEmpty, "nothing written: \(read.scratch)")
        #expect(read.streamed.records == read.written.records)
        #expect(read.streamed.skipped == read.written.skipped)
        #expect(read.streamed.coordinatesDropped == read.written.coordinatesDropped)
        #expect(read.streamedAlerts == read.writtenAlerts)
        if name.hasPrefix("log-analytics") || name.hasPrefix("graph") || name.hasPrefix("Interactive") {
            #expect(!read.streamedAlerts.isEmpty, "the fixture's burst alerts")
        }
        // `rules match` over the export itself: the written conversion's matches, in its order.
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let index = try #require(read.streamed.index)
        let streamed = try await Replay.matches(export: index, rules: rules)
        let written = try #require(try ExportConversion.convert(file: ExportFormatTests.fixture(name), format: nil, strict: false, scratch: NSTemporaryDirectory()))
        defer { written.remove() }
        let expected = try await Replay.matches(written.path, rules: rules, engine: .fast)
        #expect(streamed.matches.map { "\($0.ruleID) \($0.eventID)" } == expected.matches.map { "\($0.ruleID) \($0.eventID)" })
        #expect(streamed.outcome.events == expected.outcome.events)
        #expect(!expected.matches.isEmpty || name.hasPrefix("azure-monitor"), "the fixture matches some detection")
    }

    /// A month of one person's sign-ins as Log Analytics JSON lines in no time order, with some
    /// sharing a time (ordered by id, read back from the export): the index spills to scratch
    /// in sorted stretches, and the alerts are the Graph page's.
    @Test func anExportInNoTimeOrderSpillsItsIndexAndGivesThePagesAlerts() async throws {
        var signIns = try ReplayProjectionTests.historySharingTimes(seed: 46, everyHours: 2, sharedAt: 7, repeated: 3)
        var generator = SeededGenerator(seed: 46)
        signIns.shuffle(using: &generator)
        let rows = signIns.map { signIn -> String in
            guard case .object(let members) = signIn else { return "" }
            var row: [String: JSONValue] = ["Type": .string("SigninLogs"), "TimeGenerated": members["createdDateTime"] ?? .null]
            for (member, value) in members { row[WrappedExportTests.column(member)] = value }
            return String(decoding: JSONValue.object(row).canonicalData(), as: UTF8.self)
        }
        let path = try RepositoryFiles.temporary("rows.jsonl", rows.joined(separator: "\n") + "\n")
        defer { RepositoryFiles.remove(path) }
        let page = try RepositoryFiles.temporary("page.json", String(decoding: JSONValue.object(["value": .array(signIns)]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(page) }
        let streamed = try #require(try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true, indexSpillLimit: 16))
        let index = try #require(streamed.index)
        #expect(streamed.records == signIns.count && streamed.path.isEmpty)
        let expected = try await WrappedExportTests.alerts(page)
        #expect(expected.count >= 3, "\(expected)")
        #expect(try await Self.streamedAlerts(index) == expected)
        guard case .spilled(let spilled) = index.order() else {
            Issue.record("the index of \(signIns.count) records was not spilled at 16")
            return
        }
        #expect(spilled.stretches.count == (signIns.count + 15) / 16)
    }

    /// CSV rows whose quoted fields hold line breaks, with CRLF line ends and a BOM, are read
    /// back from the right bytes.
    @Test func csvRowsAcrossLinesAreReadBackWhole() async throws {
        let header = "Id,UserId,TimeGenerated [UTC],ResultType,AppDisplayName,LocationDetails_dynamic,Type\r\n"
        var text = "\u{FEFF}" + header
        for minute in 0..<8 {
            let location = #""{""city"": ""Lagos"",""countryOrRegion"": ""NG""}""#
            text += "r\(minute),u1,2024-05-01T10:0\(minute):00Z,50126,\"Office\r\n365\",\(location),SigninLogs\r\n"
        }
        let path = try RepositoryFiles.temporary("rows.csv", text)
        defer { RepositoryFiles.remove(path) }
        let read = try await Self.bothWays(path)
        #expect(read.streamed.records == 8 && read.streamed.skipped.isEmpty)
        #expect(read.streamedAlerts == read.writtenAlerts)
        #expect(read.streamedAlerts.map { $0.split(separator: " ", maxSplits: 1)[1] } == ["8 events over 7m (gte 5 within 10m)"])
    }

    /// Azure Monitor records whose `properties` lack the id and time (the record's own
    /// `correlationId` and `time` stand in) read as they do converted.
    @Test func azureMonitorRecordsWithoutAnIdInsideReadAsConverted() async throws {
        let records = (0..<6).map { minute in
            #"{"time":"2024-05-01T10:0\#(minute):00Z","correlationId":"c\#(minute)","category":"SignInLogs","properties":{"userId":"u1","status":{"errorCode":50126}}}"#
        } + [#"{"time":"2024-05-01T10:09:00Z","category":"SignInLogs","properties":"not an object"}"#]
        let path = try RepositoryFiles.temporary("PT1H.json", #"{"records":["# + records.joined(separator: ",\n") + "]}")
        defer { RepositoryFiles.remove(path) }
        let read = try await Self.bothWays(path)
        #expect(read.streamed.records == 6 && read.streamed.skipped == read.written.skipped && read.streamed.skipped.count == 1)
        #expect(read.streamedAlerts == read.writtenAlerts && !read.streamedAlerts.isEmpty)
    }

    /// A file changed between the passes is named, not read as something else.
    @Test func anExportChangedBetweenThePassesIsNamed() async throws {
        let fixture = try String(contentsOfFile: ExportFormatTests.fixture("log-analytics-signinlogs.json"), encoding: .utf8)
        let path = try RepositoryFiles.temporary("rows.json", fixture)
        defer { RepositoryFiles.remove(path) }
        let conversion = try #require(try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory(), streaming: true))
        let index = try #require(conversion.index)
        try fixture.replacingOccurrences(of: "2024-05-01T03:00:10.123Z", with: "2024-05-01T04:00:10.123Z").write(toFile: path, atomically: false, encoding: .utf8)
        // The first record (the earliest) starts at the file's first brace.
        let first = try #require(Array(fixture.utf8).firstIndex(of: UInt8(ascii: "{")))
        await #expect(throws: ReplayFileError("\(path): the file changed while it was read (the sign-in at byte \(first) is not what it was)")) {
            _ = try await Self.streamedAlerts(index)
        }
    }
}
