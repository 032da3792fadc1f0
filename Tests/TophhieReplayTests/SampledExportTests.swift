import Foundation
import Testing
import TophhieJSON
import TophhieRules
import TophhieSystem
import TophhieTestSupport
@testable import TophhieReplay

/// A large Log Analytics export in time order is only sampled, as a Graph file is: its rows are
/// found and checked by the second pass, run by run. Its alerts are those of the export checked
/// first; where the samples were wrong, or a row fails its check, the replay gives way and the
/// export checked first gives the rest, none twice.
@Suite(.timeLimit(.minutes(2))) struct SampledExportTests {
    /// Rows as an array, oldest first, each but the first with a list of objects that look like
    /// rows (an id and a time of their own, the row's): `}, {` between them is where a sample
    /// may be guessed. Row `bad` has a lone surrogate in its app's name.
    static func array(_ events: [JSONValue], bad: Int = -1, lookalikes: Bool = false, dynamicAsText: Bool = false) throws -> String {
        let rows = try events.enumerated().map { index, event -> String in
            guard case .object(let members) = event else { return "" }
            var row: [String: JSONValue] = ["Type": .string("SigninLogs"), "TimeGenerated": members["createdDateTime"] ?? .null]
            for (member, value) in members {
                var value = value
                if dynamicAsText, case .object = value { value = .string(String(decoding: value.canonicalData(), as: UTF8.self)) }
                row[WrappedExportTests.column(member)] = value
            }
            if lookalikes {
                let time = members["createdDateTime"] ?? .null
                row["Extra"] = .array([.object(["Id": .string("x\(index)"), "CreatedDateTime": time]), .object(["Id": .string("y\(index)"), "CreatedDateTime": time])])
            }
            let text = String(decoding: JSONValue.object(row).canonicalData(), as: UTF8.self)
            guard index == bad else { return text }
            let marked = text.replacingOccurrences(of: #""AppDisplayName":""#, with: #""AppDisplayName":"\ud800"#)
            try #require(marked != text, "the row names its app")
            return marked
        }
        return try RepositoryFiles.temporary("sampled-rows.json", "[\n" + rows.joined(separator: ",\n") + "\n]\n")
    }

    /// The export replayed as `replay` replays it, sampled every `stride` bytes: checked as it
    /// is replayed, and when it gives way, checked first and replayed again.
    static func replayed(_ path: String, stride: Int) async throws -> (alerts: [String], written: Int?, sampled: Bool, notes: [String], records: Int) {
        let seen = WrappedExportTests.AlertLines()
        let first = try #require(try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true,
                                                            timesOnly: true, sparseFrom: 0, sparseStride: stride))
        let index = try #require(first.index)
        let rules = TimesOnlyExportTests.rules
        let outcome = try await Replay.run(export: index, rules: rules, settings: EngineSettings(), write: { seen.add("\($0.id) \($0.summary)") })
        guard let written = outcome.stoppedForCheck else { return (seen.lines, nil, index.isSampled, outcome.notes, outcome.events) }
        let checked = try #require(try ExportConversion.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true))
        let again = try await Replay.run(export: try #require(checked.index), rules: rules, settings: EngineSettings(), passingOver: written,
                                         write: { seen.add("\($0.id) \($0.summary)") })
        return (seen.lines, written, index.isSampled, outcome.notes, again.events)
    }

    static func size(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    /// JSON rows, their dynamic columns as objects or as JSON text, sampled every few rows up to
    /// every half of the file: every row is read and the alerts are the checked export's.
    @Test(arguments: [false, true])
    func rowsInTimeOrderReadFromSamplesGiveTheAlertsOfTheRowsCheckedFirst(_ dynamicAsText: Bool) async throws {
        let events = CheckedAsReadTests.events(after: 24)
        let path = try Self.array(events, dynamicAsText: dynamicAsText)
        defer { RepositoryFiles.remove(path) }
        let expected = try await TimesOnlyExportTests.checkedFirst(path)
        #expect(expected.alerts.count >= 5, "\(expected.alerts)")
        let size = try Self.size(path)
        for stride in [size / 40, size / 7, size / 2] {
            let read = try await Self.replayed(path, stride: stride)
            #expect(read.sampled && read.written == nil, "every \(stride) bytes: \(read.notes)")
            #expect(read.records == events.count)
            #expect(read.alerts == expected.alerts, "every \(stride) bytes")
        }
    }

    /// Samples taken at `}, {` between the row-like objects of a column's list: the runs do not
    /// read as whole rows, the replay gives way, and the rows checked first give the rest once.
    @Test func samplesGuessedInsideARowGiveWayToTheRowsCheckedFirst() async throws {
        let events = CheckedAsReadTests.events(after: 24)
        let path = try Self.array(events, lookalikes: true)
        defer { RepositoryFiles.remove(path) }
        let expected = try await TimesOnlyExportTests.checkedFirst(path)
        let size = try Self.size(path)
        var gaveWay = 0
        for stride in Swift.stride(from: size / 40, to: size / 3, by: size / 40 + 7) {
            let read = try await Self.replayed(path, stride: stride)
            #expect(read.alerts == expected.alerts, "every \(stride) bytes")
            if read.written != nil {
                gaveWay += 1
                #expect(read.notes.contains { $0.contains("gave way: the sign-ins from byte") }, "\(read.notes)")
            }
        }
        #expect(gaveWay > 0, "no sample was taken inside a row")
    }

    /// An array broken in its grammar part way, past its first rows and before its last
    /// stretch: the sampled replay gives way where it reads it, after the alerts before, and
    /// the export is not read in two passes again (the whole-file way refuses it at its line).
    @Test func anArrayBrokenPartWayGivesWayWhereItIsRead() async throws {
        let events = CheckedAsReadTests.events(after: 600)
        let path = try Self.array(events)
        defer { RepositoryFiles.remove(path) }
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        // Row 400 (line 401) loses the comma after it.
        lines[400].removeLast()
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let seen = WrappedExportTests.AlertLines()
        let first = try #require(try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true,
                                                            timesOnly: true, sparseFrom: 0, sparseStride: try Self.size(path) / 40))
        let index = try #require(first.index)
        #expect(index.isSampled)
        let outcome = try await Replay.run(export: index, rules: TimesOnlyExportTests.rules, settings: EngineSettings(), write: { seen.add("\($0.id)") })
        #expect(outcome.stoppedForCheck != nil)
        #expect(outcome.notes.contains { $0.contains("gave way: the sign-ins from byte") }, "\(outcome.notes)")
        let checked = try? ExportConversion.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true)
        #expect(checked == nil)
    }

    /// A row that fails its check stops the sampled replay; checked first, the rows give the
    /// rest once.
    @Test func aRowThatFailsStopsTheSampledReplayAndTheRowsCheckedFirstGiveTheRestOnce() async throws {
        let events = CheckedAsReadTests.events(after: 24)
        let path = try Self.array(events, bad: events.count - 7 - 12)
        defer { RepositoryFiles.remove(path) }
        let expected = try await TimesOnlyExportTests.checkedFirst(path)
        #expect(expected.conversion.skipped.count == 1)
        let read = try await Self.replayed(path, stride: try Self.size(path) / 20)
        #expect(read.sampled)
        let written = try #require(read.written)
        #expect(written > 0 && written < expected.alerts.count, "\(written) of \(expected.alerts.count)")
        #expect(read.alerts == expected.alerts)
    }
}
