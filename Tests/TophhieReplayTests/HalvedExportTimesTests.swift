import Foundation
import Testing
import TophhieJSON
import TophhieSystem
import TophhieTestSupport
@testable import TophhieReplay

/// A large export's id-and-time pass read in two halves on two threads gives the index the one
/// pass gives; a split inside a record is not taken; a record that needs its check, in either
/// half, says so.
@Suite(.timeLimit(.minutes(2))) struct HalvedExportTimesTests {
    /// Rows of one person, a minute apart, oldest first; `nested` gives the middle row a list of
    /// objects with times of their own, as long as all the others together.
    static func rows(_ count: Int, nested: Bool = false, bad: Int? = nil) -> [String] {
        (0..<count).map { n in
            let time = GraphTimestamp.graphText(Date(timeIntervalSince1970: 1_714_557_600 + Double(n) * 60))
            var row = #"{"TimeGenerated":"\#(time)","Type":"SigninLogs","Id":"r\#(n)","CreatedDateTime":"\#(time)","UserId":"u1","ResultType":"0","Status":{"errorCode":0}"#
            if nested, n == count / 2 {
                row += #","AuthenticationDetails":["# + (0..<count * 3).map { _ in #"{"TimeGenerated":"\#(time)"}"# }.joined(separator: ", ") + "]"
            }
            if n == bad { row = #"{"TimeGenerated":"\#(time)","Type":"SigninLogs","Id":"","UserId":"u1""# }
            return row + "}"
        }
    }

    /// The index's records in the file's order: place, length, time.
    static func entries(_ index: ExportIndex) throws -> [String] {
        try index.entriesInFileOrder().map { "\($0.offset) \($0.length) \($0.time.timeIntervalSince1970)" }
    }

    /// The one pass's index of `path` (JSON rows or CSV), read for ids and times.
    static func onePass(_ path: String, csv: Bool) throws -> ExportIndex {
        let conversion = csv
            ? try StreamedExport.convertCSV(file: path, format: .csv, strict: false, scratch: NSTemporaryDirectory(), streaming: true, timesOnly: true)
            : try #require(try StreamedExport.convert(file: path, format: .logAnalytics, strict: false, scratch: NSTemporaryDirectory(), streaming: true, timesOnly: true))
        return try #require(conversion.index)
    }

    static func halvedJSON(_ path: String, layout: JSONElementSplitter.Layout, inPage: Bool) throws -> (taken: Bool, index: ExportIndex) {
        let file = try ReadableFile(path: path)
        let reading = ExportReading(format: .logAnalytics, shape: .json(columnNames: nil), members: ExportReading.timeMembers).withRowSlots(ExportReading.timePaths)
        let index = ExportIndex(file: file, reading: reading.reading(nil), scratchDirectory: nil)
        let taken = try HalvedExportTimes.json(file, size: try file.size(), layout: layout, inPage: inPage, reading: reading, chunkSize: 97, into: index, minimumSize: 0)
        return (taken, index)
    }

    @Test func jsonRowsAsAnArrayAPageAndLinesGiveTheOnePassIndex() throws {
        let rows = Self.rows(300)
        for (text, layout, inPage) in [("[" + rows.joined(separator: ",\n") + "]", JSONElementSplitter.Layout.document, false),
                                        (#"{"value":["# + rows.joined(separator: ", ") + #"],"@odata.nextLink":"https://x"}"#, .document, true),
                                        (rows.joined(separator: "\n") + "\n", .lines, false)] {
            let path = try RepositoryFiles.temporary("rows.json", text)
            defer { RepositoryFiles.remove(path) }
            let halved = try Self.halvedJSON(path, layout: layout, inPage: inPage)
            #expect(halved.taken, "\(layout) \(inPage)")
            #expect(try Self.entries(halved.index) == (try Self.entries(try Self.onePass(path, csv: false))))
            #expect(try Self.entries(halved.index).count == 300)
        }
    }

    /// The middle of the file inside a row's list of objects with times: the first half's
    /// splitter is not between two rows there, and the file is left to the one pass.
    @Test func aSplitInsideARowIsNotTaken() throws {
        let path = try RepositoryFiles.temporary("rows.json", "[" + Self.rows(40, nested: true).joined(separator: ",\n") + "]")
        defer { RepositoryFiles.remove(path) }
        #expect(try Self.halvedJSON(path, layout: .document, inPage: false).taken == false)
        #expect(try Self.entries(try Self.onePass(path, csv: false)).count == 40)
    }

    @Test func aRowWithoutAnIdInEitherHalfNeedsTheCheck() throws {
        for bad in [20, 280] {
            let path = try RepositoryFiles.temporary("rows.json", "[" + Self.rows(300, bad: bad).joined(separator: ",\n") + "]")
            defer { RepositoryFiles.remove(path) }
            #expect(throws: StreamedExport.NeedsCheck.self) { try Self.halvedJSON(path, layout: .document, inPage: false) }
        }
    }

    static func halvedCSV(_ path: String) throws -> (taken: Bool, index: ExportIndex) {
        let file = try ReadableFile(path: path)
        let header = try #require(StreamedExport.firstRecord(file, from: 3))
        let shape = ExportReading.Shape.csv(header: header, nonInteractive: false)
        let reading = ExportReading(format: .csv, shape: shape, members: ExportReading.timeMembers).withRowSlots(ExportReading.timePaths)
        let index = ExportIndex(file: file, reading: ExportReading(format: .csv, shape: shape, members: nil), scratchDirectory: nil)
        let taken = try HalvedExportTimes.csv(file, size: try file.size(), offset: 3, reading: reading, chunkSize: 97, into: index, minimumSize: 0)
        return (taken, index)
    }

    /// A CSV with a BOM, CRLF line ends and quoted fields across lines gives the one pass's
    /// index; its middle inside a quoted field whose lines read as rows is not taken.
    @Test func csvGivesTheOnePassIndexAndASplitInsideAQuotedFieldIsNotTaken() throws {
        let header = "Id,UserId,TimeGenerated [UTC],ResultType,AppDisplayName,Type\r\n"
        func csv(_ count: Int, longField: Bool) -> String {
            "\u{FEFF}" + header + (0..<count).map { n in
                let time = GraphTimestamp.graphText(Date(timeIntervalSince1970: 1_714_557_600 + Double(n) * 60))
                // A field of lines that read as rows, outside its quotes.
                let app = longField && n == count / 2 ? "\"" + String(repeating: "\r\nr9,u1,\(time),0,Office,SigninLogs", count: count * 4) + "\"" : "\"Office\r\n365\""
                return "r\(n),u1,\(time),0,\(app),SigninLogs\r\n"
            }.joined()
        }
        let plain = try RepositoryFiles.temporary("rows.csv", csv(300, longField: false))
        defer { RepositoryFiles.remove(plain) }
        let halved = try Self.halvedCSV(plain)
        #expect(halved.taken)
        #expect(try Self.entries(halved.index) == (try Self.entries(try Self.onePass(plain, csv: true))))
        #expect(try Self.entries(halved.index).count == 300)
        let long = try RepositoryFiles.temporary("rows.csv", csv(40, longField: true))
        defer { RepositoryFiles.remove(long) }
        #expect(try Self.halvedCSV(long).taken == false)
        #expect(try Self.entries(try Self.onePass(long, csv: true)).count == 40)
    }
}
