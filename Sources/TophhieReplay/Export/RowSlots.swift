import Foundation
import TophhieJSON

/// A Log Analytics row read straight into the values its mapped record has at some Graph
/// paths, as `ExportRecord.fromLogAnalytics` would give them, without a tree of the row's
/// objects or of the record: a column's object is read only for the members under it that the
/// paths name, and the mapping's own steps (`normalised`, `lowerKeys`, `member`, `finish`)
/// are applied to what is read.
///
/// A row this cannot read as the mapping does gives nil, and is mapped whole: two columns
/// that become one member (`Id` and `id`), a portal name (` [UTC]`, `_dynamic`), a name inside
/// an object that lowering makes one the paths name (`City` beside `city`), JSON text with a
/// surrogate escape.
struct RowSlots: Sendable {
    /// The Graph paths read, each value in `values`' place of the same number.
    let paths: [[String]]
    /// A JSON row's columns as slots: each column's own value (an empty object for an object
    /// read for the paths under it), those paths, and the names that would lower onto them.
    let layout: JSONSlotLayout

    private struct Column: Sendable {
        let mapping: ColumnMapping
        /// Its slot in `layout`.
        let slot: Int
        /// Paths inside its value that are read, and their slots in `layout`.
        let under: [[String]]
        let underSlots: [Int]
        /// How the last name of each of `under` is read (`ExportColumns.memberReading`).
        let underReadings: [ExportColumns.Reading?]
        /// Slots in `layout` of names that `ExportRecord.lowered` makes one of `under`'s.
        let clashSlots: [Int]
        /// Whether an object is read for `under` alone (not when its whole value is read).
        let opens: Bool
        /// `under`, then the clashing names, for the column's value written as JSON text.
        let text: JSONSlotLayout?
    }

    /// One member the paths name, and the columns that become it.
    private struct Member: Sendable {
        let name: String
        let columns: [Int]
        /// The mapping makes it from its inputs too (`ExportRecord.finishedMembers`).
        let finished: Bool
    }

    /// One path: its member (in `members`), and the rest of it, with its place in each of the
    /// member's columns' `under` (-1 for the whole value).
    private struct Path: Sendable {
        let member: Int
        let rest: [String]
        let places: [Int]
    }

    private let columns: [Column]
    /// What is asked of every column of every row, as plain values apart from `Column` (whose
    /// strings and lists a copy retains).
    private struct Facts: Sendable {
        let slot: Int
        let renamed: Bool
        let input: ColumnMapping.Input?
        let becomesMember: Bool
        let isCountry: Bool
        let reading: ExportColumns.Reading
        let opens: Bool
    }
    private let facts: [Facts]
    private let members: [Member]
    private let steps: [Path]
    /// Whether a member the paths name is made by `ExportRecord.finish`.
    private let finishes: Bool

    /// - Parameters:
    ///   - paths: Graph paths (each non-empty).
    ///   - columns: the row's columns that may be read, by name: those that become the paths'
    ///     members and the mapping's inputs (`ExportReading.columns(for:)`, a CSV's columns).
    init(paths: [[String]], columns names: [String]) {
        self.paths = paths
        // The portal's names (` [UTC]`, `_dynamic`) are looked for in a row's bytes instead: a
        // slot each tripled a row's slots, each made and freed for every row.
        let mappings = names.map(ColumnMapping.init).filter { !$0.isRenamed }
        var memberNames: [String] = []
        for path in paths where !memberNames.contains(path[0]) { memberNames.append(path[0]) }
        // What each column is read for: the rests of the paths of its member.
        var rests: [[[String]]] = Array(repeating: [], count: mappings.count)
        var whole = [Bool](repeating: false, count: mappings.count)
        for (index, mapping) in mappings.enumerated() {
            if mapping.input != nil { whole[index] = true }
            guard let member = mapping.member, memberNames.contains(member) else { continue }
            var wanted = paths.filter { $0[0] == member }.map { Array($0.dropFirst()) }
            // `finish` reads these of a status.
            if member == "status" { wanted += [["errorCode"], ["failureReason"]] }
            for rest in wanted {
                // A name lowering changes (`AdditionalProperties`, `City`) is never in the mapped
                // record as it is written: the whole value is read, and the mapping says.
                if rest.isEmpty || rest.contains(where: { ExportRecord.lowered($0) != $0 }) { whole[index] = true }
                if !rest.isEmpty, !rests[index].contains(rest) { rests[index].append(rest) }
            }
        }
        var layoutPaths: [[String]] = [], opening: Set<Int> = []
        var columns: [Column] = []
        for (index, mapping) in mappings.enumerated() {
            let slot = layoutPaths.count
            layoutPaths.append([mapping.name])
            let under = rests[index]
            let opens = !under.isEmpty && !whole[index]
            if opens { opening.insert(slot) }
            var underSlots: [Int] = [], clashSlots: [Int] = []
            var clashes: [[String]] = []
            if opens {
                for rest in under {
                    underSlots.append(layoutPaths.count)
                    layoutPaths.append([mapping.name] + rest)
                }
                for rest in under {
                    for (position, name) in rest.enumerated() {
                        for clash in Self.clashing(name) where !clashes.contains(Array(rest[..<position]) + [clash]) {
                            clashes.append(Array(rest[..<position]) + [clash])
                        }
                    }
                }
                for clash in clashes {
                    clashSlots.append(layoutPaths.count)
                    layoutPaths.append([mapping.name] + clash)
                }
            }
            let text = opens && mapping.reading == .jsonText ? JSONSlotLayout(paths: under + clashes) : nil
            columns.append(Column(mapping: mapping, slot: slot, under: opens ? under : [], underSlots: underSlots,
                                  underReadings: (opens ? under : []).map { ExportColumns.memberReading($0.last!) },
                                  clashSlots: clashSlots, opens: opens, text: text))
        }
        layout = JSONSlotLayout(paths: layoutPaths, opening: opening)
        self.columns = columns
        facts = columns.map {
            Facts(slot: $0.slot, renamed: $0.mapping.isRenamed, input: $0.mapping.input, becomesMember: $0.mapping.member != nil,
                  isCountry: $0.mapping.isCountry, reading: $0.mapping.reading, opens: $0.opens)
        }
        members = memberNames.map { name in
            Member(name: name, columns: mappings.indices.filter { mappings[$0].member == name }, finished: ExportRecord.finishedMembers.contains(name))
        }
        steps = paths.map { path in
            let member = memberNames.firstIndex(of: path[0])!
            let rest = Array(path.dropFirst())
            return Path(member: member, rest: rest, places: mappings.indices.filter { mappings[$0].member == path[0] }.map { columns[$0].under.firstIndex(of: rest) ?? -1 })
        }
        finishes = members.contains(where: \.finished)
    }

