import Foundation

/// RFC 4180 CSV: a header row naming the columns, then one record a row; fields in double
/// quotes may hold commas, line breaks and doubled quotes. A row with another number of fields
/// than the header is an error naming its line.
public struct CSVTable: Sendable {
    public var header: [String]
    /// Each row, with the line it starts on (from 1).
    public var rows: [(line: Int, fields: [String])]

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// - Throws: `Failure` for an unclosed quote, a quote inside an unquoted field, or a row
    ///   whose field count is not the header's.
    public init(_ text: String) throws {
        var reader = CSVRows()
        var records: [(Int, [String])] = []
        try Array(text.utf8).withUnsafeBytes { bytes in try reader.feed(bytes) { line, fields, _ in records.append((line, fields.strings)) } }
        try reader.finish { line, fields, _ in records.append((line, fields.strings)) }
        guard let first = records.first else { throw Failure(line: 1, message: "no header row") }
        header = first.1.map { $0.trimmingCharacters(in: .whitespaces) }
        rows = []
        for (at, values) in records.dropFirst() {
            guard values.count == header.count else {
                throw Failure(line: at, message: "\(values.count) fields where the header names \(header.count)")
            }
            rows.append((at, values))
        }
    }
}

/// CSV's records from its bytes, fed a piece at a time (a quoted field may run across pieces),
/// each handed on with the line it starts on: a file of any size is read in a bounded window.
/// The delimiters are ASCII, so a UTF-8 character is never cut by them.
struct CSVRows {
    /// The record's kept bytes so far, unquoted (`writtenCount` of them; the rest is room), and
    /// where each of its fields ended: written in place, not a list and a `String` a field.
    private var written: [UInt8] = []
    private var writtenCount = 0
    private var ends: [Int] = []
    /// Whether the field being read has any byte (written or not: `keeping`).
    private var fieldHasBytes = false
    private var quoted = false, wasQuoted = false
    /// A quote read inside a quoted field: closing it, or the first of a doubled one.
    private var quoteSeen = false
    private var line = 1, recordLine = 1
    /// Where the next byte fed is in the file, and where the record being read began.
    private var position: Int, recordStart: Int
    /// By column, whether its field is kept; nil for every one. The others are left empty: a
    /// second pass reads only the columns its rules need.
    var keeping: [Bool]?
    /// What `keeping` becomes once the header (the first record) is read, from its fields: a
    /// first pass keeps only the columns it checks.
    var keepingAfterHeader: (([String]) -> [Bool]?)?
    /// Reading one record's bytes (`fields(ofRecord:keeping:)`): its fields are handed on
    /// without keeping room for a next record's.
    private var oneRecord = false

    /// - Parameters:
    ///   - offset: where in the file the first byte fed is (after a BOM).
    ///   - keeping: by column, whether its field is kept.
    init(offset: Int = 0, keeping: [Bool]? = nil) {
        position = offset
        recordStart = offset
        self.keeping = keeping
    }

