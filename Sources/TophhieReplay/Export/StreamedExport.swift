import Foundation
import TophhieAuth
import TophhieJSON
import TophhieSystem

/// An export of JSON rows or records (Log Analytics, Sentinel, PowerShell, Azure Monitor) read a
/// record at a time through a bounded window: each found by `JSONElementSplitter`, mapped
/// (`ExportRecord`), checked with the live poll's decoder and written on as a JSON line
/// (`CheckedRecords`), so memory is a chunk, one record and the write buffer, not the file and
/// a tree of it.
enum StreamedExport {
    /// Not a shape read here: the whole-file way reads it, with its own messages.
    private struct Unstreamable: Error {}

    /// A record whose id and time the first pass of `timesOnly` does not read plainly: the file
    /// is read again, each record checked (`ExportConversion.convert`).
    struct NeedsCheck: Error {}

    /// How the records of a JSON export sit in it, from its head.
    static func layout(of head: [UInt8], size: Int) -> JSONElementSplitter.Layout? {
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let first = head[bom...].firstIndex(where: { !JSONElementSplitter.isSpace($0) }) else { return nil }
        if head[first] == UInt8(ascii: "[") { return .document }
        guard head[first] == UInt8(ascii: "{") else { return nil }
        // The query API's answer, however it is spread over lines.
        let opening = String(decoding: head[first...].prefix(256), as: UTF8.self)
        if opening.range(of: #"^\{\s*"tables"\s*:"#, options: .regularExpression) != nil { return .table }
        // JSON lines when the first line is a whole record; a document when it is a wrapper
        // (`{"value":…`, `{"records":…`) or an object spread over lines.
        let lineEnd = head[first...].firstIndex(of: 0x0A) ?? head.endIndex
        guard lineEnd < head.endIndex || head.count == size else { return nil }
        if case .object(let members)? = try? JSONValue.parse(Data(head[first..<lineEnd])) {
            return members["value"] != nil || members["records"] != nil ? .document : .lines
        }
        return .document
    }

    /// - Returns: nil when the file is not an array, a wrapper (`value`, `records`), a query
    ///   API answer (`tables`) or JSON lines of records (read whole instead).
    /// - Parameter streaming: check and index the records (`ExportConversion.index`) instead of
    ///   writing them to a scratch file.
    /// - Throws: `ReplayFileError` as `ExportConversion.convert` does.
    /// - Parameter indexSpillLimit: records indexed in memory before a sorted stretch of them
    ///   goes to scratch (`ExportIndex`).
    /// - Parameter sparseFrom: with `timesOnly`, files this large in time order are only
    ///   sampled (`SparseFirstPass`), every `sparseStride` bytes when given (tests make both
    ///   small), else every batch's worth of rows.
    /// - Parameter timesOnly: streaming Log Analytics rows, only each record's id and time are
    ///   read, for the index; the replay's second pass checks the records as it reads them
    ///   (`ExportIndex.checked` is false). Throws `NeedsCheck` for a record whose id or time
    ///   does not read plainly.
    static func convert(file: String, format: ExportFormat, strict: Bool, scratch: String, streaming: Bool = false, timesOnly wanted: Bool = false,
                        chunkSize: Int = ReadableFile.chunkSize, indexSpillLimit: Int = 1 << 19,
                        sparseFrom: Int = SparseFirstPass.minimumSize, sparseStride: Int? = nil) throws -> ExportConversion? {
        guard let readable = try? ReadableFile(path: file), let size = try? readable.size(),
              let head = try? readable.read(at: 0, count: min(size, 1 << 16)),
              let layout = layout(of: head, size: size) else { return nil }
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        // Rows read straight into slots: a query API table's are not.
        let timesOnly = wanted && streaming && format == .logAnalytics && layout != .table
        var checked = try CheckedRecords(file: file, format: format, strict: strict, scratch: streaming ? nil : scratch)
        // Streamed, a record is read for what the decoder checks (or only its id and time);
        // written, whole.
        var reading = ExportReading(format: format, shape: .json(columnNames: nil),
                                    members: timesOnly ? ExportReading.timeMembers : streaming ? ExportReading.checkedMembers : nil)
            .withRowSlots(timesOnly ? ExportReading.timePaths : streaming ? ExportConversion.quickPaths : [])
        let index = streaming ? ExportIndex(file: readable, reading: reading.reading(nil), scratchDirectory: scratch, spillLimit: indexSpillLimit) : nil
        index?.checked = !timesOnly
        // A large file's halves on two threads; any other, or one not taken, in one pass.
        if timesOnly {
            let halved = ExportIndex(file: readable, reading: reading.reading(nil), scratchDirectory: scratch, spillLimit: indexSpillLimit)
            halved.checked = false
            let inPage = layout == .document && head[bom...].first(where: { !JSONElementSplitter.isSpace($0) }) == UInt8(ascii: "{")
            // A large file in time order only sampled, as a Graph file is; its rows are then read
            // and checked by the second pass, which gives way when the samples were wrong.
            let names = RowTimes(), memory = reading.rowMemory()
            let times = SparseFirstPass.RecordTime(row: { rowTime($0, names: names, reading: reading, memory: memory) })
            if let sparse = SparseFirstPass.runs(readable, chunkSize: chunkSize, stride: sparseStride, minimumSize: sparseFrom,
                                                 runLength: Replay.exportBatchSize, shape: (layout, inPage), time: times) {
                checked.discard()
                halved.take(runs: sparse.runs, layout: sparse.layout, latest: sparse.latest)
                return indexed(halved, format: format)
            }
            if try HalvedExportTimes.json(readable, size: size, layout: layout, inPage: inPage, reading: reading, chunkSize: chunkSize, into: halved) {
                checked.discard()
                return indexed(halved, format: format)
            }
        }
        var cursor = LineCursor(file: readable, start: bom)
        var count = 0
        var batches = TwoThreadBatches<FoundRecord, RecordOutcome> { found in
            // This thread's memory of the rows it reads straight, one to the next.
            let memory = found.first?.reading?.rowMemory()
            if timesOnly {
                let names = RowTimes()
                return found.map { readTime($0, names: names, memory: memory) }
            }
            return found.map { read($0, writing: !streaming, memory: memory) }
        }
        func columns(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            guard case .array(let columns)? = try? JSONValue.parse(bytes) else { throw Unstreamable() }
            let shape = ExportReading.Shape.json(columnNames: columns.map { $0["name"]?.stringValue ?? "" })
            reading = ExportReading(format: format, shape: shape, members: reading.members)
            index?.reading = ExportReading(format: format, shape: shape, members: nil)
        }
        func record(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            // A table's row before its columns is read whole, as the whole-file reader reads it.
            if layout == .table, case .json(columnNames: nil) = reading.shape { throw Unstreamable() }
            try batches.add(FoundRecord(offset: offset, bytes: Array(bytes), reading: reading), size: bytes.count, apply: apply)
        }
        // In the file's order: where each record is, and what it costs when it does not read.
        func apply(_ found: FoundRecord, _ outcome: RecordOutcome) throws {
            count += 1
            let offset = found.offset
            switch outcome {
            case .damaged(let error):
                let at = try cursor.position(of: offset + error.offset)
                // A document broken in its grammar is not JSON; a line is its own document.
                if layout != .lines, !ExportConversion.isContentDamage(error) {
                    throw ReplayFileError("\(file): the file is not valid JSON: line \(at.line), column \(at.column): \(error.message)")
                }
                let place = layout == .lines ? "line \(at.line)" : layout == .table ? "row \(count)" : "item \(count)"
                let problem = layout == .lines ? "column \(at.column): \(error.message)" : "line \(at.line), column \(at.column): \(error.message)"
                try checked.skipDamaged(problem, at: place)
            case .notARow:
                throw Unstreamable()
            case .needsCheck:
                throw NeedsCheck()
            case .failed(let error):
                throw error
            case .checked(let verdict):
                let count = count
                if let time = try checked.take(verdict, at: layout == .table ? "row \(count)" : layout == .lines ? "line \(try cursor.position(of: offset).line)" : "item \(count)") { try index?.add(time: time, offset: offset, length: found.bytes.count) }
            }
        }
        do {
            var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength, wrappers: ["value", "records"])
            do {
                try readable.forEachChunk(chunkSize: chunkSize) { chunk in try splitter.feed(chunk, columns: columns, record: record) }
                try splitter.finish(record: record)
            } catch {
                // The records before the one the splitter stopped at come first: one of them
                // may say more (the grammar broken earlier, a record --strict stops at).
                try batches.flush(apply: apply)
                throw error
            }
            try batches.flush(apply: apply)
            var conversion = try checked.finish()
            conversion.index = index
            return conversion
        } catch is Unstreamable, is JSONElementSplitter.Unsupported {
            checked.discard()
            return nil
        } catch let error as FileError {
            checked.discard()
            throw ReplayFileError(error.description)
        } catch {
            checked.discard()
            throw error
        }
    }

