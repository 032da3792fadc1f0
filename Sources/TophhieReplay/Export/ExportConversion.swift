import Foundation
import TophhieAuth
import TophhieJSON
import TophhieSystem

/// An export that is not Graph's own shape, read as Graph's records: each record mapped
/// (`ExportRecord`), checked with the decoder the live poll uses, and written as JSON lines to a
/// scratch file (0600, in `$TMPDIR`) that the replay then reads as it reads any Graph file.
public struct ExportConversion: Sendable {
    /// The JSON lines to read instead of the export; removed by `remove()`.
    public var path: String
    public var format: ExportFormat
    /// Records written.
    public var records: Int
    /// One sentence per record skipped: where it is, and what the live poll's decoder says.
    public var skipped: [String]
    /// The same records as the live poll's decoder reports them.
    public var skippedSignIns: [MalformedSignIn] = []
    /// Records whose coordinates were out of range, kept without them (the place is unknown).
    public var coordinatesDropped: Int
    /// Where the records kept are in the export itself, when it was read for a streamed replay
    /// (`path` is then empty: nothing was written).
    public var index: ExportIndex? = nil

    /// Reads `file` as an export when it is one.
    /// - Parameters:
    ///   - format: the format to read it as (`--input`); nil tells it from the content.
    ///   - strict: the first record the live poll would skip stops the reading instead.
    ///   - scratch: the folder for the scratch file.
    ///   - streaming: an export of JSON records or CSV rows is only checked and indexed, not
    ///     written (`index`), for a replay that reads its records straight into the engine.
    ///   - checkingFirst: false leaves a file of Graph's own shape unread, and reads a streamed
    ///     Log Analytics export's records only for their ids and times (`ExportIndex.checked`),
    ///     for a replay that checks records as it reads them (`Replay.run`'s `checkingRecords`,
    ///     `Replay.run(export:…)` of an index not `checked`).
    ///     A record whose id or time does not read plainly has the export read again, checked.
    /// - Returns: nil when the file is Graph's own shape (read as it is, in the fast ways).
    /// - Throws: `ReplayFileError` naming the file, the record and the fault; for content that
    ///   is no format, what was tried.
    public static func convert(file: String, format forced: ExportFormat?, strict: Bool, scratch: String, streaming: Bool = false,
                               checkingFirst: Bool = true) throws -> ExportConversion? {
        // The format from the file's head alone: a Graph file too large to check is not read
        // here at all (reading it whole to look at 64 KB took a 118 MB page from 58 to 145 MB).
        let head: Data, size: Int
        do {
            let readable = try ReadableFile(path: file)
            size = try readable.size()
            head = Data(try readable.read(at: 0, count: min(size, 1 << 16)))
        } catch {
            throw ReplayFileError("cannot read '\(file)'")
        }
        guard let format = forced ?? ExportFormat.detect(head) else {
            throw ReplayFileError("\(file): not a sign-in file this reads; tried \(ExportFormat.described)")
        }
        // A Graph file of any size is checked through a window, in one pass, and copied only
        // when a record must be left out.
        if format == .graph { return checkingFirst ? try StreamedExport.checkGraph(file: file, strict: strict, scratch: scratch) : nil }
        // Read for ids and times only, when asked, until a record needs its check.
        func streamed(_ read: (_ timesOnly: Bool) throws -> ExportConversion?) throws -> ExportConversion? {
            if checkingFirst || strict { return try read(false) }
            do { return try read(true) } catch is StreamedExport.NeedsCheck { return try read(false) }
        }
        // JSON rows and records a record at a time, never the file whole: an array, JSON lines,
        // a `value` or `records` wrapper, the query API's `tables`. A shape the splitter does
        // not take (a lone record, a wrapper with other members, a table whose rows come before
        // its columns or past its first) is read whole below.
        if format == .azureMonitor || format == .logAnalytics,
           let streamed = try streamed({ try StreamedExport.convert(file: file, format: format, strict: strict, scratch: scratch, streaming: streaming, timesOnly: $0) }) {
            return streamed
        }
        // CSV a row at a time, never the table whole.
        if format == .csv || format == .adminCenterCSV {
            return try streamed { try StreamedExport.convertCSV(file: file, format: format, strict: strict, scratch: scratch, streaming: streaming, timesOnly: $0) }!
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw ReplayFileError("cannot read '\(file)'") }
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
        // Each record where it is, as the file holds it, mapped; or why its line does not read.
        let items: [(place: String, raw: JSONValue, record: JSONValue, damage: String?)]
        switch format {
        case .graph:
            preconditionFailure("Graph's own shape is checked through the window, above")
        case .azureMonitor:
            items = try jsonRecords(body, file: file, wrapper: "records").map { ($0.place, $0.record, ExportRecord.fromAzureMonitor($0.record), $0.damage) }
        case .logAnalytics:
            items = try jsonRecords(body, file: file, wrapper: "value").map { ($0.place, $0.record, ExportRecord.fromLogAnalytics($0.record), $0.damage) }
        case .csv, .adminCenterCSV:
            preconditionFailure("CSV is read a row at a time, above")
        }
        var conversion = ExportConversion(path: "", format: format, records: 0, skipped: [], coordinatesDropped: 0)
        var kept: [JSONValue] = []
        var found = FoundRecords()
        for (place, raw, given, damage) in items {
            if let damage {
                // A damaged line costs that line, as a damaged record costs a poll that record.
                try conversion.skip(MalformedSignIn.damaged(id: nil, problem: damage), at: place, file: file, strict: strict)
                found.add(.null, place: place, problem: damage)
                continue
            }
            guard let record = try conversion.check(given, raw: raw, at: place, file: file, strict: strict, found: &found) else { continue }
            kept.append(record)
        }
        if kept.isEmpty, found.count > 0 { throw ReplayFileError("\(file): \(found.sentence)") }
        try conversion.write(kept, scratch: scratch)
        return conversion
    }

