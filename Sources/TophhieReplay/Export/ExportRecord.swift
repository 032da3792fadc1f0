import Foundation
import TophhieJSON

/// One exported sign-in as Graph's signIn record, so every reader decodes it as a poll does.
enum ExportRecord {
    /// Graph's record inside an Azure Monitor diagnostic record: its `properties`, with the
    /// record's `time` when it has no `createdDateTime`, and its stream from `category`.
    static func fromAzureMonitor(_ record: JSONValue) -> JSONValue {
        guard case .object(let outer) = record, case .object(var properties)? = outer["properties"] else { return record }
        if properties["createdDateTime"] == nil, let time = outer["time"] { properties["createdDateTime"] = time }
        if properties["id"] == nil, let id = outer["correlationId"] { properties["id"] = id }
        if let category = outer["category"]?.stringValue { stream(category, into: &properties) }
        return .object(properties)
    }

    /// A Log Analytics column's name as the mapping reads it: without the portal's ` [UTC]`, and
    /// a dynamic column's (`DeviceDetail_dynamic`, its JSON, which wins over `DeviceDetail`, the
    /// display text) without `_dynamic`.
    static func columnName(_ name: String) -> (plain: String, dynamic: Bool) {
        // Foundation's search for every column of every row was a third of reading JSON rows.
        let plain = holds(UInt8(ascii: "["), name) ? name.replacingOccurrences(of: " [UTC]", with: "") : name
        guard plain.utf8.count > 8, plain.utf8.reversed().starts(with: "_dynamic".utf8.reversed()) else { return (plain, false) }
        return (String(plain.dropLast(8)), true)
    }

    /// Graph's record from a Log Analytics row or a Graph PowerShell object.
    static func fromLogAnalytics(_ row: JSONValue) -> JSONValue {
        guard case .object(let given) = row else { return row }
        return fromLogAnalytics(columns: given.map { (ColumnMapping($0.key), $0.value) })
    }

    /// Graph's record from a row's columns, each with what the mapping makes of it.
    /// - Complexity: O(columns), a lookup by name only for a row with renamed columns.
    static func fromLogAnalytics(columns given: [(column: ColumnMapping, value: JSONValue)]) -> JSONValue {
        // The portal's CSV names a column `TimeGenerated [UTC]`, and a dynamic one twice:
        // `DeviceDetail` (display text) and `DeviceDetail_dynamic` (its JSON), which wins, else
        // the first of a name. A row with neither (every JSON row) is its own list of columns.
        var columns = given
        if given.contains(where: { $0.column.isRenamed }) {
            columns = []
            columns.reserveCapacity(given.count)
            var held: [String: Int] = [:]
            for (column, value) in given {
                guard let at = held[column.plain] else {
                    held[column.plain] = columns.count
                    columns.append((column, value))
                    continue
                }
                if column.dynamic { columns[at] = (column, value) }
            }
        }
        // Sized once: growing the table a row's forty columns at a time was an eighth of it.
        var record = [String: JSONValue](minimumCapacity: columns.count + 1)
        var inputs = ColumnMapping.Inputs()
        for (column, value) in columns {
            inputs.note(column.input, value)
            guard let member = column.member else { continue }
            if column.isCountry, case .string = value { continue }
            record[member] = normalised(column.reading, value)
        }
        finish(&record, inputs)
        return .object(record)
    }

    /// The members the mapping makes from its own inputs where the columns did not give them:
    /// the time, the status and the stream (`FinishedMembers`, and only those).
    static func finish(_ record: inout [String: JSONValue], _ inputs: ColumnMapping.Inputs) {
        var members = FinishedMembers(of: record)
        finish(&members, inputs)
        members.write(into: &record)
    }