    /// An export indexed by `HalvedExportTimes`.
    private static func indexed(_ index: ExportIndex, format: ExportFormat) -> ExportConversion {
        var conversion = ExportConversion(path: "", format: format, records: index.count, skipped: [], coordinatesDropped: 0)
        conversion.index = index
        return conversion
    }

    /// A record as the splitter found it: where it starts, its bytes, and how it is read (a
    /// query API table's column names with it).
    struct FoundRecord: Sendable {
        let offset: Int
        let bytes: [UInt8]
        /// nil for a Graph record (only checked quickly, `checkGraph`).
        let reading: ExportReading?
    }

    /// What one record of a JSON export is, worked out apart from the others.
    enum RecordOutcome {
        /// Mapped and checked by the live poll's decoder.
        case checked(CheckedRecords.Verdict)
        /// Not JSON where the parser stopped (`offset` from the record's first byte).
        case damaged(JSONParseError)
        /// A table's row that is not an array of values, or one before the columns.
        case notARow
        /// Read for its time only, a record whose id or time does not read plainly.
        case needsCheck
        case failed(any Error)
    }

    /// One record's id and time (on either thread), for a first pass of `timesOnly`.
    static func readTime(_ found: FoundRecord, names: RowTimes, memory: RowSlots.Memory?) -> RecordOutcome {
        guard let reading = found.reading, let time = found.bytes.withUnsafeBytes({ rowTime($0, names: names, reading: reading, memory: memory) }) else {
            return .needsCheck
        }
        return .checked(.kept(line: nil, time: time, coordinatesDropped: false))
    }

