import Foundation
import TophhieJSON
import TophhieRules

/// A sign-in read straight into an engine's slots: the values its rules and windows read, and
/// no object tree. What a streamed replay feeds the engine.
///
/// Three words (its values, its time and its layout), so an `any FastEvent` holds it in place:
/// a fourth and fifth, the id's, put every sign-in in a box of its own (an allocation, and a
/// free, a sign-in). The id is read from its slot, the layout's first. Only the values are
/// held: they hold the layout, whose table of places the event points into.
package struct SlotEvent: FastEvent {
    /// Written once, before the event is handed over (`SlotValues`: a managed buffer, which the
    /// standard library marks as never Sendable).
    nonisolated(unsafe) let values: SlotValues
    package let eventTime: Date
    /// The layout's places (`EventLayout.places`), valid while the values hold the layout
    /// (`SlotValues.Header`): a held layout was retained and released with the values at every
    /// copy of the event, and an unowned one at every read of it.
    nonisolated(unsafe) let places: UnsafePointer<Int>

    /// The `id` slot's text (`EventLayout.event` has checked it is not empty).
    package var eventID: String { SlotEvent.text(values, at: EventLayout.idPlace) ?? "" }

    /// The scalar text of `values[place]`, a string taken straight from its slot: copying the
    /// value out before taking its text retained and released it twice.
    @inline(__always) static func text(_ values: SlotValues, at place: Int) -> String? {
        values.withValues { values in
            if case .string(let text)? = values[place] { return text }
            return values[place]?.scalarText
        }
    }

    package func field(slot: FieldSlot) -> JSONValue? {
        let local = place(of: slot)
        return local >= 0 ? values[local] : nil
    }

    /// Where `slot`'s value sits in `values`, or -1 when this layout does not carry it.
    @inline(__always) private func place(of slot: FieldSlot) -> Int {
        slot.index < places[0] ? places[1 + slot.index] : -1
    }

    /// `field(slot:)?.scalarText`, a string taken straight from its slot: the engine reads about
    /// twenty texts a sign-in, and copying the value out before taking its text retained and
    /// released each twice.
    package func text(slot: FieldSlot) -> String? {
        let local = place(of: slot)
        return local >= 0 ? SlotEvent.text(values, at: local) : nil
    }

    /// Whether this event's values at `slots` are exactly `key` (`MatchMemo.same`), or only
    /// present where `presenceOnly` says so: compared where they lie, nothing copied.
    func holds(_ key: UnsafeBufferPointer<JSONValue?>, at slots: [FieldSlot], presenceOnly: [Bool]) -> Bool {
        values.withValues { mine in
            for k in slots.indices {
                let local = place(of: slots[k])
                let present = local >= 0 && mine[local] != nil
                if presenceOnly[k] {
                    // Only `exists` reads it, and a null is absent to it (`MatchMemo.answer`).
                    if (present && mine[local]?.isNull == false) != (key[k] != nil) { return false }
                    continue
                }
                if !present {
                    if key[k] != nil { return false }
                    continue
                }
                if !MatchMemo.same(mine, local, key, k) { return false }
            }
            return true
        }
    }

    package func field(at components: [String]) -> JSONValue? {
        FieldSlot.existing(components).flatMap { field(slot: $0) }
    }

    /// Every string of the record, when its layout keeps them (`EventLayout.keepsKeywordTexts`:
    /// the rules have a keyword search); none otherwise, as no rule asks.
    package func keywordTexts() -> [String] { values.header.keywordTexts ?? [] }

    /// The slots' values hashed in slot order (`SlotRevision`): within one layout, other
    /// content gives another revision; a change in a field no rule reads is not one (it could
    /// change nothing).
    package var revision: String? {
        var revision = SlotRevision()
        // A string matched where it lies and hashed in place: passing each slot's value on
        // copied it (a string retained and released, five or so a sign-in).
        values.withValues { slots in
            for index in slots.indices {
                switch slots[index] {
                case .string(let text)?: revision.add(text: text)
                case let value: revision.add(slot: value)
                }
            }
        }
        return revision.text
    }
}

