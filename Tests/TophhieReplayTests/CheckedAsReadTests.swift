import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
import TophhieRules
@testable import TophhieRulesFast
import TophhieSystem
@testable import TophhieReplay

/// A Graph file replayed before it was checked has each record given the quick check as the
/// second pass reads it. A record that does not pass stops the replay; the file is then checked
/// and replayed again, the alerts already written passed over: together they are the alerts of
/// the file checked first, each once. The latest record, the replay's `now`, is checked before
/// any alert is made.
@Suite struct CheckedAsReadTests {
    static let engine = SparseFirstPassTests.engine

    /// Sixteen days of London sign-ins, the Lagos burst, `after` hourly sign-ins from London, and
    /// another burst of failed passwords, oldest first.
    static func events(after: Int) -> [JSONValue] {
        var factory = ReplayProjectionTests.factory(seed: 57)
        var events = ReplayProjectionTests.history(&factory, everyHours: 3)
        let later = ReplayProjectionTests.burstStart.addingTimeInterval(3600)
        for hour in 0..<after { events.append(factory.signIn(at: later.addingTimeInterval(Double(hour) * 3600), place: .london, device: .laptop)) }
        let again = later.addingTimeInterval(Double(after) * 3600)
        for i in 0..<7 { events.append(factory.signIn(at: again.addingTimeInterval(Double(i) * 40), place: .lagos, device: .unknownLinux, errorCode: 50126)) }
        return events
    }

    /// A Graph page of `events`, newest first, with event `bad` given a lone surrogate in its
    /// app's name (a record the poll's decoder skips, which the engine's own reading does not see).
    /// - Returns: the file, and where the bad record starts in it.
    static func page(_ events: [JSONValue], bad: Int) throws -> (path: String, badOffset: Int) {
        let records = try events.enumerated().reversed().map { index, event -> String in
            let text = SparseFirstPassTests.text(event)
            guard index == bad else { return text }
            let marked = text.replacingOccurrences(of: #""appDisplayName":""#, with: #""appDisplayName":"\ud800"#)
            try #require(marked != text, "the factory's sign-in names its app")
            return marked
        }
        let head = #"{"value":["#
        let before = records.prefix(max(0, events.count - 1 - bad)).map { $0 + ",\n" }.joined()
        return (try RepositoryFiles.temporary("checked-as-read.json", head + records.joined(separator: ",\n") + "]}"), head.utf8.count + before.utf8.count)
    }

    /// The file's records read with the check as runs of eight: what was written, and the error.
    static func checkedReplay(_ path: String, writer: ReplayAlertWriter) async throws -> (any Error)? {
        try await BlockingWork.shared.run { () throws -> (any Error)? in
            var replay = try #require(StreamedReplay.open(path, runLength: 8))
            replay.checking = true
            writer.beginAttempt()
            do {
                _ = try writer.writingAhead { try replay.evaluateCounting(engine, batchSize: 8, keepingState: false, emit: writer.emitAhead) }
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func aRecordThatFailsStopsTheReplayAndTheCheckedFileGivesTheRestOnce() async throws {
        let events = Self.events(after: 24)
        // Between the bursts, past the last batch of eight (checked before the engine starts).
        let bad = events.count - 7 - 12
        let (path, badOffset) = try Self.page(events, bad: bad)
        defer { RepositoryFiles.remove(path) }
        var kept = events
        kept.remove(at: bad)
        let whole = try SparseFirstPassTests.wholeAlerts(kept)
        let lines = ReplayAlertWriterTests.Lines()
        let writer = ReplayAlertWriter { lines.add(AlertJSON.line($0)) }
        let error = try await Self.checkedReplay(path, writer: writer)
        let failed = try #require(error as? PlainRecordCheck.Failed, "\(String(describing: error))")
        let badID = try #require(events[bad]["id"]?.stringValue)
        #expect(failed.offset == badOffset)
        let written = writer.writtenCount
        #expect(written > 0 && written < whole.count, "alerts written before the record: \(written) of \(whole.count)")
        #expect(lines.ids == Array(whole.prefix(written)))
        // Checked first as the replay command then does, and replayed again.
        let conversion = try #require(try ExportConversion.convert(file: path, format: nil, strict: false, scratch: (path as NSString).deletingLastPathComponent))
        defer { conversion.remove() }
        // Its line is its place in the page, newest first; the column is past the escape.
        let line = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")[events.count - 1 - bad]
        let column = try #require(line.range(of: #"\ud800"#)).upperBound.utf16Offset(in: line) + 1
        #expect(conversion.skipped == ["\(path) item \(events.count - bad) (\(badID)): skipped, as the agent skips it: the event is not valid JSON (line \(events.count - bad), column \(column): unpaired surrogate in a \\u escape)"])
        let again = ReplayAlertWriter(write: { lines.add(AlertJSON.line($0)) }, passingOver: written)
        let checked = try #require(try await BlockingWork.shared.run { StreamedReplay.open(conversion.path) })
        again.beginAttempt()
        try await BlockingWork.shared.run { _ = try again.writingAhead { try checked.evaluateCounting(Self.engine, keepingState: false, emit: again.emitAhead) } }
        #expect(lines.ids == whole)
        #expect(again.count == whole.count)
    }

    /// The newest record fails: its time would have been `now`, which the checked file takes
    /// from the record before it. Nothing is written.
    @Test func aLatestRecordThatFailsStopsTheReplayBeforeAnyAlert() async throws {
        let events = Self.events(after: 24)
        let path = try Self.page(events, bad: events.count - 1).path
        defer { RepositoryFiles.remove(path) }
        let lines = ReplayAlertWriterTests.Lines()
        let writer = ReplayAlertWriter { lines.add(AlertJSON.line($0)) }
        let error = try await Self.checkedReplay(path, writer: writer)
        #expect(error is PlainRecordCheck.Failed, "\(String(describing: error))")
        #expect(writer.writtenCount == 0)
        #expect(lines.ids.isEmpty)
        // Not for want of alerts: the same file whole has them before its last hours.
        #expect(try SparseFirstPassTests.wholeAlerts(Array(events.dropLast())).count >= 2)
    }

    /// Read with the check or without it, a file of plain records gives the same alerts.
    @Test func aFileOfPlainRecordsGivesTheSameAlertsCheckedAsRead() async throws {
        let events = Self.events(after: 24)
        let path = try Self.page(events, bad: -1).path
        defer { RepositoryFiles.remove(path) }
        let lines = ReplayAlertWriterTests.Lines()
        let writer = ReplayAlertWriter { lines.add(AlertJSON.line($0)) }
        let error = try await Self.checkedReplay(path, writer: writer)
        #expect(error == nil, "\(String(describing: error))")
        #expect(lines.ids == (try SparseFirstPassTests.wholeAlerts(events)))
    }
}