    /// A JSON row's time when its id and time read plainly: by their own names (`RowTimes`), else
    /// as the mapping reads them (`reading` is `timePaths`'s); nil when the row needs its check.
    static func rowTime(_ bytes: UnsafeRawBufferPointer, names: RowTimes, reading: ExportReading, memory: RowSlots.Memory?) -> Date? {
        names.time(ofRow: bytes) ?? reading.rowValues(bytes, memory: memory).flatMap { ExportConversion.plainTime(id: $0[0], time: $0[1]) }
    }

    /// A CSV row's time when it has the header's fields and its id and time read plainly: from
    /// their own fields (`CSVRowTimes`), else as the mapping reads them (`reading` is
    /// `timePaths`'s); nil when the row needs its check.
    static func rowTime(fields: CSVFields, reading: ExportReading, memory: RowSlots.Memory?) -> Date? {
        guard fields.count == reading.columnCount else { return nil }
        if let time = reading.csvRowTimes?.time(of: fields) { return time }
        guard let values = reading.rowValues(fields: fields, memory: memory) else { return nil }
        return ExportConversion.plainTime(id: values[0], time: values[1])
    }

    /// Parses, maps and checks one record (on either thread). A record read for some of its
    /// members is read whole when its text is one the quick parse does not check (a surrogate
    /// escape, bytes past ASCII), and when the decoder refuses it (the whole record says what
    /// the file is).
    /// - Parameter memory: the thread's memory of the rows it read before (`rowMemory()`).
    static func read(_ found: FoundRecord, writing: Bool, memory: RowSlots.Memory? = nil) -> RecordOutcome {
        found.bytes.withUnsafeBytes { bytes in
            do {
                guard var reading = found.reading else { return .notARow }
                if reading.members != nil, !ExportConversion.textsRead(bytes) { reading = reading.reading(nil) }
                // Nearly every row: its id, time, error code and coordinates read straight from
                // its bytes pass the page's quick check, and nothing more is asked of it.
                if !writing, let values = reading.rowValues(bytes, memory: memory), let time = ExportConversion.plainTime(slots: values) {
                    return .checked(.kept(line: nil, time: time, coordinatesDropped: false))
                }
                let row: ExportReading.Row
                do {
                    row = try reading.row(bytes)
                } catch let error as JSONParseError {
                    return .damaged(error)
                }
                if case .notARow = row { return .notARow }
                let verdict = try CheckedRecords.verdict(reading.mapped(row), raw: row.json, writing: writing)
                if case .refused(let malformed, _) = verdict, reading.members != nil, let whole = try? reading.reading(nil).row(bytes) {
                    if case .notARow = whole { return .checked(verdict) }
                    return .checked(.refused(malformed, raw: whole.json))
                }
                return .checked(verdict)
            } catch {
                return .failed(error)
            }
        }
    }