    /// The name other than `name` that `ExportRecord.lowered` makes `name`: its first letter
    /// raised (a row with the Kelvin sign, which lowers to `k`, is not read: `mayNameOtherwise`).
    static func clashing(_ name: String) -> [String] {
        guard let first = name.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return [] }
        return [String(UnicodeScalar(first - 0x20)) + name.dropFirst()]
    }

    /// The values at `paths` of a JSON row's mapped record.
    /// - Returns: nil when the row is not read so (the mapping reads it whole).
    /// - Throws: `JSONParseError` when the bytes are not a JSON object.
    func values(row bytes: UnsafeRawBufferPointer) throws -> [JSONValue?]? {
        if Self.mayNameOtherwise(bytes) { return nil }
        var slots = [JSONValue?](repeating: nil, count: layout.paths.count)
        try slots.withUnsafeMutableBufferPointer { try JSONValue.parseSlots(bytes, layout: layout, into: $0) }
        return facts.withUnsafeBufferPointer { facts in
            slots.withUnsafeBufferPointer { slots in resolve(slots) { slots[facts[$0].slot] } }
        }
    }

    /// Whether a row's (or a column's JSON text's) bytes may name something the slots do not
    /// see as the mapping sees it: a column as the portal names it (` [UTC]"`, `_dynamic"`), an
    /// escape (`\u`) that may spell a name, or the Kelvin sign (U+212A), which Swift's strings
    /// take for `K` (the one name past ASCII that is one of ASCII's).
    static func mayNameOtherwise(_ bytes: UnsafeRawBufferPointer) -> Bool {
        @inline(__always) func ends(_ suffix: StaticString, at end: Int) -> Bool {
            let count = suffix.utf8CodeUnitCount
            guard end >= count - 1, end < bytes.count else { return false }
            for offset in 0..<count where bytes[end - count + 1 + offset] != suffix.utf8Start[offset] { return false }
            return true
        }
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while they hold no `]`, `_`, backslash or 0xE2 (nearly all of a row).
            if index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                func has(_ byte: UInt64) -> UInt64 {
                    let x = word ^ (byte &* 0x0101_0101_0101_0101)
                    return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
                }
                if has(0x5D) | has(0x5F) | has(0x5C) | has(0xE2) == 0 {
                    index += 8
                    continue
                }
            }
            switch bytes[index] {
            case UInt8(ascii: "\\"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") { return true }
                index += 2
                continue
            case UInt8(ascii: "]"):
                if ends(" [UTC]\"", at: index + 1) { return true }
            case UInt8(ascii: "_"):
                if ends("_dynamic\"", at: index + 8) { return true }
            case 0xE2:
                if index + 2 < bytes.count, bytes[index + 1] == 0x84, bytes[index + 2] == 0xAA { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// The values at `paths` of a CSV row's mapped record, from its fields.
    /// - Parameter fields: by column (in the order given to `init`), its text.
    /// - Returns: nil when the row is not read so (the mapping reads it whole).
    func values(fields: (Int) -> String) -> [JSONValue?]? {
        resolve(UnsafeBufferPointer(start: nil, count: 0)) { .string(fields($0)) }
    }

    /// What a column gives the record: its value as the mapping makes it, or the values at its
    /// `under` paths in it.
    private enum Given {
        case absent
        case whole(JSONValue)
        case under([JSONValue?])
    }

    private func resolve(_ slots: UnsafeBufferPointer<JSONValue?>, _ raw: (Int) -> JSONValue?) -> [JSONValue?]? {
        var given = [Given](repeating: .absent, count: columns.count)
        var generated: JSONValue?, resultType: JSONValue?, resultDescription: JSONValue?, type: JSONValue?, category: JSONValue?
        for index in 0..<facts.count {
            guard let value = raw(index) else { continue }
            let mapping = facts[index]
            // Two names of one column: the mapping chooses between them.
            if mapping.renamed { return nil }
            switch mapping.input {
            case .timeGenerated?: generated = value
            case .resultType?: resultType = value
            case .resultDescription?: resultDescription = value
            case .type?: type = value
            case .category?: category = value
            case nil: break
            }
            guard mapping.becomesMember else { continue }
            if mapping.isCountry, case .string = value { continue }
            guard mapping.opens else {
                given[index] = .whole(ExportRecord.normalised(mapping.reading, value))
                continue
            }
            let column = columns[index]
            switch value {
            case .object:
                for slot in column.clashSlots where slots[slot] != nil { return nil }
                given[index] = .under(Self.members(column, column.underSlots.map { slots[$0] }))
            case .string(let text) where column.text != nil:
                let trimmed = ExportRecord.trimmingSpaces(text)
                guard trimmed.utf8.first == UInt8(ascii: "{") else {
                    given[index] = .whole(ExportRecord.normalised(mapping.reading, value))
                    continue
                }
                guard let read = Self.read(trimmed, column) else { return nil }
                given[index] = read.map { .under($0) } ?? .whole(value)
            default:
                given[index] = .whole(ExportRecord.normalised(mapping.reading, value))
            }
        }
        // Each member from its one column; the finished ones then through `finish`.
        var chosen = [Int](repeating: -1, count: members.count)
        var record: [String: JSONValue] = [:]
        for (place, member) in members.enumerated() {
            for column in member.columns {
                if case .absent = given[column] { continue }
                if chosen[place] >= 0 { return nil }
                chosen[place] = column
            }
            if member.finished, chosen[place] >= 0 { record[member.name] = whole(given[chosen[place]], columns[chosen[place]].under) }
        }
        if finishes {
            ExportRecord.finish(&record, generated: generated, resultType: resultType, resultDescription: resultDescription, type: type, category: category)
        }
        return steps.map { step in
            let member = members[step.member]
            if member.finished {
                guard let value = record[member.name] else { return nil }
                return step.rest.isEmpty ? value : value.value(at: step.rest)
            }
            let column = chosen[step.member]
            guard column >= 0 else { return nil }
            switch given[column] {
            case .absent: return nil
            case .whole(let value): return step.rest.isEmpty ? value : value.value(at: step.rest)
            case .under(let values):
                let place = step.places[member.columns.firstIndex(of: column)!]
                return values[place]
            }
        }
    }

    /// A column's JSON text (an object) read for its `under` paths, as `normalised` and
    /// `lowerKeys` read it.
    /// - Returns: nil when it is not read so (a clashing name, a surrogate escape); `.some(nil)`
    ///   when it is not JSON (the mapping keeps the text).
    private static func read(_ text: String, _ column: Column) -> [JSONValue?]?? {
        var text = text
        return text.withUTF8 { utf8 -> [JSONValue?]?? in
            let bytes = UnsafeRawBufferPointer(utf8)
            // A lone surrogate in a member no path reads is not walked as the parser reads it.
            guard ExportConversion.textsRead(bytes), !mayNameOtherwise(bytes), let layout = column.text else { return nil }
            guard let slots = try? JSONValue.parseSlots(bytes, layout: layout) else { return .some(nil) }
            if slots[column.under.count...].contains(where: { $0 != nil }) { return nil }
            return .some(members(column, Array(slots[..<column.under.count])))
        }
    }

    /// The values read at a column's `under` paths as the mapping leaves them: names inside
    /// lowered, text booleans and numbers read.
    private static func members(_ column: Column, _ values: [JSONValue?]) -> [JSONValue?] {
        var values = values
        for (place, reading) in column.underReadings.enumerated() {
            guard let value = values[place] else { continue }
            values[place] = ExportRecord.member(reading, ExportRecord.lowerKeys(value))
        }
        return values
    }

    /// A column's value in the record: the whole, or an object of what was read under it.
    private func whole(_ given: Given, _ under: [[String]]) -> JSONValue? {
        switch given {
        case .absent: return nil
        case .whole(let value): return value
        case .under(let values):
            // Nearly always names with nothing under them (a status's `errorCode`).
            var members = [String: JSONValue](minimumCapacity: under.count)
            for (path, value) in zip(under, values) {
                guard let value else { continue }
                members[path[0]] = path.count == 1 ? value : Self.setting(value, at: path.dropFirst(), in: members[path[0]] ?? .object([:]))
            }
            return .object(members)
        }
    }

    private static func setting(_ value: JSONValue, at path: ArraySlice<String>, in object: JSONValue) -> JSONValue {
        guard let name = path.first else { return value }
        guard case .object(var members) = object else { return object }
        members[name] = setting(value, at: path.dropFirst(), in: members[name] ?? .object([:]))
        return .object(members)
    }
}