    /// The same, of those members alone.
    /// - Parameter status: false leaves the status as it is, for a reader that asks
    ///   `statusDefault` of the members it reads instead of making the object.
    static func finish(_ record: inout FinishedMembers, _ inputs: ColumnMapping.Inputs, status finishingStatus: Bool = true) {
        // The time of the sign-in: CreatedDateTime, else when Log Analytics took it in.
        if record.createdDateTime == nil, let generated = inputs.generated {
            record.createdDateTime = normalised(ExportColumns.reading("TimeGenerated"), generated)
        }
        if case .string(let text)? = record.createdDateTime, let iso = powerShellDate(text) ?? portalDate(text) { record.createdDateTime = .string(iso) }
        if finishingStatus {
            var status: [String: JSONValue] = [:]
            if case .object(let given)? = record.status { status = given }
            for name in statusDefaults where status[name] == nil {
                if let value = statusDefault(name, inputs) { status[name] = value }
            }
            if !status.isEmpty { record.status = .object(status) }
        }
        if let table = inputs.type?.stringValue ?? inputs.category?.stringValue { stream(table, into: &record) }
    }

    /// The status's members a row's own inputs give when its status lacks them.
    static let statusDefaults = ["errorCode", "failureReason"]

    /// The value a row's inputs give its status's member `name` when the status lacks it:
    /// ResultType is the error code (text there), ResultDescription its reason.
    static func statusDefault(_ name: String, _ inputs: ColumnMapping.Inputs) -> JSONValue? {
        switch name {
        case "errorCode": return inputs.resultType.map(integer)
        case "failureReason":
            guard let reason = inputs.resultDescription, reason != .null else { return nil }
            return reason
        default: return nil
        }
    }

    /// Graph's record from a row of the Entra admin center's CSV download. The download holds
    /// one stream per file (`InteractiveSignIns_…csv`, `NonInteractiveSignIns_…csv`), so the
    /// stream comes from the file's name.
    /// - Parameter row: header name (as written) to field text.
    static func fromAdminCenter(_ row: [(header: String, text: String)], nonInteractive: Bool) -> JSONValue {
        var record: [String: JSONValue] = [:]
        var statusText: String?
        for (header, text) in row {
            let name = header.split(whereSeparator: { $0 == " " }).joined(separator: " ")
            if name == "Status" { statusText = text }
            if name == "Location" {
                if record["location"] == nil, let location = adminCenterLocation(text) { record["location"] = location }
                continue
            }
            guard let path = ExportColumns.adminCenter[name], !text.isEmpty else { continue }
            var value = JSONValue.string(text)
            if ExportColumns.adminCenterIntegers.contains(path) { value = integer(value) }
            if ExportColumns.adminCenterBooleans.contains(path) {
                switch text.lowercased() {
                case "true", "yes": value = .bool(true)
                case "false", "no": value = .bool(false)
                default: break
                }
            }
            if let members = ExportColumns.adminCenterEnumerations[path] {
                let words = text.lowercased().filter { $0 != " " && $0 != "-" }
                if let member = members.first(where: { $0.lowercased() == words }) { value = .string(member) }
            }
            if path == "createdDateTime", GraphTimestamp.parse(text) == nil, let iso = portalDate(text) { value = .string(iso) }
            // The download repeats a column (`Incoming token type`): the first is kept.
            let steps = path.split(separator: ".").map(String.init)
            if steps.count == 1 {
                if record[path] == nil { record[path] = value }
            } else {
                guard case .object(var inner) = record[steps[0]] ?? .object([:]) else { continue }
                if inner[steps[1]] == nil { inner[steps[1]] = value }
                record[steps[0]] = .object(inner)
            }
        }
        // Every sign-in has a status; a success is written with its code left empty.
        if let statusText, !statusText.isEmpty, case .object(var status) = record["status"] ?? .object([:]) {
            if status["errorCode"] == nil, statusText.lowercased() == "success" { status["errorCode"] = .int(0) }
            record["status"] = .object(status)
        }
        stream(nonInteractive ? "NonInteractiveUserSignInLogs" : "SigninLogs", into: &record)
        return .object(record)
    }