    /// A CSV export (Log Analytics' download, the admin center's) a row at a time: no table of
    /// the whole file, each row mapped, checked and written on (or indexed) as it is read.
    /// - Parameter streaming: check and index the rows (`ExportConversion.index`) instead of
    ///   writing them to a scratch file.
    /// - Throws: `ReplayFileError` as `ExportConversion.convert` does ("not valid CSV: line 3:
    ///   …" for a row the table would refuse).
    /// - Parameter timesOnly: as `convert`'s, for Log Analytics' CSV.
    static func convertCSV(file: String, format: ExportFormat, strict: Bool, scratch: String, streaming: Bool = false, timesOnly wanted: Bool = false,
                           chunkSize: Int = ReadableFile.chunkSize) throws -> ExportConversion {
        let timesOnly = wanted && streaming && format == .csv
        let readable: ReadableFile
        let head: [UInt8]
        do {
            readable = try ReadableFile(path: file)
            head = try readable.read(at: 0, count: 3)
        } catch {
            throw ReplayFileError("cannot read '\(file)'")
        }
        // The download's name says its stream: NonInteractiveSignIns_<from>_<to>.csv.
        let nonInteractive = (file as NSString).lastPathComponent.lowercased().contains("noninteractive")
        func shape(_ header: [String]) -> ExportReading.Shape {
            .csv(header: header.map { $0.trimmingCharacters(in: .whitespaces) }, nonInteractive: nonInteractive)
        }
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if timesOnly, let size = try? readable.size(), let header = firstRecord(readable, from: bom) {
            let shape = shape(header)
            let reading = ExportReading(format: format, shape: shape, members: ExportReading.timeMembers).withRowSlots(ExportReading.timePaths)
            let index = ExportIndex(file: readable, reading: ExportReading(format: format, shape: shape, members: nil), scratchDirectory: scratch)
            index.checked = false
            if try HalvedExportTimes.csv(readable, size: size, offset: bom, reading: reading, chunkSize: chunkSize, into: index) {
                return indexed(index, format: format)
            }
        }
        var checked = try CheckedRecords(file: file, format: format, strict: strict, scratch: streaming ? nil : scratch)
        var reading: ExportReading?
        var index: ExportIndex?
        var batches = TwoThreadBatches<CSVRow, CSVOutcome> { rows in
            // This thread's buffers for the rows it reads straight.
            let memory = rows.first?.reading.rowMemory()
            return rows.map { timesOnly ? readTime($0, memory: memory) : read($0, writing: !streaming, memory: memory) }
        }
        var reader = CSVRows(offset: bom)
        // Checked, a row's other fields are not kept (a row skipped is named by its
        // columns' names and its `Type`, which is read).
        let members = timesOnly ? ExportReading.timeMembers : ExportReading.checkedMembers
        if streaming { reader.keepingAfterHeader = { ExportReading(format: format, shape: shape($0), members: members).fieldsRead } }
        func row(_ line: Int, _ fields: CSVFields, _ range: Range<Int>) throws {
            guard let reading else {
                let shape = shape(fields.strings)
                reading = ExportReading(format: format, shape: shape, members: streaming ? members : nil)
                    .withRowSlots(timesOnly ? ExportReading.timePaths : streaming ? ExportConversion.quickPaths : [])
                if streaming { index = ExportIndex(file: readable, reading: ExportReading(format: format, shape: shape, members: nil), scratchDirectory: scratch) }
                index?.checked = !timesOnly
                return
            }
            // A batch is a megabyte of the file: counted by the fields kept, a pass keeping only
            // the id and the time held 17,000 rows a batch, each its own lists.
            try batches.add(CSVRow(line: line, range: range, fields: fields, reading: reading), size: range.count, apply: apply)
        }
        func apply(_ row: CSVRow, _ outcome: CSVOutcome) throws {
            switch outcome {
            case .checked(let verdict):
                if let time = try checked.take(verdict, at: "line \(row.line)") { try index?.add(time: time, offset: row.range.lowerBound, length: row.range.count) }
            case .needsCheck: throw NeedsCheck()
            case .failed(let error): throw error
            }
        }
        do {
            do {
                do {
                    try readable.forEachChunk(chunkSize: chunkSize, from: bom) { chunk in try reader.feed(chunk, record: row) }
                    try reader.finish(record: row)
                } catch {
                    // The rows before the one the reader stopped at come first.
                    try batches.flush(apply: apply)
                    throw error
                }
                try batches.flush(apply: apply)
                if reading == nil { throw CSVTable.Failure(line: 1, message: "no header row") }
            } catch let failure as CSVTable.Failure {
                throw ReplayFileError("\(file): not valid CSV: \(failure)")
            }
            var conversion = try checked.finish()
            conversion.index = index
            return conversion
        } catch let error as FileError {
            checked.discard()
            throw ReplayFileError(error.description)
        } catch {
            checked.discard()
            throw error
        }
    }