    /// One record mapped to Graph's shape, as the live poll's decoder takes it: the record with
    /// impossible coordinates dropped, or nil when the decoder refuses it (skipped and named, and
    /// told to `found`).
    /// - Throws: with `strict`, the decoder's refusal.
    mutating func check(_ mapped: JSONValue, raw: JSONValue, at place: String, file: String, strict: Bool, found: inout FoundRecords) throws -> JSONValue? {
        var record = mapped
        do {
            _ = try TophhieSignInEvent(json: record)
        } catch let malformed as MalformedSignIn {
            try skip(malformed, at: place, file: file, strict: strict)
            found.add(raw, place: place, problem: malformed.problem)
            return nil
        }
        if Self.dropBadCoordinates(&record) { coordinatesDropped += 1 }
        return record
    }

    /// Records one the poll's decoder refuses: skipped and named, or with `strict` the error.
    mutating func skip(_ malformed: MalformedSignIn, at place: String, file: String, strict: Bool) throws {
        if strict { throw ReplayFileError("\(file) \(place): \(malformed.problem)") }
        skipped.append("\(file) \(place)\(malformed.id.map { " (\($0))" } ?? ""): skipped, as the agent skips it: \(malformed.problem)")
        skippedSignIns.append(malformed)
    }

    /// Writes the records kept as JSON lines to a scratch file (0600) and points `path` at it.
    mutating func write(_ kept: [JSONValue], scratch: String) throws {
        var lines = Data()
        for record in kept {
            lines.append(record.canonicalData())
            lines.append(UInt8(ascii: "\n"))
        }
        try writeScratch(scratch: scratch) { write in try write(lines) }
        records = kept.count
    }

    /// Writes a new scratch file (0600) from the pieces `produce` gives its `write`, and points
    /// `path` at it.
    mutating func writeScratch(scratch: String, producing produce: (_ write: (Data) throws -> Void) throws -> Void) throws {
        let path = (scratch as NSString).appendingPathComponent("tophhie-export-\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw ReplayFileError("cannot write the converted sign-ins to '\(path)'")
        }
        defer { try? handle.close() }
        do {
            try produce { piece in try handle.write(contentsOf: piece) }
        } catch let error as ReplayFileError {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw ReplayFileError("cannot write the converted sign-ins to '\(path)': \(error)")
        }
        self.path = path
    }

    /// The fields a record is checked by before the poll's decoder is asked: a record whose id is
    /// text, whose time reads, whose error code is a number and whose coordinates (if any) are a
    /// place's is one the decoder takes as it is, so only the others are read whole.
    static let quickPaths: [[String]] = [["id"], ["createdDateTime"], ["status", "errorCode"],
                                         ["location", "geoCoordinates", "latitude"], ["location", "geoCoordinates", "longitude"]]

