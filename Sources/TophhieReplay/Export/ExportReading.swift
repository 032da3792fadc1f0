import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieRulesFast

/// An export's records read from their own bytes, each parsed keeping only the columns that
/// become the Graph members asked for, then mapped to Graph's shape (`ExportRecord`): the one
/// way a streamed export is read. Its first pass asks for what the live poll's decoder checks
/// (`checkedMembers`); its second, for the records kept, what the rules read, straight into the
/// engine (`event`). Nothing is written anywhere, and no record's tree outlives it.
///
/// A class: every record found carries its reading to the thread that reads it, and a copy of
/// its tables retained each of them, on both threads at once.
final class ExportReading: Sendable {
    /// How a record sits in the file.
    enum Shape: Sendable {
        /// A JSON object (a row, a line, an Azure Monitor record), or a query API table's row
        /// (an array) read by the table's column names.
        case json(columnNames: [String]?)
        /// A CSV row, read by the file's header.
        case csv(header: [String], nonInteractive: Bool)
    }

    let format: ExportFormat
    let shape: Shape
    /// The Graph members asked for; nil for every one.
    let members: Set<String>?
    /// The columns an object record is parsed for.
    private let projection: JSONProjection
    /// The same, for a Log Analytics row: its columns are top-level names, read into slots
    /// (names compared as bytes; a projection hashed every name of every row).
    private let columnSlots: (layout: JSONSlotLayout, columns: [ColumnMapping])?
    /// The same, for an Azure Monitor record: the members asked for inside `properties`, then
    /// beside it (with `time`, `correlationId` and `category`).
    private let monitorSlots: (layout: JSONSlotLayout, inside: [String], beside: [String])?
    /// By column, for a table's rows and CSV rows: whether it is read.
    private let columnsRead: [Bool]?
    /// A table's columns, each with what the mapping makes of it, and whether it is the first
    /// of its name (a later one of the same name is not read).
    private let tableColumns: [(column: ColumnMapping, first: Bool)]?
    /// A Log Analytics CSV's columns read, each under the name the mapping reads it by
    /// (`ExportRecord.columnName`), worked out once from the header rather than every row.
    private let csvColumns: [(index: Int, column: ColumnMapping)]
    /// A Log Analytics CSV's id and time fields, when the header gives each by one column.
    let csvRowTimes: CSVRowTimes?
    /// A Log Analytics row (an object, or CSV) read straight into the values of some Graph
    /// paths of its mapped record (`withRowSlots`); nil when records are mapped whole.
    let rowSlots: RowSlots?
    /// The engine layout `rowSlots` reads for (`reading(for:)`), its slots' paths then the
    /// coordinates'; nil for other paths.
    private let rowSlotsLayout: EventLayout?

    /// What the live poll's decoder reads of a record (`TophhieSignInEvent(json:)`): the rest
    /// cannot make it refuse one, and coordinates no place has are dropped.
    static let checkedMembers: Set<String> = ["id", "createdDateTime", "status", "location"]

    /// What the first pass reads of a record that the second checks (`StreamedExport`'s
    /// `timesOnly`): its id and time, for the index.
    static let timeMembers: Set<String> = ["id", "createdDateTime"]
    static let timePaths = [["id"], ["createdDateTime"]]

    /// Columns the mapping reads whatever it is asked for: they make the time, the status and
    /// the stream of a record (`ExportRecord.fromLogAnalytics`, `fromAzureMonitor`).
    static let mappingInputs: Set<String> = ["TimeGenerated", "ResultType", "ResultDescription", "Type", "Category"]

