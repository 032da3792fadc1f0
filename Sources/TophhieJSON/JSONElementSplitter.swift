import Foundation

/// Finds the records of a large JSON file in its bytes, chunk by chunk, without parsing them:
/// the elements of a top-level array, of a Graph page's `value` array (or another wrapper's,
/// Azure Monitor's `records`), of a poll timeline's `polls` array, the rows of the Log
/// Analytics query API's first table, or the lines of JSON lines.
///
/// Only the skeleton around the records is checked here (brackets, commas, colons, the page's
/// other `@odata.*` members); each record's own bytes are for the parser. Anything it does not
/// recognise makes it stop with `.unsupported`, so the caller can read the file the whole-file
/// way instead, with that way's error messages. Memory is one record's bytes at a time.
public struct JSONElementSplitter {
    /// How the records sit in the file.
    public enum Layout: Sendable, Equatable {
        /// A top-level array `[…]` or a Graph page `{"value":[…], "@odata.…": …}`.
        case document
        /// One record per line.
        case lines
        /// A poll timeline `{"polls":[…]}`: each record is one poll.
        case timeline
        /// The Log Analytics query API's answer `{"tables":[{"columns":[…],"rows":[[…],…]},…]}`:
        /// each row of the first table is a record (an array); that table's `columns` is handed
        /// to `feed`'s `columns` before its rows. Later tables are checked and dropped, as the
        /// whole-file reader takes the first table only.
        case table
    }

    /// Why the splitter gave up.
    public enum Unsupported: Error, Sendable, Equatable {
        /// A top-level object whose members are not a Graph page's (a sign-in, a poll timeline).
        case notAPage
        /// Bytes that break the skeleton, or a shape it does not read (scalar records).
        case malformed(offset: Int)
        /// A record longer than the splitter was told to hold: not one of the records it reads
        /// (a whole poll timeline on one line is not a JSON line of a sign-in).
        case recordTooLong(offset: Int)
    }

    private enum Phase {
        case start
        case pageKeyOrEnd, pageKey, inKey(escaped: Bool), afterKey, beforeMemberValue, afterMember
        case arrayElementOrEnd, arrayElement, afterElement
        case tableOrEnd, table, afterTable
        case inValue(isRecord: Bool)
        case end
        case lines
    }

    /// Structure of the value being collected.
    private struct Collector {
        var depth = 0
        var inString = false
        var escaped = false
        var scalar = false
    }

    public let layout: Layout
    /// The longest record it collects; a longer one stops it (`recordTooLong`).
    public let maxRecordLength: Int
    private var phase: Phase
    private var key: [UInt8] = []
    private var keyHasEscape = false
    private var sawValue = false
    /// The members whose array holds the records: a page's `value` (or another wrapper's), a
    /// timeline's `polls`, a table's `rows`.
    private let arrayKeys: [[UInt8]]
    /// Where a table answer's skeleton is: 0 the answer, 1 its `tables`, 2 a table, 3 its rows.
    private var level = 0
    /// Tables begun so far (only the first one's rows are records).
    private var tables = 0
    private var collector = Collector()
    private var current: [UInt8] = []
    private var currentOffset = 0
    private var consumed = 0
    /// The bytes of a UTF-8 byte order mark met before the first line of JSON lines.
    private var leadingMark = 0

    /// - Parameters:
    ///   - maxRecordLength: the longest record to collect: memory is at most this much beyond
    ///     the chunk being read.
    ///   - wrappers: for a document, the members whose array holds the records (one of them
    ///     per file): a Graph page's `value` unless told, Azure Monitor's `records` too.
    public init(layout: Layout, maxRecordLength: Int = .max, wrappers: [String] = ["value"]) {
        self.layout = layout
        self.maxRecordLength = maxRecordLength
        phase = layout == .lines ? .lines : .start
        switch layout {
        case .timeline: arrayKeys = [Array("polls".utf8)]
        case .table: arrayKeys = [Array("rows".utf8)]
        default: arrayKeys = wrappers.map { Array($0.utf8) }
        }
    }