    /// Whether a record's damage is in its text alone (invalid UTF-8, a control character, a lone
    /// surrogate, a number no double holds, nesting too deep): JSON's grammar still holds around
    /// it, so the records beside it are read, as a poll reads them.
    static func isContentDamage(_ error: JSONParseError) -> Bool {
        ["control character", "invalid UTF-8", "surrogate", "invalid \\u escape", "out of range", "nested deeper"].contains { error.message.contains($0) }
    }

    /// Whether every string of a record reads as the poll's decoder reads it, beyond what the
    /// quick check walks over: its bytes are UTF-8 and it has no surrogate escape (a paired
    /// one, an emoji, is read whole to be sure). A lone `\ud800` in `appDisplayName` passed the
    /// quick check and stopped the whole file later.
    static func textsRead(_ raw: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var ascii = true
        // A backslash before this place is escaped by the one before it, and starts nothing.
        var escapedUntil = 0
        /// Whether the backslash at `at` starts a surrogate escape (`\ud800` to `\udfff`).
        @inline(__always) func surrogate(at: Int) -> Bool {
            at + 2 < raw.count && raw[at + 1] == UInt8(ascii: "u") && raw[at + 2] | 0x20 == UInt8(ascii: "d")
        }
        // Eight bytes at a time, every backslash among them found by its exact mark: rows whose
        // dynamic columns are JSON text hold one every few bytes, and a word read again for
        // each was a twentieth of reading one.
        while index + 8 <= raw.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { ascii = false }
            let others = word ^ 0x5C5C_5C5C_5C5C_5C5C
            var backslashes = ~(((others & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | others) & 0x8080_8080_8080_8080
            while backslashes != 0 {
                let at = index + backslashes.trailingZeroBitCount / 8
                backslashes &= backslashes - 1
                guard at >= escapedUntil else { continue }
                if surrogate(at: at) { return false }
                escapedUntil = at + 2
            }
            index += 8
        }
        while index < raw.count {
            let byte = raw[index]
            if byte >= 0x80 { ascii = false }
            if byte == UInt8(ascii: "\\"), index >= escapedUntil {
                if surrogate(at: index) { return false }
                escapedUntil = index + 2
            }
            index += 1
        }
        return ascii || String(validating: raw.bindMemory(to: UInt8.self), as: UTF8.self) != nil
    }

    /// Whether the quick fields are ones the poll's decoder takes without a word.
    static func plainlyReads(_ slots: [JSONValue?]) -> Bool {
        guard case .string(let id)? = slots[0], !id.isEmpty, case .string(let time)? = slots[1], GraphTimestamp.parse(time) != nil,
              case .int? = slots[2] else { return false }
        return !TophhieSignInEvent.outOfRange(latitude: slots[3]?.doubleValue, longitude: slots[4]?.doubleValue)
    }

    /// The time of a mapped record that passes the quick check, as the decoder would read it;
    /// nil when it does not pass. Such a record the decoder takes, its coordinates as they are.
    static func plainTime(_ record: JSONValue) -> Date? {
        plainTime(slots: quickPaths.map { record.value(at: $0) })
    }

    /// The same, from the values at `quickPaths`.
    static func plainTime(slots: [JSONValue?]) -> Date? {
        guard plainlyReads(slots), case .string(let text)? = slots[1] else { return nil }
        return GraphTimestamp.parse(text)
    }

    /// The time of a record whose id and time were read (`ExportReading.timePaths`), when the
    /// id is text and the time reads as the quick check reads it; nil otherwise.
    static func plainTime(id: JSONValue?, time: JSONValue?) -> Date? {
        guard case .string(let id)? = id, !id.isEmpty, case .string(let text)? = time else { return nil }
        return GraphTimestamp.parse(text)
    }

    /// Removes the scratch file.
    public func remove() {
        if !path.isEmpty { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The records of a JSON export: the `wrapper` member's array, an array, or JSON lines, each
    /// with where it is ("item 3", "line 3").
    /// - Returns: each record, or for a line of JSON lines that does not read, `.null` and
    ///   where and why (skipped and named by the caller, as a poll skips a damaged record).
    /// - Throws: `ReplayFileError` for a document that is not JSON (not JSON lines: its first
    ///   line is not a whole value), at its line and column.
    static func jsonRecords(_ body: Data, file: String, wrapper: String) throws -> [(place: String, record: JSONValue, damage: String?)] {
        do {
            let whole = try JSONValue.parse(body)
            var list: JSONValue = whole
            if case .object = whole {
                if let wrapped = whole[wrapper] ?? whole["records"] ?? whole["value"] {
                    list = wrapped
                } else if case .array(let tables)? = whole["tables"], let first = tables.first {
                    return try apiTable(first, file: file).map { ($0.place, $0.record, nil) }
                } else {
                    return [("item 1", whole, nil)]
                }
            }
            guard case .array(let records) = list else { throw ReplayFileError("\(file): '\(wrapper)' is not a list of records") }
            return records.enumerated().map { ("item \($0.offset + 1)", $0.element, nil) }
        } catch let failure as JSONParseError {
            // A document whose records can still be told apart: a record whose text alone is
            // wrong costs that record; one broken in its grammar, the file.
            if let elements = documentElements(body, wrapper: wrapper) {
                return try elements.enumerated().map { index, found in
                    switch found.element {
                    case .value(let record):
                        return ("item \(index + 1)", record, nil)
                    case .damaged(_, let error):
                        var at = error
                        at.offset = found.range.lowerBound + error.offset
                        guard isContentDamage(error) else { throw ReplayFileError("\(file): the file is not valid JSON: \(ReplayInput.position(of: at, in: body))") }
                        return ("item \(index + 1)", .null, ReplayInput.position(of: at, in: body))
                    }
                }
            }
            // JSON lines when the first line is a whole value; otherwise one document, broken
            // where the parser stopped (an array with a trailing comma is not JSON lines).
            let firstLine = body.split(separator: UInt8(ascii: "\n")).first { $0.contains(where: { ![0x20, 0x0D, 0x09].contains($0) }) }
            guard let firstLine, (try? JSONValue.parse(Data(firstLine))) != nil else {
                throw ReplayFileError("\(file): the file is not valid JSON: \(ReplayInput.position(of: failure, in: body))")
            }
        }
        var records: [(String, JSONValue, String?)] = []
        for (index, line) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { ![0x20, 0x0D, 0x09].contains($0) }) else { continue }
            do {
                records.append(("line \(index + 1)", try JSONValue.parse(Data(line)), nil))
            } catch let failure as JSONParseError {
                records.append(("line \(index + 1)", .null, "column \(failure.offset + 1): \(failure.message)"))
            }
        }
        return records
    }

    /// The records of an array, or of a `wrapper` (`records`, `value`) member's array, found by
    /// their extents and read one by one; nil when the document's frame itself is broken.
    static func documentElements(_ body: Data, wrapper: String) -> [(range: Range<Int>, element: JSONPage.Element)]? {
        body.withUnsafeBytes { bytes in
            guard let first = bytes.firstIndex(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return nil }
            var ranges: [Range<Int>]?
            if bytes[first] == UInt8(ascii: "[") {
                ranges = try? JSONPage.arrayExtents(bytes)
            } else if bytes[first] == UInt8(ascii: "{") {
                for member in [wrapper, "records", "value"] where ranges == nil {
                    ranges = (try? JSONPage.extents(bytes, arrayMember: member))?.elements
                }
            }
            return ranges?.map { ($0, JSONPage.element(bytes, $0)) }
        }
    }

    /// The Log Analytics query API's answer: `{"tables":[{"columns":[{"name"}],"rows":[[…]]}]}`.
    static func apiTable(_ table: JSONValue, file: String) throws -> [(place: String, record: JSONValue)] {
        guard case .array(let columns)? = table["columns"], case .array(let rows)? = table["rows"] else {
            throw ReplayFileError("\(file): a Log Analytics table needs 'columns' and 'rows'")
        }
        let names = columns.map { $0["name"]?.stringValue ?? "" }
        return rows.enumerated().map { index, row in
            guard case .array(let values) = row else { return ("row \(index + 1)", row) }
            return ("row \(index + 1)", .object(Dictionary(zip(names, values), uniquingKeysWith: { first, _ in first })))
        }
    }

    /// Takes out coordinates no place has (a latitude past ±90, a longitude past ±180: an export
    /// that swapped them), so the place is unknown rather than wrong.
    /// - Returns: whether it did.
    static func dropBadCoordinates(_ record: inout JSONValue) -> Bool {
        guard TophhieSignInEvent.coordinatesOutOfRange(record), case .object(var members) = record,
              case .object(var location)? = members["location"] else { return false }
        location["geoCoordinates"] = .object([:])
        members["location"] = .object(location)
        record = .object(members)
        return true
    }
}