    /// - Parameter members: the Graph members to read (top-level names); nil for the whole record.
    init(format: ExportFormat, shape: Shape, members: Set<String>?, rowSlots: RowSlots? = nil, rowSlotsLayout: EventLayout? = nil) {
        self.rowSlots = rowSlots
        self.rowSlotsLayout = rowSlotsLayout
        self.format = format
        self.shape = shape
        self.members = members
        csvColumns = Self.csvColumns(shape, format: format, members: members.map { $0.union(["id", "createdDateTime"]) })
        if case .csv(let header, _) = shape, format == .csv { csvRowTimes = CSVRowTimes(header: header) } else { csvRowTimes = nil }
        if case .json(let names?) = shape {
            var seen: Set<String> = []
            tableColumns = names.map { (ColumnMapping($0), seen.insert($0).inserted) }
        } else {
            tableColumns = nil
        }
        guard let members else {
            columnSlots = nil
            monitorSlots = nil
            projection = .everything
            columnsRead = nil
            return
        }
        let wanted = members.union(["id", "createdDateTime"])
        switch shape {
        case .json(let names):
            if format == .azureMonitor {
                // Graph's record is `properties`; the record's own time, id and category fill it in.
                let inside = wanted.sorted(), beside = inside + ["time", "correlationId", "category"]
                projection = JSONProjection(paths: inside.map { ["properties", $0] } + beside.map { [$0] })
                columnSlots = nil
                monitorSlots = (JSONSlotLayout(paths: inside.map { ["properties", $0] } + beside.map { [$0] }), inside, beside)
            } else {
                let columns = Self.columns(for: wanted).sorted()
                projection = JSONProjection(paths: columns.map { [$0] })
                columnSlots = names == nil ? (JSONSlotLayout(paths: columns.map { [$0] }), columns.map(ColumnMapping.init)) : nil
                monitorSlots = nil
            }
            columnsRead = names.map { $0.map { Self.reads(column: $0, for: wanted) } }
        case .csv(let header, _):
            projection = .everything
            columnSlots = nil
            monitorSlots = nil
            columnsRead = format == .adminCenterCSV ? header.map { Self.readsAdminCenter(column: $0, for: wanted) } : header.map { Self.reads(column: $0, for: wanted) }
        }
    }

    /// The columns of a Log Analytics CSV that are read, by the names the mapping reads: a
    /// dynamic column's JSON wins over its display text, else the first of a name.
    private static func csvColumns(_ shape: Shape, format: ExportFormat, members: Set<String>?) -> [(index: Int, column: ColumnMapping)] {
        guard case .csv(let header, _) = shape, format == .csv else { return [] }
        var chosen: [String: (index: Int, dynamic: Bool)] = [:]
        for (index, column) in header.enumerated() where members.map({ reads(column: column, for: $0) }) ?? true {
            let (name, dynamic) = ExportRecord.columnName(column)
            if let held = chosen[name], held.dynamic || !dynamic { continue }
            chosen[name] = (index, dynamic)
        }
        return chosen.map { (index: $0.value.index, column: ColumnMapping($0.key)) }.sorted { $0.index < $1.index }
    }

    /// The same export read for other members.
    func reading(_ members: Set<String>?) -> ExportReading { ExportReading(format: format, shape: shape, members: members) }

    /// The same, its Log Analytics rows (objects, CSV) read straight into the values at `paths`
    /// of their mapped records (`rowValues`) where they can be; other records as they are.
    func withRowSlots(_ paths: [[String]], for layout: EventLayout? = nil) -> ExportReading {
        guard !paths.isEmpty, format == .logAnalytics || format == .csv, let members else { return self }
        let slots: RowSlots
        switch shape {
        case .json(columnNames: nil):
            guard format == .logAnalytics else { return self }
            slots = RowSlots(paths: paths, columns: Self.columns(for: members.union(["id", "createdDateTime"])).sorted())
        case .csv:
            guard format == .csv else { return self }
            slots = RowSlots(paths: paths, columns: csvColumns.map(\.column.name))
        case .json:
            return self
        }
        return ExportReading(format: format, shape: shape, members: members, rowSlots: slots, rowSlotsLayout: layout)
    }