    /// The admin center's `Location` column, `City, State, CC` (fewer parts when unknown), as
    /// Graph's location; no coordinates are in the download.
    static func adminCenterLocation(_ text: String) -> JSONValue? {
        let parts = text.components(separatedBy: ", ").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        let country = parts.last ?? ""
        let city = parts.count >= 2 ? parts[0] : ""
        let state = parts.count >= 3 ? parts[1...(parts.count - 2)].joined(separator: ", ") : ""
        return .object(["city": .string(city), "state": .string(state), "countryOrRegion": .string(country), "geoCoordinates": .object([:])])
    }

    /// `isInteractive` and `signInEventTypes` from the table or category, where the record
    /// does not say.
    static func stream(_ table: String, into record: inout [String: JSONValue]) {
        // The two it reads and writes: an Azure Monitor record asks this of every record.
        let names: [FinishedMembers.Name] = [.isInteractive, .signInEventTypes]
        var members = FinishedMembers(of: record, names)
        stream(table, into: &members)
        members.write(into: &record, names)
    }

    /// The same, of the finished members alone.
    static func stream(_ table: String, into record: inout FinishedMembers) {
        // Two names: compared, not hashed (every row asks).
        let nonInteractive = ExportColumns.nonInteractiveTables.contains { $0 == table }
        if record.isInteractive == nil { record.isInteractive = .bool(!nonInteractive) }
        if record.signInEventTypes == nil || record.signInEventTypes == .null {
            record.signInEventTypes = .array([.string(nonInteractive ? "nonInteractiveUser" : "interactiveUser")])
        }
    }

