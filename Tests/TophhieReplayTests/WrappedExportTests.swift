import Foundation
import Testing
import TophhieJSON
import TophhieRules
import TophhieSimulator
import TophhieSystem
import TophhieTestSupport
@testable import TophhieReplay

/// Azure Monitor's `{"records":[…]}` and the Log Analytics query API's `{"tables":[…]}` are read
/// a record at a time through the window, as JSON rows are: every record checked (a damaged
/// one in the middle skipped and named with its line and column), and the alerts those of the
/// Graph page holding the same sign-ins.
@Suite(.timeLimit(.minutes(2))) struct WrappedExportTests {
    /// A day of London sign-ins every hour, a burst from Lagos: the pack fires on it.
    static func signIns() -> [JSONValue] {
        var factory = ReplayProjectionTests.factory(seed: 46)
        return ReplayProjectionTests.history(&factory, everyHours: 1)
    }

    /// The Graph record as an Azure Monitor diagnostic record, on one line.
    static func monitorRecord(_ signIn: JSONValue) -> String {
        let record = JSONValue.object(["time": signIn["createdDateTime"] ?? .null, "category": .string("SignInLogs"),
                                       "operationName": .string("Sign-in activity"), "properties": signIn])
        return String(decoding: record.canonicalData(), as: UTF8.self)
    }

    /// The Log Analytics column a Graph member is in (`location` in `LocationDetails`).
    static func column(_ member: String) -> String {
        if let renamed = ExportColumns.renamed.first(where: { $0.value == member })?.key { return renamed }
        return member.prefix(1).uppercased() + member.dropFirst()
    }

    /// The replayed alerts of `path`, each as its id and summary.
    static func alerts(_ path: String) async throws -> [String] {
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let seen = AlertLines()
        _ = try await Replay.run(path, rules: rules, settings: EngineSettings(), engine: .fast, write: { seen.add("\($0.id) \($0.summary)") })
        return seen.lines
    }

    final class AlertLines: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [String] = []
        func add(_ line: String) { lock.lock(); kept.append(line); lock.unlock() }
        var lines: [String] { lock.lock(); defer { lock.unlock() }; return kept }
    }

    /// A record whose text alone is wrong (a lone surrogate in `appDisplayName`), in the middle.
    static let damagedAt = 200

    @Test func azureMonitorsRecordsWrapperIsReadARecordAtATime() async throws {
        let signIns = Self.signIns()
        var lines = signIns.map(Self.monitorRecord)
        let damaged = #"{"time":"2026-09-01T00:00:00Z","category":"SignInLogs","properties":{"id":"broken","createdDateTime":"2026-09-01T00:00:00Z","appDisplayName":"\ud800","status":{"errorCode":0}}}"#
        lines.insert(damaged, at: Self.damagedAt)
        let text = "{\n  \"records\": [\n" + lines.map { "    " + $0 }.joined(separator: ",\n") + "\n  ]\n}\n"
        let path = try RepositoryFiles.temporary("PT1H.json", text)
        defer { RepositoryFiles.remove(path) }
        let page = try RepositoryFiles.temporary("page.json", String(decoding: JSONValue.object(["value": .array(signIns)]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(page) }

        // The parser names the byte after the lone surrogate.
        let line = Self.damagedAt + 3
        let column = 4 + damaged.distance(from: damaged.startIndex, to: try #require(damaged.range(of: #"\ud800"#)).upperBound) + 1
        // The readers block: on the blocking pool, not the tests' cooperative threads.
        let streamed = try await BlockingWork.shared.run {
            try [4096, 1 << 20].map { try StreamedExport.convert(file: path, format: .azureMonitor, strict: false, scratch: NSTemporaryDirectory(), chunkSize: $0) }
        }
        for found in streamed {
            let conversion = try #require(found)
            defer { conversion.remove() }
            #expect(conversion.records == signIns.count)
            #expect(conversion.skipped == ["\(path) item \(Self.damagedAt + 1): skipped, as the agent skips it: the event is not valid JSON (line \(line), column \(column): unpaired surrogate in a \\u escape)"])
        }
        let conversion = try #require(try await BlockingWork.shared.run { try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory()) })
        defer { conversion.remove() }
        #expect(conversion.format == .azureMonitor && conversion.records == signIns.count)
        let expected = try await Self.alerts(page)
        #expect(expected.count >= 3, "\(expected)")
        #expect(try await Self.alerts(conversion.path) == expected)
        // Replayed from itself: the same skip, the same alerts.
        let fromItself = try #require(try await BlockingWork.shared.run { try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory(), streaming: true) })
        #expect(fromItself.skipped == conversion.skipped && fromItself.path.isEmpty)
        #expect(try await StreamedExportReplayTests.streamedAlerts(try #require(fromItself.index)) == expected)
    }

    @Test func theQueryAPIsTablesAreReadARowAtATime() async throws {
        let signIns = Self.signIns()
        var members: [String] = []
        for case .object(let record) in signIns { for name in record.keys.sorted() where !members.contains(name) { members.append(name) } }
        let columns = JSONValue.array(members.map { .object(["name": .string(Self.column($0)), "type": .string("string")]) })
        var rows = signIns.map { signIn in String(decoding: JSONValue.array(members.map { signIn[$0] ?? .null }).canonicalData(), as: UTF8.self) }
        let damaged = "[" + members.map { $0 == "appDisplayName" ? #""\ud800""# : "null" }.joined(separator: ",") + "]"
        rows.insert(damaged, at: Self.damagedAt)
        let text = "{\"tables\":[{\"name\":\"PrimaryResult\",\n\"columns\":" + String(decoding: columns.canonicalData(), as: UTF8.self)
            + ",\n\"rows\":[\n" + rows.joined(separator: ",\n") + "\n]}]}\n"
        let path = try RepositoryFiles.temporary("query.json", text)
        defer { RepositoryFiles.remove(path) }
        let page = try RepositoryFiles.temporary("page.json", String(decoding: JSONValue.object(["value": .array(signIns)]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(page) }

        let line = Self.damagedAt + 4
        let column = damaged.distance(from: damaged.startIndex, to: try #require(damaged.range(of: #"\ud800"#)).upperBound) + 1
        let streamed = try await BlockingWork.shared.run {
            try [4096, 1 << 20].map { try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), chunkSize: $0) }
        }
        for found in streamed {
            let conversion = try #require(found)
            defer { conversion.remove() }
            #expect(conversion.records == signIns.count)
            #expect(conversion.skipped == ["\(path) row \(Self.damagedAt + 1): skipped, as the agent skips it: the event is not valid JSON (line \(line), column \(column): unpaired surrogate in a \\u escape)"])
        }
        let conversion = try #require(try await BlockingWork.shared.run { try ExportConversion.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory()) })
        defer { conversion.remove() }
        #expect(conversion.records == signIns.count)
        let expected = try await Self.alerts(page)
        #expect(expected.count >= 3, "\(expected)")
        #expect(try await Self.alerts(conversion.path) == expected)
        // Replayed from itself: the same skip, the same alerts.
        let fromItself = try #require(try await BlockingWork.shared.run { try ExportConversion.convert(file: path, format: nil, strict: false, scratch: NSTemporaryDirectory(), streaming: true) })
        #expect(fromItself.skipped == conversion.skipped && fromItself.path.isEmpty)
        #expect(try await StreamedExportReplayTests.streamedAlerts(try #require(fromItself.index)) == expected)
    }

    /// Only the first table's rows are records, as the whole-file reader takes them; a table
    /// whose rows come before its columns is read whole, as before.
    @Test func onlyTheFirstTablesRowsAreRead() throws {
        let first = #"{"name":"PrimaryResult","columns":[{"name":"Id"},{"name":"TimeGenerated"},{"name":"ResultType"}],"rows":[["r1","2024-05-01T10:00:00Z","0"],["r2","2024-05-01T10:01:00Z","0"]]}"#
        let second = #"{"name":"Other","columns":[{"name":"Id"}],"rows":[["x1"]]}"#
        let path = try RepositoryFiles.temporary("tables.json", #"{"tables":["# + first + "," + second + "]}")
        defer { RepositoryFiles.remove(path) }
        let conversion = try #require(try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), chunkSize: 5))
        defer { conversion.remove() }
        #expect(try ExportFormatTests.records(conversion).map { $0["id"]?.stringValue ?? "" } == ["r1", "r2"])
        let late = try RepositoryFiles.temporary("late.json", #"{"tables":[{"rows":[["r1","2024-05-01T10:00:00Z","0"]],"columns":[{"name":"Id"},{"name":"TimeGenerated"},{"name":"ResultType"}]}]}"#)
        defer { RepositoryFiles.remove(late) }
        #expect(try StreamedExport.convert(file: late, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory()) == nil)
    }
}