    /// The same export read for what `engine`'s events read (`members(readBy:)`): a Log
    /// Analytics row straight into their slots where it can be (`RowSlots`).
    /// - Parameter checking: the error code is read too, for the quick check (`event`'s `checkingAt`).
    func reading(for engine: Engine, checking: Bool = false) -> ExportReading {
        let reading = self.reading(Self.members(readBy: engine))
        guard let layout = engine.eventLayout, !layout.keepsKeywordTexts else { return reading }
        return reading.withRowSlots(layout.slots.map(\.components) + (checking ? [Self.errorCodePath] : []) + Self.coordinatePaths, for: layout)
    }

    /// Whether a record is read straight into the slots of the engine this reading is for
    /// (`reading(for:)`).
    var readsIntoSlots: Bool { rowSlots != nil && rowSlotsLayout != nil }

    /// Where the error code the quick check asks about is.
    static let errorCodePath = ["status", "errorCode"]

    /// Where the coordinates `ExportConversion.dropBadCoordinates` asks about are.
    static let coordinatePaths = [["location", "geoCoordinates", "latitude"], ["location", "geoCoordinates", "longitude"]]

    /// The values at `rowSlots`' paths of one record's mapped record, read from its bytes; nil
    /// when it is not read so (then it is mapped whole: `graphRecord`).
    /// - Parameter memory: this thread's memory of the rows it read before (`rowMemory()`).
    func rowValues(_ bytes: UnsafeRawBufferPointer, memory: RowSlots.Memory? = nil) -> [JSONValue?]? {
        rowValues { fillRow(bytes, memory: memory, into: $0) }
    }

    /// The values `fill` writes into a slot for each of `rowSlots`' paths; nil when it says
    /// the record is not read so.
    private func rowValues(_ fill: (UnsafeMutableBufferPointer<JSONValue?>) -> Bool) -> [JSONValue?]? {
        guard let rowSlots else { return nil }
        var values = [JSONValue?](repeating: nil, count: rowSlots.paths.count)
        return values.withUnsafeMutableBufferPointer { fill($0) } ? values : nil
    }

    /// `rowValues`, written into `output` (a slot for each of `rowSlots`' paths, each nil).
    /// - Returns: false when the record is not read so; `output` may then hold some values.
    func fillRow(_ bytes: UnsafeRawBufferPointer, memory: RowSlots.Memory? = nil, into output: UnsafeMutableBufferPointer<JSONValue?>) -> Bool {
        guard let rowSlots else { return false }
        switch shape {
        case .json:
            guard bytes.first(where: { !JSONElementSplitter.isSpace($0) }) == UInt8(ascii: "{") else { return false }
            return (try? rowSlots.fill(row: bytes, memory: memory, into: output)) ?? false
        case .csv(let header, _):
            guard let fields = try? CSVRows.fields(ofRecord: bytes, keeping: columnsRead), fields.count == header.count else { return false }
            return fillRow(fields: fields, memory: memory, into: output)
        }
    }

    /// `rowValues(fields:)`, written into `output`.
    private func fillRow(fields: CSVFields, memory: RowSlots.Memory?, into output: UnsafeMutableBufferPointer<JSONValue?>) -> Bool {
        guard let rowSlots else { return false }
        return csvColumns.withUnsafeBufferPointer { columns in rowSlots.fill(fields: fields, column: { columns[$0].index }, memory: memory, into: output) }
    }

    /// A memory of the rows one thread reads straight, one to the next, and its buffers
    /// (`RowSlots.Memory`); nil for records not read so.
    func rowMemory() -> RowSlots.Memory? {
        rowSlots?.memory()
    }

    /// By column, whether a CSV's field is read (`CSVRows.keeping`); nil for every one.
    var fieldsRead: [Bool]? {
        guard case .csv = shape else { return nil }
        return columnsRead
    }

    /// A CSV's columns, by its header; nil for JSON records.
    var columnCount: Int? {
        guard case .csv(let header, _) = shape else { return nil }
        return header.count
    }

