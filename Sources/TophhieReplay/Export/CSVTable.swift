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

    /// Whether the bytes fed so far end between two records (after a line break), with
    /// nothing of the next read.
    var isBetweenRecords: Bool {
        !quoted && !quoteSeen && !fieldHasBytes && !wasQuoted && ends.isEmpty && writtenCount == 0
    }

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
        guard !bytes.isEmpty else { return }
        // Room for all this piece can add, so its fields are written through a pointer: each
        // piece appended to a list cost a hundred instructions, and JSON text has one every few
        // bytes (between its doubled quotes).
        var written = self.written
        self.written = []
        defer { self.written = written }
        if written.count < writtenCount + bytes.count { written += repeatElement(0, count: max(writtenCount + bytes.count, 2 * written.count) - written.count) }
        try written.withUnsafeMutableBufferPointer { out in try feed(bytes, into: out, record: record) }
    }

    private mutating func feed(_ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<UInt8>,
                               record: (_ line: Int, _ fields: CSVFields, _ bytes: Range<Int>) throws -> Void) throws {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), carriageReturn: UInt8 = 0x0D, lineFeed: UInt8 = 0x0A
        let base = position
        position += bytes.count
        let out = buffer.baseAddress!
        @inline(__always) func write(_ piece: Range<Int>) {
            (out + writtenCount).initialize(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + piece.lowerBound, count: piece.count)
            writtenCount += piece.count
        }
        var at = 0
        // A run of bytes that are no delimiter is taken whole: byte by byte, reading a field was
        // most of reading a CSV export.
        while at < bytes.count {
            let c = bytes[at]
            if quoteSeen {
                quoteSeen = false
                if c == quote {
                    if kept { write(at..<at + 1) }
                    fieldHasBytes = true
                    at += 1
                    continue
                }
                quoted = false
            }
            if quoted {
                // To the closing quote, a doubled one written as one, and a piece's end handing
                // a quote to the loop above. Eight bytes at a time are written whole up to the
                // first quote or line feed among them: JSON text has a quote every few bytes, so
                // the bytes before one are written as a word (the room is there: each byte
                // written is one read, and eight more are read) and the quote byte by byte.
                let keep = kept, from = at
                var length = writtenCount
                let source = bytes.baseAddress!
                while at < bytes.count {
                    if at + 8 <= bytes.count {
                        let word = source.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                        let quotes = word ^ 0x2222_2222_2222_2222, feeds = word ^ 0x0A0A_0A0A_0A0A_0A0A
                        // The lowest byte that is a quote or a line feed (the bytes above it may
                        // be marked wrongly, and are not read).
                        let marks = ((quotes &- 0x0101_0101_0101_0101) & ~quotes | (feeds &- 0x0101_0101_0101_0101) & ~feeds) & 0x8080_8080_8080_8080
                        let clean = marks == 0 ? 8 : marks.trailingZeroBitCount >> 3
                        if keep {
                            UnsafeMutableRawPointer(out + length).storeBytes(of: word, as: UInt64.self)
                            length += clean
                        }
                        at += clean
                        // The quote or line feed that stopped the word is read below, in the
                        // same turn: read on the next, it cost a word's reading again, and JSON
                        // text stops a word every few bytes.
                        if marks == 0 { continue }
                    }
                    let byte = bytes[at]
                    if byte == quote {
                        guard at + 1 < bytes.count, bytes[at + 1] == quote else {
                            quoteSeen = true
                            break
                        }
                        if keep { out[length] = quote; length += 1 }
                        at += 2
                        continue
                    }
                    if byte == lineFeed { line += 1 }
                    if keep { out[length] = byte; length += 1 }
                    at += 1
                }
                writtenCount = length
                if at > from { fieldHasBytes = true }
                if quoteSeen { at += 1 }
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
                try endRecord(record, end: base + at, out: buffer)
                recordStart = base + at + 1
                line += 1
                recordLine = line
            default:
                let end = Self.next(comma, quote, lineFeed, carriageReturn, in: bytes, from: at + 1)
                // A whole field before its comma (most fields): made from the piece itself.
                if !fieldHasBytes, end < bytes.count, bytes[end] == comma {
                    if kept { write(at..<end) }
                    ends.append(writtenCount)
                    at = end + 1
                    continue
                }
                if kept { write(at..<end) }
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
        guard fieldHasBytes || !ends.isEmpty || wasQuoted else { return }
        var written = self.written
        self.written = []
        defer { self.written = written }
        try written.withUnsafeMutableBufferPointer { out in try endRecord(record, end: position, out: out) }
    }

    /// The fields of one record's bytes (the first, when they hold more), as a reader fed the
    /// file reads them; one empty field for none. Each row of an export is read so in a second
    /// pass: the list of where its fields end is made once, at its size, and handed on as it is.
    /// - Throws: `CSVTable.Failure` when the bytes are not CSV.
    static func fields(ofRecord bytes: UnsafeRawBufferPointer, keeping: [Bool]? = nil) throws -> CSVFields {
        var reader = CSVRows(keeping: keeping)
        reader.oneRecord = true
        reader.ends.reserveCapacity(keeping?.count ?? 16)
        var fields: CSVFields?
        try reader.feed(bytes) { _, found, _ in fields = fields ?? found }
        try reader.finish { _, found, _ in fields = fields ?? found }
        return fields ?? CSVFields(bytes: [], ends: [0])
    }

    /// The fields of the first record in `bytes`, read no further than its end; nil when none
    /// ends there or the bytes are not CSV.
    static func firstRecord(in bytes: UnsafeRawBufferPointer, keeping: [Bool]? = nil) -> CSVFields? {
        struct Found: Error { let fields: CSVFields }
        var reader = CSVRows(keeping: keeping)
        do {
            try reader.feed(bytes) { _, fields, _ in throw Found(fields: fields) }
        } catch let found as Found {
            return found.fields
        } catch {}
        return nil
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

    /// Hands on the record read, its bytes written at `out`.
    private mutating func endRecord(_ record: (Int, CSVFields, Range<Int>) throws -> Void, end: Int, out: UnsafeMutableBufferPointer<UInt8>) throws {
        ends.append(writtenCount)
        // An empty line, not a row whose one field is not kept.
        let blank = ends.count == 1 && !fieldHasBytes && !wasQuoted
        fieldHasBytes = false
        wasQuoted = false
        let done = CSVFields(bytes: blank ? [] : Array(out[..<writtenCount]), ends: ends)
        // Room for the next row's ends at once, unless this is the one record read.
        if oneRecord { ends = [] } else { ends.removeAll(keepingCapacity: true) }
        writtenCount = 0
        guard !blank else { return }
        if let keepingAfterHeader {
            keeping = keepingAfterHeader(done.strings)
            self.keepingAfterHeader = nil
        }
        try record(recordLine, done, recordStart..<end)
    }
}
