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
/// an object that lowering makes one the paths name (`City` beside `city`), a name it does not
/// read written with an escape or past ASCII, JSON text with a surrogate escape.
///
/// A class, whose tables a copy of a reading does not retain one by one.
final class RowSlots: Sendable {
    /// The Graph paths read, each value in `values`' place of the same number.
    let paths: [[String]]
    /// A JSON row's columns as slots: each column's own value (an empty object for an object
    /// read for the paths under it), those paths, and the names that would lower onto them.
    let layout: JSONSlotLayout

    /// A column's mapping, the paths inside its value that are read (when it opens objects),
    /// and those paths then the clashing names, for its value written as JSON text.
    private struct Column: Sendable {
        let mapping: ColumnMapping
        let under: [[String]]
        let text: JSONSlotLayout?
    }

    /// What is asked of every column of every row, as plain numbers apart from `Column` (whose
    /// strings and lists a copy retains, on both reading threads at once).
    private struct Facts: Sendable {
        let slot: Int
        let input: ColumnMapping.Input?
        let becomesMember: Bool
        let isCountry: Bool
        let reading: ExportColumns.Reading
        let opens: Bool
        /// Its `under` paths' place in `underSlots` and `underReadings`, and its clashing names'
        /// in `clashSlots`.
        let underStart: Int
        let underCount: Int
        let clashStart: Int
        let clashCount: Int
    }

    /// One member the paths name: its columns' place in `memberColumns`, and which of the
    /// members the mapping makes from its inputs too it is (`FinishedMembers`).
    private struct Member: Sendable {
        let columnsStart: Int
        let columnsCount: Int
        let finished: FinishedMembers.Name?
    }

    /// One path: its member (in `members`), whether it is the member itself, and where, for
    /// each of the member's columns, its rest is among the column's `under` (`stepPlaces`,
    /// -1 when it is not).
    private struct Step: Sendable {
        let member: Int
        let whole: Bool
        let placesStart: Int
    }

    private let columns: [Column]
    private let facts: [Facts]
    private let underSlots: [Int]
    private let underReadings: [ExportColumns.Reading?]
    private let clashSlots: [Int]
    private let members: [Member]
    private let memberColumns: [Int]
    private let steps: [Step]
    private let stepPlaces: [Int]
    /// Each path without its member.
    private let rests: [[String]]
    /// Whether a member the paths name is made by `ExportRecord.finish`.
    private let finishes: Bool
    /// The status's place in `members`, when the paths name it, and whether every path under
    /// it, and every name its columns are read for, is one name: the members read are then
    /// each its column's value or the inputs' (`ExportRecord.statusDefault`), without the
    /// object made for each row and looked in again for each path.
    private let statusMember: Int?
    private let readsStatusFlat: Bool