    /// The same for a CSV row's fields (as many as the header's).
    /// - Parameter memory: this thread's buffers (`rowMemory()`).
    func rowValues(fields: CSVFields, memory: RowSlots.Memory? = nil) -> [JSONValue?]? {
        rowValues { fillRow(fields: fields, memory: memory, into: $0) }
    }

    /// The Graph members an engine's events read; nil when it reads every string of a record
    /// (a keyword search).
    static func members(readBy engine: Engine) -> Set<String>? {
        guard let layout = engine.eventLayout, !layout.keepsKeywordTexts else { return nil }
        return Set(layout.slots.compactMap(\.components.first))
    }

    /// The names a Log Analytics row or PowerShell object may give the columns that become
    /// `members`: each Graph name as it is and with its first letter raised (`ExportRecord.lowered`
    /// lowers only that one), the columns renamed to it, the mapping's inputs; and each with the
    /// portal's ` [UTC]` and `_dynamic` endings.
    static func columns(for members: Set<String>) -> Set<String> {
        var names = mappingInputs
        for member in members {
            names.insert(member)
            if let first = member.first { names.insert(first.uppercased() + member.dropFirst()) }
        }
        for (column, name) in ExportColumns.renamed where members.contains(name) { names.insert(column) }
        for name in names { names.formUnion([name + " [UTC]", name + "_dynamic"]) }
        return names
    }

    /// Whether a Log Analytics column (a table's, a CSV header's) becomes one of `members`, read
    /// as `ExportRecord.fromLogAnalytics` reads its name.
    static func reads(column: String, for members: Set<String>) -> Bool {
        let plain = ExportRecord.columnName(column).plain
        if mappingInputs.contains(plain) { return true }
        return members.contains(ExportColumns.columns[plain]?.name ?? ExportRecord.lowered(plain))
    }

    /// Whether an admin center column becomes one of `members` (`Status` and `Location` are read
    /// for the status and the place).
    static func readsAdminCenter(column: String, for members: Set<String>) -> Bool {
        let name = column.split(whereSeparator: { $0 == " " }).joined(separator: " ")
        if name == "Status" { return members.contains("status") }
        if name == "Location" { return members.contains("location") }
        guard let path = ExportColumns.adminCenter[name], let first = path.split(separator: ".").first else { return false }
        return members.contains(String(first))
    }

    /// A record as the file holds it, the columns not asked for left out.
    enum Row {
        case row(JSONValue)
        /// A Log Analytics row read by its columns' names (into slots, or a table's row), each
        /// column with what the mapping makes of it: no table of the row is built to be mapped.
        case columns([(column: ColumnMapping, value: JSONValue)])
        /// A table's row that is not an array of values.
        case notARow

