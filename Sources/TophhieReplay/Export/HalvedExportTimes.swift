import Foundation
import TophhieJSON
import TophhieSystem

/// The first pass of `timesOnly` over a large export (`StreamedExport`), its two halves read on
/// two threads, as `HalvedFirstPass` reads a large Graph file's: split where a record seems to
/// start near the middle, the second half read on the second thread while this one reads the
/// first. One thread splitting or tokenizing every byte was that pass's bottleneck, the worker
/// threads it fed idle half the time.
///
/// Only the plain case is taken: the first half's reader must reach the split between two
/// records, as the reader of the whole file would. Anything else gives nil, and the caller reads
/// the file in one pass, with its checks and messages.
///
/// It waits for the second half (`SecondThread`): call it from a blocking-work thread.
enum HalvedExportTimes {
    /// Files smaller than this are read in one pass.
    static let minimumSize = HalvedFirstPass.minimumSize

    /// The records of the second half, each with its place and time, in the file's order (the
    /// first half's go straight into the index as they are read).
    typealias Entries = [(offset: Int, length: Int, time: Date)]

    /// Indexes a file of Log Analytics JSON rows (an array, a `value` page, JSON lines).
    /// - Returns: false when the file is not taken: `index` may then hold some of its records,
    ///   and is not to be used.
    /// - Throws: `StreamedExport.NeedsCheck` for a record whose id or time does not read plainly.
    /// - Parameter minimumSize: smaller files are not taken (tests make it small).
    static func json(_ file: ReadableFile, size: Int, layout: JSONElementSplitter.Layout, inPage: Bool, reading: ExportReading,
                     chunkSize: Int, into index: ExportIndex, minimumSize: Int = minimumSize) throws -> Bool {
        guard size >= max(minimumSize, 2), layout == .document || layout == .lines,
              let split = HalvedFirstPass.boundary(file, layout: layout, from: size / 2, size: size) else { return false }
        @Sendable func half(_ splitter: inout JSONElementSplitter, from start: Int, upTo end: Int?,
                            _ take: (Int, Int, Date) throws -> Void) throws {
            let names = RowTimes()
            let memory = reading.rowMemory()
            func add(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
                guard let time = StreamedExport.rowTime(bytes, names: names, reading: reading, memory: memory) else { throw StreamedExport.NeedsCheck() }
                try take(offset, bytes.count, time)
            }
            try file.forEachChunk(chunkSize: chunkSize, from: start, upTo: end) { chunk in try splitter.feed(chunk, record: add) }
            if end == nil { try splitter.finish(record: add) }
        }
        let second = SecondThread<Result<Entries, any Error>>()
        second.start {
            var splitter = JSONElementSplitter(resumingAt: split, layout: layout, inPage: inPage, maxRecordLength: StreamedReplay.maxRecordLength)
            var entries: Entries = []
            return Result { try half(&splitter, from: split, upTo: nil) { entries.append(($0, $1, $2)) }; return entries }
        }
        var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength, wrappers: ["value", "records"])
        let first = Result { try half(&splitter, from: 0, upTo: split) { try index.add(time: $2, offset: $0, length: $1) } }
        // Taken even when the first half failed: the second must finish before the file goes.
        let later = (try? second.take()) ?? .failure(StreamedExport.NeedsCheck())
        let reached = splitter.isBetweenRecords
        return try joined(first, split: reached.between && (layout == .lines || reached.inPage == inPage), later, into: index)
    }

    /// The records of a Log Analytics CSV whose header `reading` was made from, after `offset`
    /// (a BOM).
    /// - Throws: `StreamedExport.NeedsCheck` as `json` does.
    /// - Returns: as `json`'s.
    static func csv(_ file: ReadableFile, size: Int, offset: Int, reading: ExportReading, chunkSize: Int, into index: ExportIndex,
                    minimumSize: Int = minimumSize) throws -> Bool {
        let keeping = reading.fieldsRead
        guard size >= max(minimumSize, 2), let window = try? file.read(at: size / 2, count: min(HalvedFirstPass.searchLength, size - size / 2)),
              let split = window.withUnsafeBytes({ rowStart(in: $0, reading: reading, keeping: keeping) }).map({ size / 2 + $0 }) else { return false }
        @Sendable func half(_ rows: inout CSVRows, from start: Int, upTo end: Int?, header: Bool, _ take: (Int, Int, Date) throws -> Void) throws {
            let memory = reading.rowMemory()
            var headerRead = !header
            func add(_: Int, _ fields: CSVFields, _ range: Range<Int>) throws {
                guard headerRead else { headerRead = true; return }
                guard let time = StreamedExport.rowTime(fields: fields, reading: reading, memory: memory) else { throw StreamedExport.NeedsCheck() }
                try take(range.lowerBound, range.count, time)
            }
            try file.forEachChunk(chunkSize: chunkSize, from: start, upTo: end) { chunk in try rows.feed(chunk, record: add) }
            if end == nil { try rows.finish(record: add) }
        }
        let second = SecondThread<Result<Entries, any Error>>()
        second.start {
            var rows = CSVRows(offset: split, keeping: keeping)
            var entries: Entries = []
            return Result { try half(&rows, from: split, upTo: nil, header: false) { entries.append(($0, $1, $2)) }; return entries }
        }
        var rows = CSVRows(offset: offset)
        rows.keepingAfterHeader = { _ in keeping }
        let first = Result { try half(&rows, from: offset, upTo: split, header: true) { try index.add(time: $2, offset: $0, length: $1) } }
        let later = (try? second.take()) ?? .failure(StreamedExport.NeedsCheck())
        return try joined(first, split: rows.isBetweenRecords, later, into: index)
    }

    /// Where a CSV row seems to start in `window` (after a line feed): the first line after which
    /// a row reads with as many fields as the header and a time, read as the second half would
    /// read it. A line feed inside a quoted field is so passed over (the rest of the field then
    /// holds a quote where the tokenizer refuses one, or too few fields); whether it is right the
    /// first half's reader says.
    static func rowStart(in window: UnsafeRawBufferPointer, reading: ExportReading, keeping: [Bool]?) -> Int? {
        var from = 0
        while let newline = window[from...].firstIndex(of: 0x0A) {
            let start = newline + 1
            if let fields = CSVRows.firstRecord(in: UnsafeRawBufferPointer(rebasing: window[start...]), keeping: keeping),
               StreamedExport.rowTime(fields: fields, reading: reading, memory: nil) != nil {
                return start
            }
            from = start
        }
        return nil
    }

    /// Indexes the second half's records after the first's, once the split is known to be
    /// between two records: a record of the second half that needs its check is then one. One
    /// of the first half is one whatever the split; any other failure leaves the file to the
    /// one pass.
    private static func joined(_ first: Result<Void, any Error>, split reached: Bool, _ later: Result<Entries, any Error>,
                               into index: ExportIndex) throws -> Bool {
        if case .failure(let error) = first, error is StreamedExport.NeedsCheck { throw error }
        guard reached else { return false }
        switch (first, later) {
        case (.success, .success(let later)):
            for entry in later { try index.add(time: entry.time, offset: entry.offset, length: entry.length) }
            return true
        case (.success, .failure(let error)) where error is StreamedExport.NeedsCheck:
            throw error
        default:
            return false
        }
    }
}
