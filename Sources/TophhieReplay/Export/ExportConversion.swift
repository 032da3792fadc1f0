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

    /// Reads `file` as an export when it is one.
    /// - Parameters:
    ///   - format: the format to read it as (`--input`); nil tells it from the content.
    ///   - strict: the first record the live poll would skip stops the reading instead.
    ///   - scratch: the folder for the scratch file.
    /// - Returns: nil when the file is Graph's own shape (read as it is, in the fast ways).
    /// - Throws: `ReplayFileError` naming the file, the record and the fault; for content that
    ///   is no format, what was tried.
    public static func convert(file: String, format forced: ExportFormat?, strict: Bool, scratch: String) throws -> ExportConversion? {
        guard let data = FileManager.default.contents(atPath: file) else { throw ReplayFileError("cannot read '\(file)'") }
        guard let format = forced ?? ExportFormat.detect(data.prefix(1 << 16)) else {
            throw ReplayFileError("\(file): not a sign-in file this reads; tried \(ExportFormat.described)")
        }
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
        let items: [(place: String, element: Result<JSONValue, MalformedSignIn>)]
        switch format {
        case .graph:
            // Graph's own shape goes the fast ways; up to `checkedGraphSize` it is first read
            // element by element with the poll's decoder, and rewritten only when a record is
            // one the agent would skip (a damaged one, one without a whole error code).
            guard data.count <= checkedGraphSize, let elements = graphElements(body) else { return nil }
            items = elements
        case .azureMonitor:
            items = try jsonRecords(body, file: file, wrapper: "records").map { ($0.place, .success(ExportRecord.fromAzureMonitor($0.record))) }
        case .logAnalytics:
            items = try jsonRecords(body, file: file, wrapper: "value").map { ($0.place, .success(ExportRecord.fromLogAnalytics($0.record))) }
        case .csv:
            let table: CSVTable
            do { table = try CSVTable(String(decoding: body, as: UTF8.self)) } catch let failure as CSVTable.Failure {
                throw ReplayFileError("\(file): not valid CSV: \(failure)")
            }
            items = table.rows.map { row in
                let object = JSONValue.object(Dictionary(zip(table.header, row.fields.map(JSONValue.string)), uniquingKeysWith: { first, _ in first }))
                return ("line \(row.line)", .success(ExportRecord.fromLogAnalytics(object)))
            }
        case .adminCenterCSV:
            let table: CSVTable
            do { table = try CSVTable(String(decoding: body, as: UTF8.self)) } catch let failure as CSVTable.Failure {
                throw ReplayFileError("\(file): not valid CSV: \(failure)")
            }
            // The download's name says its stream: NonInteractiveSignIns_<from>_<to>.csv.
            let nonInteractive = (file as NSString).lastPathComponent.lowercased().contains("noninteractive")
            items = table.rows.map { row in
                ("line \(row.line)", .success(ExportRecord.fromAdminCenter(Array(zip(table.header, row.fields)).map { (header: $0.0, text: $0.1) }, nonInteractive: nonInteractive)))
            }
        }
        var conversion = ExportConversion(path: "", format: format, records: 0, skipped: [], coordinatesDropped: 0)
        var kept: [JSONValue] = []
        for (place, element) in items {
            switch element {
            case .success(var record):
                do {
                    _ = try TophhieSignInEvent(json: record)
                } catch let malformed as MalformedSignIn {
                    try conversion.skip(malformed, at: place, file: file, strict: strict)
                    continue
                }
                if dropBadCoordinates(&record) { conversion.coordinatesDropped += 1 }
                kept.append(record)
            case .failure(let damaged):
                try conversion.skip(damaged, at: place, file: file, strict: strict)
            }
        }
        if format == .graph && conversion.skipped.isEmpty && conversion.coordinatesDropped == 0 { return nil }
        try conversion.write(kept, scratch: scratch)
        return conversion
    }

    /// Graph files larger than this go straight to the fast ways, unchecked record by record
    /// (a damaged record there stops the replay, with its line and column).
    public static let checkedGraphSize = 64 << 20

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
        let path = (scratch as NSString).appendingPathComponent("tophhie-export-\(UUID().uuidString).jsonl")
        guard FileManager.default.createFile(atPath: path, contents: lines, attributes: [.posixPermissions: 0o600]) else {
            throw ReplayFileError("cannot write the converted sign-ins to '\(path)'")
        }
        self.path = path
        records = kept.count
    }

    /// A Graph file's records one by one, as the poll reads a page: a page's `value`, an
    /// array's elements, or JSON lines; nil for a poll timeline or what none of them is. A
    /// record that is not JSON says where in the file it breaks.
    static func graphElements(_ body: Data) -> [(place: String, element: Result<JSONValue, MalformedSignIn>)]? {
        let first = body.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        if first == UInt8(ascii: "[") {
            // An array is a page's `value` without the page.
            let prefix = Data(#"{"value":"#.utf8)
            return pageElements(prefix + body + Data("}".utf8), shift: prefix.count, file: body)
        }
        guard first == UInt8(ascii: "{") else { return nil }
        if let page = pageElements(body, shift: 0, file: body) { return page }
        // JSON lines, when the first line is a whole object.
        let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let firstLine = lines.first(where: { $0.contains { ![0x20, 0x0D, 0x09].contains($0) } }),
              case .object(let members)? = try? JSONValue.parse(Data(firstLine)), members["polls"] == nil, members["value"] == nil else { return nil }
        var elements: [(String, Result<JSONValue, MalformedSignIn>)] = []
        for (index, line) in lines.enumerated() where line.contains(where: { ![0x20, 0x0D, 0x09].contains($0) }) {
            do {
                elements.append(("line \(index + 1)", .success(try JSONValue.parse(Data(line)))))
            } catch let failure as JSONParseError {
                elements.append(("line \(index + 1)", .failure(MalformedSignIn.damaged(id: nil, problem: "column \(failure.offset + 1): \(failure.message)"))))
            } catch {
                elements.append(("line \(index + 1)", .failure(MalformedSignIn.damaged(id: nil, problem: "\(error)"))))
            }
        }
        return elements
    }

    /// A page's elements, each named by its place ("item 3"); a damaged one by where in `file`
    /// it breaks (`shift` bytes of the page are not the file's).
    static func pageElements(_ page: Data, shift: Int, file: Data) -> [(place: String, element: Result<JSONValue, MalformedSignIn>)]? {
        page.withUnsafeBytes { bytes -> [(String, Result<JSONValue, MalformedSignIn>)]? in
            guard let found = try? JSONPage.extents(bytes, arrayMember: "value"), let ranges = found.elements else { return nil }
            return ranges.enumerated().map { index, range in
                switch JSONPage.element(bytes, range) {
                case .value(let record): return ("item \(index + 1)", .success(record))
                case .damaged(let id, let error):
                    var at = error
                    at.offset = range.lowerBound + error.offset - shift
                    return ("item \(index + 1)", .failure(MalformedSignIn.damaged(id: id, problem: ReplayInput.position(of: at, in: file))))
                }
            }
        }
    }

    /// Removes the scratch file.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The records of a JSON export: the `wrapper` member's array, an array, or JSON lines, each
    /// with where it is ("item 3", "line 3").
    static func jsonRecords(_ body: Data, file: String, wrapper: String) throws -> [(place: String, record: JSONValue)] {
        if let whole = try? JSONValue.parse(body) {
            var list: JSONValue = whole
            if case .object = whole {
                if let wrapped = whole[wrapper] ?? whole["records"] ?? whole["value"] {
                    list = wrapped
                } else if case .array(let tables)? = whole["tables"], let first = tables.first {
                    return try apiTable(first, file: file)
                } else {
                    return [("item 1", whole)]
                }
            }
            guard case .array(let records) = list else { throw ReplayFileError("\(file): '\(wrapper)' is not a list of records") }
            return records.enumerated().map { ("item \($0.offset + 1)", $0.element) }
        }
        var records: [(String, JSONValue)] = []
        for (index, line) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { ![0x20, 0x0D, 0x09].contains($0) }) else { continue }
            do {
                records.append(("line \(index + 1)", try JSONValue.parse(Data(line))))
            } catch let failure as JSONParseError {
                throw ReplayFileError("\(file): not valid JSON: line \(index + 1), column \(failure.offset + 1): \(failure.message)")
            }
        }
        return records
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
        guard case .object(var members) = record, case .object(var location)? = members["location"],
              case .object(let geo)? = location["geoCoordinates"] else { return false }
        let latitude = geo["latitude"]?.doubleValue, longitude = geo["longitude"]?.doubleValue
        let bad = (latitude.map { abs($0) > 90 } ?? false) || (longitude.map { abs($0) > 180 } ?? false)
        guard bad else { return false }
        location["geoCoordinates"] = .object([:])
        members["location"] = .object(location)
        record = .object(members)
        return true
    }
}