        /// The record as the file holds it, as a JSON object (it names a refused record's file).
        var json: JSONValue {
            switch self {
            case .row(let row): return row
            case .columns(let columns): return .object(Dictionary(columns.map { ($0.column.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
            case .notARow: return .null
            }
        }
    }

    /// One JSON record's bytes, parsed.
    /// - Throws: `JSONParseError` when they are not JSON.
    func row(_ bytes: UnsafeRawBufferPointer) throws -> Row {
        guard case .json = shape else { preconditionFailure("a CSV row is read from its fields") }
        if let columnSlots, bytes.first(where: { !JSONElementSplitter.isSpace($0) }) == UInt8(ascii: "{") {
            let slots = try JSONValue.parseSlots(bytes, layout: columnSlots.layout)
            var columns: [(column: ColumnMapping, value: JSONValue)] = []
            columns.reserveCapacity(slots.count)
            for (column, value) in zip(columnSlots.columns, slots) { if let value { columns.append((column, value)) } }
            return .columns(columns)
        }
        if let monitorSlots, bytes.first(where: { !JSONElementSplitter.isSpace($0) }) == UInt8(ascii: "{") {
            let slots = try JSONValue.parseSlots(bytes, layout: monitorSlots.layout)
            // A member found inside `properties` says it is an object; without one (no id, no
            // time there) the record is read by the projection, which says what it is.
            let inside = monitorSlots.inside.count
            if slots[..<inside].contains(where: { $0 != nil }) {
                var properties = [String: JSONValue](minimumCapacity: inside)
                for (name, value) in zip(monitorSlots.inside, slots[..<inside]) where value != nil { properties[name] = value }
                var record: [String: JSONValue] = ["properties": .object(properties)]
                for (name, value) in zip(monitorSlots.beside, slots[inside...]) where value != nil { record[name] = value }
                return .row(.object(record))
            }
        }
        guard let tableColumns else { return .row(try JSONValue.parse(bytes, keeping: projection)) }
        // A row is its values in the order of the table's columns, named before it; only the
        // columns read are parsed.
        let values: [JSONValue?]
        if let columnsRead {
            guard let read = try JSONValue.parseElements(bytes, keeping: columnsRead) else { return .notARow }
            values = read
        } else {
            guard case .array(let read) = try JSONValue.parse(bytes) else { return .notARow }
            values = read
        }
        var columns: [(column: ColumnMapping, value: JSONValue)] = []
        columns.reserveCapacity(values.count)
        for ((column, first), value) in zip(tableColumns, values) where first {
            if let value { columns.append((column, value)) }
        }
        return .columns(columns)
    }

    /// One CSV row as Graph's record and as the file holds it (`.object([:])` for the admin
    /// center's: its names say nothing of what a file is).
    /// - Throws: `CSVTable.Failure` for a row whose field count is not the header's.
    func record(fields: CSVFields, line: Int) throws -> (mapped: JSONValue, row: Row) {
        guard case .csv(let header, let nonInteractive) = shape else { preconditionFailure("a JSON record is read from its bytes") }
        guard fields.count == header.count else {
            throw CSVTable.Failure(line: line, message: "\(fields.count) fields where the header names \(header.count)")
        }
        if format == .adminCenterCSV {
            var pairs: [(header: String, text: String)] = []
            for index in header.indices where columnsRead?[index] != false { pairs.append((header[index], fields[index])) }
            return (ExportRecord.fromAdminCenter(pairs, nonInteractive: nonInteractive), .row(.object([:])))
        }
        let columns = csvColumns.map { (column: $0.column, value: JSONValue.string(fields[$0.index])) }
        return (ExportRecord.fromLogAnalytics(columns: columns), .columns(columns))
    }

    /// A JSON record as Graph's.
    func mapped(_ row: Row) -> JSONValue {
        switch row {
        case .row(let row): return format == .azureMonitor ? ExportRecord.fromAzureMonitor(row) : ExportRecord.fromLogAnalytics(row)
        case .columns(let columns): return format == .azureMonitor ? ExportRecord.fromAzureMonitor(row.json) : ExportRecord.fromLogAnalytics(columns: columns)
        case .notARow: return .null
        }
    }

    /// A record's bytes, found by the first pass, as Graph's record, its impossible coordinates
    /// dropped as the first pass dropped them.
    /// - Throws: what reading them throws when they no longer read (the file changed).
    func graphRecord(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        var record: JSONValue
        switch shape {
        case .json:
            let row = try self.row(bytes)
            if case .notARow = row { throw SignInEventError("not a row") }
            record = mapped(row)
        case .csv:
            record = try self.record(fields: try CSVRows.fields(ofRecord: bytes, keeping: columnsRead), line: 0).mapped
        }
        _ = ExportConversion.dropBadCoordinates(&record)
        return record
    }

    /// A record's bytes as the engine's event, read as the engine reads a Graph record: into its
    /// slots when its rules name their fields (each the value at its path), else whole.
    /// - Throws: when the bytes no longer read as they did; with `checkingAt`,
    ///   `PlainRecordCheck.Failed` for a record not read straight into the slots or not passing
    ///   the quick check there (the reading must be `reading(for:checking:)`'s).
    /// - Parameter memory: this thread's memory of the rows it read before (`rowMemory()`).
    /// - Parameter checkingAt: the record's place in the file, when it is to be checked.
    func event(_ bytes: UnsafeRawBufferPointer, engine: Engine, memory: RowSlots.Memory? = nil, checkingAt offset: Int? = nil) throws -> any FastEvent {
        // Straight into the slots, unless coordinates no place has are to be dropped.
        if let layout = engine.eventLayout, layout === rowSlotsLayout, let rowSlots {
            // Read into a buffer of the row's own and moved into the event's slots: a list of
            // the values, copied in and freed, went through the generic runtime for each.
            let event = try withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: rowSlots.paths.count) { values -> SlotEvent? in
                values.initialize(repeating: nil)
                defer { JSONValue.dropSlots(values) }
                guard fillRow(bytes, memory: memory, into: values) else { return nil }
                return try slotEvent(values, row: bytes, layout: layout, checking: offset != nil)
            }
            if let event { return event }
        }
        // The first pass that checks each record says what this one is.
        if let offset { throw PlainRecordCheck.Failed(offset: offset) }
        let record = try graphRecord(bytes)
        guard let layout = engine.eventLayout else { return fastEvent(try SignInEvents.event(record)) }
        return try layout.event(json: record)
    }

    /// The engine's event of a row read into `values` (the slots of `rowSlots`' paths), moved
    /// out of them; nil when, `checking`, it does not pass the quick check, or its coordinates
    /// are ones no place has.
    private func slotEvent(_ values: UnsafeMutableBufferPointer<JSONValue?>, row bytes: UnsafeRawBufferPointer, layout: EventLayout,
                           checking: Bool) throws -> SlotEvent? {
        let count = values.count
        if checking {
            // JSON's text is read straight only where it is plain (`StreamedExport.read`).
            if case .json = shape, !ExportConversion.textsRead(bytes) { return nil }
            guard ExportConversion.plainlyReads([values[0], values[1], values[count - 3], values[count - 2], values[count - 1]]) else { return nil }
        }
        guard !TophhieSignInEvent.outOfRange(latitude: values[count - 2]?.doubleValue, longitude: values[count - 1]?.doubleValue) else { return nil }
        return try layout.event { slots in for place in slots.indices { swap(&slots[place], &values[place]) } }
    }

    /// `event(_:engine:memory:checkingAt:)`, checking, for the JSON row that starts at `start` in
    /// bytes that go on past it (a run's), read in place straight into the slots: the event,
    /// and the index just past the row. Finding each row of a run first was a tenth of reading it.
    /// - Throws: `PlainRecordCheck.Failed` at `offset` for a row not read straight into the
    ///   slots (the reading must be `reading(for:checking:)`'s), or not passing the quick check.
    func checkedEvent(in bytes: UnsafeRawBufferPointer, from start: Int, engine: Engine, memory: RowSlots.Memory, offset: Int) throws
        -> (event: SlotEvent, end: Int) {
        guard case .json = shape, let layout = engine.eventLayout, layout === rowSlotsLayout, let rowSlots else { throw PlainRecordCheck.Failed(offset: offset) }
        let read = try withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: rowSlots.paths.count) { values -> (SlotEvent, Int)? in
            values.initialize(repeating: nil)
            defer { JSONValue.dropSlots(values) }
            guard let end = (try? rowSlots.fill(rowIn: bytes, from: start, memory: memory, into: values)) ?? nil,
                  let event = try slotEvent(values, row: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), layout: layout, checking: true) else { return nil }
            return (event, end)
        }
        guard let read else { throw PlainRecordCheck.Failed(offset: offset) }
        return read
    }

    /// The id of a record's sign-in (for the order of sign-ins that share a time).
    func id(_ bytes: UnsafeRawBufferPointer) -> String? {
        (try? graphRecord(bytes))?["id"]?.stringValue
    }
}