    /// A splitter taking a file up at `offset`, where one of its records starts: as the
    /// splitter that read the file from its start would be there, having just read the comma
    /// before that record (a document's array) or the newline (JSON lines). Lets two threads
    /// split a file's halves; `isBetweenRecords` tells whether the first half's splitter indeed
    /// reached that offset between two records.
    /// - Parameter inPage: the records are a Graph page's `value` (else a top-level array).
    public init(resumingAt offset: Int, layout: Layout, inPage: Bool, maxRecordLength: Int = .max) {
        self.init(layout: layout, maxRecordLength: maxRecordLength)
        consumed = offset
        if layout != .lines {
            phase = .arrayElement
            sawValue = inPage
        }
    }

    /// Whether the bytes so far end between two records of the records' array, after the comma
    /// (or, for JSON lines, at the start of a line), with nothing of the next one read; and, for
    /// a document, whether the records were a page's.
    public var isBetweenRecords: (between: Bool, inPage: Bool) {
        switch phase {
        case .lines: return (current.isEmpty, false)
        case .arrayElement: return (true, sawValue)
        default: return (false, sawValue)
        }
    }

    /// Whether `b` is JSON whitespace.
    public static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// Reads the next bytes of the file, calling `record` with each complete record's file
    /// offset and bytes. The bytes are lent for the call only: a record inside the chunk is
    /// handed over in place, one cut by the chunk's end from a copy.
    /// - Throws: `Unsupported`, or what `record` throws.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, record: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        try feed(chunk, columns: nil, record: record)
    }

    /// Reads the next bytes of the file as `feed(_:record:)` does, handing a table answer's
    /// first `columns` (its offset and bytes) to `columns` before that table's rows.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, columns: ((Int, UnsafeRawBufferPointer) throws -> Void)?,
                              record: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        var i = 0
        let n = chunk.count
        // Where the record being collected starts in this chunk; nil when it started in an
        // earlier one (its bytes so far are in `current`).
        var startInChunk: Int?
        while i < n {
            let b = chunk[i]
            let offset = consumed + i
            switch phase {
            case .lines:
                // A byte order mark before the first line is no part of it.
                if offset == leadingMark, offset < 3, b == [0xEF, 0xBB, 0xBF][offset] {
                    leadingMark += 1
                    break
                }
                if b == 0x0A {
                    try emitLine(record)
                } else {
                    let j = JSONStringScan.lineFeed(in: chunk, from: i)
                    if current.isEmpty, j < n {
                        // A whole line inside the chunk is handed over in place: copied first,
                        // each line cost a tenth more than a document's record.
                        currentOffset = offset
                        try checkLength(j - i)
                        try handOver(line: UnsafeRawBufferPointer(rebasing: chunk[i..<j]), at: offset, record)
                        i = j + 1
                        continue
                    }
                    if current.isEmpty { currentOffset = offset }
                    current.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[i..<j]))
                    try checkLength(current.count)
                    i = j
                    continue
                }
            case .start:
                if JSONElementSplitter.isSpace(b) || (offset < 3 && [0xEF, 0xBB, 0xBF][offset] == b) { break }
                if b == UInt8(ascii: "["), layout == .timeline || layout == .table { throw Unsupported.notAPage }
                if b == UInt8(ascii: "[") { phase = .arrayElementOrEnd }
                else if b == UInt8(ascii: "{") { phase = .pageKeyOrEnd }
                else { throw Unsupported.malformed(offset: offset) }
            case .pageKeyOrEnd, .pageKey:
                if JSONElementSplitter.isSpace(b) { break }
                if b == UInt8(ascii: "\"") { key.removeAll(keepingCapacity: true); keyHasEscape = false; phase = .inKey(escaped: false) }
                else if b == UInt8(ascii: "}"), case .pageKeyOrEnd = phase { closeObject() }
                else { throw Unsupported.malformed(offset: offset) }
            case .inKey(let escaped):
                if escaped { key.append(b); phase = .inKey(escaped: false) }
                else if b == UInt8(ascii: "\\") { key.append(b); keyHasEscape = true; phase = .inKey(escaped: true) }
                else if b == UInt8(ascii: "\"") { phase = .afterKey }
                else { key.append(b) }
            case .afterKey:
                if JSONElementSplitter.isSpace(b) { break }
                guard b == UInt8(ascii: ":") else { throw Unsupported.malformed(offset: offset) }
                // Escaped keys and anything but a page's members go the whole-file way.
                if keyHasEscape { throw Unsupported.notAPage }
                if layout == .table {
                    // The answer holds `tables` alone; a table's other members are checked, then dropped.
                    if level == 0 {
                        guard key == Array("tables".utf8), !sawValue else { throw Unsupported.notAPage }
                        sawValue = true
                    }
                } else if arrayKeys.contains(key) {
                    guard !sawValue else { throw Unsupported.notAPage }
                    sawValue = true
                } else if layout == .timeline || !key.starts(with: Array("@odata.".utf8)) {
                    throw Unsupported.notAPage
                }
                phase = .beforeMemberValue
            case .beforeMemberValue:
                if JSONElementSplitter.isSpace(b) { break }
                if layout == .table, level == 0 {
                    guard b == UInt8(ascii: "[") else { throw Unsupported.notAPage }
                    level = 1
                    phase = .tableOrEnd
                } else if layout == .table, tables > 1 || key != arrayKeys[0] {
                    begin(b, at: offset, isRecord: false)
                    startInChunk = i
                } else if arrayKeys.contains(key) {
                    if layout == .table { level = 3 }
                    guard b == UInt8(ascii: "[") else { throw Unsupported.notAPage }
                    phase = .arrayElementOrEnd
                } else {
                    begin(b, at: offset, isRecord: false)
                    startInChunk = i
                }
            case .afterMember:
                if JSONElementSplitter.isSpace(b) { break }
                if b == UInt8(ascii: ",") { phase = .pageKey }
                else if b == UInt8(ascii: "}") { closeObject() }
                else { throw Unsupported.malformed(offset: offset) }
            case .tableOrEnd, .table:
                if JSONElementSplitter.isSpace(b) { break }
                if b == UInt8(ascii: "]"), case .tableOrEnd = phase { level = 0; phase = .afterMember; break }
                guard b == UInt8(ascii: "{") else { throw Unsupported.malformed(offset: offset) }
                tables += 1
                level = 2
                phase = .pageKeyOrEnd
            case .afterTable:
                if JSONElementSplitter.isSpace(b) { break }
                if b == UInt8(ascii: ",") { phase = .table }
                else if b == UInt8(ascii: "]") { level = 0; phase = .afterMember }
                else { throw Unsupported.malformed(offset: offset) }
            case .arrayElementOrEnd, .arrayElement:
                if JSONElementSplitter.isSpace(b) { break }
                if b == UInt8(ascii: "]"), case .arrayElementOrEnd = phase { closeArray(); break }
                // A table's rows are arrays; every other layout's records are objects.
                guard b == (layout == .table ? UInt8(ascii: "[") : UInt8(ascii: "{")) else { throw Unsupported.malformed(offset: offset) }
                begin(b, at: offset, isRecord: true)
                startInChunk = i
            case .afterElement:
                if JSONElementSplitter.isSpace(b) { break }
                if b == UInt8(ascii: ",") { phase = .arrayElement }
                else if b == UInt8(ascii: "]") { closeArray() }
                else { throw Unsupported.malformed(offset: offset) }
            case .inValue(let isRecord):
                if collector.scalar {
                    if JSONElementSplitter.isSpace(b) || b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                        try complete(isRecord: isRecord, chunk, from: startInChunk, to: i, columns, record)
                        startInChunk = nil
                        continue  // the delimiter belongs to the skeleton
                    }
                    i += 1
                    continue
                }
                // The rest of the record in this chunk in one tight loop, string contents a word
                // at a time: a byte at a time through the phase switch was a sixth of a replay.
                var depth = collector.depth, inString = collector.inString, escaped = collector.escaped
                var j = i, done = false
                while j < n {
                    if inString {
                        if escaped { escaped = false; j += 1; continue }
                        let k = JSONStringScan.quoteOrBackslash(in: chunk, from: j)
                        if k >= n { j = n; break }
                        j = k + 1
                        if chunk[k] == 0x5C { escaped = true; continue }
                        inString = false
                        if depth == 0 { done = true; break }
                        continue
                    }
                    let c = chunk[j]
                    j += 1
                    if c == 0x22 {
                        inString = true
                    } else if c == 0x7B || c == 0x5B {
                        depth += 1
                    } else if c == 0x7D || c == 0x5D {
                        depth -= 1
                        if depth == 0 { done = true; break }
                    }
                }
                collector.depth = depth; collector.inString = inString; collector.escaped = escaped
                i = j
                if done {
                    try complete(isRecord: isRecord, chunk, from: startInChunk, to: j, columns, record)
                    startInChunk = nil
                }
                continue
            case .end:
                guard JSONElementSplitter.isSpace(b) else { throw Unsupported.malformed(offset: offset) }
            }
            i += 1
        }
        if let start = startInChunk, case .inValue = phase {
            current.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<n]))
            try checkLength(current.count)
        } else if case .inValue = phase {
            current.append(contentsOf: chunk)
            try checkLength(current.count)
        }
        consumed += n
    }

    /// Says the file has ended.
    /// - Throws: `Unsupported.malformed` when the file stops inside its structure.
    public mutating func finish(record: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        switch phase {
        case .lines: try emitLine(record)
        case .end: break
        default: throw Unsupported.malformed(offset: consumed)
        }
    }

    private func checkLength(_ length: Int) throws {
        if length > maxRecordLength { throw Unsupported.recordTooLong(offset: currentOffset) }
    }

    private mutating func emitLine(_ record: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        defer { current.removeAll(keepingCapacity: true) }
        try current.withUnsafeBytes { try handOver(line: $0, at: currentOffset, record) }
    }

    /// Hands a line on as a record, unless it is blank (spaces alone are no record).
    private func handOver(line: UnsafeRawBufferPointer, at offset: Int, _ record: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        guard line.contains(where: { !JSONElementSplitter.isSpace($0) }) else { return }
        try record(offset, line)
    }

    private mutating func closeArray() {
        // A top-level array ends the file; a page's `value` is one of its members, as a
        // table's rows are one of the table's.
        phase = sawValue ? .afterMember : .end
        if layout == .table { level = 2 }
    }

    private mutating func closeObject() {
        // A table ends inside the answer's `tables`; the answer or a page ends the file.
        if layout == .table, level == 2 {
            level = 1
            phase = .afterTable
        } else {
            phase = .end
        }
    }

    private mutating func begin(_ b: UInt8, at offset: Int, isRecord: Bool) {
        current.removeAll(keepingCapacity: true)
        currentOffset = offset
        collector = Collector()
        switch b {
        case UInt8(ascii: "{"), UInt8(ascii: "["): collector.depth = 1
        case UInt8(ascii: "\""): collector.inString = true
        default: collector.scalar = true
        }
        phase = .inValue(isRecord: isRecord)
    }

    /// The value ends at `end` in `chunk`: it began at `start` in it, or in an earlier chunk.
    private mutating func complete(isRecord: Bool, _ chunk: UnsafeRawBufferPointer, from start: Int?, to end: Int,
                                   _ columns: ((Int, UnsafeRawBufferPointer) throws -> Void)?,
                                   _ record: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        // In place when it began in this chunk; else its bytes so far, with this chunk's part added.
        if start == nil { current.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<end])) }
        let offset = currentOffset
        try checkLength(start.map { end - $0 } ?? current.count)
        func take(_ bytes: UnsafeRawBufferPointer) throws {
            if isRecord { return try record(offset, bytes) }
            // A page member other than `value` (`@odata.nextLink`): checked, then dropped; the
            // first table's `columns` handed on.
            guard (try? JSONValue.parse(bytes)) != nil else { throw Unsupported.malformed(offset: offset) }
            if layout == .table, tables == 1, key == Array("columns".utf8) { try columns?(offset, bytes) }
        }
        if let start { try take(UnsafeRawBufferPointer(rebasing: chunk[start..<end])) } else { try current.withUnsafeBytes(take) }
        phase = isRecord ? .afterElement : .afterMember
        current.removeAll(keepingCapacity: true)
    }
}