    /// - Parameters:
    ///   - paths: Graph paths (each non-empty).
    ///   - columns: the row's columns that may be read, by name: those that become the paths'
    ///     members and the mapping's inputs (`ExportReading.columns(for:)`, a CSV's columns).
    init(paths: [[String]], columns names: [String]) {
        self.paths = paths
        // The portal's names (` [UTC]`, `_dynamic`) are watched for as the row is read
        // (`portalEndings`): a slot each tripled a row's slots, each made and freed every row.
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
        var columns: [Column] = [], facts: [Facts] = []
        var underSlots: [Int] = [], underReadings: [ExportColumns.Reading?] = [], clashSlots: [Int] = []
        for (index, mapping) in mappings.enumerated() {
            let slot = layoutPaths.count
            layoutPaths.append([mapping.name])
            let opens = !rests[index].isEmpty && !whole[index]
            let under = opens ? rests[index] : []
            if opens { opening.insert(slot) }
            var clashes: [[String]] = []
            for rest in under {
                for (position, name) in rest.enumerated() {
                    if let clash = Self.clashing(name), !clashes.contains(Array(rest[..<position]) + [clash]) {
                        clashes.append(Array(rest[..<position]) + [clash])
                    }
                }
            }
            facts.append(Facts(slot: slot, input: mapping.input, becomesMember: mapping.member != nil,
                               isCountry: mapping.isCountry, reading: mapping.reading, opens: opens, underStart: underSlots.count,
                               underCount: under.count, clashStart: clashSlots.count, clashCount: clashes.count))
            for rest in under {
                underSlots.append(layoutPaths.count)
                underReadings.append(ExportColumns.memberReading(rest.last!))
                layoutPaths.append([mapping.name] + rest)
            }
            for clash in clashes {
                clashSlots.append(layoutPaths.count)
                layoutPaths.append([mapping.name] + clash)
            }
            let text = opens && mapping.reading == .jsonText ? JSONSlotLayout(paths: under + clashes) : nil
            columns.append(Column(mapping: mapping, under: under, text: text))
        }
        layout = JSONSlotLayout(paths: layoutPaths, opening: opening)
        self.columns = columns
        self.facts = facts
        self.underSlots = underSlots
        self.underReadings = underReadings
        self.clashSlots = clashSlots
        var members: [Member] = [], memberColumns: [Int] = []
        for name in memberNames {
            let own = mappings.indices.filter { mappings[$0].member == name }
            members.append(Member(columnsStart: memberColumns.count, columnsCount: own.count, finished: FinishedMembers.Name(member: name)))
            memberColumns += own
        }
        self.members = members
        self.memberColumns = memberColumns
        var steps: [Step] = [], stepPlaces: [Int] = []
        for path in paths {
            let member = memberNames.firstIndex(of: path[0])!
            let rest = Array(path.dropFirst())
            steps.append(Step(member: member, whole: rest.isEmpty, placesStart: stepPlaces.count))
            let own = members[member]
            for column in memberColumns[own.columnsStart..<own.columnsStart + own.columnsCount] {
                stepPlaces.append(columns[column].under.firstIndex(of: rest) ?? -1)
            }
        }
        self.steps = steps
        self.stepPlaces = stepPlaces
        self.rests = paths.map { Array($0.dropFirst()) }
        finishes = members.contains { $0.finished != nil }
        statusMember = memberNames.firstIndex(of: FinishedMembers.Name.status.member)
        readsStatusFlat = statusMember.map { status in
            let own = members[status]
            return paths.allSatisfy { $0[0] != memberNames[status] || $0.count == 2 }
                && memberColumns[own.columnsStart..<own.columnsStart + own.columnsCount].allSatisfy { columns[$0].under.allSatisfy { $0.count == 1 } }
        } ?? false
    }

