import Foundation
import Testing
@testable import TophhieJSON

/// The streamed replay's first pass: records found in chunks must be exactly the file's records,
/// at their offsets, whatever the chunk size; anything else must stop it with the right reason.
@Suite struct JSONElementSplitterTests {
    /// Splits `text` fed `chunk` bytes at a time.
    func split(_ text: String, _ layout: JSONElementSplitter.Layout, chunk: Int) throws -> [(Int, String)] {
        let bytes = Array(text.utf8)
        var splitter = JSONElementSplitter(layout: layout)
        var found: [(Int, String)] = []
        let record: (Int, UnsafeRawBufferPointer) throws -> Void = { found.append(($0, String(decoding: $1, as: UTF8.self))) }
        var start = 0
        while start < bytes.count {
            let piece = Array(bytes[start..<min(start + chunk, bytes.count)])
            try piece.withUnsafeBytes { try splitter.feed($0, record: record) }
            start += chunk
        }
        try splitter.finish(record: record)
        return found
    }

    /// The query API's answer: the first table's columns before its rows, each row a record
    /// at its offset in any chunking; a later table's members are checked and dropped.
    @Test(arguments: [1, 2, 5, 64, 4096])
    func aQueryAnswerGivesItsFirstTablesRowsAfterItsColumns(_ chunk: Int) throws {
        let text = #"{"tables": [{"name": "PrimaryResult", "columns": [{"name": "Id"}, {"name": "S"}],"# + "\n" +
            #" "rows": [["a", "x]\"["], ["b", null]]}, {"name": "Other", "columns": [{"name": "Z"}], "rows": [["z"]]}]}"# + "\n"
        let bytes = Array(text.utf8)
        var splitter = JSONElementSplitter(layout: .table)
        var seen: [String] = []
        var start = 0
        while start < bytes.count {
            let piece = Array(bytes[start..<min(start + chunk, bytes.count)])
            try piece.withUnsafeBytes { chunk in
                try splitter.feed(chunk, columns: { _, columns in seen.append("columns " + String(decoding: columns, as: UTF8.self)) },
                                  record: { offset, row in
                                      let row = String(decoding: row, as: UTF8.self)
                                      #expect(Array(bytes[offset..<(offset + row.utf8.count)]) == Array(row.utf8))
                                      seen.append(row)
                                  })
            }
            start += chunk
        }
        try splitter.finish(record: { _, _ in })
        #expect(seen == [#"columns [{"name": "Id"}, {"name": "S"}]"#, #"["a", "x]\"["]"#, #"["b", null]"#])
    }