    /// The fields of a CSV file's first record (its header), when it ends within the file's
    /// first 64 KB.
    static func firstRecord(_ file: ReadableFile, from offset: Int) -> [String]? {
        guard let head = try? file.read(at: offset, count: 1 << 16) else { return nil }
        return head.withUnsafeBytes { CSVRows.firstRecord(in: $0) }?.strings
    }

    /// A CSV row as the reader found it: where it is, its fields, and how it is read.
    struct CSVRow: Sendable {
        let line: Int
        let range: Range<Int>
        let fields: CSVFields
        let reading: ExportReading
    }

    enum CSVOutcome {
        case checked(CheckedRecords.Verdict)
        /// As `RecordOutcome.needsCheck`.
        case needsCheck
        case failed(any Error)
    }

    /// One CSV row's id and time (on either thread), for a first pass of `timesOnly`.
    static func readTime(_ row: CSVRow, memory: RowSlots.Memory?) -> CSVOutcome {
        guard let time = rowTime(fields: row.fields, reading: row.reading, memory: memory) else { return .needsCheck }
        return .checked(.kept(line: nil, time: time, coordinatesDropped: false))
    }

    /// Maps and checks one CSV row (on either thread); read whole when the decoder refuses it.
    /// - Parameter memory: the thread's buffers (`rowMemory()`).
    static func read(_ row: CSVRow, writing: Bool, memory: RowSlots.Memory? = nil) -> CSVOutcome {
        do {
            if !writing, row.fields.count == row.reading.columnCount, let values = row.reading.rowValues(fields: row.fields, memory: memory),
               let time = ExportConversion.plainTime(slots: values) {
                return .checked(.kept(line: nil, time: time, coordinatesDropped: false))
            }
            let record = try row.reading.record(fields: row.fields, line: row.line)
            let verdict = try CheckedRecords.verdict(record.mapped, raw: record.row.json, writing: writing)
            if case .refused(let malformed, _) = verdict, row.reading.members != nil {
                return .checked(.refused(malformed, raw: try row.reading.reading(nil).record(fields: row.fields, line: row.line).row.json))
            }
            return .checked(verdict)
        } catch {
            return .failed(error)
        }
    }