    /// The name other than `name` that `ExportRecord.lowered` makes `name`: its first letter
    /// raised (a name past ASCII, such as the Kelvin sign, which lowers to `k`, is watched for:
    /// `portalEndings`).
    static func clashing(_ name: String) -> String? {
        guard let first = name.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return nil }
        return String(UnicodeScalar(first - 0x20)) + name.dropFirst()
    }

    /// The values at `paths` of a JSON row's mapped record, written into `output` (a slot for
    /// each path, each nil), not a list made and freed for every row.
    /// - Returns: false when the row is not read so (the mapping reads it whole); `output` may
    ///   then hold some values.
    /// - Throws: `JSONParseError` when the bytes are not a JSON object.
    /// - Parameter memory: the member order and strings of the rows this thread read before,
    ///   and its buffers (`memory()`), for a batch of rows read on one thread; without one, the
    ///   buffers are made for this row.
    func fill(row bytes: UnsafeRawBufferPointer, memory: Memory? = nil, into output: UnsafeMutableBufferPointer<JSONValue?>) throws -> Bool {
        guard let memory, memory.owner === self else {
            return try withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: layout.paths.count) { slots in
                try fill(row: bytes, memory: nil, slots: slots, into: output)
            }
        }
        return try fill(row: bytes, memory: memory, slots: memory.slots, into: output)
    }

    /// `fill(row:memory:into:)` for the row that starts at `start` in bytes that go on past it
    /// (a run's), read in place rather than found first: the index just past it, or nil when
    /// the row is not read so.
    /// - Throws: `JSONParseError` when no JSON object starts there.
    func fill(rowIn bytes: UnsafeRawBufferPointer, from start: Int, memory: Memory, into output: UnsafeMutableBufferPointer<JSONValue?>) throws -> Int? {
        precondition(memory.owner === self, "a memory of this reading")
        let slots = memory.slots
        slots.initialize(repeating: nil)
        defer { JSONValue.dropSlots(slots) }
        let read = try JSONValue.parseSlots(bytes, from: start, layout: layout, watching: Self.portalEndings, order: memory.order, texts: memory.texts, into: slots)
        guard !read.watched else { return nil }
        let resolved = facts.withUnsafeBufferPointer { facts in resolve(slots, into: output, memory: memory) { slots[facts[$0].slot].take() } }
        return resolved ? read.end : nil
    }

    /// `fill(row:memory:into:)` through `slots` (uninitialised, left so).
    private func fill(row bytes: UnsafeRawBufferPointer, memory: Memory?, slots: UnsafeMutableBufferPointer<JSONValue?>,
                      into output: UnsafeMutableBufferPointer<JSONValue?>) throws -> Bool {
        slots.initialize(repeating: nil)
        defer { JSONValue.dropSlots(slots) }
        if try JSONValue.parseSlots(bytes, layout: layout, into: slots, watching: Self.portalEndings, order: memory?.order, texts: memory?.texts) {
            return false
        }
        // Each slot is read once, and taken rather than copied (retained here, released as
        // the slots are dropped).
        return facts.withUnsafeBufferPointer { facts in resolve(slots, into: output, memory: memory) { slots[facts[$0].slot].take() } }
    }

    /// What one thread remembers of the rows it read, one to the next: the order of their
    /// columns, their strings (most repeat from one row to the next), and the buffers it reads
    /// each through, kept from row to row (made for each row, on the stack they were too large
    /// for, each row allocated and freed them). A class: passed on for every row, it is retained
    /// once, not each thing it holds.
    final class Memory {
        /// The rows' reading it was made for (held, so no other takes its place): another's
        /// slots are numbered otherwise.
        let owner: RowSlots
        let order: JSONMemberOrder
        let texts: JSONRepeatedTexts
        /// The row's slots in `layout`.
        let slots: UnsafeMutableBufferPointer<JSONValue?>
        /// What each column gives the record, and the values at its `under` paths.
        let held: UnsafeMutableBufferPointer<JSONValue?>
        let given: UnsafeMutableBufferPointer<Given>
        /// By column, for one of JSON text read for its `under` paths (a CSV's), the order and
        /// strings of the objects read before, as `order` and `texts` are a row's, and what
        /// the texts read before gave.
        fileprivate let textMemory: [(order: JSONMemberOrder, texts: JSONRepeatedTexts, readings: RepeatedObjectTexts)?]

        fileprivate init(_ owner: RowSlots) {
            self.owner = owner
            order = owner.layout.memberOrder()
            texts = owner.layout.repeatedTexts()
            textMemory = owner.columns.map { column in column.text.map { ($0.memberOrder(), $0.repeatedTexts(), RepeatedObjectTexts()) } }
            slots = .allocate(capacity: owner.layout.paths.count)
            held = .allocate(capacity: owner.facts.count + owner.underSlots.count)
            given = .allocate(capacity: owner.facts.count)
        }

        deinit {
            // Each use leaves them uninitialised.
            slots.deallocate()
            held.deallocate()
            given.deallocate()
        }
    }

    /// A memory for a batch of rows read on one thread.
    func memory() -> Memory { Memory(self) }

    /// A column's name as the portal writes it: looked for among the names the layout lacks
    /// (with names written with an escape, which may spell one, and names past ASCII, which
    /// may hold the Kelvin sign, which Swift's strings take for `K`), rather than given a slot
    /// each, which tripled a row's slots.
    static let portalEndings: [[UInt8]] = [Array(" [UTC]".utf8), Array("_dynamic".utf8)]

    /// The values at `paths` of a CSV row's mapped record, from its fields, written into
    /// `output` (a slot for each path, each nil). A field of JSON text is read from its bytes,
    /// and only the others are made text.
    /// - Parameters:
    ///   - column: for each column given to `init`, by its place there, its field's place.
    ///   - memory: the thread's buffers (`memory()`).
    /// - Returns: false when the row is not read so (the mapping reads it whole); `output` may
    ///   then hold some values.
    func fill(fields: CSVFields, column: (Int) -> Int, memory: Memory? = nil, into output: UnsafeMutableBufferPointer<JSONValue?>) -> Bool {
        let memory = memory?.owner === self ? memory : nil
        // `text` is optional, so taken as escaping; it is used only within this call.
        return withoutActuallyEscaping(column) { column in
            fields.withView { view in
                facts.withUnsafeBufferPointer { facts in
                    resolve(UnsafeMutableBufferPointer(start: nil, count: 0), into: output, memory: memory,
                            { .string(Self.text(view[column($0)], slot: facts[$0].slot, texts: memory?.texts)) }, text: { view[column($0)] })
                }
            }
        }
    }

    /// A field's text (bytes that are not UTF-8 read as U+FFFD, as a `String` reads them): the
    /// one `texts` remembers for these bytes in `slot`, when it does. Most of a row's fields
    /// repeat from one row to the next, and making each anew was a tenth of reading a CSV row.
    private static func text(_ bytes: UnsafeRawBufferPointer, slot: Int, texts: JSONRepeatedTexts?) -> String {
        let utf8 = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        guard let texts, texts.remembers(slot) else { return String(decoding: utf8, as: UTF8.self) }
        return texts.text(slot: slot, utf8) { String(decoding: utf8, as: UTF8.self) } ?? String(decoding: utf8, as: UTF8.self)
    }

    /// What a column gives the record (`given`): nothing, its value as the mapping makes it,
    /// or the values at its `under` paths in it.
    enum Given: UInt8 { case absent, whole, under }

    /// The values at `paths`, from a row's slots in `layout` (JSON) and its columns' values.
    /// Every table is read through a pointer and every value held in the thread's buffers
    /// (`memory`, else ones made for the row): a copy of a column's description retained
    /// shared lists on both reading threads at once, and a row's lists were most of what
    /// reading one cost.
    /// - Parameters:
    ///   - raw: a column's value, by its place in `facts`.
    ///   - text: a CSV column's bytes, by the same place: JSON text is read from them.
    private func resolve(_ slots: UnsafeMutableBufferPointer<JSONValue?>, into output: UnsafeMutableBufferPointer<JSONValue?>, memory: Memory?,
                         _ raw: (Int) -> JSONValue?, text: ((Int) -> UnsafeRawBufferPointer)? = nil) -> Bool {
        func resolve(held: UnsafeMutableBufferPointer<JSONValue?>, given: UnsafeMutableBufferPointer<Given>) -> Bool {
            held.initialize(repeating: nil)
            defer { JSONValue.dropSlots(held) }
            given.initialize(repeating: .absent)
            return facts.withUnsafeBufferPointer { facts in
                self.resolve(slots, raw, text: text, facts: facts, held: held, given: given, memory: memory, output: output)
            }
        }
        if let memory { return resolve(held: memory.held, given: memory.given) }
        return withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: facts.count + underSlots.count) { held in
            withUnsafeTemporaryAllocation(of: Given.self, capacity: facts.count) { given in resolve(held: held, given: given) }
        }
    }

    private func resolve(_ slots: UnsafeMutableBufferPointer<JSONValue?>, _ raw: (Int) -> JSONValue?, text: ((Int) -> UnsafeRawBufferPointer)?,
                         facts: UnsafeBufferPointer<Facts>, held: UnsafeMutableBufferPointer<JSONValue?>, given: UnsafeMutableBufferPointer<Given>,
                         memory: Memory?, output: UnsafeMutableBufferPointer<JSONValue?>) -> Bool {
        let count = facts.count
        var inputs = ColumnMapping.Inputs()
        for index in 0..<count {
            let fact = facts[index]
            // A CSV field of JSON text, an object with nothing to trim (nearly every one), is
            // read from its bytes as the text made of them would be.
            if let text, fact.opens, fact.becomesMember, fact.input == nil, !fact.isCountry, fact.reading == .jsonText,
               let bytes = Self.objectText(text(index)) {
                given[index] = .whole
                guard hold(objectText: bytes, fact, at: index, under: count + fact.underStart, held: held, given: given, memory: memory,
                           notJSON: { .string(String(decoding: bytes, as: UTF8.self)) }) else { return false }
                continue
            }
            guard let value = raw(index) else { continue }
            inputs.note(fact.input, value)
            guard fact.becomesMember else { continue }
            if fact.isCountry, case .string = value { continue }
            given[index] = .whole
            guard fact.opens else {
                held[index] = ExportRecord.normalised(fact.reading, value)
                continue
            }
            let under = count + fact.underStart
            switch value {
            case .object:
                for place in fact.clashStart..<fact.clashStart + fact.clashCount where slots[clashSlots[place]] != nil { return false }
                given[index] = .under
                for place in 0..<fact.underCount {
                    held[under + place] = slots[underSlots[fact.underStart + place]].take()
                }
                lowerUnder(fact, held: held, at: under)
            case .string(let text) where fact.reading == .jsonText:
                var trimmed = ExportRecord.trimmingSpaces(text)
                guard trimmed.utf8.first == UInt8(ascii: "{") else {
                    held[index] = ExportRecord.normalised(fact.reading, value)
                    continue
                }
                guard trimmed.withUTF8({ hold(objectText: UnsafeRawBufferPointer($0), fact, at: index, under: under, held: held, given: given,
                                              memory: memory, notJSON: { value }) }) else { return false }
            default:
                held[index] = ExportRecord.normalised(fact.reading, value)
            }
        }
        // Each member from its one column; the finished ones then through `finish`.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { chosen in
            chosen.initialize(repeating: -1)
            return finish(facts: facts, held: held, given: given, chosen: chosen, inputs: inputs, output: output)
        }
    }

    /// Each member from its one column, the finished ones through `ExportRecord.finish`; then
    /// the value at each path, into `output`.
    private func finish(facts: UnsafeBufferPointer<Facts>, held: UnsafeMutableBufferPointer<JSONValue?>, given: UnsafeMutableBufferPointer<Given>,
                        chosen: UnsafeMutableBufferPointer<Int>, inputs: ColumnMapping.Inputs, output values: UnsafeMutableBufferPointer<JSONValue?>) -> Bool {
        let count = facts.count
        var record = FinishedMembers()
        var flatStatus = readsStatusFlat
        for (place, member) in members.enumerated() {
            for at in member.columnsStart..<member.columnsStart + member.columnsCount where given[memberColumns[at]] != .absent {
                if chosen[place] >= 0 { return false }
                chosen[place] = at
            }
            guard let name = member.finished, chosen[place] >= 0 else { continue }
            let column = memberColumns[chosen[place]]
            if place == statusMember, flatStatus {
                if given[column] == .under { continue }
                flatStatus = false
            }
            record[name] = given[column] == .whole ? held[column] : partial(columns[column].under, held, from: count + facts[column].underStart)
        }
        if finishes {
            ExportRecord.finish(&record, inputs, status: !flatStatus)
        }
        for (index, step) in steps.enumerated() {
            let member = members[step.member]
            if step.member == statusMember, flatStatus {
                // The status's member: its column's value, else the inputs'.
                let at = chosen[step.member]
                let place = at < 0 ? -1 : stepPlaces[step.placesStart + at - member.columnsStart]
                let own = place < 0 ? nil : held[count + facts[memberColumns[at]].underStart + place]
                values[index] = own ?? ExportRecord.statusDefault(rests[index][0], inputs)
                continue
            }
            if let name = member.finished {
                guard let value = record[name] else { continue }
                values[index] = step.whole ? value : value.value(at: rests[index])
                continue
            }
            let at = chosen[step.member]
            guard at >= 0 else { continue }
            let column = memberColumns[at]
            if given[column] == .whole {
                guard let value = held[column] else { continue }
                values[index] = step.whole ? value : value.value(at: rests[index])
            } else {
                let place = stepPlaces[step.placesStart + at - member.columnsStart]
                values[index] = held[count + facts[column].underStart + place]
            }
        }
        return true
    }

    /// What reading a column's JSON text gave.
    private enum TextReading {
        /// Not read so (a clashing name, a surrogate escape): the row is mapped whole.
        case declined
        /// Not JSON: the mapping keeps the text.
        case notJSON
        /// Its values at the column's `under` paths are held.
        case read
    }

    /// A column's JSON text of an object (its UTF-8) read for its `under` paths, held from
    /// `under` (`lowerUnder`); when it is not JSON, the mapping keeps `notJSON`'s text.
    /// - Returns: false when the row is not read so (the mapping reads it whole).
    private func hold(objectText bytes: UnsafeRawBufferPointer, _ fact: Facts, at index: Int, under: Int, held: UnsafeMutableBufferPointer<JSONValue?>,
                      given: UnsafeMutableBufferPointer<Given>, memory: Memory?, notJSON: () -> JSONValue) -> Bool {
        let textMemory = memory?.textMemory[index]
        if let remembered = textMemory?.readings.reading(of: bytes) {
            guard let values = remembered else {
                held[index] = notJSON()
                return true
            }
            given[index] = .under
            for place in values.indices { held[under + place] = values[place] }
            return true
        }
        switch Self.read(bytes, columns[index], memory: textMemory, into: held, at: under) {
        case .declined: return false
        case .notJSON:
            held[index] = notJSON()
            textMemory?.readings.remember(bytes, nil)
        case .read:
            given[index] = .under
            lowerUnder(fact, held: held, at: under)
            if let readings = textMemory?.readings, readings.remembers {
                readings.remember(bytes, Array(UnsafeMutableBufferPointer(rebasing: held[under..<under + fact.underCount])))
            }
        }
        return true
    }

    /// The values a column's object holds at its `under` paths, read into `held` from `at`:
    /// names inside lowered, text booleans and numbers read, as `lowerKeys` leaves them.
    private func lowerUnder(_ fact: Facts, held: UnsafeMutableBufferPointer<JSONValue?>, at start: Int) {
        for place in 0..<fact.underCount {
            guard let inner = held[start + place] else { continue }
            held[start + place] = ExportRecord.member(underReadings[fact.underStart + place], ExportRecord.lowerKeys(inner))
        }
    }

    /// A field's bytes when they are JSON text of an object that `ExportRecord.trimmingSpaces`
    /// leaves as it is: a brace first, a letter, digit or mark of ASCII last.
    private static func objectText(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let first = bytes.first, first == UInt8(ascii: "{"), let last = bytes.last, last > 0x20, last < 0x80 else { return nil }
        return bytes
    }

    /// A column's JSON text (an object, its UTF-8) read for its `under` paths, their values
    /// moved into `held` from `start` (which holds none yet).
    /// - Parameter memory: the column's in the thread's memory (`Memory.textMemory`).
    private static func read(_ bytes: UnsafeRawBufferPointer, _ column: Column, memory: (order: JSONMemberOrder, texts: JSONRepeatedTexts, readings: RepeatedObjectTexts)?,
                             into held: UnsafeMutableBufferPointer<JSONValue?>, at start: Int) -> TextReading {
        // A lone surrogate in a member no path reads is not walked as the parser reads it.
        guard ExportConversion.textsRead(bytes), let layout = column.text else { return .declined }
        return withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: layout.paths.count) { slots -> TextReading in
            slots.initialize(repeating: nil)
            defer { JSONValue.dropSlots(slots) }
            let watched: Bool
            do {
                watched = try JSONValue.parseSlots(bytes, layout: layout, into: slots, watching: [], order: memory?.order, texts: memory?.texts)
            } catch {
                return .notJSON
            }
            if watched || slots[column.under.count...].contains(where: { $0 != nil }) { return .declined }
            for place in 0..<column.under.count { swap(&held[start + place], &slots[place]) }
            return .read
        }
    }

    /// A column's object as far as it was read: the values at its `under` paths, held from `from`.
    private func partial(_ under: [[String]], _ held: UnsafeMutableBufferPointer<JSONValue?>, from: Int) -> JSONValue {
        // Nearly always names with nothing under them (a status's `errorCode`).
        var members = [String: JSONValue](minimumCapacity: under.count)
        for (place, path) in under.enumerated() {
            guard let value = held[from + place] else { continue }
            members[path[0]] = path.count == 1 ? value : Self.setting(value, at: path.dropFirst(), in: members[path[0]] ?? .object([:]))
        }
        return .object(members)
    }

    private static func setting(_ value: JSONValue, at path: ArraySlice<String>, in object: JSONValue) -> JSONValue {
        guard let name = path.first else { return value }
        guard case .object(var members) = object else { return object }
        members[name] = setting(value, at: path.dropFirst(), in: members[name] ?? .object([:]))
        return .object(members)
    }
}