    /// Hands on each record with the line it starts on, its fields, and its bytes in the file
    /// (from its first byte to its line break: a streamed replay reads it again from there).
    /// - Throws: `CSVTable.Failure` for a quote inside an unquoted field, or what `record` throws.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, record: (_ line: Int, _ fields: CSVFields, _ bytes: Range<Int>) throws -> Void) throws {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), carriageReturn: UInt8 = 0x0D, lineFeed: UInt8 = 0x0A
        let base = position
        position += bytes.count
        var at = 0
        // A run of bytes that are no delimiter is taken whole: byte by byte, reading a field was
        // most of reading a CSV export.
        while at < bytes.count {
            let c = bytes[at]
            if quoteSeen {
                quoteSeen = false
                if c == quote {
                    if kept { write(UnsafeRawBufferPointer(rebasing: bytes[at...at])) }
                    fieldHasBytes = true
                    at += 1
                    continue
                }
                quoted = false
            }
            if quoted {
                var end = at
                while true {
                    end = Self.next(quote, lineFeed, in: bytes, from: end)
                    if end < bytes.count, bytes[end] == lineFeed {
                        line += 1
                        end += 1
                        continue
                    }
                    // A doubled quote (JSON text has one every few bytes) is taken with the run
                    // before it, not handed back to the loop above as a closing quote.
                    guard end + 1 < bytes.count, bytes[end + 1] == quote else { break }
                    if kept { write(UnsafeRawBufferPointer(rebasing: bytes[at...end])) }
                    fieldHasBytes = true
                    at = end + 2
                    end = at
                }
                // A field no one reads is walked over, not gathered.
                if end > at {
                    if kept { write(UnsafeRawBufferPointer(rebasing: bytes[at..<end])) }
                    fieldHasBytes = true
                }
                if end < bytes.count { quoteSeen = true }
                at = end + 1
                continue
            }
            switch c {
            case quote:
                guard !fieldHasBytes else { throw CSVTable.Failure(line: line, message: "a quote inside an unquoted field") }
                quoted = true
                wasQuoted = true
            case comma:
                ends.append(writtenCount)
                fieldHasBytes = false
            case carriageReturn:
                break
            case lineFeed:
                try endRecord(record, end: base + at)
                recordStart = base + at + 1
                line += 1
                recordLine = line
            default:
                let end = Self.next(comma, quote, lineFeed, carriageReturn, in: bytes, from: at + 1)
                // A whole field before its comma (most fields): made from the piece itself.
                if !fieldHasBytes, end < bytes.count, bytes[end] == comma {
                    if kept { write(UnsafeRawBufferPointer(rebasing: bytes[at..<end])) }
                    ends.append(writtenCount)
                    at = end + 1
                    continue
                }
                if kept { write(UnsafeRawBufferPointer(rebasing: bytes[at..<end])) }
                fieldHasBytes = true
                at = end
                continue
            }
            at += 1
        }
    }

    /// The last record, when the text does not end with a line break.
    /// - Throws: `CSVTable.Failure` for a quoted field not closed, or what `record` throws.
    mutating func finish(record: (_ line: Int, _ fields: CSVFields, _ bytes: Range<Int>) throws -> Void) throws {
        if quoteSeen { quoteSeen = false; quoted = false }
        if quoted { throw CSVTable.Failure(line: recordLine, message: "a quoted field is not closed") }
        // A last row of one quoted empty field (`""`) is a row, as it is before a line break.
        if fieldHasBytes || !ends.isEmpty || wasQuoted { try endRecord(record, end: position) }
    }

    /// The fields of one record's bytes (the first, when they hold more), as a reader fed the
    /// file reads them; one empty field for none. Each row of an export is read so in a second
    /// pass: its lists are made once, at their size (its bytes can only shrink unquoted), and
    /// handed on as they are.
    /// - Throws: `CSVTable.Failure` when the bytes are not CSV.
    static func fields(ofRecord bytes: UnsafeRawBufferPointer, keeping: [Bool]? = nil) throws -> CSVFields {
        var reader = CSVRows(keeping: keeping)
        reader.oneRecord = true
        reader.ends.reserveCapacity(keeping?.count ?? 16)
        reader.written = [UInt8](repeating: 0, count: bytes.count)
        var fields: CSVFields?
        try reader.feed(bytes) { _, found, _ in fields = fields ?? found }
        try reader.finish { _, found, _ in fields = fields ?? found }
        return fields ?? CSVFields(bytes: [], ends: [0])
    }

    /// The first byte from `start` that is one of `needles` (as many as four; repeat one to
    /// fill), or the end: eight bytes at a time while they hold none (byte by byte, a quoted
    /// field of JSON text was a tenth of reading a CSV export).
    @inline(__always) static func next(_ a: UInt8, _ b: UInt8, _ c: UInt8? = nil, _ d: UInt8? = nil, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let c = c ?? a, d = d ?? b
        @inline(__always) func has(_ word: UInt64, _ byte: UInt8) -> UInt64 {
            let x = word ^ (UInt64(byte) &* 0x0101_0101_0101_0101)
            return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
        }
        var at = start
        while at + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            if has(word, a) | has(word, b) | has(word, c) | has(word, d) != 0 { break }
            at += 8
        }
        while at < bytes.count {
            let byte = bytes[at]
            if byte == a || byte == b || byte == c || byte == d { return at }
            at += 1
        }
        return at
    }

    /// Whether the field being read is kept (`keeping`).
    private var kept: Bool {
        guard let keeping, ends.count < keeping.count else { return true }
        return keeping[ends.count]
    }

    /// Adds a piece of the field being read to the record's bytes.
    @inline(__always) private mutating func write(_ piece: UnsafeRawBufferPointer) {
        guard let source = piece.baseAddress else { return }
        let count = writtenCount
        if count + piece.count > written.count { written += repeatElement(0, count: max(written.count, count + piece.count - written.count, 256)) }
        written.withUnsafeMutableBytes { ($0.baseAddress! + count).copyMemory(from: source, byteCount: piece.count) }
        writtenCount += piece.count
    }

    private mutating func endRecord(_ record: (Int, CSVFields, Range<Int>) throws -> Void, end: Int) throws {
        ends.append(writtenCount)
        // An empty line, not a row whose one field is not kept.
        let blank = ends.count == 1 && !fieldHasBytes && !wasQuoted
        fieldHasBytes = false
        wasQuoted = false
        let done: CSVFields
        if oneRecord {
            // Handed on as they are: their room is not kept for a next record.
            written.removeLast(written.count - writtenCount)
            done = CSVFields(bytes: written, ends: ends)
            (written, ends) = ([], [])
        } else {
            done = CSVFields(bytes: blank ? [] : Array(written[..<writtenCount]), ends: ends)
            ends.removeAll(keepingCapacity: true)
        }
        writtenCount = 0
        guard !blank else { return }
        if let keepingAfterHeader {
            keeping = keepingAfterHeader(done.strings)
            self.keepingAfterHeader = nil
        }
        try record(recordLine, done, recordStart..<end)
    }
}
