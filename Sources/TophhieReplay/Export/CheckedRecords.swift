import Foundation
import TophhieAuth
import TophhieJSON

/// An export's records checked one at a time, whatever the format: each with the live poll's
/// decoder (skipped and named when it refuses one), its impossible coordinates dropped, and
/// either written on to a scratch file as a JSON line, a megabyte at a time, or only counted
/// (a streamed replay reads the records kept from the export itself: `ExportIndex`).
struct CheckedRecords {
    let file: String
    let strict: Bool
    private(set) var conversion: ExportConversion
    private(set) var found = FoundRecords()
    /// The scratch file; nil when the records are not written.
    private let handle: FileHandle?
    private var pending = Data()

    /// Opens a new scratch file (0600) in `scratch` for `file`'s records; with `scratch` nil,
    /// writes nothing.
    /// - Throws: `ReplayFileError` when it cannot be written.
    init(file: String, format: ExportFormat, strict: Bool, scratch: String?) throws {
        self.file = file
        self.strict = strict
        guard let scratch else {
            handle = nil
            conversion = ExportConversion(path: "", format: format, records: 0, skipped: [], coordinatesDropped: 0)
            return
        }
        let path = (scratch as NSString).appendingPathComponent("tophhie-export-\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw ReplayFileError("cannot write the converted sign-ins to '\(path)'")
        }
        self.handle = handle
        conversion = ExportConversion(path: path, format: format, records: 0, skipped: [], coordinatesDropped: 0)
    }

    /// What the live poll's decoder makes of one record mapped to Graph's shape, worked out
    /// apart from every other record (so on either of two threads): its time and JSON line
    /// (when written), or why it is skipped.
    enum Verdict {
        case kept(line: [UInt8]?, time: Date, coordinatesDropped: Bool)
        case refused(MalformedSignIn, raw: JSONValue)
    }

    /// Checks one record with the live poll's decoder, drops coordinates no place has, and
    /// writes its line when `writing`.
    /// - Parameter raw: the record as the file holds it (says what the file is when none is a sign-in).
    static func verdict(_ mapped: JSONValue, raw: @autoclosure () -> JSONValue, writing: Bool = true) throws -> Verdict {
        var record = mapped
        let time: Date
        var dropped = false
        // Nearly every record passes the page's quick check: a third of the lookups the decoder makes.
        if let plain = ExportConversion.plainTime(record) {
            time = plain
        } else {
            do {
                time = try TophhieSignInEvent(json: record).createdDateTime
            } catch let malformed as MalformedSignIn {
                return .refused(malformed, raw: raw())
            }
            dropped = ExportConversion.dropBadCoordinates(&record)
        }
        guard writing else { return .kept(line: nil, time: time, coordinatesDropped: dropped) }
        var line: [UInt8] = []
        line.reserveCapacity(4096)
        JSONWriter.write(record, into: &line)
        line.append(UInt8(ascii: "\n"))
        return .kept(line: line, time: time, coordinatesDropped: dropped)
    }

    /// Checks one record, mapped to Graph's shape, and writes it on, or skips and names it.
    /// - Parameters:
    ///   - raw: the record as the file holds it (says what the file is when none is a sign-in).
    ///   - place: where it is ("item 3", "line 3", "row 3").
    /// - Throws: with `strict`, the decoder's refusal; `ReplayFileError` when the write fails.
    mutating func take(_ mapped: JSONValue, raw: JSONValue, at place: String) throws {
        try take(Self.verdict(mapped, raw: raw), at: place)
    }

    /// Writes on (or counts) a record the decoder took, or skips and names one it refused, in
    /// the file's order.
    /// - Returns: the time of a record kept; nil for one skipped.
    /// - Throws: with `strict`, the decoder's refusal; `ReplayFileError` when the write fails.
    /// - Parameter place: worked out only for a record skipped (naming a line of JSON lines
    ///   counts the lines before it).
    @discardableResult
    mutating func take(_ verdict: Verdict, at place: @autoclosure () throws -> String) throws -> Date? {
        switch verdict {
        case .refused(let malformed, let raw):
            let place = try place()
            try conversion.skip(malformed, at: place, file: file, strict: strict)
            found.add(raw, place: place, problem: malformed.problem)
            return nil
        case .kept(let line, let time, let dropped):
            if dropped { conversion.coordinatesDropped += 1 }
            conversion.records += 1
            if let line {
                pending.append(contentsOf: line)
                if pending.count >= 1 << 20 { try flush() }
            }
            return time
        }
    }

    /// Skips a record that does not read (a damaged line, a record whose text alone is wrong).
    mutating func skipDamaged(_ problem: String, id: String? = nil, at place: String) throws {
        try conversion.skip(MalformedSignIn.damaged(id: id, problem: problem), at: place, file: file, strict: strict)
        found.add(.null, place: place, problem: problem)
    }

    /// Writes what is pending and closes the scratch file.
    /// - Returns: the conversion, pointing at the scratch file.
    /// - Throws: `ReplayFileError` for a file none of whose records is a sign-in, saying what it is.
    mutating func finish() throws -> ExportConversion {
        try flush()
        try? handle?.close()
        if conversion.records == 0, found.count > 0 { throw ReplayFileError("\(file): \(found.sentence)") }
        return conversion
    }

    /// Closes and removes the scratch file (the reading failed or gave way).
    func discard() {
        try? handle?.close()
        conversion.remove()
    }

    private mutating func flush() throws {
        guard !pending.isEmpty, let handle else { return }
        do { try handle.write(contentsOf: pending) } catch {
            throw ReplayFileError("cannot write the converted sign-ins to '\(conversion.path)': \(error)")
        }
        pending.removeAll(keepingCapacity: true)
    }
}