    /// An answer with anything but `tables`, or a row that is not an array, is not read here.
    @Test(arguments: [
        (#"{"tables": [], "other": 1}"#, JSONElementSplitter.Unsupported.notAPage),
        (#"[{"tables": []}]"#, .notAPage),
        (#"{"tables": [{"rows": [{"Id": "a"}]}]}"#, .malformed(offset: 22)),
        (#"{"tables": [{"rows": [["a"],]}]}"#, .malformed(offset: 28)),
    ])
    func whatIsNotAQueryAnswerStopsIt(_ text: String, _ reason: JSONElementSplitter.Unsupported) {
        var splitter = JSONElementSplitter(layout: .table)
        #expect(throws: reason) {
            try Array(text.utf8).withUnsafeBytes { try splitter.feed($0, columns: nil, record: { _, _ in }) }
            try splitter.finish(record: { _, _ in })
        }
    }

    static let page = """
    \u{FEFF}{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#auditLogs/signIns", "@odata.count": 2,
      "value": [ {"id": "a", "s": "x}]\\"{[", "n": {"deep": [1, {"k": "v"}]}},
                 {"id": "b"} ],
      "@odata.nextLink": "https://graph.microsoft.com/v1.0/auditLogs/signIns?$skiptoken=x"}

    """

    @Test(arguments: [1, 2, 3, 7, 64, 4096])
    func aGraphPageGivesItsRecordsAtTheirOffsetsInAnyChunking(_ chunk: Int) throws {
        let found = try split(JSONElementSplitterTests.page, .document, chunk: chunk)
        #expect(found.map(\.1) == [#"{"id": "a", "s": "x}]\"{[", "n": {"deep": [1, {"k": "v"}]}}"#, #"{"id": "b"}"#])
        let bytes = Array(JSONElementSplitterTests.page.utf8)
        for (offset, text) in found {
            #expect(Array(bytes[offset..<(offset + text.utf8.count)]) == Array(text.utf8))
        }
    }

    /// Long strings full of quotes, backslashes and brackets, cut at every place by the chunks:
    /// the word-at-a-time string skipping must find the same records.
    @Test(arguments: [1, 2, 3, 5, 8, 9, 13, 17, 64])
    func recordsWithLongEscapedStringsSurviveAnyChunking(_ chunk: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", #"\\"#, #"\""#, "}", "]", "{", "[", "é", #"\\\\"#, #"\u00e9"#, " ", "01234567"]
        var records: [String] = []
        for n in 0..<20 {
            let text = (0..<Int.random(in: 0...30, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            records.append(#"{"id":"r\#(n)","s":"\#(text)","n":[{"t":"\#(text)"}]}"#)
        }
        let page = #"{"value":["# + records.joined(separator: ",") + #"],"@odata.nextLink":"x\\y"}"#
        let found = try split(page, .document, chunk: chunk)
        #expect(found.map(\.1) == records)
        #expect(records.allSatisfy { (try? JSONValue.parse(Data($0.utf8))) != nil }, "the records are JSON")
    }

    @Test(arguments: [1, 5, 4096])
    func anArrayAndJSONLinesGiveTheirRecords(_ chunk: Int) throws {
        #expect(try split(#" [ {"id":1} , {"id":[2]} ] "#, .document, chunk: chunk).map(\.1) == [#"{"id":1}"#, #"{"id":[2]}"#])
        #expect(try split("[]", .document, chunk: chunk).isEmpty)
        #expect(try split(#"{"value": []}"#, .document, chunk: chunk).isEmpty)
        let lines = "{\"id\":1}\n\n  \n{\"id\":2}\r\n{\"id\":3}"
        #expect(try split(lines, .lines, chunk: chunk).map(\.1) == [#"{"id":1}"#, "{\"id\":2}\r", #"{"id":3}"#])
        #expect(try split(lines, .lines, chunk: chunk).map(\.0) == [0, 13, 23])
    }

    /// Lines of every length (across a word's eight bytes and a chunk's end), blank ones, ones
    /// of spaces and ones ending in a carriage return: the same lines at their offsets in pieces
    /// of every size, whole lines in a piece handed over where they lie.
    @Test func linesAreTheSameInPiecesOfEverySize() throws {
        var text = ""
        for length in 0..<40 {
            text += String(repeating: length % 3 == 0 ? " " : "x", count: length) + (length % 5 == 0 ? "\r\n" : "\n")
            if length % 7 == 0 { text += "\n" }
        }
        text += "{\"last\":true}"
        let whole = try split(text, .lines, chunk: 1)
        #expect(whole.count == 27)
        for chunk in [2, 3, 7, 8, 9, 16, 33, 64, 1 << 16] {
            let found = try split(text, .lines, chunk: chunk)
            #expect(found.map(\.0) == whole.map(\.0), "chunk \(chunk)")
            #expect(found.map(\.1) == whole.map(\.1), "chunk \(chunk)")
        }
    }

    /// A byte order mark before the first of JSON lines is not part of that line (it made the
    /// first sign-in of a large Graph file of JSON lines, or of a Sentinel export, damaged).
    @Test(arguments: [1, 2, 4096])
    func aByteOrderMarkIsNoPartOfTheFirstLine(_ chunk: Int) throws {
        let lines = "\u{FEFF}{\"id\":1}\n{\"id\":2}\n"
        #expect(try split(lines, .lines, chunk: chunk).map(\.1) == [#"{"id":1}"#, #"{"id":2}"#])
        #expect(try split(lines, .lines, chunk: chunk).map(\.0) == [3, 12])
        #expect(try split("{\"id\":\"\u{FEFF}\"}\n", .lines, chunk: chunk).map(\.1) == ["{\"id\":\"\u{FEFF}\"}"], "a mark inside a line is its own")
    }

    @Test(arguments: [
        (#"{"id": "a", "createdDateTime": "2024-05-01T10:00:00Z"}"#, JSONElementSplitter.Unsupported.notAPage),
        (#"{"polls": [{"at": "2024-05-01T10:00:00Z", "events": []}]}"#, .notAPage),
        (#"{"value": [], "value": []}"#, .notAPage),
        (#"{"val\u0075e": []}"#, .notAPage),
        (#"{"value": {"id": 1}}"#, .notAPage),
        (#"[{"id":1} {"id":2}]"#, .malformed(offset: 10)),
        (#"[{"id":1},]"#, .malformed(offset: 10)),
        (#"[{"id":1}] x"#, .malformed(offset: 11)),
        (#"[1, 2]"#, .malformed(offset: 1)),
        (#"{"@odata.count": 2 3, "value": []}"#, .malformed(offset: 19)),
        (#"{"@odata.context": tru, "value": []}"#, .malformed(offset: 19)),
        (#"x"#, .malformed(offset: 0)),
    ])
    func whatIsNotAPageOrBrokenStopsItWithTheReason(_ text: String, _ reason: JSONElementSplitter.Unsupported) throws {
        for chunk in [1, 4096] {
            #expect(throws: reason) { _ = try split(text, .document, chunk: chunk) }
        }
    }

    /// A poll timeline's polls are its records; anything but a lone `polls` array is not one.
    @Test(arguments: [1, 3, 4096])
    func aTimelineGivesItsPollsAndNothingElseIsOne(_ chunk: Int) throws {
        let timeline = #" {"polls": [ {"at":"2024-05-01T10:00:00Z","events":[{"id":"a","s":"]}"}]} , {"at":"x","events":[]} ] } "#
        let found = try split(timeline, .timeline, chunk: chunk)
        #expect(found.map(\.1) == [#"{"at":"2024-05-01T10:00:00Z","events":[{"id":"a","s":"]}"}]}"#, #"{"at":"x","events":[]}"#])
        #expect(found.map(\.0) == [13, 76])
        #expect(try split(#"{"polls":[]}"#, .timeline, chunk: chunk).isEmpty)
        for text in [#"{"value":[]}"#, #"[{"at":"x"}]"#, #"{"polls":[],"@odata.count":0}"#, #"{"polls":[],"polls":[]}"#, #"{"polls":{}}"#] {
            #expect(throws: JSONElementSplitter.Unsupported.notAPage, "\(text)") { _ = try split(text, .timeline, chunk: chunk) }
        }
        #expect(throws: JSONElementSplitter.Unsupported.malformed(offset: 17)) { _ = try split(#"{"polls":[{"a":1}"#, .timeline, chunk: chunk) }
    }

    /// A record longer than the splitter holds stops it, whatever the chunking, having held no
    /// more than that: a whole poll timeline on one line is not read as one JSON line.
    @Test(arguments: [1, 3, 4096])
    func aRecordLongerThanTheLimitStopsIt(_ chunk: Int) throws {
        func split(_ text: String, _ layout: JSONElementSplitter.Layout, limit: Int) throws -> [String] {
            let bytes = Array(text.utf8)
            var splitter = JSONElementSplitter(layout: layout, maxRecordLength: limit)
            var found: [String] = []
            let record: (Int, UnsafeRawBufferPointer) throws -> Void = { found.append(String(decoding: $1, as: UTF8.self)) }
            var start = 0
            while start < bytes.count {
                try Array(bytes[start..<min(start + chunk, bytes.count)]).withUnsafeBytes { try splitter.feed($0, record: record) }
                start += chunk
            }
            try splitter.finish(record: record)
            return found
        }
        // Ten bytes each: held at a limit of ten, refused at nine, at the record's offset.
        #expect(try split(#"[{"id":"a"},{"id":"b"}]"#, .document, limit: 10) == [#"{"id":"a"}"#, #"{"id":"b"}"#])
        #expect(throws: JSONElementSplitter.Unsupported.recordTooLong(offset: 1)) { _ = try split(#"[{"id":"a"},{"id":"b"}]"#, .document, limit: 9) }
        #expect(try split("{\"id\":\"a\"}\n{\"id\":\"b\"}", .lines, limit: 10).count == 2)
        #expect(throws: JSONElementSplitter.Unsupported.recordTooLong(offset: 11)) {
            _ = try split("{\"id\":\"a\"}\n{\"id\":\"bb\"}", .lines, limit: 10)
        }
        let timelineOnOneLine = #"{"polls":[{"at":"2024-05-01T10:00:00Z","events":[]}]}"#
        #expect(throws: JSONElementSplitter.Unsupported.recordTooLong(offset: 0)) { _ = try split(timelineOnOneLine, .lines, limit: 16) }
    }

    /// A splitter taken up at a record's first byte gives what the whole file's splitter gives
    /// from there, and one fed up to that byte knows it stopped between records; up to a byte
    /// inside a record (here a string holding `}, {`), it knows it did not.
    @Test(arguments: [1, 3, 4096])
    func aSplitterTakenUpAtARecordGivesTheRestAndTheFirstHalfKnowsItStoppedBetweenRecords(_ chunk: Int) throws {
        let page = #"{"@odata.context": "c", "value": [{"id": "a"}, {"id": "b", "s": "x}, {y"},{"id": "c"}, {"id": "d"}], "@odata.nextLink": "n"}"#
        let array = #"[{"id": "a"}, {"id": "b", "s": "x}, {y"},{"id": "c"}, {"id": "d"}]"#
        let lines = "{\"id\": \"a\"}\n\n{\"id\": \"b\", \"s\": \"x}, {y\"}\n{\"id\": \"c\"}\n{\"id\": \"d\"}\n"
        for (text, layout, inPage) in [(page, JSONElementSplitter.Layout.document, true), (array, .document, false), (lines, .lines, false)] {
            let whole = try split(text, layout, chunk: chunk)
            let bytes = Array(text.utf8)
            for (offset, _) in whole.dropFirst() {
                var resumed = JSONElementSplitter(resumingAt: offset, layout: layout, inPage: inPage)
                var found: [(Int, String)] = []
                let record: (Int, UnsafeRawBufferPointer) throws -> Void = { found.append(($0, String(decoding: $1, as: UTF8.self))) }
                var start = offset
                while start < bytes.count {
                    try Array(bytes[start..<min(start + chunk, bytes.count)]).withUnsafeBytes { try resumed.feed($0, record: record) }
                    start += chunk
                }
                try resumed.finish(record: record)
                #expect(found.map(\.0) == whole.filter { $0.0 >= offset }.map(\.0), "\(layout) from \(offset)")
                #expect(found.map(\.1) == whole.filter { $0.0 >= offset }.map(\.1), "\(layout) from \(offset)")
                var first = JSONElementSplitter(layout: layout)
                try Array(bytes[0..<offset]).withUnsafeBytes { try first.feed($0) { _, _ in } }
                #expect(first.isBetweenRecords == (true, inPage), "\(layout) up to \(offset)")
            }
            // Inside the string that holds `}, {`: the brace there is not a record's.
            let inside = Array(text.utf8).firstIndex(of: UInt8(ascii: "y"))! - 1
            var first = JSONElementSplitter(layout: layout)
            try Array(bytes[0..<inside]).withUnsafeBytes { try first.feed($0) { _, _ in } }
            #expect(!first.isBetweenRecords.between, "\(layout) up to \(inside)")
        }
    }

    @Test func aFileThatStopsInsideARecordIsMalformedAtItsEnd() throws {
        #expect(throws: JSONElementSplitter.Unsupported.malformed(offset: 9)) { _ = try split(#"[{"id":1}"#, .document, chunk: 3) }
        #expect(throws: JSONElementSplitter.Unsupported.malformed(offset: 7)) { _ = try split(#"[{"id":"#, .document, chunk: 3) }
        #expect(throws: JSONElementSplitter.Unsupported.malformed(offset: 0)) { _ = try split("", .document, chunk: 3) }
    }
}
