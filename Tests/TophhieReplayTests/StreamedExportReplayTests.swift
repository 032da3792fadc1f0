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

/// An export read for its records' ids and times only (`timesOnly`), its records checked as the
/// replay reads them: where every record passes, the alerts and counts of the export checked
/// first; where one does not, the replay stops, and the export checked first and replayed
/// again, passing over the alerts written, gives the rest, each once. The record with the
/// latest time, the replay's `now`, is checked before any alert.
@Suite(.timeLimit(.minutes(2))) struct TimesOnlyExportTests {
    static let rules = RuleLoader.load((try? RuleSource.read(paths: [RepositoryFiles.rules])) ?? [])

    /// `events` as Log Analytics JSON lines, oldest first; row `bad` with a lone surrogate in its
    /// app's name (a record the poll's decoder skips).
    static func rows(_ events: [JSONValue], bad: Int) throws -> String {
        let lines = try events.enumerated().map { index, event -> String in
            guard case .object(let members) = event else { return "" }
            var row: [String: JSONValue] = ["Type": .string("SigninLogs"), "TimeGenerated": members["createdDateTime"] ?? .null]
            for (member, value) in members { row[WrappedExportTests.column(member)] = value }
            let text = String(decoding: JSONValue.object(row).canonicalData(), as: UTF8.self)
            guard index == bad else { return text }
            let marked = text.replacingOccurrences(of: #""AppDisplayName":""#, with: #""AppDisplayName":"\ud800"#)
            try #require(marked != text, "the row names its app")
            return marked
        }
        return try RepositoryFiles.temporary("rows.jsonl", lines.joined(separator: "\n") + "\n")
    }

    /// The export replayed as `replay` replays it: read for ids and times, checked as it is
    /// replayed, and when a record stops it, checked first and replayed again.
    static func replayedAsTheCommandDoes(_ path: String, spillLimit: Int = 1 << 19) async throws -> (alerts: [String], written: Int?, conversion: ExportConversion) {
        let seen = WrappedExportTests.AlertLines()
        let first = try #require(try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true,
                                                            timesOnly: true, indexSpillLimit: spillLimit))
        let index = try #require(first.index)
        #expect(!index.checked)
        let outcome = try await Replay.run(export: index, rules: rules, settings: EngineSettings(), batchSize: 8, write: { seen.add("\($0.id) \($0.summary)") })
        guard let written = outcome.stoppedForCheck else { return (seen.lines, nil, first) }
        let checked = try #require(try ExportConversion.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true))
        let again = try #require(checked.index)
        #expect(again.checked)
        _ = try await Replay.run(export: again, rules: rules, settings: EngineSettings(), passingOver: written, batchSize: 8, write: { seen.add("\($0.id) \($0.summary)") })
        return (seen.lines, written, checked)
    }

    /// The same rows checked first and replayed.
    static func checkedFirst(_ path: String) async throws -> (alerts: [String], conversion: ExportConversion) {
        let conversion = try #require(try ExportConversion.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true))
        return (try await StreamedExportReplayTests.streamedAlerts(try #require(conversion.index)), conversion)
    }

    @Test(arguments: [1 << 19, 16])
    func rowsThatAllPassGiveTheAlertsOfTheRowsCheckedFirst(_ spillLimit: Int) async throws {
        let events = CheckedAsReadTests.events(after: 24)
        let path = try Self.rows(events, bad: -1)
        defer { RepositoryFiles.remove(path) }
        let read = try await Self.replayedAsTheCommandDoes(path, spillLimit: spillLimit)
        let expected = try await Self.checkedFirst(path)
        #expect(read.written == nil)
        #expect(read.conversion.records == events.count && expected.conversion.records == events.count)
        #expect(read.alerts == expected.alerts && expected.alerts.count >= 5, "\(expected.alerts)")
    }

    @Test(arguments: [1 << 19, 16])
    func aRowThatFailsStopsTheReplayAndTheRowsCheckedFirstGiveTheRestOnce(_ spillLimit: Int) async throws {
        let events = CheckedAsReadTests.events(after: 24)
        // Between the bursts, before the last batch of eight.
        let bad = events.count - 7 - 12
        let path = try Self.rows(events, bad: bad)
        defer { RepositoryFiles.remove(path) }
        let read = try await Self.replayedAsTheCommandDoes(path, spillLimit: spillLimit)
        let expected = try await Self.checkedFirst(path)
        let written = try #require(read.written)
        #expect(written > 0 && written < expected.alerts.count, "\(written) of \(expected.alerts.count)")
        #expect(read.conversion.skipped == expected.conversion.skipped && read.conversion.skipped.count == 1)
        #expect(read.conversion.skipped.first?.contains("rows.jsonl line \(bad + 1): skipped, as the agent skips it: the event is not valid JSON (column ") == true,
                "\(read.conversion.skipped)")
        #expect(read.alerts == expected.alerts)
    }

    /// The newest row fails: nothing is written before the export is checked first, whose `now`
    /// is the row before's time.
    @Test(arguments: [1 << 19, 16])
    func aLatestRowThatFailsStopsTheReplayBeforeAnyAlert(_ spillLimit: Int) async throws {
        let events = CheckedAsReadTests.events(after: 24)
        let path = try Self.rows(events, bad: events.count - 1)
        defer { RepositoryFiles.remove(path) }
        let read = try await Self.replayedAsTheCommandDoes(path, spillLimit: spillLimit)
        #expect(read.written == 0)
        #expect(read.alerts == (try await Self.checkedFirst(path)).alerts)
    }
}