/// Which slots an engine's events carry and where each sits in a `SlotEvent`, with the parser
/// layout that fills them. A class: every event refers to the one layout rather than carrying
/// copies of its tables.
///
/// Unchecked Sendable: `places` is written once, by `init`, and freed with the layout.
package final class EventLayout: @unchecked Sendable {
    package let slots: [FieldSlot]
    /// How many global slot numbers `places` covers, then, by global slot number, the place in
    /// `SlotEvent.values`, or -1.
    let places: UnsafeMutablePointer<Int>
    let json: JSONSlotLayout
    /// The paths by their first name, each with its place and the names after it: a mapped
    /// record's member is looked up once for all the paths under it (`event(json:)`).
    let pathsByFirst: [(first: String, paths: [(place: Int, rest: [String])])]
    /// Where every layout puts the id and the time.
    static let idPlace = 0
    static let timePlace = 1

    /// A layout for `slots`; `id` and `createdDateTime` are added when missing.
    /// Whether events keep every string of their record, for keyword searches (`SlotEvent.keywordTexts`).
    package let keepsKeywordTexts: Bool

    /// - Parameter keepsKeywordTexts: read each record whole as well, for its strings (rules with
    ///   a keyword search).
    package init(slots: [FieldSlot], keepsKeywordTexts: Bool = false) {
        self.keepsKeywordTexts = keepsKeywordTexts
        var unique: [FieldSlot] = []
        for slot in [FieldSlot.intern(["id"]), FieldSlot.intern(["createdDateTime"])] + slots where !unique.contains(slot) {
            unique.append(slot)
        }
        self.slots = unique
        let covered = (unique.map(\.index).max() ?? 0) + 1
        places = .allocate(capacity: covered + 1)
        places.initialize(repeating: -1, count: covered + 1)
        places[0] = covered
        for (place, slot) in unique.enumerated() { places[1 + slot.index] = place }
        json = JSONSlotLayout(paths: unique.map(\.components))
        var groups: [(first: String, paths: [(place: Int, rest: [String])])] = []
        for (place, path) in unique.map(\.components).enumerated() {
            guard let first = path.first else { continue }
            if let group = groups.firstIndex(where: { $0.first == first }) {
                groups[group].paths.append((place, Array(path.dropFirst())))
            } else {
                groups.append((first, [(place, Array(path.dropFirst()))]))
            }
        }
        pathsByFirst = groups
    }

    deinit { places.deallocate() }

    /// A table of the member order sign-ins are met in, for one batch's `event` calls on one
    /// thread (`JSONMemberOrder`).
    package func memberOrder() -> JSONMemberOrder { json.memberOrder() }

    /// A memory of the strings sign-ins held, for one batch's `event` calls on one thread
    /// (`JSONRepeatedTexts`).
    package func repeatedTexts() -> JSONRepeatedTexts { json.repeatedTexts() }

    /// One signIn object's bytes as an event.
    /// - Throws: `SignInEventError` with `SignInEvents.event`'s messages, or naming the JSON error.
    /// - Parameter untilFilled: stop reading once every slot has a value (`parseSlots`).
    package func event(_ bytes: [UInt8], untilFilled: Bool = false) throws -> SlotEvent {
        try bytes.withUnsafeBytes { try event($0, untilFilled: untilFilled) }
    }

    /// `event` over bytes lent for the call.
    package func event(_ bytes: UnsafeRawBufferPointer, untilFilled: Bool = false) throws -> SlotEvent {
        let values: SlotValues
        do {
            values = try SlotValues.make(count: slots.count, layout: self) { try JSONValue.parseSlots(bytes, layout: json, untilFilled: untilFilled, into: $0) }
            if keepsKeywordTexts { values.header.keywordTexts = KeywordTexts.of(try JSONValue.parse(bytes)) }
        } catch let failure as JSONParseError {
            throw SignInEventError("not a valid sign-in object (\(failure))")
        }
        return try event(values)
    }

    /// A sign-in already parsed (an export's record mapped to Graph's shape) as an event: each
    /// slot holds the value at its path, as `JSONSlotLayout` reads it from the record's bytes.
    /// - Throws: `SignInEventError` as `event(_:)` does.
    package func event(json record: JSONValue) throws -> SlotEvent {
        let paths = json.paths
        let values = SlotValues.make(count: slots.count, layout: self) { slots in
            guard case .object(let members) = record else {
                for (place, path) in paths.enumerated() { slots[place] = record.value(at: path) }
                return
            }
            // `record.value(at: path)`, the first name of many paths looked up once.
            for group in pathsByFirst {
                guard let member = members[group.first] else { continue }
                for (place, rest) in group.paths { slots[place] = rest.isEmpty ? member : member.value(at: rest) }
            }
        }
        if keepsKeywordTexts { values.header.keywordTexts = KeywordTexts.of(record) }
        return try event(values)
    }

    /// A sign-in whose slots `fill` writes (each the value at its path, `json.paths`, all nil to
    /// begin with) as an event: an export's row read straight into them (`RowSlots`).
    /// - Throws: `SignInEventError` as `event(_:)` does, and what `fill` throws.
    package func event(filling fill: (UnsafeMutableBufferPointer<JSONValue?>) throws -> Void) throws -> SlotEvent {
        try event(try SlotValues.make(count: slots.count, layout: self, fill: fill))
    }

    /// The sign-in object that starts at `start` in bytes that go on past it (records side by
    /// side), and the index just past it.
    /// - Throws: `SignInEventError` as `event` does.
    /// - Parameters:
    ///   - order: the member order of the sign-ins read before (`memberOrder()`), for a batch
    ///     read on one thread.
    ///   - texts: the strings the sign-ins read before held (`repeatedTexts()`), likewise.
    package func event(_ bytes: UnsafeRawBufferPointer, from start: Int, order: JSONMemberOrder? = nil,
                      texts: JSONRepeatedTexts? = nil) throws -> (event: SlotEvent, end: Int) {
        var end = start
        let values: SlotValues
        do {
            values = try SlotValues.make(count: slots.count, layout: self) { end = try JSONValue.parseSlots(bytes, from: start, layout: json, order: order, texts: texts, into: $0) }
            if keepsKeywordTexts { values.header.keywordTexts = KeywordTexts.of(try JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))) }
        } catch let failure as JSONParseError {
            throw SignInEventError("not a valid sign-in object (\(failure))")
        }
        return (try event(values), end)
    }

    /// Paths read in the same walk over a record as its event's slots, and not kept in the event
    /// (`event(_:from:alsoReading:order:texts:take:)`): a replay that checks each record as it
    /// reads it walked it twice.
    package struct OtherPaths: Sendable {
        let json: JSONSlotLayout
        /// Each path's place among the walk's values: among the event's own slots when it is one.
        let places: [Int]

        /// `EventLayout.memberOrder`, for this walk.
        package func memberOrder() -> JSONMemberOrder { json.memberOrder() }
        /// `EventLayout.repeatedTexts`, for this walk.
        package func repeatedTexts() -> JSONRepeatedTexts { json.repeatedTexts() }
    }

    /// `paths` read beside this layout's slots.
    package func alsoReading(_ paths: [[String]]) -> OtherPaths {
        var all = json.paths
        let places = paths.map { path in
            if let place = all.firstIndex(of: path) { return place }
            all.append(path)
            return all.count - 1
        }
        return OtherPaths(json: JSONSlotLayout(paths: all), places: places)
    }

    /// `event(_:from:order:texts:)`, the values at `other`'s paths (in its order) handed to `take`
    /// as the record is read; `order` and `texts` are `other`'s. A layout that keeps every
    /// string of a record reads it whole as well.
    package func event(_ bytes: UnsafeRawBufferPointer, from start: Int, alsoReading other: OtherPaths, order: JSONMemberOrder? = nil,
                      texts: JSONRepeatedTexts? = nil, take: ([JSONValue?]) -> Void) throws -> (event: SlotEvent, end: Int) {
        var end = start
        let values: SlotValues
        do {
            values = try SlotValues.make(count: slots.count, extra: other.json.paths.count - slots.count, layout: self, fill: {
                end = try JSONValue.parseSlots(bytes, from: start, layout: other.json, order: order, texts: texts, into: $0)
            }, take: { walked in take(other.places.map { walked[$0] }) })
            if keepsKeywordTexts { values.header.keywordTexts = KeywordTexts.of(try JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))) }
        } catch let failure as JSONParseError {
            throw SignInEventError("not a valid sign-in object (\(failure))")
        }
        return (try event(values), end)
    }

    /// The values taken over, not copied; the id and the time read where they lie (each copy
    /// out of the list retained and released a string, four a sign-in).
    private func event(_ values: SlotValues) throws -> SlotEvent {
        let idPlace = EventLayout.idPlace, timePlace = EventLayout.timePlace
        // The usual sign-in, a string id and a string time, read in place; anything else is
        // told apart below, with its message.
        let read = values.withValues { slots -> Date? in
            guard case .string(let id)? = slots[idPlace], !id.isEmpty, case .string(let text)? = slots[timePlace] else { return nil }
            return text.utf8.withContiguousStorageIfAvailable { GraphTimestamp.parse(utf8: $0) } ?? nil
        }
        if let read { return SlotEvent(values: values, eventTime: read, places: places) }
        let id = SlotEvent.text(values, at: idPlace) ?? ""
        guard !id.isEmpty else { throw SignInEventError("a sign-in has no 'id'") }
        let time: Date?
        switch values[timePlace] {
        case .string(var text)?: time = text.withUTF8 { GraphTimestamp.parse(utf8: $0) }
        default: throw SignInEventError("sign-in '\(id)' has no 'createdDateTime'")
        }
        guard let time else {
            let timeText = values[timePlace]?.stringValue ?? ""
            throw SignInEventError("sign-in '\(id)' has createdDateTime '\(timeText)', which is not an ISO 8601 time such as 2024-05-01T10:00:00Z")
        }
        return SlotEvent(values: values, eventTime: time, places: places)
    }
}