    /// A Graph file too large to hold, checked record by record as `ExportConversion.checkGraph`
    /// checks a smaller one, through the same window: a first pass finds the records the poll's
    /// decoder would skip or whose coordinates no place has; only when there are any, a second
    /// writes the others, as they were, to a scratch file (an array).
    /// - Returns: nil when every record reads as it is (the fast ways read the file), or when
    ///   the file is not a page, an array or JSON lines of records (a poll timeline).
    /// - Throws: `ReplayFileError` as `ExportConversion.convert` does.
    static func checkGraph(file: String, strict: Bool, scratch: String, chunkSize: Int = ReadableFile.chunkSize) throws -> ExportConversion? {
        guard let readable = try? ReadableFile(path: file), let size = try? readable.size(),
              let head = try? readable.read(at: 0, count: min(size, 1 << 16)) else { return nil }
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let first = head[bom...].firstIndex(where: { !JSONElementSplitter.isSpace($0) }) else { return nil }
        var layouts: [JSONElementSplitter.Layout] = [.document]
        if head[first] == UInt8(ascii: "{") {
            let lineEnd = head[first...].firstIndex(of: 0x0A) ?? head.endIndex
            if case .object(let members)? = try? JSONValue.parse(Data(head[first..<lineEnd])), members["polls"] == nil, members["value"] == nil {
                layouts = [.lines]
            }
        }
        let layout = layouts[0]
        var conversion = ExportConversion(path: "", format: .graph, records: 0, skipped: [], coordinatesDropped: 0)
        var found = FoundRecords()
        var changed: [Int: JSONValue?] = [:]
        var cursor = LineCursor(file: readable, start: bom)
        var index = 0
        // The quick check of each record needs nothing of the others: a batch at a time, half
        // on the second thread. Only a record it does not pass is read whole, in order.
        var batches = TwoThreadBatches<FoundRecord, Bool> { found in
            // Where the records before had their members, on this thread: predicted, a member's
            // name is compared, not scanned for its end and looked up.
            let check = PlainRecordCheck()
            return found.map { found in found.bytes.withUnsafeBytes { check.passes($0) } }
        }
        func record(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            try batches.add(FoundRecord(offset: offset, bytes: Array(bytes), reading: nil), size: bytes.count, apply: apply)
        }
        func apply(_ found: FoundRecord, _ plain: Bool) throws {
            index += 1
            if plain { return }
            try found.bytes.withUnsafeBytes { bytes in try check(found.offset, bytes) }
        }
        func check(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            var record: JSONValue
            let range = 0..<bytes.count
            switch JSONPage.element(bytes, range) {
            case .value(let value):
                record = value
            case .damaged(let id, let error):
                let at = try cursor.position(of: offset + error.offset)
                if layout == .document, !ExportConversion.isContentDamage(error) {
                    throw ReplayFileError("\(file): the file is not valid JSON: line \(at.line), column \(at.column): \(error.message)")
                }
                let place = layout == .lines ? "line \(at.line)" : "item \(index)"
                let problem = layout == .lines ? "column \(at.column): \(error.message)" : "line \(at.line), column \(at.column): \(error.message)"
                try conversion.skip(MalformedSignIn.damaged(id: id, problem: problem), at: place, file: file, strict: strict)
                found.add(.null, place: place, problem: problem)
                changed[index] = .some(nil)
                return
            }
            do {
                _ = try TophhieSignInEvent(json: record)
            } catch let malformed as MalformedSignIn {
                let place = layout == .lines ? "line \(try cursor.position(of: offset).line)" : "item \(index)"
                try conversion.skip(malformed, at: place, file: file, strict: strict)
                found.add(record, place: place, problem: malformed.problem)
                changed[index] = .some(nil)
                return
            }
            if ExportConversion.dropBadCoordinates(&record) {
                conversion.coordinatesDropped += 1
                changed[index] = .some(record)
            }
        }
        do {
            var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength)
            do {
                try readable.forEachChunk(chunkSize: chunkSize) { chunk in try splitter.feed(chunk, record: record) }
                try splitter.finish(record: record)
            } catch {
                // The records before the one the splitter stopped at come first.
                try batches.flush(apply: apply)
                throw error
            }
            try batches.flush(apply: apply)
        } catch is JSONElementSplitter.Unsupported {
            return nil
        } catch let error as FileError {
            throw ReplayFileError(error.description)
        }
        if changed.isEmpty { return nil }
        if found.count == index { throw ReplayFileError("\(file): \(found.sentence)") }
        // The records kept, as they were, into an array.
        var kept = 0
        try conversion.writeScratch(scratch: scratch) { write in
            var piece = Data("[".utf8)
            var at = 0
            func copy(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
                at += 1
                let replacement = changed[at]
                if case .some(.none) = replacement { return }
                if kept > 0 { piece.append(contentsOf: Array(",\n".utf8)) }
                if case .some(.some(let value)) = replacement { piece.append(value.canonicalData()) } else { piece.append(contentsOf: bytes) }
                kept += 1
                if piece.count >= 1 << 20 {
                    try write(piece)
                    piece.removeAll(keepingCapacity: true)
                }
            }
            var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength)
            do {
                try readable.forEachChunk(chunkSize: chunkSize) { chunk in try splitter.feed(chunk, record: copy) }
                try splitter.finish(record: copy)
            } catch is JSONElementSplitter.Unsupported {
                throw ReplayFileError("\(file): the file changed while it was read")
            } catch let error as FileError {
                throw ReplayFileError(error.description)
            }
            guard at == index else { throw ReplayFileError("\(file): the file changed while it was read") }
            piece.append(contentsOf: Array("]\n".utf8))
            try write(piece)
        }
        conversion.records = kept
        return conversion
    }

    /// Line and column of a byte of the file, counted forward from the last one asked for (the
    /// records come in order), so naming every record costs one more read of the file at most.
    struct LineCursor {
        let file: ReadableFile
        var offset: Int
        var line = 1
        var lineStart: Int

        init(file: ReadableFile, start: Int) {
            self.file = file
            offset = start
            lineStart = start
        }

        /// - Returns: the line (from 1) and column (bytes, from 1) of `target`.
        mutating func position(of target: Int) throws -> (line: Int, column: Int) {
            if target > offset {
                var at = offset
                var line = self.line, lineStart = self.lineStart
                try file.forEachChunk(chunkSize: 1 << 16, from: offset, upTo: target) { chunk in
                    for (i, byte) in chunk.enumerated() where byte == 0x0A {
                        line += 1
                        lineStart = at + i + 1
                    }
                    at += chunk.count
                }
                (self.line, self.lineStart, offset) = (line, lineStart, target)
            }
            return (line, target - lineStart + 1)
        }
    }
}