    /// A column's value as Graph writes it, read as the column says (`ExportColumns.Reading`):
    /// JSON text parsed, booleans and numbers from text, names inside objects lowered.
    static func normalised(_ reading: ExportColumns.Reading, _ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            switch reading {
            case .jsonText:
                let trimmed = trimmingSpaces(text)
                if trimmed.isEmpty { return .null }
                var bytes = trimmed
                let parsed = bytes.withUTF8 { try? JSONValue.parse(UnsafeRawBufferPointer($0)) }
                return parsed.map(lowerKeys) ?? value
            case .boolean: return boolean(value)
            case .integer: return integer(value)
            case .plain: return value
            }
        case .object, .array:
            return lowerKeys(value)
        default:
            return value
        }
    }

    /// Names inside objects with their first letter lowered (PowerShell's `ErrorCode`), and
    /// their text booleans and numbers read.
    static func lowerKeys(_ value: JSONValue) -> JSONValue {
        // Log Analytics writes the names inside its objects as Graph does: nothing to rebuild.
        if !needsLowering(value) { return value }
        switch value {
        case .object(let members):
            var out = [String: JSONValue](minimumCapacity: members.count)
            for (key, inner) in members where key != "AdditionalProperties" {
                let name = lowered(key)
                // `errorCode` beside `ErrorCode`: the name as Graph writes it wins, whichever
                // the table gives first (its order is no order).
                if name != key, out[name] != nil { continue }
                out[name] = member(name, lowerKeys(inner))
            }
            return .object(out)
        case .array(let items):
            return .array(items.map(lowerKeys))
        default:
            return value
        }
    }

    /// A member inside an object as `lowerKeys` leaves it, by its lowered name: the text of a
    /// boolean or a number (`ExportColumns.memberReading`) read.
    static func member(_ name: String, _ value: JSONValue) -> JSONValue {
        member(ExportColumns.memberReading(name), value)
    }

    /// The same, the name's reading looked up before.
    static func member(_ reading: ExportColumns.Reading?, _ value: JSONValue) -> JSONValue {
        switch reading {
        case .boolean?: return boolean(value)
        case .integer?: return integer(value)
        default: return value
        }
    }

    /// Whether `lowerKeys` would change `value`: a name inside it to lower or drop, or a text
    /// to read as a boolean or a number.
    static func needsLowering(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members):
            for (key, inner) in members {
                if key == "AdditionalProperties" { return true }
                if let first = key.utf8.first, first >= 0x80 || (first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z")) { return true }
                if case .string = inner, ExportColumns.memberReading(key) != nil { return true }
                if needsLowering(inner) { return true }
            }
            return false
        case .array(let items):
            return items.contains(where: needsLowering)
        default:
            return false
        }
    }

    static func lowered(_ name: String) -> String {
        // Most names are ASCII: their first byte says it, without Unicode's properties.
        if let first = name.utf8.first, first < 0x80 {
            guard first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") else { return name }
            var bytes = Array(name.utf8)
            bytes[0] = first + 0x20
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let first = name.first, first.isUppercase else { return name }
        return first.lowercased() + name.dropFirst()
    }

    static func boolean(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value else { return value }
        switch text.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "": return .null
        default: return value
        }
    }

    static func integer(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value else { return value }
        let trimmed = trimmingSpaces(text)
        if let number = Int64(trimmed) { return .int(number) }
        return trimmed.isEmpty ? .null : value
    }

    /// The Log Analytics portal's CSV writes `5/1/2024, 10:00:00.123 AM` in a `[UTC]` column.
    /// - Returns: the time as ISO 8601 text, its fraction as written (no float in between).
    static func portalDate(_ text: String) -> String? {
        // Most times are ISO 8601 already: no slash, no regular expression to run.
        guard holds(UInt8(ascii: "/"), text) else { return nil }
        let pattern = #"^(\d{1,2})/(\d{1,2})/(\d{4}),? (\d{1,2}):(\d{2}):(\d{2})(\.\d+)? ?(AM|PM)?$"#
        guard let match = text.range(of: pattern, options: .regularExpression), match == text.startIndex..<text.endIndex else { return nil }
        let parts = text.split(whereSeparator: { "/, :".contains($0) }).map(String.init)
        guard parts.count >= 6, var hour = Int(parts[3]), let month = Int(parts[0]), let day = Int(parts[1]), let year = Int(parts[2]) else { return nil }
        if parts.count > 6 {
            let half = parts[6].uppercased()
            if half == "PM" && hour < 12 { hour += 12 }
            if half == "AM" && hour == 12 { hour = 0 }
        }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let iso = "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(parts[4]):\(parts[5])Z"
        return GraphTimestamp.parse(iso) == nil ? nil : iso
    }

    /// Windows PowerShell 5.1 writes a date as `/Date(1714557600000)/` (milliseconds).
    /// - Returns: the time as ISO 8601 text to the millisecond; nil for a count outside the
    ///   years 1 to 9999 that ISO 8601 text holds (the record is then skipped and named, as one
    ///   whose `createdDateTime` does not read: `/Date(-9223372036854775808)/` trapped here).
    static func powerShellDate(_ text: String) -> String? {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        let digits = text.dropFirst(6).prefix { $0.isNumber || $0 == "-" }
        guard let milliseconds = Int64(digits), powerShellMilliseconds.contains(milliseconds) else { return nil }
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = String(milliseconds - seconds * 1000)
        let whole = GraphTimestamp.filterText(Date(timeIntervalSince1970: Double(seconds)))
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    /// `text` without the spaces and tabs around it; the text itself, uncopied and without
    /// Foundation's character sets, when it has none (nearly every field of every row).
    static func trimmingSpaces(_ text: String) -> String {
        // An ASCII letter or digit at both ends (nearly every field): nothing to trim.
        if let first = text.utf8.first, let last = text.utf8.last, first > 0x20, first < 0x80, last > 0x20, last < 0x80 { return text }
        guard let first = text.first, let last = text.last, !first.isWhitespace, !last.isWhitespace else {
            return text.trimmingCharacters(in: .whitespaces)
        }
        return text
    }

    /// Whether `text` holds `byte`, read in place (the generic search of a `UTF8View` took a
    /// tenth of mapping a row).
    static func holds(_ byte: UInt8, _ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? text.utf8.contains(byte)
    }

    /// The milliseconds since 1970 from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z.
    static let powerShellMilliseconds: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999
}
